"""Issue 23: links a pull request commits that lead out of the root, or into ``.git``.

Each test is the attack, run through the installed CLI (a subprocess) in every output format,
the GitHub step summary included: nothing of the target may be read, and no path outside the
root (a link's target, or a commit read through it) may appear in any message.

- a Hugging Face hub cache inside the checkout (the server's ``HF_HUB_CACHE``) whose
  ``refs/main`` is a link to a file outside the root holding a hex string (it would be taken
  as the commit and printed in "looked in"), whose snapshot ``config.json`` is a link out, or
  whose whole ``models--ORG--NAME`` folder is a link out; a model folder that is a link out;
- ``pyproject.toml`` / ``swacheck.toml`` that is a link out (found by walking up, or given with
  ``--config``), or a link into ``.git``;
- a named (or walked) input that is a link into ``.git``, or a path inside it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES

SWACHECK = (
    [shutil.which("swacheck")] if shutil.which("swacheck") else [sys.executable, "-m", "swacheck"]
)
FORMATS = ("human", "json", "github", "sarif", "junit", "concise", "gitlab")
HEX = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7"  # a secret shaped like a commit
SECRET = "s3cr3t-value-Zq8mW2"
V4 = (EXAMPLES / "models" / "DeepSeek-V4-Flash" / "config.json").read_text()
GIT_CONFIG = f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {SECRET}\n'


def make(tmp_path: Path) -> tuple[Path, Path]:
    """``repo/`` (with ``.git/config`` holding a credential) and ``outside/`` beside it."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(GIT_CONFIG)
    outside.mkdir()
    (outside / "commit").write_text(HEX + "\n")
    snap = outside / "cache" / "snapshots" / HEX
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(
        V4.replace('"sliding_window": 128', f'"x": "{SECRET}", "sliding_window": 128')
    )
    (outside / "ckpt").mkdir()
    (outside / "ckpt" / "config.json").write_text(V4)
    return repo, outside


def run(repo: Path, *args: str, fmt: str = "human") -> tuple[int, str]:
    """(exit code, everything printed or written) of the installed CLI in ``repo``."""
    summary = repo.parent / "summary.md"
    summary.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "HF_"))}
    env.update(
        {
            "GITHUB_STEP_SUMMARY": str(summary),
            "HF_HUB_CACHE": str(repo.parent / "no-cache"),
            "LC_ALL": "C.UTF-8",
        }
    )
    done = subprocess.run(
        [*SWACHECK, "--format", fmt, *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    written = summary.read_text() if summary.exists() else ""
    return done.returncode, done.stdout + done.stderr + written


def assert_nothing_from_outside(text: str, tmp_path: Path) -> None:
    assert HEX not in text
    assert SECRET not in text
    assert str(tmp_path / "outside") not in text
    assert "outside/" not in text and "../outside" not in text


HUB_SERVER = (
    "model-path: org/DeepSeek-V4-m\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
    "speculative-eagle-topk: 1\n"
)


def hub_cache(repo: Path) -> Path:
    folder = repo / "hf" / "models--org--DeepSeek-V4-m"
    (folder / "refs").mkdir(parents=True)
    (repo / "launch.sh").write_text(
        "export HF_HUB_CACHE=hf\n"
        "python -m sglang.launch_server --model-path org/DeepSeek-V4-m "
        "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1\n"
    )
    return folder


def test_a_hub_cache_refs_link_out_of_the_root_is_not_read(tmp_path):
    repo, outside = make(tmp_path)
    folder = hub_cache(repo)
    os.symlink(outside / "commit", folder / "refs" / "main")
    (folder / "snapshots" / HEX).mkdir(parents=True)  # were the link read, this would be found
    (folder / "snapshots" / HEX / "config.json").write_text(V4)
    for fmt in FORMATS:
        code, text = run(repo, "launch.sh", fmt=fmt)
        assert_nothing_from_outside(text, tmp_path)
        assert code == 0, (fmt, text)  # SWA308: the model's config.json is not found
        assert "SWA308" in text, fmt
    code, text = run(repo, "launch.sh")
    assert (
        "hf/models--org--DeepSeek-V4-m/refs/main (a symbolic link to outside the root: not read)"
        in text
    )
    assert "hf/models--org--DeepSeek-V4-m/snapshots/main/config.json" in text


def test_a_refs_file_inside_the_root_still_names_its_snapshot(tmp_path):
    """The same cache with a real refs file: the snapshot is found and the geometry checked."""
    repo, _ = make(tmp_path)
    folder = hub_cache(repo)
    (folder / "refs" / "main").write_text(HEX)
    (folder / "snapshots" / HEX).mkdir(parents=True)
    (folder / "snapshots" / HEX / "config.json").write_text(V4)
    code, text = run(repo, "launch.sh", "-v")
    assert code == 0, text
    assert "SWA308" not in text


@pytest.mark.parametrize("link", ["snapshot-config", "cache-folder", "model-folder"])
def test_a_model_config_link_out_of_the_root_is_not_read(tmp_path, link):
    repo, outside = make(tmp_path)
    args, shown = ["launch.sh"], "(a symbolic link to outside the root: not read)"
    if link == "model-folder":
        (repo / "models").mkdir()
        os.symlink(outside / "ckpt", repo / "models" / "v4")
        (repo / "server.yaml").write_text(HUB_SERVER.replace("org/DeepSeek-V4-m", "models/v4"))
        args = ["server.yaml"]
        shown = "models/v4/config.json (a symbolic link to outside the root: not read)"
    elif link == "cache-folder":  # hf/models--org--DeepSeek-V4-m -> outside/cache
        folder = hub_cache(repo)
        shutil.rmtree(folder)
        os.symlink(outside / "cache", folder)
        (outside / "cache" / "refs").mkdir()
        (outside / "cache" / "refs" / "main").write_text(HEX)
    else:  # hf/models--org--DeepSeek-V4-m/snapshots/main/config.json -> outside
        folder = hub_cache(repo)
        (folder / "snapshots" / "main").mkdir(parents=True)
        os.symlink(
            outside / "cache" / "snapshots" / HEX / "config.json",
            folder / "snapshots" / "main" / "config.json",
        )
    for fmt in FORMATS:
        code, text = run(repo, *args, fmt=fmt)
        assert_nothing_from_outside(text, tmp_path)
        assert code == 0, (fmt, text)
        assert "SWA308" in text, fmt
    assert shown in run(repo, *args)[1]


def test_a_model_folder_named_outside_the_root_is_still_read(tmp_path):
    """Only links inside the root are held back: an absolute path to a shared disk is read."""
    repo, outside = make(tmp_path)
    (repo / "server.yaml").write_text(
        f"model-path: {outside / 'ckpt'}\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        "speculative-eagle-topk: 1\n"
    )
    code, text = run(repo, "server.yaml", "-v")
    assert code == 0 and "SWA308" not in text, text


# ------------------------------------------------------------------ configuration files

CONFIG = 'select = ["SWA9"]\nexit-zero = true\n'


@pytest.mark.parametrize("name", ["pyproject.toml", "swacheck.toml"])
def test_a_config_file_link_out_of_the_root_is_refused(tmp_path, name):
    repo, outside = make(tmp_path)
    (outside / "x.toml").write_text(
        CONFIG if name == "swacheck.toml" else "[tool.swacheck]\n" + CONFIG
    )
    (repo / "sub").mkdir()
    (repo / "sub" / "server.yaml").write_text(HUB_SERVER)
    os.symlink("../outside/x.toml", repo / name)
    for cwd, args in ((repo, ["sub/server.yaml"]), (repo / "sub", ["server.yaml"])):
        code, text = run(cwd, *args)  # found by walking up from the working directory
        assert code == 2, text
        line = f"{name}: a symbolic link to outside the root {str(repo)!r}; not read (--root)"
        assert len(text.strip().splitlines()) == 1 and text.strip().endswith(line), text
    code, text = run(repo, "--config", name, "sub/server.yaml")
    assert code == 2 and f"{name}: a symbolic link to outside the root" in text, text
    # --root that holds the target: read (the exit-zero of the file applies)
    code, text = run(repo, "--root", str(tmp_path), "sub/server.yaml")
    assert code == 0 and "outside the root" not in text, text


def test_a_config_file_link_into_git_metadata_is_refused(tmp_path):
    repo, _ = make(tmp_path)
    (repo / "server.yaml").write_text(HUB_SERVER)
    os.symlink(".git/config", repo / "swacheck.toml")
    for args in (["server.yaml"], ["--config", ".git/config", "server.yaml"]):
        code, text = run(repo, *args)
        assert code == 2, text
        assert SECRET not in text and "extraheader" not in text and "AUTHORIZATION" not in text
        assert "inside version-control metadata" in text
        assert len(text.strip().splitlines()) == 1, text


def test_a_config_file_link_inside_the_root_is_read(tmp_path):
    repo, _ = make(tmp_path)
    (repo / "conf").mkdir()
    (repo / "conf" / "x.toml").write_text(CONFIG)
    (repo / "server.yaml").write_text(HUB_SERVER)
    os.symlink("conf/x.toml", repo / "swacheck.toml")
    code, text = run(repo, "--show-settings")
    assert code == 0 and "(swacheck.toml)" in text, text


# ------------------------------------------------------------------ named links into .git


@pytest.mark.parametrize("how", ["link", "path", "walked"])
def test_a_named_input_in_git_metadata_is_never_parsed(tmp_path, how):
    repo, _ = make(tmp_path)
    (repo / "ok.yaml").write_text(HUB_SERVER)
    os.symlink(".git/config", repo / "cfg.yaml")
    args = {"link": ["cfg.yaml", "ok.yaml"], "path": [".git/config", "ok.yaml"], "walked": ["."]}[
        how
    ]
    name = ".git/config" if how == "path" else "cfg.yaml"
    for fmt in FORMATS:
        code, text = run(repo, *args, fmt=fmt)
        assert code == 2, (fmt, text)
        for piece in (SECRET, "extraheader", "AUTHORIZATION", "[http", "\\textra"):
            assert piece not in text, (fmt, piece, text)
        assert "inside version-control metadata" in text, fmt
    code, text = run(repo, *args)
    assert (
        f"{name}: inside version-control metadata (.git, .hg, .svn), or a link to it; swacheck never reads it"
        in text
    )
    assert "ok.yaml" in text or "Checked 1 deployment" in text  # the other file is still checked


def test_a_walk_of_a_folder_in_git_metadata_reads_none_of_its_files(tmp_path):
    """The walk asks once per folder (its path and real path), not once per file: a folder named
    inside .git gives each of its files the error, and no file is parsed."""
    repo, _ = make(tmp_path)
    (repo / ".git" / "hooks").mkdir(exist_ok=True)
    (repo / ".git" / "hooks" / "pre.yaml").write_text(f"model-path: {SECRET}\n")
    code, text = run(repo, ".git/hooks")
    assert code == 2, text
    assert "pre.yaml: inside version-control metadata" in text
    assert SECRET not in text
