"""No silent drop: wherever a bound stops reading (a script's function calls, eval / sh -c
nesting, the container search's node budget), the unit gets a SWA307 error saying what was not
read, and the run exits 1. A baselined finding whose severity rises is reported again."""

from __future__ import annotations

import json

from conftest import EAGLE, run_cli

LAUNCH = "python3 -m sglang.launch_server --model-path models/v4 --page-size 64"


def _only_limit(run):  # type: ignore[no-untyped-def]
    found = [f for d in run.data["deployments"] for f in d["findings"] if f["code"] == "SWA307"]
    assert len(found) == 1, found
    assert found[0]["severity"] == "error"
    return found[0]


def test_the_65th_call_of_a_scripts_function_is_an_error_not_a_pass(tree):
    # a `log` helper called 64 times used up the calls followed: `serve` vanished, exit 0
    script = (
        'log() { echo "$@"; }\n'
        f'serve() {{ {LAUNCH} "$@"; }}\n'
        "serve --tp-size 1\n"
        + "".join(f"log step {i}\n" for i in range(64))
        + "serve --tp-size 8\n"
    )
    root = tree({"run.sh": script})
    run = run_cli("--format", "json", "run.sh", cwd=root)
    f = _only_limit(run)
    assert f["location"]["line"] == 68  # the 66th call: the 64th log was the 65th
    assert "this call of serve is past the 64 calls" in f["message"]
    assert run.exit_code == 1


def test_calls_of_a_function_without_a_launch_past_the_limit_say_nothing(tree):
    script = (
        'log() { echo "$@"; }\n' + "".join(f"log step {i}\n" for i in range(70)) + LAUNCH + "\n"
    )
    root = tree({"run.sh": script})
    run = run_cli("--format", "json", "run.sh", cwd=root)
    assert not [f for d in run.data["deployments"] for f in d["findings"] if f["code"] == "SWA307"]


def test_a_launch_nested_past_the_eval_depth_limit_is_an_error(tree):
    for script in (
        "eval " * 6 + LAUNCH + "\n",
        "sh -c 'sh -c \"eval eval eval eval " + LAUNCH + "\"'\n",
    ):
        root = tree({"run.sh": script})
        run = run_cli("--format", "json", "run.sh", cwd=root)
        f = _only_limit(run)
        assert "nested more than 5 deep in eval / sh -c (the limit)" in f["message"], script
        assert run.exit_code == 1
    # five deep is read as before
    root = tree({"run.sh": "eval " * 5 + LAUNCH + "\n"})
    run = run_cli("--format", "json", "run.sh", cwd=root)
    assert [f["code"] for d in run.data["deployments"] for f in d["findings"]] == ["SWA201"]


def test_containers_past_the_container_search_budget_are_an_error(tree):
    filler = ",".join(["1"] * 200_500)
    manifest = (
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: big}\nspec:\n"
        f"  a: [{filler}]\n"
        "  z:\n    containers:\n    - name: s\n      image: lmsysorg/sglang:latest\n"
        "      command: [python3, -m, sglang.launch_server, --model-path, models/v4]\n"
    )
    root = tree({"cr.yaml": manifest})
    run = run_cli("--format", "json", "cr.yaml", cwd=root)
    f = _only_limit(run)
    assert (
        "Thing 'big': the search for its containers stopped here, past the 200,000 nodes"
        in f["message"]
    )
    assert f["location"]["line"] == 5
    assert run.exit_code == 1


def test_a_baselined_note_that_becomes_an_error_is_reported_again(tree):
    draft = EAGLE + "speculative-draft-model-path: models/mtp256\n"
    root = tree({"server.yaml": draft})
    (root / ".git").mkdir()
    written = run_cli("--write-baseline", "baseline.json", "server.yaml", cwd=root)
    assert written.exit_code == 0
    [entry] = json.loads((root / "baseline.json").read_text())["fingerprints"].values()
    assert (entry["code"], entry["severity"]) == ("SWA102", "note")
    same = run_cli("--format", "json", "--baseline", "baseline.json", "server.yaml", cwd=root)
    assert same.data["summary"]["baselined"] == 1
    # PD added: SGLang now compares the pools and refuses them; the same finding is an error
    (root / "server.yaml").write_text(draft + "disaggregation-mode: prefill\n")
    rose = run_cli("--format", "json", "--baseline", "baseline.json", "server.yaml", cwd=root)
    assert rose.data["summary"]["baselined"] == 0
    assert [
        (f["code"], f["severity"]) for d in rose.data["deployments"] for f in d["findings"]
    ] == [("SWA102", "error")]
    assert rose.exit_code == 1


def test_a_version_1_baseline_is_refused_with_what_to_do(tree):
    root = tree({"server.yaml": EAGLE, "old.json": '{"version": 1, "fingerprints": {}}\n'})
    run = run_cli("--baseline", "old.json", "server.yaml", cwd=root)
    assert run.exit_code == 2
    assert "version 1, whose fingerprints leave out the severity" in run.stderr
