"""``--diff`` is a proper unified diff: ``\\ No newline at end of file``, paths relative to the
root with ``a/`` and ``b/`` (never ``a//abs/path``), a header line per fix saying whether it is
safe, and ``git apply`` and ``patch -p1`` accept it."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import run_cli

from swacheck import fixes

SERVER = (
    "model-path: models/v4\nspeculative-algorithm: "
    "NEXTN\nspeculative-num-steps: 3\npage-size: 64"
)  # no final newline


def test_no_newline_at_end_of_file_is_marked():
    diff = fixes.unified_diff("a: 1\nb: 2", "a: 1\nb: 3", "x.yaml")
    assert (
        diff == "--- a/x.yaml\n+++ b/x.yaml\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n\\ No newline "
        "at end of file\n+b: 3\n\\ No newline at end of file\n"
    )


def test_lines_break_at_lf_only_as_git_counts_them():
    assert fixes.diff_lines("a\rb\x0bc\u2028d\n") == ["a\rb\x0bc\u2028d\n"]


def _apply(tool: list[str], folder, patch: bytes) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run(tool, cwd=folder, input=patch, capture_output=True)


@pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("patch") is None, reason="needs git and patch"
)
def test_diff_of_a_subfolder_file_named_by_absolute_path_applies_with_git_and_patch(
    tree, tmp_path_factory
):
    root = tree({"deploy/server.yaml": SERVER})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    run = run_cli("--diff", str(root / "deploy/server.yaml"), cwd=root)
    assert "--- a/deploy/server.yaml\n+++ b/deploy/server.yaml\n" in run.stdout
    assert "a//" not in run.stdout
    assert "\\ No newline at end of file\n" in run.stdout
    assert "swacheck: SWA202 safe fix: Use speculative-algorithm: EAGLE" in run.stdout
    fixed = run_cli("--fix", "deploy/server.yaml", cwd=root)
    assert fixed.exit_code == 0
    result = (root / "deploy/server.yaml").read_bytes()
    for tool in (["git", "apply", "-"], ["patch", "-p1", "--quiet"]):
        copy = tmp_path_factory.mktemp("apply")
        subprocess.run(["git", "init", "-q", str(copy)], check=True)
        (copy / "deploy").mkdir()
        (copy / "deploy/server.yaml").write_text(SERVER)
        applied = _apply(tool, copy, run.stdout_bytes)
        assert applied.returncode == 0, (tool, applied.stderr)
        assert (copy / "deploy/server.yaml").read_bytes() == result


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_crlf_and_bom_survive_git_apply(tree, tmp_path_factory):
    data = b"\xef\xbb\xbf" + (SERVER + "\n").replace("\n", "\r\n").encode()
    root = tree({})
    (root / "server.yaml").write_bytes(data)
    run = run_cli("--diff", "server.yaml", cwd=root)
    run_cli("--fix", "server.yaml", cwd=root)
    copy = tmp_path_factory.mktemp("apply")
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    (copy / "server.yaml").write_bytes(data)
    applied = _apply(["git", "apply", "-"], copy, run.stdout_bytes)
    assert applied.returncode == 0, applied.stderr
    assert (copy / "server.yaml").read_bytes() == (root / "server.yaml").read_bytes()
    assert (root / "server.yaml").read_bytes().startswith(b"\xef\xbb\xbf")


def test_diff_writes_nothing_and_says_what_unsafe_fixes_would_add(tree):
    root = tree(
        {
            "server.yaml": "model-path: models/v4\nspeculative-algorithm: "
            "EAGLE\nspeculative-eagle-topk: 2\nspeculative-num-steps: 3\n"
        }
    )
    before = (root / "server.yaml").read_bytes()
    run = run_cli("--diff", "server.yaml", cwd=root)
    assert run.stdout == ""
    assert "swacheck: 0 files would change (0 fixes; 1 more with --unsafe-fixes)" in run.stderr
    run = run_cli("--diff", "--unsafe-fixes", "server.yaml", cwd=root)
    assert "swacheck: SWA202 unsafe fix: Set speculative-eagle-topk to 1." in run.stdout
    assert (root / "server.yaml").read_bytes() == before
