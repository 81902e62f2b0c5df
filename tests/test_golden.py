"""Golden outputs (actionlint style): an input file paired with the exact expected output.

Regenerate after an intended change with ``SWACHECK_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``
and review the diff.
"""

from __future__ import annotations

import os

import pytest
from conftest import EXAMPLE, ROOT, run_cli

GOLDEN = ROOT / "tests" / "golden"
CASES = [
    "cuda-paged-prefill",
    "cuda-paged-decode-draft-window",
    "cuda-no-pd-draft-window",
    "cuda-nextn",
    "rocm-unified-decode",
    "rocm-unified-draft-window",
    "from-log",
]
FORMATS = {"human": "txt", "json": "json"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("case", CASES)
def test_golden(case, fmt):
    run = run_cli("--format", fmt, "--color", "never", EXAMPLE[case], cwd=ROOT)
    expected_file = GOLDEN / f"{case}.{FORMATS[fmt]}"
    if os.environ.get("SWACHECK_UPDATE_GOLDEN"):
        expected_file.write_text(run.stdout)
    assert run.stdout == expected_file.read_text()
    assert run.stderr == ""


@pytest.mark.parametrize("case", ["rocm-unified-decode", "cuda-paged-prefill"])
def test_golden_verbose(case):
    """-v: every passing deployment and agreeing pair as a full table."""
    run = run_cli("-v", "--color", "never", EXAMPLE[case], cwd=ROOT)
    expected_file = GOLDEN / f"{case}.verbose.txt"
    if os.environ.get("SWACHECK_UPDATE_GOLDEN"):
        expected_file.write_text(run.stdout)
    assert run.stdout == expected_file.read_text()
    assert "  tuple  " in run.stdout
