"""Golden outputs (actionlint style): every folder of tests/golden/ is one case, found here.

A case folder holds

- ``cmd``: the command line after ``swacheck`` (split like a shell would), run at the
  repository root on the bundled examples or test data; ``{format}`` in it is replaced by each
  format the case has an expected output for;
- ``expected.FORMAT``: the exact standard output of the command with that ``--format``
  (without ``{format}`` in ``cmd``, the one expected file's name is only a label);
- ``exit``: the exit code, the same for every format.

Standard error must be empty, or, when the case has a ``stderr`` file (a case with an input
error, which every format also writes to standard error), equal to it. A SARIF output's
``tool.driver.rules`` (every rule's
documentation) is replaced by a placeholder before the comparison, so that a docstring edit
does not change every SARIF golden file; test_report_sarif.py checks that part.

After an intended change, rewrite the expected outputs with
``python -m pytest tests/test_golden.py --update-goldens`` (or ``SWACHECK_UPDATE_GOLDEN=1``)
and review the diff. To add a case, make a folder with a ``cmd`` and an empty
``expected.FORMAT`` per format, then run with ``--update-goldens``.
"""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import ROOT, run_cli

GOLDEN = ROOT / "tests" / "golden"
SARIF_RULES = "every rule in swacheck.rules.RULES (checked by test_driver_lists_every_rule)"
CI_VARIABLES = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "CI_PROJECT_DIR")


def cases() -> list[tuple[str, str]]:
    """(case, format) for every expected output of every case folder."""
    found = []
    for folder in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        for expected in sorted(folder.glob("expected.*")):
            found.append((folder.name, expected.name.removeprefix("expected.")))
    return found


def command(case: str, fmt: str) -> list[str]:
    text = (GOLDEN / case / "cmd").read_text(encoding="utf-8").strip()
    return [word.replace("{format}", fmt) for word in shlex.split(text)]


def normalized(fmt: str, stdout: str) -> str:
    if fmt != "sarif":
        return stdout
    doc = json.loads(stdout)
    doc["runs"][0]["tool"]["driver"]["rules"] = SARIF_RULES
    return json.dumps(doc, indent=2) + "\n"


def test_the_harness_finds_every_case():
    folders = [p for p in GOLDEN.iterdir() if p.is_dir()]
    assert len(folders) >= 16
    for folder in folders:
        expected = list(folder.glob("expected.*"))
        assert (folder / "cmd").is_file() and (folder / "exit").is_file(), folder
        assert expected, folder
        if "{format}" not in (folder / "cmd").read_text(encoding="utf-8"):
            assert len(expected) == 1, folder
    assert not [p for p in GOLDEN.iterdir() if p.is_file()], "a golden file outside a case folder"


@pytest.mark.parametrize(("case", "fmt"), cases())
def test_golden(case, fmt, update_goldens, monkeypatch):
    for name in CI_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    run = run_cli(*command(case, fmt), cwd=ROOT)
    output = normalized(fmt, run.stdout)
    expected_file = GOLDEN / case / f"expected.{fmt}"
    exit_file = GOLDEN / case / "exit"
    if update_goldens:
        expected_file.write_text(output, encoding="utf-8")
        exit_file.write_text(f"{run.exit_code}\n", encoding="utf-8")
    stderr_file = GOLDEN / case / "stderr"
    assert run.stderr == (stderr_file.read_text(encoding="utf-8") if stderr_file.exists() else "")
    assert output == expected_file.read_text(encoding="utf-8")
    assert run.exit_code == int(exit_file.read_text(encoding="utf-8"))


def test_verbose_cases_hold_full_tables():
    """-v: every passing deployment and agreeing pair as a full table."""
    for folder in GOLDEN.glob("*-verbose"):
        assert "  tuple  " in (folder / "expected.human").read_text(encoding="utf-8")
