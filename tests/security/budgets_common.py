"""Helpers for tests/security: write a hostile tree, run the real CLI (in process, or in a child
with a wall-clock timeout and a memory cap), and assert the exact outcome."""

from __future__ import annotations

import json
import os
import resource
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


def run_child(
    args: list[str],
    cwd: Path,
    timeout: float = 60,
    memory: int = 2048 * MiB,
    stdin=subprocess.DEVNULL,
) -> Child:
    """``python -m swacheck --no-config ARGS`` in a child: killed after ``timeout`` seconds (a hang
    fails the test, it does not hang the suite), its address space capped at ``memory`` bytes
    (a blow-up dies there instead of taking the machine), its peak RSS measured."""
    import time

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWACHECK"))}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_COLOR"] = "1"
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "swacheck", "--no-config", *args],
        cwd=cwd,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=cap,
        env=env,
    )
    out: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda: out.__setitem__("out", proc.stdout.read())),  # type: ignore[union-attr]
        threading.Thread(target=lambda: out.__setitem__("err", proc.stderr.read())),  # type: ignore[union-attr]
    ]
    for t in readers:
        t.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(
            proc.pid, 0
        )  # this child's own peak RSS, not the largest so far
    finally:
        timer.cancel()
    seconds = time.perf_counter() - start
    for t in readers:
        t.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if seconds >= timeout:
        raise AssertionError(f"swacheck {' '.join(args)} did not finish within {timeout} s")
    stdout, stderr = out.get("out", b""), out.get("err", b"")
    return Child(
        proc.returncode,
        stdout.decode("utf-8", "replace"),
        stderr.decode("utf-8", "replace"),
        seconds,
        usage.ru_maxrss * 1024,
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
