"""Verify before writing: only the exact bytes that were checked, only inside the root, through
symbolic links only to a target inside it, keeping mode, owner and hard links; read-only files
are refused and a failed write exits 2."""

from __future__ import annotations

import os
import stat

import pytest
from conftest import run_cli

from swacheck import fixplan, safewrite

# SWA201 (remove page-size) is a safe fix
SERVER = (
    "model-path: models/v4\nspeculative-algorithm: "
    "EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\npage-size: "
    "64\n"
)
FIXED = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"


def test_a_file_changed_between_check_and_write_is_skipped(tree, monkeypatch):
    root = tree({"server.yaml": SERVER})
    write_all = fixplan.Fixer.write_all

    def edit_first(self):  # type: ignore[no-untyped-def]
        # someone inserts a comment after swacheck checked the file and before it writes
        (root / "server.yaml").write_text("# a comment\n" + SERVER)
        return write_all(self)

    monkeypatch.setattr(fixplan.Fixer, "write_all", edit_first)
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert (
        root / "server.yaml"
    ).read_text() == "# a comment\n" + SERVER  # no line deleted, none lost
    assert (
        "server.yaml: not written: it changed since it was checked; run swacheck again"
        in run.stderr
    )
    assert "swacheck: 0 fixed" in run.stderr


def test_a_file_replaced_between_check_and_write_is_skipped(tree, monkeypatch):
    root = tree({"server.yaml": SERVER})
    write_all = fixplan.Fixer.write_all

    def replace_it(self):  # type: ignore[no-untyped-def]
        # same bytes, new file (an editor's save): swacheck must not rename over it blindly
        (root / "new.yaml").write_text(SERVER)
        os.replace(root / "new.yaml", root / "server.yaml")
        return write_all(self)

    monkeypatch.setattr(fixplan.Fixer, "write_all", replace_it)
    run_cli("--fix", "server.yaml", cwd=root)
    # the digest is of the same bytes, so the fix may be written; what matters is a clean result
    assert (root / "server.yaml").read_text() in (SERVER, FIXED)


def test_a_file_changed_before_the_fix_reads_it_again_is_skipped(tree, monkeypatch):
    root = tree({"server.yaml": SERVER})
    state = fixplan.Fixer._state

    def edit_then_read(self, path, key):  # type: ignore[no-untyped-def]
        (root / "server.yaml").write_text(SERVER.replace("page-size: 64", "page-size: 32"))
        return state(self, path, key)

    monkeypatch.setattr(fixplan.Fixer, "_state", edit_then_read)
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert "page-size: 32" in (root / "server.yaml").read_text()
    assert (
        "server.yaml: not fixed: it changed since it was checked (run swacheck again)" in run.stderr
    )


def test_only_files_inside_the_root_are_written(tree, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "server.yaml").write_text(SERVER.replace("models/v4", str(outside / "v4")))
    root = tree({"d.yaml": f"swacheck: 1\nserver: {outside / 'server.yaml'}\n"})
    (outside / "v4").mkdir()
    (outside / "v4" / "config.json").write_text((root / "models/v4/config.json").read_text())
    before = (outside / "server.yaml").read_bytes()
    run = run_cli("--fix", "--unsafe-fixes", "--root", str(root), "d.yaml", cwd=root)
    assert (outside / "server.yaml").read_bytes() == before
    assert (
        "outside the root" in run.stderr
    )  # not fixed (or, once references are checked, not even read)
    assert "internal error" not in run.stderr


def test_a_symlink_inside_the_root_is_written_through_and_kept(tree):
    root = tree({"real/server.yaml": SERVER})
    (root / "link.yaml").symlink_to("real/server.yaml")
    run = run_cli("--fix", "link.yaml", cwd=root)
    assert run.exit_code == 0, run.stderr
    assert (root / "link.yaml").is_symlink()
    assert (root / "real/server.yaml").read_text().replace("models/v4", "") == FIXED.replace(
        "models/v4", ""
    )


def test_a_symlink_to_outside_the_root_is_never_written(tree, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "server.yaml").write_text(SERVER)
    root = tree({})
    (root / "link.yaml").symlink_to(outside / "server.yaml")
    run = run_cli("--fix", "--root", str(root), "link.yaml", cwd=root)
    assert (outside / "server.yaml").read_text() == SERVER
    assert (root / "link.yaml").is_symlink()
    assert "outside the root" in run.stderr


def test_hard_links_are_kept(tree):
    root = tree({"server.yaml": SERVER})
    os.link(root / "server.yaml", root / "other-name.yaml")
    run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == FIXED
    assert (root / "other-name.yaml").read_text() == FIXED  # one file, two names
    assert os.stat(root / "server.yaml").st_nlink == 2
    assert os.path.samefile(root / "server.yaml", root / "other-name.yaml")


def test_mode_is_kept(tree):
    root = tree({"server.yaml": SERVER})
    os.chmod(root / "server.yaml", 0o640)
    run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == FIXED
    assert stat.S_IMODE(os.stat(root / "server.yaml").st_mode) == 0o640


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving a file to another user needs root",
)
def test_owner_is_kept(tree):
    root = tree({"server.yaml": SERVER})
    os.chown(root / "server.yaml", 4321, 4322)
    run_cli("--fix", "server.yaml", cwd=root)
    st = os.stat(root / "server.yaml")
    assert (root / "server.yaml").read_text() == FIXED
    assert (st.st_uid, st.st_gid) == (4321, 4322)


def test_a_new_file_that_cannot_get_the_owner_falls_back_to_writing_in_place(tree, monkeypatch):
    root = tree({"server.yaml": SERVER})
    ino = os.stat(root / "server.yaml").st_ino

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError(1, "Operation not permitted")

    # as a user who does not own the file: fchown is refused
    monkeypatch.setattr(os, "fchown", refuse)
    monkeypatch.setattr(safewrite, "_owner_differs", lambda mine, st: True)
    run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_text() == FIXED
    assert os.stat(root / "server.yaml").st_ino == ino  # written in place
    assert [p.name for p in root.iterdir() if p.name.endswith(".swacheck")] == []


def test_a_read_only_file_is_refused_with_a_message(tree):
    root = tree({"server.yaml": SERVER})
    os.chmod(root / "server.yaml", 0o444)
    try:
        run = run_cli("--fix", "server.yaml", cwd=root)
    finally:
        os.chmod(root / "server.yaml", 0o644)
    assert (root / "server.yaml").read_text() == SERVER
    assert "server.yaml: not written: the file is read-only" in run.stderr
    assert run.exit_code == 2


def test_a_failed_write_exits_2_and_leaves_no_temporary_file(tree, monkeypatch):
    root = tree({"server.yaml": SERVER})

    def full(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert run.exit_code == 2
    assert (root / "server.yaml").read_text() == SERVER
    assert "cannot write the fix: No space left on device; the file is unchanged" in run.stderr
    assert [p.name for p in root.iterdir() if p.name.endswith(".swacheck")] == []


def test_standard_input_and_command_text_are_never_written(tree):
    root = tree({})
    run = run_cli(
        "--fix",
        "--command",
        "python -m sglang.launch_server --model-path models/v4 --page-size 64",
        cwd=root,
    )
    assert "internal error" not in run.stderr
    assert sorted(p.name for p in root.iterdir()) == ["models"]
