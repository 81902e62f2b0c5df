"""Helpers for tests/security: write a hostile tree, run the real CLI (in process, or in a child
with a wall-clock timeout and a memory cap), and assert the exact outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from conftest import EAGLE, MTP_W256, ROOT, V4_FLASH, run_cli

GOOD = "good.yaml"  # checked alongside every attack: the other files must still be checked
MiB = 2**20


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in {
        "models/v4/config.json": V4_FLASH,
        "models/mtp256/config.json": MTP_W256,
        GOOD: EAGLE,
        **files,
    }.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@dataclass
class Child:
    exit_code: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes

    @property
    def data(self) -> dict:
        return json.loads(self.stdout)


# A small interpreter between the test and swacheck: it caps the address space, forks swacheck
# from itself and reports that child's own peak RSS on fd 3. Forked (or vforked) straight from
# pytest, the child's ru_maxrss would count the pages it shared with pytest before exec, so the
# figure grew with the suite (111-116 MB for an 86 MB run late in a full run).
_MEASURE = """
import os, resource, sys
cap = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
pid = os.fork()
if pid == 0:
    os.close(int(sys.argv[2]))
    os.execv(sys.executable, [sys.executable, "-m", "swacheck", "--no-config", *sys.argv[3:]])
_, status, usage = os.wait4(pid, 0)
os.write(int(sys.argv[2]), str(usage.ru_maxrss).encode())
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def run_child(
    args: list[str],
    cwd: Path,
    timeout: float = 60,
    memory: int = 2048 * MiB,
    stdin=subprocess.DEVNULL,
) -> Child:
    """``python -m swacheck --no-config ARGS`` in a child: killed after ``timeout`` seconds (a hang
    fails the test, it does not hang the suite), its address space capped at ``memory`` bytes
    (a blow-up dies there instead of taking the machine), its own peak RSS measured."""
    import signal
    import time

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWACHECK"))}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_COLOR"] = "1"
    read_rss, write_rss = os.pipe()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", _MEASURE, str(memory), str(write_rss), *args],
        cwd=cwd,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        pass_fds=(write_rss,),
        start_new_session=True,  # a timeout kills swacheck too, not only the measuring parent
    )
    os.close(write_rss)
    out: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda: out.__setitem__("out", proc.stdout.read())),  # type: ignore[union-attr]
        threading.Thread(target=lambda: out.__setitem__("err", proc.stderr.read())),  # type: ignore[union-attr]
    ]
    for t in readers:
        t.start()
    timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        proc.wait()
    finally:
        timer.cancel()
    seconds = time.perf_counter() - start
    for t in readers:
        t.join()
    with os.fdopen(read_rss, "rb") as fh:
        reported = fh.read().strip()
    if seconds >= timeout:
        raise AssertionError(f"swacheck {' '.join(args)} did not finish within {timeout} s")
    stdout, stderr = out.get("out", b""), out.get("err", b"")
    return Child(
        proc.returncode,
        stdout.decode("utf-8", "replace"),
        stderr.decode("utf-8", "replace"),
        seconds,
        int(reported or 0) * 1024,
    )


def assert_error_lines(run, *lines: str, good_checked: bool = True) -> None:
    """Exactly these stderr lines, exit 2, no internal error, the good file still checked."""
    assert run.stderr.splitlines() == list(lines), run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    assert run.exit_code == 2
    if good_checked:
        assert "good" in [d["name"] for d in json.loads(run.stdout)["deployments"]], (
            "the good file was not checked"
        )


__all__ = [
    "GOOD",
    "MiB",
    "Child",
    "EAGLE",
    "assert_error_lines",
    "run_child",
    "run_cli",
    "write_tree",
]
