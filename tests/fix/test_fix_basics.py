"""--diff and --fix: only the edited spans change, atomically, idempotently, and the result is clean;
unsafe fixes (here: dropping the draft path) only with --unsafe-fixes."""

from __future__ import annotations

import os
import stat

import pytest
from conftest import EAGLE, MTP_W256, V4_FLASH, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swacheck import fixes
from swacheck.model.records import Edit

BROKEN = """\
# decode server   (comment kept)
model-path: models/v4   # the target

speculative-draft-model-path: 'models/mtp256'
disaggregation-mode: "decode"
speculative-algorithm: NEXTN
speculative-num-steps: 3
page-size: 64
"""


def test_diff_prints_the_edits_and_writes_nothing(tree):
    root = tree({"server.yaml": BROKEN})
    before = (root / "server.yaml").read_bytes()
    run = run_cli("--diff", "--unsafe-fixes", "server.yaml", cwd=root)
    assert run.exit_code == 1
    assert (root / "server.yaml").read_bytes() == before
    assert "\n--- a/server.yaml\n+++ b/server.yaml\n" in run.stdout
    assert "swacheck: SWA102 unsafe fix: Remove speculative-draft-model-path" in run.stdout
    assert "swacheck: SWA201 safe fix: Remove page-size" in run.stdout
    assert "-speculative-draft-model-path: 'models/mtp256'\n" in run.stdout
    assert (
        "-speculative-algorithm: NEXTN\n+speculative-algorithm: EAGLE\n+speculative-eagle-topk: 1\n"
        in run.stdout
    )
    assert "-page-size: 64\n" in run.stdout
    assert "1 file would change" in run.stderr
    safe_only = run_cli("--diff", "server.yaml", cwd=root)
    assert "-speculative-draft-model-path" not in safe_only.stdout
    assert "1 more with --unsafe-fixes" in safe_only.stderr


def test_fix_changes_only_the_edited_lines_and_the_result_is_clean(tree):
    root = tree({"server.yaml": BROKEN})
    run = run_cli("--fix", "--unsafe-fixes", "--format", "json", "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stdout
    assert run.codes() == []
    assert (root / "server.yaml").read_text() == (
        "# decode server   (comment kept)\n"
        "model-path: models/v4   # the target\n"
        "\n"
        'disaggregation-mode: "decode"\n'
        "speculative-algorithm: EAGLE\n"
        "speculative-eagle-topk: 1\n"
        "speculative-num-steps: 3\n"
    )
    assert "swacheck: fixed server.yaml" in run.stderr
    assert "swacheck: 3 fixed, 0 remaining" in run.stderr


def test_without_unsafe_fixes_the_unsafe_one_remains(tree):
    root = tree({"server.yaml": BROKEN})
    run = run_cli("--fix", "--format", "json", "server.yaml", cwd=root)
    assert run.exit_code == 1
    assert run.codes() == ["SWA102"]
    assert "speculative-draft-model-path: 'models/mtp256'\n" in (root / "server.yaml").read_text()
    assert "swacheck: 2 fixed, 1 remaining (1 needs --unsafe-fixes)" in run.stderr


def test_fix_twice_changes_nothing_the_second_time(tree):
    root = tree({"server.yaml": BROKEN})
    run_cli("--fix", "--unsafe-fixes", "server.yaml", cwd=root)
    once = (root / "server.yaml").read_bytes()
    mtime = (root / "server.yaml").stat().st_mtime_ns
    second = run_cli("--fix", "--unsafe-fixes", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_bytes() == once
    assert (root / "server.yaml").stat().st_mtime_ns == mtime  # not even rewritten
    assert (
        "swacheck: fixed" not in second.stderr and "swacheck: 0 fixed, 0 remaining" in second.stderr
    )


def test_fix_keeps_crlf_line_endings_and_permissions(tree):
    root = tree({})
    path = root / "server.yaml"
    path.write_bytes(BROKEN.replace("\n", "\r\n").encode())
    os.chmod(path, 0o640)
    run_cli("--fix", "server.yaml", cwd=root)
    data = path.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert b"speculative-eagle-topk: 1\r\n" in data
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_fix_keeps_a_utf8_bom(tree):
    root = tree({})
    (root / "server.yaml").write_bytes(b"\xef\xbb\xbf" + BROKEN.encode())
    run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_bytes().startswith(b"\xef\xbb\xbf# decode")


def test_model_config_fixes_need_the_extra_flag(tree):
    deploy = (
        "swacheck: 1\nserver:\n  model-path: models/v4\n  disaggregation-mode: prefill\n"
        "  speculative-algorithm: EAGLE\n  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
        "draft:\n  model_config: models/mtp256\n"
    )
    root = tree({"d.yaml": deploy})
    assert (
        "sliding_window" not in run_cli("--diff", "d.yaml", cwd=root).stdout
    )  # editing a checkpoint is unsafe
    diff = run_cli("--diff", "--unsafe-fixes", "d.yaml", cwd=root)
    assert '-  "sliding_window": 256,\n+  "sliding_window": 128,\n' in diff.stdout
    run = run_cli("--fix", "--unsafe-fixes", "d.yaml", cwd=root)
    assert run.exit_code == 1  # still failing: the fix belongs to the checkpoint
    assert "not fixing models/mtp256/config.json" in run.stderr
    assert (root / "models/mtp256/config.json").read_text() == MTP_W256
    run = run_cli("--fix", "--unsafe-fixes", "--fix-model-configs", "d.yaml", cwd=root)
    assert run.exit_code == 0
    assert '"sliding_window": 128,' in (root / "models/mtp256/config.json").read_text()


def test_align_to_draft_moves_the_target(tree):
    deploy = (
        "swacheck: 1\nserver:\n  model-path: models/v4\n  disaggregation-mode: prefill\n"
        "  speculative-algorithm: EAGLE\n  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
        "draft:\n  model_config: models/mtp256\n"
    )
    root = tree({"d.yaml": deploy})
    run = run_cli(
        "--fix", "--unsafe-fixes", "--fix-model-configs", "--align-to", "draft", "d.yaml", cwd=root
    )
    assert run.exit_code == 0
    assert '"sliding_window": 256,' in (root / "models/v4/config.json").read_text()
    assert (root / "models/mtp256/config.json").read_text() == MTP_W256


def test_a_file_that_failed_to_parse_is_never_written(tree):
    root = tree({"bad.yaml": "model-path: [\n", "server.yaml": BROKEN})
    before = (root / "bad.yaml").read_bytes()
    run = run_cli("--fix", "--unsafe-fixes", "bad.yaml", "server.yaml", cwd=root)
    assert run.exit_code == 2
    assert (root / "bad.yaml").read_bytes() == before


def test_a_failed_write_leaves_the_original_intact(tree, monkeypatch):
    root = tree({"server.yaml": BROKEN})
    before = (root / "server.yaml").read_bytes()

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert run.exit_code == 2  # a failed write is an error, whatever the findings
    assert (root / "server.yaml").read_bytes() == before
    assert (
        "server.yaml: cannot write the fix: No space left on device; the file is unchanged"
        in run.stderr
    )
    assert [
        p.name for p in root.iterdir() if p.name.endswith(".swacheck")
    ] == []  # no temp file left


def test_fix_and_diff_exclude_each_other(tree):
    root = tree({"server.yaml": BROKEN})
    assert run_cli("--fix", "--diff", "server.yaml", cwd=root).exit_code == 2


def test_insertions_at_one_point_are_joined_and_overlaps_are_left_for_later():
    text = "a: 1\nb: 2\n"
    plan = fixes.plan(
        [
            Edit("f", 2, 1, 2, 1, "x: 1\n"),
            Edit("f", 2, 1, 2, 1, "y: 2\n"),
            Edit("f", 1, 4, 1, 5, "9"),
            Edit("f", 1, 1, 2, 1, ""),
        ],
        lambda p: text,
    )
    (fe,) = plan
    assert fe.result() == "x: 1\ny: 2\nb: 2\n"
    assert fe.skipped == 1
    with pytest.raises(fixes.Overlap):
        fixes.apply_spans(text, fixes.spans(text, fe.edits))


def test_insert_after_a_last_line_without_a_newline():
    (fe,) = fixes.plan([Edit("f", 2, 1, 2, 1, "b: 2\n")], lambda p: "a: 1")
    assert fe.result() == "a: 1\nb: 2\n"


# ------------------------------------------------------------------ property test

_comment = st.text(alphabet="abc xyz#:-'\"", max_size=20).map(lambda s: "# " + s)
_quote = st.sampled_from(["{}", "'{}'", '"{}"'])


@st.composite
def server_configs(draw):
    problems = draw(st.sets(st.sampled_from(["nextn", "page", "draft", "ndt"])))
    pairs = [
        ("model-path", "models/v4"),
        ("disaggregation-mode", "decode"),
        ("speculative-algorithm", "NEXTN" if "nextn" in problems else "EAGLE"),
        ("speculative-num-steps", "3"),
    ]
    if "nextn" not in problems:
        pairs.append(("speculative-eagle-topk", "1"))
    if "page" in problems:
        pairs.append(("page-size", "64"))
    if "draft" in problems:
        pairs.append(("speculative-draft-model-path", "models/mtp256"))
    if "ndt" in problems:
        pairs.append(("speculative-num-draft-tokens", "9"))
    order = draw(st.permutations(pairs))
    lines = []
    for key, value in order:
        for _ in range(draw(st.integers(0, 2))):
            lines.append(draw(st.one_of(_comment, st.just(""))))
        quoted = draw(_quote).format(value) if not value.isdigit() else value
        trailing = draw(st.one_of(st.just(""), _comment.map(lambda c: "  " + c)))
        lines.append(f"{key}: {quoted}{trailing}")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + newline, newline


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=server_configs())
def test_fix_property_only_edited_lines_change_and_second_run_is_a_no_op(tree, case):
    text, newline = case
    root = tree({})
    path = root / "server.yaml"
    path.write_bytes(text.encode())
    run = run_cli("--fix", "--unsafe-fixes", "--format", "json", "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stdout
    assert [f for d in run.deployments for f in d["findings"] if f["severity"] != "note"] == []
    fixed = path.read_bytes().decode()
    # every comment and blank line survives, in order; line endings are the file's own
    kept = [line for line in text.split(newline) if line.startswith("#") or not line]
    assert [line for line in fixed.split(newline) if line.startswith("#") or not line] == kept
    if newline == "\r\n":
        assert "\n" not in fixed.replace("\r\n", "")
    # lines about keys no fix touches are byte-for-byte the same
    touched = (
        "speculative-algorithm",
        "page-size",
        "speculative-draft-model-path",
        "speculative-num-draft-tokens",
    )
    for line in text.split(newline):
        if line and not line.startswith("#") and not line.startswith(touched):
            assert line in fixed.split(newline)
    run_cli("--fix", "--unsafe-fixes", "server.yaml", cwd=root)
    assert path.read_bytes().decode() == fixed


def test_v4_flash_fixture_is_the_example_config():
    assert '"sliding_window": 128' in V4_FLASH and EAGLE.startswith("model-path: models/v4")


def test_fix_of_a_command_line_text_writes_no_file(tree):
    # a --command text has no file behind it: its fix is reported, never written anywhere
    root = tree({})
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    command = (
        "python -m sglang.launch_server --model-path models/v4 "
        "--speculative-algorithm NEXTN --speculative-num-steps 3"
    )
    run = run_cli("--fix", "--command", command, cwd=root)
    assert run.exit_code == 1
    assert "swacheck: 0 fixed, 1 remaining" in run.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
