"""Work that grew faster than the input (issue 23): each attack here is a small file that once
kept swacheck busy for minutes; now the run ends, with the outcome a file of its kind gets.
The timings are benchmarks/hostile.py's; these tests only bound the run (a child with a
wall-clock timeout far above the time it takes) and check what it reports."""

from __future__ import annotations

from attacks import ITEMS, fan_out_pod
from budgets_common import GOOD, run_child, write_tree

from swacheck import grouping


def test_one_long_line_of_launch_marks_in_a_walk(tmp_path):
    """The walk asks of every YAML file whether a key could make it a launch kind that reads
    other files (apiVersion:, services:, run:...). For each mark found, the test went back to the
    start of its line: one 325 KB line of 'xapiVersion: ' took more than 200 s; now 0.3 s."""
    line = 'a: "' + "xapiVersion: " * 25_000 + '"\n'
    root = write_tree(tmp_path, {"big.yaml": line})
    run = run_child(["--format", "json", "."], root, timeout=60)
    assert run.exit_code == 0, run.stderr
    assert [d["name"] for d in run.data["deployments"]] == ["good"]
    assert run.data["summary"]["skipped_files"] == 3  # big.yaml and the two model configs


def test_the_launch_key_test_is_the_regular_expression_it_replaces():
    """_has_launch_key is _LAUNCH_KEYS.search, without its cost: the same answer on every
    short text of marks, blanks, dashes, quotes, braces, commas and line breaks."""
    import itertools

    pieces = ["run", "apiVersion", ":", " ", "-", "\n", "{", ",", "'", "x"]
    for n in range(1, 6):
        for combo in itertools.product(pieces, repeat=n):
            text = "".join(combo)
            assert grouping._has_launch_key(text) == bool(grouping._LAUNCH_KEYS.search(text)), text


def _fan_out_compose() -> str:
    return "\n".join(
        [f"x-args: &args {ITEMS}", "services:", "  a: &svc", "    image: lmsysorg/sglang:latest"]
        + ["    command: *args"]
        + [f"  s{i}: *svc" for i in range(999)]
    )


def test_yaml_aliases_fan_out_against_the_files_node_budget(tmp_path):
    """1,000 containers (or Compose services) that alias one whose args alias a 40,000-item
    list: 40 million words from a 200 KB file (once past 60 s and 1.2-1.5 GB; then, charged word
    by word, one error line after 27 s and 227 MB: the first two containers were read, 80,000
    words). The nodes an alias stands for count against the file's node budget each time it is
    used, while the file is parsed, before any reader expands it: one input error line at the
    alias that passes it, within the memory bound (tests/security/test_memory.py measures it)."""
    from swacheck import limits

    root = write_tree(
        tmp_path, {"pod.yaml": fan_out_pod() + "\n", "compose.yaml": _fan_out_compose() + "\n"}
    )
    why = (
        f"more than {limits.MAX_YAML_NODES} YAML nodes in this file once its aliases are "
        "expanded (the limit per file; an alias counts each time it is used)"
    )
    for name, line in (("pod.yaml", 16), ("compose.yaml", 10)):  # the 5th alias of the 40,000
        run = run_child(["--format", "json", name, GOOD], root, timeout=60)
        errors = run.stderr.splitlines()
        assert errors == [f"{name}:{line}:7: {why}"], errors
        assert [d["name"] for d in run.data["deployments"]] == ["good"]
        assert run.exit_code == 2
        assert run.peak_rss < 100 * limits.MiB, run.peak_rss


def test_an_alias_fan_out_under_the_node_budget_stops_at_the_word_budget(tmp_path):
    """Five containers aliasing 40,000 args (200,000 nodes, under the node budget): the words
    count each time an alias is used (limits.MAX_WORDS), so the third container is one error
    line; the two read before it give one finding each for their first 64 unknown flags and
    one that counts the rest (limits.MAX_KEY_FINDINGS), not 80,000 findings."""
    from swacheck import limits

    root = write_tree(tmp_path, {"pod.yaml": fan_out_pod(4) + "\n"})
    run = run_child(["--format", "json", "pod.yaml", GOOD], root, timeout=60)
    errors = run.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith("pod.yaml:4:"), errors
    assert f"more than {limits.MAX_WORDS} words in pod.yaml here" in errors[0]
    assert run.exit_code == 2
    pods = [d for d in run.data["deployments"] if d["name"] != "good"]
    assert len(pods) == 2
    for pod in pods:
        unknown = [f for f in pod["findings"] if f["code"] == "SWA303"]
        assert len(unknown) == limits.MAX_KEY_FINDINGS + 1
        assert unknown[-1]["message"].startswith(
            f"{40_000 - limits.MAX_KEY_FINDINGS} more server arguments argparse does not take"
        )


def test_yaml_words_of_a_run_are_bounded_too(tmp_path, monkeypatch):
    """Files each below their own budget, together past the run's (made small here)."""
    from budgets_common import run_cli

    from swacheck import limits

    monkeypatch.setattr(limits, "MAX_RUN_WORDS", 30)
    pod = "\n".join(
        [
            "apiVersion: v1",
            "kind: Pod",
            "metadata: {name: p}",
            "spec:",
            "  containers:",
            "    - name: s",
            "      image: lmsysorg/sglang:latest",
            "      command: [python, -m, sglang.launch_server, --model-path, models/v4, --tp, '1']",
        ]
    )
    root = write_tree(tmp_path, {f"p{i}.yaml": pod + "\n" for i in range(6)})
    run = run_cli("--format", "json", *[f"p{i}.yaml" for i in range(6)], cwd=root)
    errors = run.stderr.splitlines()
    # 7 words a file (the command's items): the 5th file passes 30, and the 6th gets the line too
    assert [e.split(":")[0] for e in errors] == ["p4.yaml", "p5.yaml"] and all(
        e.endswith(
            "this run has made more than 30 words of YAML values (the limit per run; "
            "a YAML alias counts each time it is used)"
        )
        for e in errors
    ), errors
    assert run.exit_code == 2
