"""Each round of ``--fix`` checks again only what it changed (recheck.py): the units its files are
in, and there only the deployments built from a changed file; a fix in one file of a PD pair
re-checks the pair. The answers are a full check's: the report ``--fix`` prints is the one a
fresh check of the fixed files gives, whatever each round kept."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

import swacheck.engine
import swacheck.recheck

# folder a: a PD pair whose prefill server has a typo (its fix renames the key, and the pair's
# compared num-steps then come from it); folder b: NEXTN with a typo (two rounds, in one
# file); folder c: a server with nothing to fix
FILES = {
    "a/p-prefill.yaml": "model-path: ../models/v4\ndisaggregation-mode: prefill\n"
    "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-setps: 2\n",
    "a/p-decode.yaml": "model-path: ../models/v4\ndisaggregation-mode: decode\n"
    "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 2\n",
    "b/one.yaml": "model-path: ../models/v4\nspeculative-algorithm: NEXTN\nspeculative-num-stesp: 3\n",
    "c/ok.yaml": "model-path: ../models/v4\nspeculative-algorithm: EAGLE\n"
    "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n",
}


@pytest.fixture
def watched(monkeypatch):
    """(files resolved, in order; the Recheck sessions made) during a run in this process."""
    monkeypatch.setenv("SWACHECK_JOBS", "1")  # the one-process rounds (fixworkers.py splits others)
    resolved: list[str] = []
    sessions: list[swacheck.recheck.Recheck] = []
    resolve = swacheck.engine.resolve

    def counting(dep, *args, **kwargs):  # type: ignore[no-untyped-def]
        resolved.append(dep.file.replace("\\", "/"))
        return resolve(dep, *args, **kwargs)

    init = swacheck.recheck.Recheck.__init__

    def recording(self, settings, *share):  # type: ignore[no-untyped-def]
        init(self, settings, *share)
        sessions.append(self)

    monkeypatch.setattr(swacheck.engine, "resolve", counting)
    monkeypatch.setattr(swacheck.recheck.Recheck, "__init__", recording)
    return resolved, sessions


def _report(root, *args: str) -> dict:
    out = root / "report.json"
    out.unlink(missing_ok=True)
    run_cli(*args, "--format", "json", "--output", str(out), "a", "b", "c", cwd=root)
    data = json.loads(out.read_text())
    data.pop("tool", None)
    return data


def test_fix_converges_across_units_and_reports_what_a_fresh_check_sees(tree, watched):
    resolved, sessions = watched
    root = tree(FILES)
    after_fix = _report(root, "--fix")
    assert (root / "a/p-prefill.yaml").read_text().endswith("speculative-num-steps: 2\n")
    assert (root / "b/one.yaml").read_text() == (
        "model-path: ../models/v4\nspeculative-algorithm: EAGLE\n"
        "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    assert (root / "c/ok.yaml").read_text() == FILES["c/ok.yaml"]
    (session,) = sessions
    assert session.full_checks == 1 and session.partial_checks >= 2  # b takes two rounds
    # the file nothing fixed, and the partner of the fixed prefill server, were resolved once
    assert resolved.count("c/ok.yaml") == 1
    assert resolved.count("a/p-decode.yaml") == 1
    assert resolved.count("a/p-prefill.yaml") == 2
    assert resolved.count("b/one.yaml") >= 3
    # what --fix reported (its last round's check) is what a fresh check of the files says
    assert after_fix == _report(root)
    assert after_fix["summary"]["errors"] == 0


def test_a_fix_in_one_file_of_a_pair_rechecks_the_pair(tree, watched):
    root = tree(FILES)
    before = {p["prefill"]["file"]: p for p in _report(root)["pairs"]}
    after = {p["prefill"]["file"]: p for p in _report(root, "--fix")["pairs"]}
    steps_before = before["a/p-prefill.yaml"]["compared"]["speculative_num_steps"]
    steps_after = after["a/p-prefill.yaml"]["compared"]["speculative_num_steps"]
    assert not steps_before["prefill_from"].startswith("a/p-prefill.yaml:5:")
    assert steps_after["prefill_from"] == "a/p-prefill.yaml:5:24"  # the renamed key
    assert steps_after["prefill"] == steps_after["decode"] == 2


def test_a_round_that_changes_a_deployment_file_is_checked_in_full(tree, watched):
    """A deployment file can change the units (its server:, a pairs: list): a round that edits
    one is checked as the first was, everything read and planned again."""
    _, sessions = watched
    deploy = (
        "swacheck: 1\nserver:\n  model-path: models/v4\n  speculative-algorithm: NEXTN\n"
        "  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
    )
    root = tree({"d.yaml": deploy, "e/ok.yaml": FILES["c/ok.yaml"]})
    run = run_cli("--fix", "d.yaml", "e", cwd=root)
    assert "speculative-algorithm: EAGLE\n" in (root / "d.yaml").read_text()
    assert run.exit_code == 0
    (session,) = sessions
    assert (session.full_checks, session.partial_checks) == (2, 0)


def test_a_round_that_changes_a_model_config_is_checked_in_full(tree, watched):
    """Every unit may read a model config: a round that edits one checks everything again."""
    _, sessions = watched
    deploy = (
        "swacheck: 1\nserver:\n  model-path: models/v4\n  disaggregation-mode: prefill\n"
        "  speculative-algorithm: EAGLE\n  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
        "draft:\n  model_config: models/mtp256\n"
    )
    root = tree({"d.yaml": deploy})
    args = ("--unsafe-fixes", "--fix-model-configs", "--align-to", "draft", "d.yaml")
    assert run_cli("--fix", *args, cwd=root).exit_code == 0
    (session,) = sessions
    assert (session.full_checks, session.partial_checks) == (2, 0)


def test_a_pair_that_did_not_change_keeps_its_pair_findings(tree, watched, monkeypatch):
    # folder d: an unchanged PD pair with speculative decoding on one side only (SWA406, a pair
    # finding) beside a file fixed in two rounds: the pair rules run on the pair once (the full
    # check), and what --fix reports is still what a fresh check of the fixed files says
    files = {
        "d/q-prefill.yaml": "model-path: ../models/v4\ndisaggregation-mode: prefill\n"
        "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 2\n",
        "d/q-decode.yaml": "model-path: ../models/v4\ndisaggregation-mode: decode\n",
        "d/one.yaml": FILES["b/one.yaml"],
    }
    import swacheck.rules.swa401 as rule

    seen: list[str] = []
    check_pair = rule.check_pair

    def counting(pair, ctx):  # type: ignore[no-untyped-def]
        seen.append(pair.prefill.deployment.file.replace("\\", "/"))
        return check_pair(pair, ctx)

    monkeypatch.setattr(rule, "check_pair", counting)
    root = tree(files)
    out = root / "report.json"
    run_cli("--fix", "--format", "json", "--output", str(out), "d", cwd=root)
    after_fix = json.loads(out.read_text())
    (session,) = watched[1]
    assert session.partial_checks >= 2 and seen == ["d/q-prefill.yaml"]
    assert (root / "d/one.yaml").read_text() == (
        "model-path: ../models/v4\nspeculative-algorithm: EAGLE\n"
        "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    out.unlink()
    run_cli("--format", "json", "--output", str(out), "d", cwd=root)
    fresh = json.loads(out.read_text())
    after_fix.pop("tool", None), fresh.pop("tool", None)
    assert after_fix == fresh
    assert [f["code"] for p in fresh["pairs"] for f in p["findings"]] == ["SWA406"]
