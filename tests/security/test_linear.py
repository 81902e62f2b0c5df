"""Work that grew faster than the input (issue 23): each attack here is a small file that once
kept swacheck busy for minutes; now the run ends, with the outcome a file of its kind gets.
The timings are benchmarks/hostile.py's; these tests only bound the run (a child with a
wall-clock timeout far above the time it takes) and check what it reports."""

from __future__ import annotations

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


ITEMS = "[" + ", ".join(["--x"] * 40_000) + "]"


def _fan_out_pod() -> str:
    return "\n".join(
        [
            "apiVersion: v1",
            "kind: Pod",
            "metadata: {name: p}",
            f"x-args: &args {ITEMS}",
            "spec:",
            "  containers:",
            "    - &c",
            "      name: s",
            "      image: lmsysorg/sglang:latest",
            "      command: [python, -m, sglang.launch_server, --model-path, models/v4]",
            "      args: *args",
        ]
        + ["    - *c"] * 999
    )


def _fan_out_compose() -> str:
    return "\n".join(
        [f"x-args: &args {ITEMS}", "services:", "  a: &svc", "    image: lmsysorg/sglang:latest"]
        + ["    command: *args"]
        + [f"  s{i}: *svc" for i in range(999)]
    )


def test_yaml_aliases_fan_out_against_the_files_word_budget(tmp_path):
    """1,000 containers (or Compose services) that alias one whose args alias a 40,000-item
    list: 40 million words from a 200 KB file (once past 60 s and 1.2-1.5 GB). Each use of an
    alias counts against the file's word budget (limits.MAX_WORDS): one input error line."""
    from swacheck import limits

    root = write_tree(
        tmp_path, {"pod.yaml": _fan_out_pod() + "\n", "compose.yaml": _fan_out_compose() + "\n"}
    )
    why = "(the limit per file; a YAML alias counts each time it is used)"
    run = run_child(["--format", "json", "pod.yaml", GOOD], root, timeout=60)
    errors = run.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith("pod.yaml:4:"), errors
    assert errors[0].endswith(f": more than {limits.MAX_WORDS} words in pod.yaml here {why}")
    assert run.peak_rss < 400 * limits.MiB, run.peak_rss
    run = run_child(["--format", "json", "compose.yaml", GOOD], root, timeout=60)
    errors = run.stderr.splitlines()
    assert len(errors) == 1, errors
    assert errors[0].endswith(f": more than {limits.MAX_WORDS} words in compose.yaml here {why}")
    assert "good" in [d["name"] for d in run.data["deployments"]]
    assert run.exit_code == 2


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
