"""Output that fits where it goes: plain, unwrapped lines whenever standard output is not a
terminal (FORCE_COLOR colours them, never changes their layout); on a terminal (a real pseudo-
terminal here) tables as wide as ``COLUMNS``, and no path or tuple ever split across lines, in
the report, ``why`` and ``explain``; the "N fixable with --fix" line."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

pty = pytest.importorskip("pty")
SWACHECK = shutil.which("swacheck", path=os.path.dirname(sys.executable)) or "swacheck"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BOX = re.compile("[┏┃━┡]")  # a rich table's header (explain's tree guides are text)
LOG = "tests/data/logs/decode-tp8-ring.log"
# long paths: the report's table and the explain tree carry them
CASES = {
    "check": ["examples/compose", "examples/rocm-draft-window"],
    "why": ["why", "--from-log", LOG, "examples/rocm-draft-window"],
    "explain": ["explain", "examples/rocm-unified/decode.yaml"],
}


def environ(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("FORCE_COLOR", "NO_COLOR", "COLUMNS", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")
    }
    env.update(extra)
    return env


def piped(args: list[str], **env: str) -> str:
    return _piped(tuple(args), tuple(sorted(env.items())))


@functools.cache
def _piped(args: tuple[str, ...], env: tuple[tuple[str, str], ...]) -> str:
    done = subprocess.run(
        [SWACHECK, *args],
        cwd=ROOT,
        env=environ(**dict(env)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def on_a_terminal(args: list[str], columns: int) -> str:
    """What swacheck writes to a pseudo-terminal ``columns`` wide (COLUMNS, as a shell sets)."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [SWACHECK, *args],
        cwd=ROOT,
        stdout=child,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=environ(COLUMNS=str(columns), NO_COLOR="1"),
    )
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    assert proc.wait(timeout=120) in (0, 1)
    return ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def whole_words(text: str) -> set[str]:
    """Paths (``examples/...``) and tuples (``(1, 2, 3)``) as they appear on single lines."""
    found = set()
    for line in text.splitlines():
        found.update(re.findall(r"examples/[\w./-]+(?::\d+)*", line))
        found.update(re.findall(r"\(\d+, \d+, (?:\d+|None)\)", line))
    return found


@pytest.mark.parametrize("case", sorted(CASES))
def test_piped_output_is_plain_and_unwrapped_whatever_force_color_says(case):
    plain = piped(CASES[case])
    forced = piped(CASES[case], FORCE_COLOR="1")
    narrow = piped(CASES[case], COLUMNS="40")
    assert not BOX.search(plain) and not BOX.search(forced)
    assert ANSI.sub("", forced) == plain  # colour, not layout
    assert ANSI.search(forced)
    assert narrow == plain  # COLUMNS is a terminal's width; a pipe has none
    assert max(map(len, plain.splitlines())) > 120  # nothing was wrapped


def test_color_always_in_a_pipe_keeps_the_plain_layout():
    plain = piped(CASES["check"])
    always = piped(["--color", "always", *CASES["check"]])
    assert ANSI.search(always) and ANSI.sub("", always) == plain


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("columns", [70, 220])
def test_on_a_terminal_no_path_or_tuple_is_split(case, columns):
    wide = whole_words(piped(CASES[case]))
    shown = on_a_terminal(CASES[case], columns)
    assert wide and wide <= whole_words(shown), wide - whole_words(shown)


def test_tables_take_the_terminal_width():
    wide = on_a_terminal(CASES["check"], 220)
    assert BOX.search(wide)  # a boxed table fits 220 columns
    box_lines = [line for line in wide.splitlines() if BOX.search(line)]
    assert max(map(len, box_lines)) <= 220
    narrow = on_a_terminal(CASES["check"], 80)
    assert not BOX.search(narrow)  # cannot fit without splitting a path: one line per row
    assert "* sliding_window" in narrow


def test_explain_wraps_between_words_at_the_terminal_width():
    shown = on_a_terminal(CASES["explain"], 60)
    for line in shown.splitlines():
        words = line.split()
        assert len(line) <= 60 or len(words) <= 3 or max(map(len, words)) > 30, line


def test_the_fixable_line_counts_what_fix_and_unsafe_fixes_apply():
    out = piped(["examples/"])
    diff = subprocess.run(
        [SWACHECK, "--diff", "examples/"], cwd=ROOT, env=environ(), capture_output=True, text=True
    )
    m = re.search(r"\((\d+) fixes; (\d+) more with --unsafe-fixes\)", diff.stdout + diff.stderr)
    assert m, diff.stdout[-300:] + diff.stderr
    line = f"{m.group(1)} fixable with --fix ({m.group(2)} more with --unsafe-fixes)"
    assert out.splitlines()[-1] == line
    assert piped(["--statistics", "examples/"]).splitlines()[-1] == line
    assert piped(["--format", "concise", "examples/"]).splitlines()[-1] == line
    total = int(m.group(1)) + int(m.group(2))
    assert piped(["--unsafe-fixes", "examples/"]).splitlines()[-1] == f"{total} fixable with --fix"
    clean = piped(["examples/rocm-unified"])
    assert "fixable" not in clean
