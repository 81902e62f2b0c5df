"""The GitHub Action (``action.yml``) run as GitHub runs a composite action's steps: each step's
``run`` script with bash, its ``env`` filled from the inputs, ``GITHUB_OUTPUT`` a file. The
install step runs against a stand-in ``python`` that records the pip requirement; the run step
runs the installed swacheck."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import EAGLE, ROOT

if shutil.which("bash") is None:  # pragma: no cover
    pytest.skip("bash is not installed", allow_module_level=True)

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)


def run_step(
    name: str, inputs: dict[str, str], cwd: Path, path_prefix: str | None = None
) -> tuple[subprocess.CompletedProcess[str], str]:
    step = STEPS[name]
    values = {key: str(spec.get("default", "")) for key, spec in ACTION["inputs"].items()}
    values.update(inputs)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWACHECK_"))}
    for key, template in step.get("env", {}).items():
        input_name = template.removeprefix("${{ inputs.").removesuffix(" }}")
        env[key] = values[input_name]
    output = cwd / "github_output"
    output.write_text("")
    env.update(
        {
            "GITHUB_OUTPUT": str(output),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(cwd),
        }
    )
    env["PATH"] = os.pathsep.join(
        p for p in (path_prefix, os.path.dirname(sys.executable), env.get("PATH", "")) if p
    )
    assert step["shell"] == "bash"
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done, output.read_text()


@pytest.mark.parametrize(
    ("version", "requirement"),
    [
        ("", str(ROOT)),
        ("0.1.0", "swacheck==0.1.0"),
        ("v0.1.0", "swacheck==0.1.0"),
        (" 0.1.0\n", "swacheck==0.1.0"),
        ("==0.1.0", "swacheck==0.1.0"),
        (">=0.1,<0.2", "swacheck>=0.1,<0.2"),
        ("swacheck==0.1.0", "swacheck==0.1.0"),
    ],
)
def test_install_step_normalises_the_version(tmp_path, version, requirement):
    stub = tmp_path / "bin"
    stub.mkdir()
    python = stub / "python"
    python.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$STUB_ARGS"\n')
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    os.environ["STUB_ARGS"] = str(tmp_path / "args")
    try:
        done, _ = run_step("Install swacheck", {"version": version}, tmp_path, str(stub))
    finally:
        del os.environ["STUB_ARGS"]
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "args").read_text().splitlines() == [
        "-m",
        "pip",
        "install",
        "--quiet",
        requirement,
    ]


@pytest.fixture
def repo(tree):
    return tree(
        {
            "deploy ok/server.yaml": EAGLE.replace("models/", "../models/"),
            "deploy bad/server.yaml": FAILING.replace("models/", "../models/"),
            "configs/a.yaml": EAGLE.replace("models/", "../models/"),
            "configs/values.yaml": "replicas: 3\n",
        }
    )


def test_run_step_keeps_paths_with_spaces(repo):
    done, output = run_step("Run swacheck", {"paths": "deploy ok\n", "format": "concise"}, repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert output == "exit-code=0\n"
    done, output = run_step(
        "Run swacheck", {"paths": "deploy ok\ndeploy bad", "format": "github"}, repo
    )
    assert done.returncode == 1
    assert output == "exit-code=1\n"
    assert "::error file=deploy bad/server.yaml,line=" in done.stdout


def test_run_step_expands_a_glob_and_passes_args(repo):
    done, output = run_step(
        "Run swacheck",
        {"paths": "configs/*.yaml", "format": "json", "args": "--platform rocm --fail-on warning"},
        repo,
    )
    assert done.returncode == 0, done.stderr
    assert "configs/values.yaml" not in done.stderr  # skipped and counted, quietly
    assert '"skipped_files": 1' in done.stdout
    assert '"file": "configs/a.yaml"' in done.stdout and '"platform": "rocm"' in done.stdout


def test_run_step_writes_the_output_file(repo):
    done, output = run_step(
        "Run swacheck", {"paths": "deploy bad", "format": "sarif", "output": "swacheck.sarif"}, repo
    )
    assert done.returncode == 1 and output == "exit-code=1\n"
    assert '"uri": "deploy%20bad/server.yaml"' in (repo / "swacheck.sarif").read_text()


def test_run_step_reports_a_missing_path(repo):
    done, output = run_step("Run swacheck", {"paths": "nope/", "format": "human"}, repo)
    assert done.returncode == 2 and output == "exit-code=2\n"
    assert "nope/: no such file or directory" in done.stderr


def test_a_workflow_uses_the_action():
    uses = []
    for path in (ROOT / ".github" / "workflows").glob("*.yml"):
        for job in yaml.safe_load(path.read_text())["jobs"].values():
            uses.extend(step for step in job.get("steps", []) if step.get("uses") == "./")
    assert uses, "no workflow step uses ./ (this action)"
    assert any(
        "\n" in step.get("with", {}).get("paths", "") for step in uses
    )  # several paths, one per line
