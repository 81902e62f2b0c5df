"""``--fix`` / ``--diff`` of standard input or a ``--command`` text: nothing is written, and
swacheck says why instead of leaving "1 fixable with --fix" unexplained after a --fix run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEXTN = (ROOT / "examples" / "cuda-nextn" / "prefill.yaml").read_text()
COMMAND = (
    "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash "
    "--speculative-algorithm NEXTN --tp 8"
)


def _run(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "swacheck", *args],
        cwd=tmp_path,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
    )


def test_fix_of_standard_input_says_it_cannot_edit_it(tmp_path):
    done = _run(tmp_path, "--fix", "-", stdin=NEXTN)
    assert done.returncode == 1
    assert (
        "swacheck: not fixing standard input: --fix and --diff edit files only "
        "(name the file instead of -)"
    ) in done.stderr.splitlines()
    assert "swacheck: 0 fixed, 1 remaining" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_diff_of_standard_input_says_it_too(tmp_path):
    done = _run(tmp_path, "--diff", "-", stdin=NEXTN)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0].startswith("swacheck: not fixing standard input:")
    assert lines[-1] == "swacheck: 0 files would change (0 fixes)"


def test_fix_of_a_command_text_names_it(tmp_path):
    done = _run(tmp_path, "--fix", "--command", COMMAND)
    assert (
        "swacheck: not fixing the --command text <command>: --fix and --diff edit files only "
        "(put the command in a script and name it)"
    ) in done.stderr.splitlines()
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_fixed_gets_no_such_line(tmp_path):
    (tmp_path / "server.yaml").write_text(NEXTN)
    done = _run(tmp_path, "--fix", "server.yaml")
    assert "not fixing" not in done.stderr
    assert "swacheck: fixed server.yaml" in done.stderr
