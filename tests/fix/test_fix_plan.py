"""The planner weighs a round's edits against each other, and the verification compares what
each deployment hands SGLang before and after: a fix may change only the arguments its finding
names. Each test is one attack of issue 23 that the old planner got wrong."""

from __future__ import annotations

from conftest import run_cli

EAGLE_TOPK = "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"


def _fix(tree, files: dict[str, str], name: str, *flags: str):  # type: ignore[no-untyped-def]
    root = tree(files)
    run = run_cli("--fix", *flags, name, cwd=root)
    return root, run, (root / name).read_text()


def _converged(root, name: str, after: str) -> None:  # type: ignore[no-untyped-def]
    """A second --fix changes nothing."""
    again = run_cli("--fix", name, cwd=root)
    assert (root / name).read_text() == after
    assert "swacheck: 0 fixed, 0 remaining" in again.stderr


def test_a_typo_plus_an_unrelated_duplicate_keeps_the_users_value(tree):
    # the rename and SWA202's insertion of the same key, with page-size's duplicate deleted in
    # the same round, kept the file's count of duplicates: the user's 5 became 3 ("4 fixed")
    text = (
        "model-path: models/v4\nspeculative-num-stesp: 5\n"
        + EAGLE_TOPK
        + "page-size: 64\npage-size: 64\n"
    )
    root, run, after = _fix(tree, {"s.yaml": text}, "s.yaml")
    assert after == "model-path: models/v4\nspeculative-num-steps: 5\n" + EAGLE_TOPK
    assert "swacheck: 3 fixed, 0 remaining" in run.stderr
    _converged(root, "s.yaml", after)


def test_a_key_of_an_inline_merge_is_edited_in_place_not_its_whole_line(tree):
    # deleting page-size's line took speculative decoding and PD along
    text = (
        "model-path: models/v4\n"
        "<<: {page-size: 64, speculative-algorithm: EAGLE, disaggregation-mode: decode}\n"
        "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    _, run, after = _fix(tree, {"s.yaml": text}, "s.yaml")
    assert after == text.replace("page-size: 64", "page-size: 256")
    assert run.exit_code == 0


def test_a_block_merge_without_an_anchor_still_loses_the_line(tree):
    text = (
        "model-path: models/v4\n<<:\n  page-size: 64\n  speculative-algorithm: EAGLE\n"
        "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    _, _, after = _fix(tree, {"s.yaml": text}, "s.yaml")
    assert after == text.replace("  page-size: 64\n", "")


def test_a_fix_that_changes_arguments_its_finding_does_not_name_is_refused(tree, monkeypatch):
    # the verification, on its own: give back the old line deletion inside an inline merge
    from swacheck import fixes

    monkeypatch.setattr(fixes, "_block", lambda pair, mapping: not mapping.flow)
    text = (
        "model-path: models/v4\n"
        "<<: {page-size: 64, speculative-algorithm: EAGLE, disaggregation-mode: decode}\n"
        "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    for flag in ("--diff", "--fix"):
        root = tree({"s.yaml": text})
        run = run_cli(flag, "s.yaml", cwd=root)
        assert (root / "s.yaml").read_text() == text
        lines = [line for line in run.stderr.splitlines() if "not fixed" in line]
        assert lines == [
            "s.yaml: not fixed: SWA201's fix (Remove page-size: SGLang uses 256 for DeepSeek-V4 "
            "whatever is configured.) is refused: it would also change disaggregation-mode, "
            "speculative-algorithm of s, which its finding does not name; edit by hand; nothing "
            "is written for this round of fixes"
        ]
    assert "swacheck: 0 fixed, 1 remaining" in run.stderr


def test_several_fixes_of_one_file_are_tried_one_at_a_time_to_find_the_culprit(tree, monkeypatch):
    from swacheck import fixes

    monkeypatch.setattr(fixes, "_block", lambda pair, mapping: not mapping.flow)
    text = (
        "model-path: models/v4\n"
        "<<: {page-size: 64, speculative-algorithm: EAGLE, disaggregation-mode: decode}\n"
        "speculative-eagle-topk: 1\nspeculative-num-stesp: 3\n"
    )
    _, run, after = _fix(tree, {"s.yaml": text}, "s.yaml")
    # the rename is kept; the line deletion is refused
    assert after == text.replace("stesp", "steps")
    assert "SWA201's fix (Remove page-size" in run.stderr
    assert "swacheck: 1 fixed, 1 remaining" in run.stderr


def test_a_rename_onto_a_key_already_set_in_a_markdown_block(tree):
    doc = (
        "# Deploy\n\n```yaml\nmodel-path: models/v4\n"
        + EAGLE_TOPK
        + "speculative-num-stesp: 5\nspeculative-num-steps: 3\n```\n"
    )
    root, run, after = _fix(tree, {"d.md": doc}, "d.md")
    assert after == doc  # which of 5 and 3 is meant only the author knows
    assert "swacheck: 0 fixed, 1 remaining" in run.stderr
    same = doc.replace("stesp: 5", "stesp: 3")
    root, run, after = _fix(tree, {"d.md": same}, "d.md")
    assert after == same.replace("speculative-num-stesp: 3\n", "")
    _converged(root, "d.md", after)


def test_a_new_duplicate_in_a_markdown_block_is_refused_by_the_verification(tree, monkeypatch):
    # without the rule's own guard, the re-check sees the key written twice
    from swacheck.model.deployment import ServerArgs

    monkeypatch.setattr(
        ServerArgs,
        "get",
        lambda self, name: None if name.endswith("steps") else self.args.get(name),
    )
    doc = (
        "```yaml\nmodel-path: models/v4\n"
        + EAGLE_TOPK
        + "speculative-num-stesp: 5\nspeculative-num-steps: 3\n```\n"
    )
    _, run, after = _fix(tree, {"d.md": doc}, "d.md")
    assert after == doc
    assert "it would write speculative-num-steps twice in" in run.stderr


def test_a_rename_whose_result_has_its_own_safe_fix_converges_in_one_run(tree):
    text = "model-path: models/v4\nspeculative-algoritm: NEXTN\nspeculative-num-steps: 3\npage-size: 64\n"
    for name, files in (("s.yaml", {"s.yaml": text}), ("d.md", {"d.md": f"```yaml\n{text}```\n"})):
        root, run, after = _fix(tree, files, name)
        assert "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n" in after
        assert "page-size" not in after
        assert "0 remaining" in run.stderr
        _converged(root, name, after)


def test_numbers_copied_from_a_log_are_not_fixed(tree):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples/from-log/tuples.yaml"
    text = example.read_text()
    root = tree({"from-log/tuples.yaml": text})
    diff = run_cli("--diff", "from-log/tuples.yaml", cwd=root)
    assert diff.stdout == ""
    assert "0 files would change (0 fixes)" in diff.stderr
    run = run_cli("--fix", "from-log/tuples.yaml", cwd=root)
    assert (root / "from-log/tuples.yaml").read_text() == text
    assert run.exit_code == 1  # the SWA101 error stays
    assert "swacheck: 0 fixed, 1 remaining" in run.stderr


def test_a_fix_that_another_fix_of_its_file_makes_wrong_waits_and_is_derived_again(tree):
    # found by the fuzz campaign: SWA203 set the draft tokens to 4 (steps 3, SGLang's choice
    # while the steps key is misspelt) in the round that renamed the steps to 5; still reported,
    # it was refused, and only a second --fix wrote 6 ("3 fixed, 1 remaining")
    text = (
        "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"
        "speculative-num-draft-tokens: 9\nspeculative-num-stesp: 5\n"
    )
    root, run, after = _fix(tree, {"s.yaml": text}, "s.yaml")
    assert after == text.replace("tokens: 9", "tokens: 6").replace("stesp", "steps")
    assert "swacheck: 2 fixed, 0 remaining" in run.stderr
    assert "not fixed" not in run.stderr
    _converged(root, "s.yaml", after)
