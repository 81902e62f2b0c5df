"""Values shared through YAML anchors and aliases are never edited through the anchor: such a
finding is "not fixable automatically", with the edit to make by hand, and the file is unchanged."""

from __future__ import annotations

from conftest import run_cli

from swacheck.fixes import anchored_spans

HEAD = "model-path: models/v4\nspeculative-algorithm: EAGLE\n"


def test_an_alias_of_a_value_that_needs_a_fix_is_not_fixed(tree):
    # the issue: the fix rewrote `&two 2` and left `*two` undefined
    text = HEAD + "tp-size: &two 2\nspeculative-eagle-topk: *two\nspeculative-num-steps: 3\n"
    root = tree({"server.yaml": text})
    run = run_cli("--fix", "--unsafe-fixes", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == text
    assert (
        "server.yaml:4:1: SWA202 not fixable automatically: the value is shared through a YAML anchor or alias"
        in run.stderr
    )
    assert "edit by hand: Set speculative-eagle-topk to 1." in run.stderr
    assert run.exit_code == 1


def test_an_alias_never_makes_the_fix_edit_the_anchored_key(tree):
    # the issue: with `speculative-num-draft-tokens: *n` the fix edited speculative-num-steps
    text = (
        HEAD
        + "speculative-eagle-topk: 1\nspeculative-num-steps: &n 3\nspeculative-num-draft-tokens: *n\n"
    )
    root = tree({"server.yaml": text})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == text
    assert "SWA203 not fixable automatically" in run.stderr
    diff = run_cli("--diff", "server.yaml", cwd=root)
    assert diff.stdout == ""


def test_deleting_a_line_that_defines_a_used_anchor_is_refused(tree):
    text = (
        HEAD
        + "speculative-eagle-topk: 1\nspeculative-num-steps: 3\npage-size: &p 64\nchunked-prefill-size: *p\n"
    )
    root = tree({"server.yaml": text})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == text
    assert "SWA201 not fixable automatically" in run.stderr


def test_other_fixes_in_a_file_with_anchors_still_apply(tree):
    text = HEAD.replace("EAGLE", "NEXTN") + "tp-size: &t 8\nep-size: *t\nspeculative-num-steps: 3\n"
    root = tree({"server.yaml": text})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stderr
    assert (root / "server.yaml").read_text() == (
        "model-path: models/v4\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 1\ntp-size: &t 8\nep-size: "
        "*t\nspeculative-num-steps: 3\n"
    )


def test_an_unused_anchor_does_not_block_a_fix(tree):
    text = HEAD + "speculative-eagle-topk: 1\nspeculative-num-steps: 3\npage-size: &p 64\n"
    root = tree({"server.yaml": text})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert run.exit_code == 0
    assert "page-size" not in (root / "server.yaml").read_text()


def test_anchored_spans_cover_aliases_and_used_anchored_collections():
    text = "a: &m {x: 1}\nb: *m\nc: &unused 3\n"
    spans = anchored_spans(text)
    covered = {text[s:e] for s, e in spans}
    assert "*m" in covered and "&m {x: 1}" in covered
    assert not any("unused" in c for c in covered)
