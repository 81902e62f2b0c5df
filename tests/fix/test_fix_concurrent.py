"""Two ``swacheck --fix`` runs over the same files at once: each file is written by one of them
(under ``flock``, over the bytes it checked), the other sees it changed and skips it; nothing is
lost (the issue: 210 of 800 files lost ``tp-size: 8``) and a third run changes nothing."""

from __future__ import annotations

import subprocess
import sys

from conftest import V4_FLASH

from swacheck.loading import load_file

SERVER = """\
model-path: models/v4
# server {n}
tp-size: 8
speculative-algorithm: NEXTN
speculative-num-steps: 3
page-size: 64
mem-fraction-static: 0.8
"""
FIXED = """\
model-path: models/v4
# server {n}
tp-size: 8
speculative-algorithm: EAGLE
speculative-eagle-topk: 1
speculative-num-steps: 3
mem-fraction-static: 0.8
"""
N = 120


def _cli(root, *args):  # type: ignore[no-untyped-def]
    return subprocess.Popen(
        [sys.executable, "-m", "swacheck", *args],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_concurrent_fix_runs_lose_nothing(tmp_path):
    (tmp_path / "models/v4").mkdir(parents=True)
    (tmp_path / "models/v4/config.json").write_text(V4_FLASH)
    (tmp_path / "servers").mkdir()
    for n in range(N):
        (tmp_path / "servers" / f"s{n:03}.yaml").write_text(SERVER.format(n=n))
    runs = [_cli(tmp_path, "--fix", "-q", "servers") for _ in range(3)]
    errs = [r.communicate(timeout=300)[1] for r in runs]
    assert all("internal error" not in e and "Traceback" not in e for e in errs), errs
    for n in range(N):
        path = tmp_path / "servers" / f"s{n:03}.yaml"
        text = path.read_text()
        assert text == FIXED.format(n=n), (path, text)
        load_file(str(path), text=text)
    # every file was written once; the other runs said why they did not write it
    written = sum(e.count("swacheck: fixed ") for e in errs)
    assert written == N, errs
    third = subprocess.run(
        [sys.executable, "-m", "swacheck", "--fix", "-q", "servers"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "swacheck: fixed" not in third.stderr
    assert third.returncode == 0, third.stderr
