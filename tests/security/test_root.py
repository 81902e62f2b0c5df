"""The run's root: files that inputs refer to are read only inside it, never from .git.

Each test is an attack a pull request could make; the secret it tries to print must appear in
no output format (nor the GitHub step summary) and the refusal is one input error line that
names the path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import MTP_W256, V4_FLASH, run_cli

SECRET = "s3cr3t-value-Zq8mW2"  # not shaped like a token: redaction must not be what hides it
FORMATS = ("human", "json", "github", "sarif", "junit")


def make(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository (``repo/`` with a ``.git`` folder) and a folder beside it (``outside/``)."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "repo"


def run_all_formats(
    repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str
) -> list[tuple[str, int, str]]:
    """(format, exit code, everything printed or written) for each output format."""
    out = []
    for fmt in FORMATS:
        summary = repo.parent / f"summary-{fmt}.md"
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        result = run_cli(*args, "--format", fmt, "--no-config", cwd=repo)
        written = summary.read_text() if summary.exists() else ""
        out.append((fmt, result.exit_code, result.stdout + result.stderr + written))
    return out


def assert_refused(results: list[tuple[str, int, str]], message: str) -> None:
    for fmt, code, text in results:
        assert SECRET not in text, fmt
        assert code == 2, fmt
        assert message in text, (fmt, text)


OUTSIDE_SERVER = f"model-path: /models/{SECRET}\nspeculative-algorithm: EAGLE\n"


def test_server_outside_the_root_is_refused_in_every_format(tmp_path, monkeypatch):
    repo = make(
        tmp_path,
        {
            "repo/deploy/d.yaml": "swacheck: 1\nserver: ../../outside/server.yaml\n",
            "outside/server.yaml": OUTSIDE_SERVER,
        },
    )
    results = run_all_formats(repo, monkeypatch, "deploy/d.yaml")
    assert_refused(
        results, "deploy/d.yaml:2:9: server config '../outside/server.yaml' is outside the root"
    )


def test_absolute_server_path_outside_the_root(tmp_path, monkeypatch):
    repo = make(tmp_path, {"outside/server.yaml": OUTSIDE_SERVER})
    (repo / "d.yaml").write_text(f"swacheck: 1\nserver: {tmp_path / 'outside' / 'server.yaml'}\n")
    assert_refused(run_all_formats(repo, monkeypatch, "d.yaml"), "is outside the root")


def test_a_symlink_inside_the_root_that_leads_outside(tmp_path, monkeypatch):
    repo = make(
        tmp_path,
        {"outside/server.yaml": OUTSIDE_SERVER, "repo/d.yaml": "swacheck: 1\nserver: link.yaml\n"},
    )
    os.symlink(tmp_path / "outside" / "server.yaml", repo / "link.yaml")
    result = run_cli("d.yaml", "--no-config", cwd=repo)
    assert result.exit_code == 2
    assert SECRET not in result.stdout + result.stderr
    assert "d.yaml:2:9: server config 'link.yaml' is outside the root" in result.stderr


def test_root_option_widens_what_may_be_read(tmp_path):
    repo = make(
        tmp_path,
        {
            "repo/deploy/d.yaml": "swacheck: 1\nserver: ../../outside/server.yaml\n",
            "outside/server.yaml": OUTSIDE_SERVER,
        },
    )
    narrow = run_cli("deploy/d.yaml", "--no-config", cwd=repo)
    wide = run_cli("deploy/d.yaml", "--no-config", "--root", str(tmp_path), cwd=repo)
    assert "outside the root" in narrow.stderr
    assert "outside the root" not in wide.stderr  # read now: the model path is what fails
    assert (
        "config.json for model" in wide.stderr + wide.stdout
    )  # read now: the (unknown) model is what is reported


def test_root_must_be_a_directory(tmp_path):
    result = run_cli("x.yaml", "--root", str(tmp_path / "nope"), cwd=tmp_path)
    assert result.exit_code == 2
    assert "--root" in result.stderr and "is not a directory" in result.stderr


GIT_CONFIG = f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {SECRET}\n'
COMPOSE = """services:
  sgl:
    image: lmsysorg/sglang:latest
    env_file: {env_file}
    command: python -m sglang.launch_server --model-path $extraheader --speculative-algorithm EAGLE
"""


def test_compose_env_file_in_git_metadata_is_never_read(tmp_path, monkeypatch):
    repo = make(
        tmp_path,
        {
            "repo/deploy/docker-compose.yaml": COMPOSE.format(env_file="../.git/config"),
            "repo/.git/config": GIT_CONFIG,
        },
    )
    results = run_all_formats(repo, monkeypatch, "deploy/docker-compose.yaml")
    assert_refused(
        results,
        "deploy/docker-compose.yaml:4:15: env_file '.git/config' is inside version-control metadata",
    )


def test_compose_env_file_outside_the_root(tmp_path, monkeypatch):
    repo = make(
        tmp_path,
        {
            "repo/docker-compose.yaml": COMPOSE.format(env_file="../outside/prod.env"),
            "outside/prod.env": f"extraheader={SECRET}\n",
        },
    )
    assert_refused(
        run_all_formats(repo, monkeypatch, "docker-compose.yaml"),
        "env_file '../outside/prod.env' is outside the root",
    )


def test_an_env_file_compose_would_refuse_is_an_error_that_shows_no_line(tmp_path, monkeypatch):
    # a copy of a git config inside the tree: Compose stops at `[`; no variable is taken from it
    repo = make(
        tmp_path,
        {
            "repo/docker-compose.yaml": COMPOSE.format(env_file="git.conf"),
            "repo/git.conf": GIT_CONFIG,
        },
    )
    results = run_all_formats(repo, monkeypatch, "docker-compose.yaml")
    assert_refused(results, "git.conf:1:1: not an env file line")


@pytest.mark.parametrize(
    "text",
    [
        "A=1\n  B = two # comment\nexport C=3\nD: four\nE.F=5\nINHERITED\n",
        "# only comments\n\n",
    ],
)
def test_env_files_in_compose_syntax_are_read(tmp_path, text):
    compose = COMPOSE.format(env_file="ok.env").replace("$extraheader", "/models/v4")
    repo = make(tmp_path, {"repo/docker-compose.yaml": compose, "repo/ok.env": text})
    result = run_cli("docker-compose.yaml", "--no-config", cwd=repo)
    assert "not an env file line" not in result.stderr


def test_a_dotenv_file_outside_the_root_is_not_read(tmp_path):
    # `.env` beside the Compose file is optional: a symlink to outside the root is passed over
    compose = COMPOSE.format(env_file="ok.env").replace("$extraheader", "$MODEL")
    repo = make(
        tmp_path,
        {
            "repo/docker-compose.yaml": compose,
            "repo/ok.env": "X=1\n",
            "outside/.env": f"MODEL={SECRET}\n",
        },
    )
    os.symlink(tmp_path / "outside" / ".env", repo / ".env")
    result = run_cli("docker-compose.yaml", "--no-config", "--format", "json", cwd=repo)
    assert SECRET not in result.stdout + result.stderr
    assert "MODEL" in result.stderr  # the model path is unknown, and the error says which variable


SCRIPT = """#!/bin/bash
. {sourced}
python -m sglang.launch_server --model-path "$TOKEN" --speculative-algorithm EAGLE
"""


def test_a_script_sourcing_a_file_outside_the_root_learns_nothing_from_it(tmp_path, monkeypatch):
    secret_file = tmp_path / "outside" / "secrets.sh"
    repo = make(tmp_path, {"outside/secrets.sh": f"TOKEN={SECRET}\n"})
    (repo / "launch.sh").write_text(SCRIPT.format(sourced=secret_file))
    for fmt, code, text in run_all_formats(repo, monkeypatch, "launch.sh"):
        assert SECRET not in text, fmt
        assert "model-path cannot be resolved" in text, fmt
        assert code == 2


def test_a_script_sourcing_git_metadata_learns_nothing(tmp_path):
    repo = make(tmp_path, {"repo/.git/token.sh": f"TOKEN={SECRET}\n"})
    (repo / "launch.sh").write_text(SCRIPT.format(sourced=".git/token.sh"))
    result = run_cli("launch.sh", "--no-config", cwd=repo)
    assert SECRET not in result.stdout + result.stderr
    assert result.exit_code == 2


def test_a_sourced_file_inside_the_root_is_still_read(tmp_path):
    repo = make(
        tmp_path, {"repo/env.sh": "TOKEN=models/v4\n", "repo/models/v4/config.json": V4_FLASH}
    )
    (repo / "launch.sh").write_text(SCRIPT.format(sourced="env.sh"))
    result = run_cli("launch.sh", "--no-config", "--format", "json", cwd=repo)
    assert result.exit_code in (0, 1), result.stderr
    assert result.data["deployments"]


def test_launch_config_file_outside_the_root(tmp_path, monkeypatch):
    repo = make(tmp_path, {"outside/server.yaml": OUTSIDE_SERVER})
    (repo / "launch.sh").write_text(
        f"python -m sglang.launch_server --config {tmp_path / 'outside' / 'server.yaml'}\n"
    )
    assert_refused(run_all_formats(repo, monkeypatch, "launch.sh"), "--config")


def test_pairs_outside_the_root(tmp_path, monkeypatch):
    repo = make(
        tmp_path,
        {
            "repo/pairs.yaml": "swacheck: 1\npairs:\n  - {prefill: ../outside/p.yaml, decode: d.yaml}\n",
            "repo/d.yaml": "model-path: models/v4\ndisaggregation-mode: decode\n",
            "repo/models/v4/config.json": V4_FLASH,
            "outside/p.yaml": OUTSIDE_SERVER,
        },
    )
    results = run_all_formats(repo, monkeypatch, "pairs.yaml", "d.yaml")
    assert_refused(
        results, "pairs.yaml:3:15: pairs[].prefill '../outside/p.yaml' is outside the root"
    )


# ---------------------------------------------------------------- model configs


def test_a_model_folder_outside_the_root_is_read(tmp_path):
    """Checkpoints live outside the repository (a shared disk, the hub cache): their config.json is read."""
    repo = make(
        tmp_path, {"outside/ckpt/config.json": V4_FLASH, "outside/mtp/config.json": MTP_W256}
    )
    (repo / "server.yaml").write_text(
        f"model-path: {tmp_path / 'outside' / 'ckpt'}\nspeculative-algorithm: EAGLE\n"
        f"speculative-draft-model-path: {tmp_path / 'outside' / 'mtp'}\ndisaggregation-mode: decode\n"
    )
    result = run_cli("server.yaml", "--no-config", "--format", "json", cwd=repo)
    assert result.exit_code == 1, result.stderr
    assert "SWA102" in result.codes()  # the draft's window 256 differs: both files were read


@pytest.mark.parametrize("name", ["secret.json", "config.json.bak"])
def test_outside_the_root_only_a_file_named_config_json_is_read(tmp_path, monkeypatch, name):
    repo = make(tmp_path, {f"outside/{name}": f'{{"architectures": ["{SECRET}"]}}'})
    (repo / "server.yaml").write_text("model-path: m\nspeculative-algorithm: EAGLE\n")
    results = run_all_formats(
        repo, monkeypatch, "server.yaml", "--model-config", f"m={tmp_path / 'outside' / name}"
    )
    for fmt, code, text in results:
        assert SECRET not in text, fmt
        assert code == 2, fmt
    assert any(
        "must be a JSON file" in t or "only a regular file named config.json" in t
        for _, _, t in results
    )


def test_values_of_a_model_config_outside_the_root_are_never_quoted(tmp_path, monkeypatch):
    bad = V4_FLASH.replace('"sliding_window": 128', f'"sliding_window": "{SECRET}"')
    assert bad != V4_FLASH
    repo = make(tmp_path, {"outside/ckpt/config.json": bad})
    (repo / "server.yaml").write_text(
        f"model-path: {tmp_path / 'outside' / 'ckpt'}\nspeculative-algorithm: EAGLE\n"
    )
    for fmt, _code, text in run_all_formats(repo, monkeypatch, "server.yaml"):
        assert SECRET not in text, fmt
        # SWA260: transformers' DeepseekV4Config refuses the type; named by type, never by value
        assert "sliding_window is a str, not an integer" in text, fmt


def test_a_non_dsv4_model_outside_the_root_is_skipped_without_its_architectures(tmp_path):
    repo = make(tmp_path, {"outside/llama/config.json": f'{{"architectures": ["{SECRET}"]}}'})
    (repo / "server.yaml").write_text(
        f"model-path: {tmp_path / 'outside' / 'llama'}\nspeculative-algorithm: EAGLE\n"
    )
    result = run_cli("server.yaml", "--no-config", "-v", cwd=repo)
    assert SECRET not in result.stdout + result.stderr
    assert "not DeepseekV4ForCausalLM" in result.stdout + result.stderr


def test_a_model_config_in_git_metadata_is_never_read(tmp_path):
    repo = make(tmp_path, {"repo/.git/m/config.json": V4_FLASH})
    (repo / "server.yaml").write_text("model-path: .git/m\nspeculative-algorithm: EAGLE\n")
    result = run_cli("server.yaml", "--no-config", cwd=repo)
    assert result.exit_code == 2
    assert "inside version-control metadata" in result.stderr


def test_the_default_root_is_the_git_top_level_of_the_first_path(tmp_path):
    """Run from outside the repository: the root is still the repository, not the working directory."""
    repo = make(
        tmp_path,
        {
            "repo/deploy/d.yaml": "swacheck: 1\nserver: ../server.yaml\n",
            "repo/server.yaml": "model-path: models/v4\n",
            "repo/models/v4/config.json": V4_FLASH,
        },
    )
    result = run_cli(
        str(repo / "deploy" / "d.yaml"), "--no-config", "--format", "json", cwd=tmp_path
    )
    assert "outside the root" not in result.stderr
    assert result.deployments, result.stderr


def test_a_revision_cannot_steer_a_read_into_another_file(tmp_path, monkeypatch):
    """`revision` picks a refs file in the hub cache; `../..` must not make swacheck read (and
    then print, in "looked in") the first line of any other file."""
    cache = tmp_path / "hub"
    (cache / "models--org--DeepSeek-V4-m" / "refs").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    repo = make(tmp_path, {})
    (repo / "server.yaml").write_text(
        "model-path: org/DeepSeek-V4-m\nrevision: ../../../secret.txt\nspeculative-algorithm: EAGLE\n"
    )
    result = run_cli("server.yaml", "--no-config", cwd=repo)
    assert result.exit_code == 0  # a SWA308 warning: the geometry is not checked
    assert SECRET not in result.stdout + result.stderr
    assert "SWA308 warning: config.json for model 'org/DeepSeek-V4-m' not found" in result.stdout


def test_a_refs_file_that_holds_no_commit_is_not_echoed(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    (cache / "models--org--DeepSeek-V4-m" / "refs").mkdir(parents=True)
    (cache / "models--org--DeepSeek-V4-m" / "refs" / "main").write_text(SECRET)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    repo = make(tmp_path, {})
    (repo / "server.yaml").write_text(
        "model-path: org/DeepSeek-V4-m\nspeculative-algorithm: EAGLE\n"
    )
    result = run_cli("server.yaml", "--no-config", cwd=repo)
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.parametrize("walk", [True, False])
def test_a_symlinked_input_that_leads_outside_the_root_is_not_read(tmp_path, monkeypatch, walk):
    """A pull request can add `deploy/x.yaml -> /proc/self/environ` (the job's environment) or a
    link to any file of the runner; walked or named through a glob, it is never read."""
    repo = make(
        tmp_path,
        {
            "outside/x.yaml": f"{SECRET}: 1\nmodel-path: /m/{SECRET}\n",
            "repo/deploy/ok.yaml": "model-path: models/v4\n",
            "repo/deploy/models/v4/config.json": V4_FLASH,
        },
    )
    os.symlink(tmp_path / "outside" / "x.yaml", repo / "deploy" / "x.yaml")
    os.symlink(tmp_path / "outside", repo / "deploy" / "sub")
    args = ["deploy"] if walk else ["deploy/x.yaml", "deploy/sub/x.yaml", "deploy/ok.yaml"]
    for fmt, code, text in run_all_formats(repo, monkeypatch, *args, "-v"):
        assert SECRET not in text, fmt
        assert code == 2, fmt
        assert "deploy/x.yaml: a symbolic link to outside the root" in text, fmt
    if not walk:
        assert "deploy/sub/x.yaml: a symbolic link to outside the root" in text


def test_a_file_named_outside_the_root_is_still_checked(tmp_path):
    """The person running swacheck may name any file; only links inside the root are held back."""
    repo = make(
        tmp_path,
        {
            "repo/ok.yaml": "model-path: models/v4\n",
            "repo/models/v4/config.json": V4_FLASH,
            "other/models/v4/config.json": V4_FLASH,
            "other/s.yaml": "model-path: models/v4\n",
        },
    )
    result = run_cli(
        "ok.yaml", str(tmp_path / "other" / "s.yaml"), "--no-config", "--format", "json", cwd=repo
    )
    assert result.exit_code == 0, result.stderr
    assert len(result.deployments) == 2
