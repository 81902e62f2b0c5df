"""The first run in a real repository (issue 26): one classification per file however it is
reached, files that cannot be deployments skipped and counted, a missing model config a finding
(not exit 2), quiet output, and walks that honour .gitignore and gitignore-style excludes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

import swacheck
from swacheck.inputs.gitignore import Rules, parse

# ------------------------------------------------------------------ gitignore semantics


def ignored(text: str, path: str, is_dir: bool = False) -> bool:
    return Rules().add("/r", parse(text)).ignored("/r/" + path, is_dir)


@pytest.mark.parametrize(
    "patterns, path, is_dir, expected",
    [
        # a name without a slash matches at any depth
        ("*.json", "a/b/tokenizer.json", False, True),
        ("*.json", "a/b/c.yaml", False, False),
        ("venv", "x/venv", True, True),
        # dir-only: a trailing slash matches a folder, never a file of that name
        ("venv/", "venv", True, True),
        ("venv/", "venv", False, False),
        # anchored: a leading or middle slash ties the pattern to the .gitignore's folder
        ("/build", "build", True, True),
        ("/build", "x/build", True, False),
        ("data/x.yaml", "data/x.yaml", False, True),
        ("data/x.yaml", "y/data/x.yaml", False, False),
        ("d/*.yaml", "d/e/f.yaml", False, False),  # * never crosses a slash
        # negation: the last match wins
        ("*.json\n!keep.json", "keep.json", False, False),
        ("*.json\n!keep.json", "a/keep.json", False, False),
        ("*.json\n!keep.json", "a/drop.json", False, True),
        ("!keep.json\n*.json", "keep.json", False, True),
        # **
        ("**/foo", "a/b/foo", False, True),
        ("**/foo", "foo", False, True),
        ("a/**/b", "a/b", False, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("a/**/b", "c/a/x/b", False, False),
        ("a/**", "a", True, False),  # everything inside a, not a itself
        ("a/**", "a/x/y.yaml", False, True),
        # classes, ?, escapes, comments, trailing spaces
        ("x[0-9].yaml", "x5.yaml", False, True),
        ("x[!0-9].yaml", "x5.yaml", False, False),
        ("x?.yaml", "x5.yaml", False, True),
        ("\\#notes.md", "#notes.md", False, True),
        ("\\!x.yaml", "!x.yaml", False, True),
        ("# a comment\n\n", "a", False, False),
        ("foo   ", "foo", False, True),
        ("foo\\ ", "foo ", False, True),
    ],
)
def test_gitignore_semantics(patterns, path, is_dir, expected):
    assert ignored(patterns, path, is_dir) is expected


def test_gitignore_patterns_do_not_backtrack():
    # each * that a fixed part follows is atomic, and ** is matched segment by segment
    assert not ignored("*a*a*a*a*a*a*a*a*a*a*a*b", "a" * 250)
    assert not ignored("**/**/**/**/**/**/**/**/x", "/".join(["a"] * 300))


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
    }
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


MODEL = (ROOT / "examples" / "models" / "DeepSeek-V4-Flash" / "config.json").read_text()
GOOD = """\
model-path: models/v4
tp-size: 8
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 4
"""


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def walked_files(root: Path, *args: str) -> list[str]:
    run = run_cli("--format", "json", *args, ".", cwd=root)
    assert run.exit_code == 0, run.stderr
    return sorted(d["file"] for d in run.deployments)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_walks_honour_gitignore_nested_and_info_exclude(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "models/v4/config.json": MODEL,
            "deploy/a.yaml": GOOD.replace("models/v4", "../models/v4"),
            "venv/lib/site/x.yaml": GOOD,
            "node_modules/pkg/y.yaml": GOOD,
            "deploy/local.yaml": GOOD.replace("models/v4", "../models/v4"),
            "deploy/keep/b.yaml": GOOD.replace("models/v4", "../../models/v4"),
            "deploy/keep/scratch.yaml": GOOD.replace("models/v4", "../../models/v4"),
            "notes/z.yaml": GOOD.replace("models/v4", "../models/v4"),
            ".gitignore": "venv/\nnode_modules/\n*.yaml\n!deploy/**/*.yaml\n",
            "deploy/.gitignore": "/local.yaml\n",
            "deploy/keep/.gitignore": "scratch.*\n",
        },
    )
    git(root, "init", "-q", ".")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("notes/\n")
    assert walked_files(root) == ["deploy/a.yaml", "deploy/keep/b.yaml"]
    # the same from a subfolder: the .gitignore files above it still apply
    run = run_cli("--format", "json", "keep", cwd=root / "deploy")
    assert sorted(d["file"] for d in run.deployments) == ["keep/b.yaml"]
    # a file named explicitly is always read
    assert run_cli("venv/lib/site/x.yaml", cwd=root).exit_code == 0
    every = walked_files(root, "--no-respect-gitignore")
    assert len(every) == 7 and "venv/lib/site/x.yaml" in every
    # the configuration can turn it off too
    (root / "swacheck.toml").write_text("respect-gitignore = false\n")
    assert len(walked_files(root)) == 7


def test_exclude_takes_gitignore_patterns_and_paths(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "models/v4/config.json": MODEL,
            "a.yaml": GOOD,
            "data/x.yaml": GOOD.replace("models/v4", "../models/v4"),
            "data/y.yaml": GOOD.replace("models/v4", "../models/v4"),
            "other/data/x.yaml": GOOD.replace("models/v4", "../../models/v4"),
            "vendored/v.yaml": GOOD.replace("models/v4", "../models/v4"),
        },
    )
    assert len(walked_files(root)) == 5
    assert walked_files(root, "--exclude", "data/x.yaml") == [
        "a.yaml",
        "data/y.yaml",
        "other/data/x.yaml",
        "vendored/v.yaml",
    ]
    assert walked_files(root, "--exclude", "*.yaml,!a.yaml") == ["a.yaml"]
    assert walked_files(root, "--exclude", "vendored", "--extend-exclude", "/data/") == [
        "a.yaml",
        "other/data/x.yaml",
    ]
    (root / "swacheck.toml").write_text(
        'exclude = ["vendored"]\nextend-exclude = ["**/data/x.yaml"]\n'
    )
    assert walked_files(root) == ["a.yaml", "data/y.yaml"]


# ------------------------------------------------------------------ one classification per file

FIXTURES = (
    "examples",
    "tests/acceptance",
    "tests/golden",
    "tests/hostile",
    "tests/fix",
    "conformance",
)
MATRIX = """\
# a benchmark matrix: one run per row of the harness, not an SGLang --config file
model: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: EAGLE
tasks: [gsm8k, mmlu]
batch_sizes: [1, 8, 32]
num_prompts: 512
concurrency: [16, 64]
"""
HELM_VALUES = """\
replicaCount: 2
image:
  repository: lmsysorg/sglang
  tag: v0.5.23-cu129
model: deepseek-ai/DeepSeek-V4-Flash
resources:
  limits: {nvidia.com/gpu: 8}
service: {type: ClusterIP, port: 30000}
"""


def unrelated_files(root: Path) -> None:
    """What a real repository holds beside its launches: a tokenizer over the node budget, a
    dataset over the size budget, YAML that does not parse, a benchmark matrix, Helm values."""
    data = root / "assets"
    data.mkdir(parents=True, exist_ok=True)
    vocab = ",".join(f'"t{i}":{i}' for i in range(260_000))
    (data / "tokenizer.json").write_text('{"model":{"type":"BPE","vocab":{' + vocab + "}}}")
    row = json.dumps({"prompt": "x" * 100, "answer": "y" * 100})
    with open(data / "dataset.json", "w") as fh:
        fh.write("[" + ",".join([row] * 52_000) + "]")  # 11 MB: above the 10 MiB budget
    (data / "broken.yaml").write_text("steps:\n  - run: [a, b\n  - }\n")
    (data / "matrix.yaml").write_text(MATRIX)
    (data / "values.yaml").write_text(HELM_VALUES)


def classify(report: swacheck.Report) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in report.skipped:
        out[os.path.normpath(path)] = "skipped"
    for dep in report.deployments:
        out[os.path.normpath(dep.file)] = "deployment"
    for err in report.errors:
        out.setdefault(os.path.normpath(err.file), "error")
    return out


@pytest.fixture(scope="module")
def fixture_copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fixtures")
    for name in FIXTURES:
        shutil.copytree(ROOT / name, root / name, symlinks=True)
    unrelated_files(root)
    return root


def test_one_classification_per_file_walked_named_or_alone(fixture_copy, monkeypatch):
    """Every fixture of the repository, walked, then named all at once (a glob, a pre-commit
    batch), then each named alone (a hook run on one staged file): each file is a deployment,
    skipped or an input error the same way each time. A server config that a deployment file
    in the same run reads is checked through it; alone it is a deployment of its own."""
    monkeypatch.chdir(fixture_copy)
    folders = [*FIXTURES, "assets"]
    walk = classify(swacheck.check(folders, allow_empty=True, config=False))
    files = sorted(walk)
    assert {"assets/matrix.yaml", "assets/values.yaml", "assets/tokenizer.json"} <= set(files)
    for name in ("matrix", "values", "tokenizer", "dataset", "broken"):
        path = next(f for f in files if f.startswith(f"assets/{name}."))
        assert walk[path] == "skipped", path
    named = classify(swacheck.check(files, allow_empty=True, config=False))
    assert {f: named.get(f) for f in files} == walk
    for path in files:
        alone = classify(swacheck.check([path], allow_empty=True, config=False))
        assert alone.get(path) == walk[path], path
