"""The pre-commit hook, run for real in a scratch git repository that holds what an ordinary
repository holds: deployments, a Kubernetes Service, a workflow, a model ``config.json``, a shell
script and a Dockerfile that launch nothing, a values file and a PD pair.

The hook comes from a committed copy of this working tree. ``pre-commit try-repo`` (what a hook
author runs) is used once; it installs the hook into a fresh store at every call (about 20 s), so
the other scenarios use ``pre-commit run`` with a ``.pre-commit-config.yaml`` naming the same
repository and commit, which installs it once per test session into a shared ``PRE_COMMIT_HOME``
from the package index pip is configured with. Skipped only where pre-commit or git is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytest.importorskip(
    "pre_commit", reason="pre-commit is in the test extra: pip install -e '.[test]'"
)
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git is not installed", allow_module_level=True)

MODEL = (ROOT / "examples" / "models" / "DeepSeek-V4-Flash" / "config.json").read_text()
PREFILL = """\
swacheck: 1
name: v4-flash-prefill
platform: rocm
server:
  model-path: ../models/v4
  tp-size: 8
  disaggregation-mode: prefill
  speculative-algorithm: EAGLE
  speculative-num-steps: 3
  speculative-eagle-topk: 1
"""
# the decode side with the unified-KV backend: SWA404 for the pair, nothing for either alone
DECODE_BROKEN = PREFILL.replace("prefill", "decode").replace(
    "platform: rocm\n", "platform: rocm\nenv:\n  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
)
DECODE_FIXED = PREFILL.replace("prefill", "decode")
OTHER_FILES = {
    "k8s/service.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: sglang}\nspec:\n  ports: [{port: 30000}]\n",
    ".github/workflows/ci.yml": "name: ci\non: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n "
    "     - run: echo hi\n",
    "models/v4/config.json": MODEL,
    "scripts/setup.sh": "#!/bin/sh\npip install sglang\n",
    "Dockerfile": 'FROM python:3.12\nCMD ["python3", "app.py"]\n',
    "values.yaml": "replicas: 3\n",
}
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env
    ).stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, Path]:
    """(a committed copy of this repository's hook and package, pre-commit's home for the session)."""
    base = tmp_path_factory.mktemp("hook")
    repo = base / "swacheck"
    repo.mkdir()
    for name in ("swacheck",):
        shutil.copytree(
            ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "hook")
    return repo, base / "pre-commit-home"


@pytest.fixture
def scratch(tmp_path: Path, hook_repo) -> Path:
    """A scratch git repository with a passing PD pair, the other files and a
    ``.pre-commit-config.yaml`` using the hook, all committed."""
    repo, _ = hook_repo
    rev = _git(repo, "rev-parse", "HEAD").strip()
    config = f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n      - id: swacheck\n"
    files = {
        **OTHER_FILES,
        "deploy/prefill.yaml": PREFILL,
        "deploy/decode.yaml": DECODE_FIXED,
        ".pre-commit-config.yaml": config,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "init")
    return tmp_path


def _pre_commit(
    hook_repo: tuple[Path, Path], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    _, home = hook_repo
    # HOME stays: pip's own configuration (the package index) may live there
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("GITHUB_ACTIONS", None)  # the hook's own output format, not the one for Actions
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def run_hook(
    hook_repo: tuple[Path, Path], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """``pre-commit run swacheck ARGS`` (the staged files when no file option is given)."""
    return _pre_commit(hook_repo, cwd, "run", "swacheck", *args)


def test_try_repo_fails_a_broken_pair_staged_alone(hook_repo, scratch):
    repo, _ = hook_repo
    (scratch / "deploy/decode.yaml").write_text(DECODE_BROKEN)
    _git(scratch, "add", "deploy/decode.yaml")
    done = _pre_commit(hook_repo, scratch, "try-repo", str(repo), "swacheck")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "deploy/decode.yaml:" in done.stdout and "SWA404 error" in done.stdout


def test_passing_repository_passes_with_every_file(hook_repo, scratch):
    done = run_hook(hook_repo, scratch, "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "swacheck" in done.stdout and "Passed" in done.stdout


def test_broken_pair_fails_with_every_file(hook_repo, scratch):
    (scratch / "deploy/decode.yaml").write_text(DECODE_BROKEN)
    _git(scratch, "add", "-A")
    done = run_hook(hook_repo, scratch, "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "deploy/decode.yaml:" in done.stdout and "SWA404 error" in done.stdout
    # the other files are skipped and counted, not printed, and are no input errors: the
    # hook prints the finding's deployment, the pair's difference and the summary line
    assert "k8s/service.yaml" not in done.stdout
    assert "files skipped)" in done.stdout
    assert "input error" not in done.stdout


def test_broken_pair_fails_when_only_the_decode_file_is_staged(hook_repo, scratch):
    (scratch / "deploy/decode.yaml").write_text(DECODE_BROKEN)
    _git(scratch, "add", "deploy/decode.yaml")
    done = run_hook(hook_repo, scratch)  # no file option: the staged files, as in a commit
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SWA404 error" in done.stdout
    assert "PD pair: deploy/prefill.yaml (prefill) + deploy/decode.yaml (decode)" in done.stdout


def test_broken_pair_fails_when_only_the_prefill_file_is_staged(hook_repo, scratch):
    (scratch / "deploy/decode.yaml").write_text(DECODE_BROKEN)
    (scratch / "deploy/prefill.yaml").write_text(
        PREFILL.replace("tp-size: 8", "tp-size: 8\n  mem-fraction-static: 0.8")
    )
    _git(scratch, "add", "-A")
    _git(scratch, "commit", "-q", "-m", "break the decode side")
    (scratch / "deploy/prefill.yaml").write_text(PREFILL)
    _git(scratch, "add", "deploy/prefill.yaml")
    done = run_hook(hook_repo, scratch)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "deploy/decode.yaml:" in done.stdout and "SWA404 error" in done.stdout


def test_fixed_pair_passes_when_staged(hook_repo, scratch):
    (scratch / "deploy/decode.yaml").write_text(DECODE_BROKEN)
    _git(scratch, "add", "-A")
    _git(scratch, "commit", "-q", "-m", "broken")
    (scratch / "deploy/decode.yaml").write_text(DECODE_FIXED)
    _git(scratch, "add", "deploy/decode.yaml")
    done = run_hook(hook_repo, scratch)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_commit_without_deployments_passes(hook_repo, scratch):
    (scratch / "k8s/service.yaml").write_text(
        OTHER_FILES["k8s/service.yaml"].replace("30000", "30001")
    )
    (scratch / "scripts/setup.sh").write_text("#!/bin/sh\npip install 'sglang[all]'\n")
    _git(scratch, "add", "-A")
    done = run_hook(hook_repo, scratch)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout
