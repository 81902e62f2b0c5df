"""Only regular files are opened: a FIFO, a device or a socket, named, walked or referenced, can
neither hang the run nor feed it without end; ``-`` is the one way to read standard input, and it
has the same size limit as a file.

Once a FIFO in a walked folder and a FIFO named on the command line hung the run until it was
killed (20 s timeout in benchmarks/hostile.py); ``server: /dev/stdin`` hung a CI step whose
standard input stays open; a pull request's ``max-file-size`` plus ``server: /dev/zero`` read
gigabytes.
"""

from __future__ import annotations

import os
import socket
import subprocess

import pytest
from budgets_common import GOOD, assert_error_lines, run_child, run_cli, write_tree

from swacheck import limits

ONLY_REGULAR = "not a regular file: swacheck reads only regular files (use - for standard input)"
DEP = "swacheck: 1\nserver: {}\n"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


def test_a_fifo_named_on_the_command_line(tmp_path):
    root = write_tree(tmp_path, {})
    os.mkfifo(root / "pipe.yaml")
    run = run_child(["--format", "json", "pipe.yaml", GOOD], root, timeout=30)
    assert_error_lines(run, f"pipe.yaml: is a FIFO (named pipe), {ONLY_REGULAR}")


def test_a_fifo_in_a_walked_folder_is_skipped_and_listed_with_v(tmp_path):
    root = write_tree(tmp_path, {"deploy/server.yaml": "model-path: ../models/v4\n"})
    os.mkfifo(root / "deploy" / "pipe.yaml")
    os.mkfifo(root / "deploy" / "run.sh")
    run = run_child(["-v", "deploy"], root, timeout=30)
    assert run.exit_code == 0 and run.stderr == ""
    lines = run.stdout.splitlines()
    assert "skipped deploy/pipe.yaml: a FIFO (named pipe), not a regular file" in lines
    assert "skipped deploy/run.sh: a FIFO (named pipe), not a regular file" in lines
    assert lines[-1].startswith("Checked 1 deployment in 1 file")


def test_a_socket_named_on_the_command_line(tmp_path):
    root = write_tree(tmp_path, {})
    sock = socket.socket(socket.AF_UNIX)
    old = os.getcwd()
    try:
        os.chdir(root)  # a short relative name: AF_UNIX paths are limited to ~100 bytes
        sock.bind("sock.yaml")
    finally:
        os.chdir(old)
    try:
        run = run_cli("--format", "json", "sock.yaml", GOOD, cwd=root)
    finally:
        sock.close()
    assert_error_lines(run, f"sock.yaml: is a socket, {ONLY_REGULAR}")


def test_a_server_config_that_is_a_fifo_in_the_repository(tmp_path):
    root = write_tree(tmp_path, {"dep.yaml": DEP.format("pipe.yaml")})
    os.mkfifo(root / "pipe.yaml")
    run = run_child(["--format", "json", "dep.yaml", GOOD], root, timeout=30)
    assert_error_lines(
        run, f"dep.yaml:2:9: server config 'pipe.yaml': is a FIFO (named pipe), {ONLY_REGULAR}"
    )


def test_server_dev_stdin_with_an_open_standard_input_does_not_hang(tmp_path):
    """A CI step's standard input can stay open for ever; --root / so that only this rule answers."""
    root = write_tree(tmp_path, {"dep.yaml": DEP.format("/dev/stdin")})
    run = run_child(
        ["--root", "/", "--format", "json", "dep.yaml", GOOD],
        root,
        timeout=30,
        stdin=subprocess.PIPE,
    )
    assert_error_lines(
        run, f"dep.yaml:2:9: server config '/dev/stdin': is a FIFO (named pipe), {ONLY_REGULAR}"
    )


def test_server_dev_zero_is_never_read(tmp_path):
    root = write_tree(tmp_path, {"dep.yaml": DEP.format("/dev/zero")})
    run = run_child(["--root", "/", "--format", "json", "dep.yaml", GOOD], root, timeout=30)
    assert_error_lines(
        run, f"dep.yaml:2:9: server config '/dev/zero': is a character device, {ONLY_REGULAR}"
    )


def test_a_sourced_fifo_is_not_read(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "run.sh": "#!/bin/sh\n. ./env.sh\npython -m sglang.launch_server --model-path models/v4\n"
        },
    )
    os.mkfifo(root / "env.sh")
    run = run_child(["--format", "json", "run.sh"], root, timeout=30)
    assert "internal error" not in run.stderr
    assert [d["name"] for d in run.data["deployments"]] == ["run"]


def test_standard_input_has_the_file_size_limit(tmp_path):
    root = write_tree(tmp_path, {"big.yaml": "model-path: models/v4\n" + "# padding\n" * 200})
    with open(root / "big.yaml", "rb") as stdin:
        run = run_child(
            ["--max-file-size", "1000", "--format", "json", "-", GOOD], root, stdin=stdin
        )
    assert_error_lines(
        run, "-: standard input is more than 1000 bytes, above the limit (--max-file-size)"
    )


def test_a_repository_config_cannot_raise_the_file_size_limit(tmp_path):
    """With the configuration read (no --no-config): a pull request's pyproject.toml asks for more."""
    root = write_tree(tmp_path, {"pyproject.toml": "[tool.swacheck]\nmax-file-size = 4000000000\n"})
    run = run_cli("--format", "json", GOOD, cwd=root)
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"pyproject.toml:2:1: max-file-size 4000000000 is above the hard maximum "
        f"of {limits.MAX_FILE_SIZE} bytes; a configuration can only lower it"
    ]


def test_a_repository_config_may_lower_the_file_size_limit(tmp_path):
    root = write_tree(tmp_path, {"pyproject.toml": "[tool.swacheck]\nmax-file-size = 50\n"})
    run = run_cli("--format", "json", GOOD, cwd=root)
    assert_error_lines(
        run,
        f"{GOOD}: file is {len(open(root / GOOD).read())} bytes, above the 50-byte limit (--max-file-size)",
        good_checked=False,
    )


def test_the_command_line_cannot_raise_it_either(tmp_path):
    root = write_tree(tmp_path, {})
    run = run_cli("--max-file-size", str(limits.MAX_FILE_SIZE + 1), GOOD, cwd=root)
    assert run.exit_code == 2
    assert (
        "Invalid value for '--max-file-size'" in run.stderr
        and str(limits.MAX_FILE_SIZE) in run.stderr
    )


def test_why_from_log_does_not_open_a_fifo(tmp_path):
    root = write_tree(tmp_path, {})
    os.mkfifo(root / "server.log")
    run = run_cli("why", "--from-log", "server.log", cwd=root)
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [f"server.log: is a FIFO (named pipe), {ONLY_REGULAR}"]


def _deep(root, levels: int, text: str) -> str:
    """``d/d/.../d/x.yaml``, ``levels`` folders deep (made one at a time: os.makedirs recurses)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            new = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        out = os.open("x.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, text.encode())
        os.close(out)
    finally:
        os.close(fd)
    return "/".join(["d"] * levels) + "/x.yaml"


def test_a_folder_tree_a_thousand_levels_deep_is_walked_to_the_limit(tmp_path):
    """git and actions/checkout create such a tree happily; the recursive walk ended with
    RecursionError after 85 s ("internal error", nothing else reported). The walk keeps its own
    stack: past limits.MAX_WALK_DEPTH a folder is skipped, counted and listed with -v."""
    from conftest import EAGLE

    root = write_tree(tmp_path, {})
    try:
        _deep(root, 1000, EAGLE)
        shallow = _deep(root / "models", limits.MAX_WALK_DEPTH - 1, EAGLE)  # walked: at the limit
        run = run_child(["-v", "."], root, timeout=60)
    finally:  # pytest's own clean-up (shutil.rmtree) recurses too
        subprocess.run(["rm", "-rf", str(root / "d"), str(root / "models" / "d")], check=True)
    assert run.exit_code == 0, run.stderr
    assert "internal error" not in run.stderr
    out = run.stdout.splitlines()
    assert any(line.startswith(f"models/{shallow} ") for line in out), run.stdout[-2000:]
    deep = "./" + "/".join(["d"] * (limits.MAX_WALK_DEPTH + 1))
    assert (
        f"skipped {deep}: a folder nested more than {limits.MAX_WALK_DEPTH} levels deep below "
        "the path named: not walked (the limit on a walk)"
    ) in out
    # the folder and models/v4/config.json (no deployment) are the skips
    assert out[-1].startswith("Checked 2 deployments in 2 files (2 files skipped)"), out[-1]


@pytest.mark.parametrize("which", ["fifo", "/dev/zero", "oversized"])
def test_a_baseline_that_is_no_regular_file_is_refused_at_once(tmp_path, which):
    """--baseline was read with open() + json.load: a FIFO hung the run and /dev/zero took
    memory until it died. It is read through the input reader now: one line, exit 2."""
    root = write_tree(tmp_path, {})
    if which == "fifo":
        os.mkfifo(root / "fifo")
        name, why = "fifo", "is a FIFO (named pipe), not a regular file"
    elif which == "oversized":
        (root / "big.json").write_bytes(b" " * (limits.MAX_FILE_SIZE + 1))
        name, why = "big.json", f"file is {limits.MAX_FILE_SIZE + 1} bytes, above the"
    else:
        name, why = which, "is a character device, not a regular file"
    run = run_child(["--baseline", name, GOOD], root, timeout=30, memory=512 * 2**20)
    assert run.exit_code == 2
    assert run.stderr.startswith(f"{name}: cannot read the baseline: {why}"), run.stderr
    assert "internal error" not in run.stderr
