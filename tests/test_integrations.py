"""The pre-commit hook and the GitHub Action parse and name options that really exist."""

from __future__ import annotations

import re

import yaml
from conftest import ROOT, docs_text, run_cli

from swacheck.config import FORMATS


def _check_options() -> set[str]:
    help_text = run_cli("check", "--help").stdout
    return set(re.findall(r"(--[a-z][a-z-]+)", help_text))


def test_pre_commit_hook():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "swacheck"
    assert hook["entry"].split() == ["swacheck", "check", "--allow-empty"]
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True
    assert hook["require_serial"] is True  # a PD pair is never split between two batches
    assert set(hook["types_or"]) == {"yaml", "json", "shell", "dockerfile"}


def test_action_is_a_composite_action_with_real_options():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert {"paths", "format", "output", "args"} <= set(action["inputs"])
    assert (
        action["inputs"]["format"]["default"] in FORMATS
        or action["inputs"]["format"]["default"] == "github"
    )
    script = "\n".join(step.get("run", "") for step in action["runs"]["steps"])
    pip = {"--quiet", "--disable-pip-version-check", "--version"}  # pip's and python's
    used = set(re.findall(r"(--[a-z][a-z-]+)", script)) - pip - {"--option"}  # "--option=value"
    assert used <= _check_options(), used - _check_options()
    assert '"$SWACHECK" check' in script
    assert "upload" not in script.lower()  # the action uploads nothing by itself


def test_readme_documents_the_hook_and_the_action():
    readme = docs_text()
    assert "id: swacheck" in readme
    assert "github/codeql-action/upload-sarif" in readme
