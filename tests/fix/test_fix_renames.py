"""Renames come from SGLang, not from spelling: an unambiguous typo of an existing flag is
renamed (safe), a flag SGLang removed is deleted with the reason (unsafe) and never "fixed" to
a neighbouring flag, and any other spelling suggestion stays a hint without edits."""

from __future__ import annotations

from conftest import EAGLE

from swacheck.sglang import flags
from swacheck.sglang.version import DEFAULT, PROFILES


def _swa303(lint, key: str, value: str = "true"):  # type: ignore[no-untyped-def]
    run = lint({"server.yaml": EAGLE + f"{key}: {value}\n"})
    (finding,) = run.findings("SWA303")
    return finding


def test_a_removed_flag_is_never_renamed_to_a_neighbour(lint):
    f = _swa303(lint, "disable-piecewise-cuda-graph")
    assert "disable-decode-cuda-graph" not in str(f)
    assert f["fix"]["safe"] is False
    assert [e["replacement"] for e in f["fix"]["edits"]] == [""]  # deleted, with the reason
    assert "no longer has this option" in f["fix"]["description"]
    assert "removed after SGLang 0.5.19" in f["message"]


def test_a_removed_flag_is_kept_by_the_safe_fix(tree):
    from conftest import run_cli

    text = EAGLE + "disable-piecewise-cuda-graph: true\n"
    root = tree({"server.yaml": text})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == text
    assert "(1 needs --unsafe-fixes)" in run.stderr


def test_an_unambiguous_typo_is_renamed(lint):
    f = _swa303(lint, "mem-fraction-statc", "0.8")
    assert f["fix"]["safe"] is True
    assert [e["replacement"] for e in f["fix"]["edits"]] == ["mem-fraction-static"]


def test_a_typo_of_a_key_already_set_is_deleted_when_it_says_the_same(lint):
    # EAGLE sets speculative-num-steps: 3; a rename would write it twice
    f = _swa303(lint, "speculative-num-stesp", "3")
    assert f["fix"]["safe"] is True
    assert [e["replacement"] for e in f["fix"]["edits"]] == [""]
    assert "already set to the same value" in f["fix"]["description"]


def test_a_typo_of_a_key_already_set_to_another_value_is_a_hint(lint):
    f = _swa303(lint, "speculative-num-stesp", "5")
    assert f["fix"]["edits"] == []
    assert "would write it twice" in f["fix"]["description"]


def test_a_looser_spelling_suggestion_is_a_hint_only(lint):
    f = _swa303(lint, "max-runnning-reqs", "8")
    assert f["fix"]["edits"] == []
    assert f["fix"]["description"].startswith("Did you mean 'max-running-requests'?")


def test_typo_of_needs_exactly_one_option_one_edit_away():
    assert flags.typo_of("speculative-num-stesp", DEFAULT) == "speculative-num-steps"
    assert flags.typo_of("max-runing-requests", DEFAULT) == "max-running-requests"
    assert flags.typo_of("page_sise", DEFAULT) == "page-size"
    assert flags.typo_of("disable-piecewise-cuda-graph", DEFAULT) is None
    assert flags.typo_of("tp", DEFAULT) is None  # too short to tell
    # one edit from tp-size, pp-size, dp-size and ep-size: ambiguous, no rename
    assert flags.typo_of("xp-size", DEFAULT) is None
    assert (
        flags._one_edit("abcd", "abdc")
        and flags._one_edit("abc", "abxc")
        and not flags._one_edit("abc", "abc")
    )


def test_removed_flag_looks_back_over_the_known_releases():
    assert flags.removed_flag("disable-piecewise-cuda-graph", DEFAULT) == "0.5.19"
    assert flags.removed_flag("page-size", DEFAULT) is None
    assert flags.removed_flag("disable-piecewise-cuda-graph", PROFILES["0.5.14"]) is None


def test_a_deprecated_flag_becomes_what_sglangs_table_names(tree):
    from conftest import run_cli

    root = tree({"server.yaml": EAGLE + "disable-cuda-graph: true  # slow start\n"})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stderr
    assert (
        (root / "server.yaml").read_text()
        == EAGLE + "cuda-graph-backend-decode: disabled\ncuda-graph-backend-prefill: disabled\n"
    )
    # the same from 0.5.20 (srt/server_args.py 0.5.21:345 names the same replacement)
    root = tree({"server.yaml": EAGLE + "disable-cuda-graph: true\n"})
    diff = run_cli("--diff", "--sglang-version", "0.5.21", "server.yaml", cwd=root)
    assert "+cuda-graph-backend-prefill: disabled" in diff.stdout
    # a release whose --config loader refuses one of the options named (0.5.19:
    # cuda-graph-backend-prefill shares its dest with a deprecated alias): no rename
    diff = run_cli("--diff", "--sglang-version", "0.5.19", "server.yaml", cwd=root)
    assert "cuda-graph-backend" not in diff.stdout
