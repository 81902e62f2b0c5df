"""The planner's bookkeeping, seen from outside: which fixes share a round (the number of checks
a run makes), what ``--diff`` says each file's fixes are after a round was taken back, which
files a fix may not touch (a ``--command`` text, a file that did not read cleanly, a file
outside the root), and a Markdown deployment renamed by an edit above it. Each test is one
survivor of the mutation run on the fix modules (conformance/README.md)."""

from __future__ import annotations

import pytest
from conftest import V4_FLASH, run_cli

import swacheck.recheck

EAGLE_TOPK = "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"


@pytest.fixture
def checks(monkeypatch):
    """The Recheck sessions a run in this process made: (full checks, partial checks) each."""
    monkeypatch.setenv("SWACHECK_JOBS", "1")  # the one-process rounds (fixworkers.py splits others)
    sessions: list[swacheck.recheck.Recheck] = []
    init = swacheck.recheck.Recheck.__init__

    def recording(self, settings, *share):  # type: ignore[no-untyped-def]
        init(self, settings, *share)
        sessions.append(self)

    monkeypatch.setattr(swacheck.recheck.Recheck, "__init__", recording)

    def counts() -> list[tuple[int, int]]:
        return [(s.full_checks, s.partial_checks) for s in sessions]

    return counts


@pytest.mark.parametrize(
    "text",
    [
        # the page-size line SWA201 deletes starts where SWA202 inserts the top-k line
        "model-path: models/v4\nspeculative-algorithm: NEXTN\npage-size: 64\n"
        "speculative-num-steps: 3\n",
        # SWA201's deletion ends before the insertion point, in the line before it
        "page-size: 64\nmodel-path: models/v4\nspeculative-algorithm: NEXTN\n"
        "speculative-num-steps: 3\n",
    ],
    ids=["deletion-at-the-insertion-point", "deletion-before-it"],
)
def test_a_deletion_next_to_an_insertion_is_applied_in_the_same_round(tree, checks, text):
    # the two edits touch no common character: one round, checked once after the first check
    root = tree({"s.yaml": text})
    run = run_cli("--fix", "s.yaml", cwd=root)
    assert (root / "s.yaml").read_text() == (
        "model-path: models/v4\n" + EAGLE_TOPK + "speculative-num-steps: 3\n"
    )
    assert "swacheck: 2 fixed, 0 remaining" in run.stderr
    assert checks() == [(1, 1)]


PAGE_SIZE_UNDERSCORED = (
    "model-path: models/v4\n" + EAGLE_TOPK + "speculative-num-steps: 3\npage_size: 64\n"
)
DELETED = (
    "swacheck: SWA201 safe fix: Remove page_size: SGLang uses 256 for DeepSeek-V4 whatever is "
    "configured.\n"
    "--- a/{0}\n+++ b/{0}\n@@ -2,4 +2,3 @@\n speculative-algorithm: EAGLE\n"
    " speculative-eagle-topk: 1\n speculative-num-steps: 3\n-page_size: 64\n"
)


def test_an_edit_overlapping_one_already_taken_waits_and_is_not_needed(tree, checks):
    # SWA201 deletes page_size's line, SWA303 would rename its key in it: the rename overlaps
    # the deletion and waits for the next round, where nothing is left to rename. Taken
    # together, the deletion would be lost (the rename wins the overlap), SWA201 be put back
    # and tried again, and --diff name both fixes for one deleted line
    root = tree({"s.yaml": PAGE_SIZE_UNDERSCORED})
    run = run_cli("--diff", "s.yaml", cwd=root)
    assert run.stdout == DELETED.format("s.yaml")
    assert run.stderr == "swacheck: 1 file would change (1 fix)\n"
    assert checks() == [(1, 1)]


def test_diff_paths_are_relative_to_the_root_not_the_working_directory(tree):
    root = tree({"sub/s.yaml": PAGE_SIZE_UNDERSCORED})
    (root / "sub/models").symlink_to(root / "models")
    run = run_cli("--diff", "--root", str(root), "s.yaml", cwd=root / "sub")
    assert run.stdout == DELETED.format("sub/s.yaml")


def test_diff_names_each_fix_once_after_a_round_was_taken_back(tree, checks):
    # SWA203's first fix (tokens 4, while the steps key is misspelt) is still reported after
    # round 1 and waits; round 1 is put back in the file: its fixes must leave the header too
    text = (
        "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"
        "speculative-num-draft-tokens: 9\nspeculative-num-stesp: 5\n"
    )
    root = tree({"s.yaml": text})
    run = run_cli("--diff", "s.yaml", cwd=root)
    assert run.exit_code == 1
    assert run.stdout == (
        "swacheck: SWA303 safe fix: Rename 'speculative-num-stesp' to 'speculative-num-steps'.\n"
        "swacheck: SWA203 safe fix: Set speculative-num-draft-tokens to 6 "
        "(speculative-num-steps + 1).\n"
        "--- a/s.yaml\n+++ b/s.yaml\n@@ -1,5 +1,5 @@\n"
        " model-path: models/v4\n speculative-algorithm: EAGLE\n speculative-eagle-topk: 1\n"
        "-speculative-num-draft-tokens: 9\n-speculative-num-stesp: 5\n"
        "+speculative-num-draft-tokens: 6\n+speculative-num-steps: 5\n"
    )
    assert run.stderr == "swacheck: 1 file would change (2 fixes)\n"
    assert (root / "s.yaml").read_text() == text
    # round 1 (both, put back), round 2 (the rename), round 3 (SWA203 derived again)
    assert checks() == [(1, 4)]


@pytest.mark.parametrize("flag", ["--fix", "--diff"])
def test_a_command_text_is_not_looked_for_on_disk(tree, flag):
    # its findings are at <command>: no file to read again, only a line saying it is not one
    root = tree({})
    command = (
        "python -m sglang.launch_server --model-path models/v4 "
        "--speculative-algorithm NEXTN --speculative-num-steps 3"
    )
    run = run_cli(flag, "--command", command, cwd=root)
    assert run.stderr == (
        "swacheck: not fixing the --command text <command>: --fix and --diff edit files only "
        "(put the command in a script and name it)\n"
    ) + (
        "swacheck: 0 fixed, 1 remaining\n"
        if flag == "--fix"
        else "swacheck: 0 files would change (0 fixes)\n"
    )
    assert not (root / "<command>").exists()


COMPOSE = (
    "services:\n  a:\n    image: lmsysorg/sglang\n    command: python -m sglang.launch_server "
    "--model-path models/v4 --speculative-algorithm NEXTN --speculative-num-steps 3\n"
    "  b:\n    image: lmsysorg/sglang\n"
    '    command: python -m sglang.launch_server --model-path "models/v4\n'
)


@pytest.mark.parametrize("flag", ["--fix", "--diff"])
def test_a_file_with_an_input_error_is_not_fixed_and_says_why(tree, flag):
    # service b's command does not read: service a's fix would be the only edit of a file the
    # check could not read whole, so nothing is written or shown for it, and one line says why
    root = tree({"compose.yaml": COMPOSE})
    run = run_cli(flag, "compose.yaml", cwd=root)
    assert run.exit_code == 2
    assert (root / "compose.yaml").read_text() == COMPOSE
    error = "compose.yaml:7:14: command: unterminated double quote"
    why = f"compose.yaml: not fixed: part of it cannot be read ({error}); mend that, then run --fix again\n"
    if flag == "--diff":
        assert run.stdout == ""
        assert run.stderr == error + "\n" + why + "swacheck: 0 files would change (0 fixes)\n"
    else:  # no fix tried (it would be taken back: "the fixed file would not parse")
        assert run.stderr == why + error + "\n" + "swacheck: 0 fixed, 1 remaining\n"
    check = run_cli("compose.yaml", cwd=root)
    assert "fixable with --fix" not in check.stdout  # what --fix would not fix is not offered


def test_a_fix_in_a_file_without_an_input_error_is_still_counted(tree):
    root = tree({"compose.yaml": COMPOSE.replace('"models/v4', "models/v4")})
    assert "1 fixable with --fix" in run_cli("compose.yaml", cwd=root).stdout


def test_diff_shows_no_patch_for_a_file_named_outside_the_root(tmp_path):
    # a file named on the command line is read wherever it is; only the root is ever edited,
    # and --diff shows what --fix would write
    server = "model-path: models/v4\n" + EAGLE_TOPK + "speculative-num-steps: 3\npage-size: 64\n"
    (tmp_path / "o/models/v4").mkdir(parents=True)
    (tmp_path / "o/models/v4/config.json").write_text(V4_FLASH)
    (tmp_path / "o/server.yaml").write_text(server)
    (tmp_path / "r").mkdir()
    root = tmp_path / "r"
    said = f"../o/server.yaml: not fixed: it is outside the root {root} (--root)\n"
    diff = run_cli("--diff", "--root", str(root), "../o/server.yaml", cwd=root)
    assert (diff.exit_code, diff.stdout) == (0, "")
    assert diff.stderr == said + "swacheck: 0 files would change (0 fixes)\n"
    fix = run_cli("--fix", "--root", str(root), "../o/server.yaml", cwd=root)
    assert fix.stderr == said + "swacheck: 0 fixed, 1 remaining\n"
    assert (tmp_path / "o/server.yaml").read_text() == server


def test_a_markdown_deployment_renamed_by_a_deleted_line_above_it_is_still_itself(tree):
    # the second block's deployment is named by its line (d.md:11); deleting page-size in the
    # first block makes it d.md:10: the same deployment, not one "no longer read"
    doc = (
        "# Deploy\n\n```yaml\nmodel-path: models/v4\npage-size: 64\n```\n\nthen\n\n```yaml\n"
        "model-path: models/v4\n" + EAGLE_TOPK + "speculative-num-steps: 3\n```\n"
    )
    root = tree({"d.md": doc})
    run = run_cli("--fix", "d.md", cwd=root)
    assert (root / "d.md").read_text() == doc.replace("page-size: 64\n", "")
    assert run.exit_code == 0
    assert run.stderr == "swacheck: fixed d.md\nswacheck: 1 fixed, 0 remaining\n"


# SWA201's line deletion inside an inline merge, given back (as test_fix_plan.py does to test
# the verification on its own): the fix changes arguments its finding does not name
CULPRIT = "<<: {page-size: 64, speculative-algorithm: EAGLE, disaggregation-mode: decode}\n"
TYPOS = [  # (as written, as SWA303 renames it), in the order the rounds take them
    ("tp-szie: 8\n", "tp-size: 8\n"),
    ("mem-fraction-statc: 0.8\n", "mem-fraction-static: 0.8\n"),
    ("context-lenght: 4096\n", "context-length: 4096\n"),
    ("max-running-requets: 8\n", "max-running-requests: 8\n"),
    ("chunked-prefil-size: 4096\n", "chunked-prefill-size: 4096\n"),
    ("schedule-polcy: lpm\n", "schedule-policy: lpm\n"),
    ("trust-remot-code: true\n", "trust-remote-code: true\n"),
    ("kv-cache-dtpe: auto\n", "kv-cache-dtype: auto\n"),
    ("max-total-tokns: 8192\n", "max-total-tokens: 8192\n"),
]


@pytest.fixture
def culprit(monkeypatch):
    from swacheck import fixes

    monkeypatch.setattr(fixes, "_block", lambda pair, mapping: not mapping.flow)


@pytest.mark.parametrize("typos,fixed", [(8, 8), (9, 8)])
def test_rounds_taken_back_are_not_among_the_eight_that_apply_fixes(tree, culprit, typos, fixed):
    # round 1 (all nine fixes) and round 2 (SWA201 alone, refused) are taken back; the typos
    # are then renamed one per round: eight rounds that apply fixes (docs/fixes.md) rename
    # eight of them, and a ninth waits for the next run. Counting the two rounds taken back
    # among the eight renamed six.
    text = "model-path: models/v4\n" + CULPRIT + EAGLE_TOPK + "speculative-num-steps: 3\n"
    root = tree({"s.yaml": text + "".join(wrong for wrong, _ in TYPOS[:typos])})
    run = run_cli("--fix", "s.yaml", cwd=root)
    assert f"swacheck: {fixed} fixed, {1 + typos - fixed} remaining" in run.stderr
    assert (root / "s.yaml").read_text() == text + "".join(
        right if n < fixed else wrong for n, (wrong, right) in enumerate(TYPOS[:typos])
    )


@pytest.mark.parametrize("blocks,fixed", [(31, 1), (32, 0)])
def test_at_most_32_rounds_are_taken_back(tree, culprit, blocks, fixed):
    # a Markdown file of `blocks` deployments, each with the culprit, and one with a typo: round
    # 1 is taken back, then each culprit is refused alone (one round each); the typo's round
    # comes after 32 rounds taken back; the 33rd ends the run
    block = (
        "```yaml\nmodel-path: models/v4\n"
        + CULPRIT
        + EAGLE_TOPK
        + "speculative-num-steps: 3\n```\n\n"
    )
    doc = block * blocks + "```yaml\nmodel-path: models/v4\ntp-szie: 8\n```\n"
    root = tree({"d.md": doc})
    run = run_cli("--fix", "d.md", cwd=root)
    assert f"swacheck: {fixed} fixed, {blocks + 1 - fixed} remaining" in run.stderr
    assert (root / "d.md").read_text() == (doc.replace("tp-szie", "tp-size") if fixed else doc)
    assert run.stderr.count("SWA201's fix (Remove page-size") == blocks  # each refused


def test_the_fixes_of_a_file_are_tried_one_at_a_time_before_one_is_blamed(tree, culprit):
    # the culprit (SWA102's unsafe line deletion inside an inline merge) sorts after the safe
    # rename: the round of both cannot say which changed the merge's other key, so neither is
    # blamed; one at a time, the rename is kept and SWA102 is refused
    merge = "<<: {speculative-draft-model-path: models/mtp256, disaggregation-mode: decode}\n"
    text = "model-path: models/v4\n" + merge + EAGLE_TOPK + "speculative-num-steps: 3\ntp-szie: 8\n"
    root = tree({"s.yaml": text})
    run = run_cli("--fix", "--unsafe-fixes", "s.yaml", cwd=root)
    assert (root / "s.yaml").read_text() == text.replace("tp-szie", "tp-size")
    changed = "disaggregation-mode, speculative-draft-model-path of s"
    assert run.stderr.splitlines() == [
        f"s.yaml: not fixed: it would also change {changed}, which no fix of this round names "
        "(its fixes are tried one at a time); nothing is written for this round of fixes",
        "s.yaml: not fixed: SWA102's fix (Remove speculative-draft-model-path: DeepSeek-V4's MTP "
        "draft is the target checkpoint's own NextN layer, and SGLang loads it from model-path "
        f"when no draft path is set.) is refused: it would also change {changed}, which its "
        "finding does not name; edit by hand; nothing is written for this round of fixes",
        "swacheck: fixed s.yaml",
        "swacheck: 1 fixed, 1 remaining",
    ]


def test_a_fix_that_makes_a_markdown_block_unreadable_is_refused(tree, culprit):
    # deleting the first line of a flow mapping written on two lines leaves a block that does
    # not read: its deployment is gone, and the next block's moved up a line. The file then
    # holds fewer deployments than before, so none is matched by its place: both are named
    doc = (
        "```yaml\nmodel-path: models/v4\n<<: {page-size: 64,\n  disaggregation-mode: decode}\n"
        "```\n\n```yaml\nmodel-path: models/v4\n" + EAGLE_TOPK + "speculative-num-steps: 3\n```\n"
    )
    root = tree({"d.md": doc})
    run = run_cli("--fix", "d.md", cwd=root)
    assert (root / "d.md").read_text() == doc
    assert run.stderr.splitlines() == [
        "d.md: not fixed: SWA201's fix (Remove page-size: SGLang uses 256 for DeepSeek-V4 "
        "whatever is configured.) is refused: d.md:2 would no longer be read as a deployment; "
        "d.md:8 would no longer be read as a deployment, which its finding does not name; edit "
        "by hand; nothing is written for this round of fixes",
        "swacheck: 0 fixed, 1 remaining",
    ]
