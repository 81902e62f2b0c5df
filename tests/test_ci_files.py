"""Every file GitHub or pre-commit reads from this repository is valid: each workflow under
``.github/`` and ``action.yml`` against the GitHub schemas that check-jsonschema vendors
(SchemaStore's ``github-workflow.json`` and ``github-action.json``, shipped inside the
check-jsonschema wheel, so nothing is fetched at test time), and ``.pre-commit-hooks.yaml``
with pre-commit's own manifest validator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

pytest.importorskip(
    "check_jsonschema", reason="check-jsonschema is in the test extra: pip install -e '.[test]'"
)

WORKFLOWS = sorted(p for p in (ROOT / ".github").rglob("*") if p.suffix in (".yml", ".yaml"))


def _validate(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_there_are_workflows():
    assert WORKFLOWS, "no workflow under .github/"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(ROOT)))
def test_workflow_is_valid(path: Path):
    assert yaml.safe_load(path.read_text()) is not None  # plain YAML first: a clearer message
    done = _validate("vendor.github-workflows", path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_action_is_valid():
    done = _validate("vendor.github-actions", ROOT / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_validator_refuses_a_broken_workflow(tmp_path: Path):
    """The check above can fail: the schema refuses the mistake this file once had (an unquoted
    ``: `` in a step name) and a misspelt key."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - "
        "name: run (exit 1: expected)\n        run: 'true'\n"
    )
    assert _validate("vendor.github-workflows", bad).returncode != 0
    bad.write_text("on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    stepz: []\n")
    assert _validate("vendor.github-workflows", bad).returncode != 0


def test_pre_commit_manifest_is_valid():
    pytest.importorskip(
        "pre_commit", reason="pre-commit is in the test extra: pip install -e '.[test]'"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "validate-manifest",
            str(ROOT / ".pre-commit-hooks.yaml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
