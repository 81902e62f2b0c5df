"""The project's own lint and format configuration holds for every file (pyproject.toml [tool.ruff])."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean():
    run = ruff("check", "--output-format", "concise", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    run = ruff("format", "--check", ".")
    assert run.returncode == 0, run.stdout + run.stderr
