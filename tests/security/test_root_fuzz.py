"""Property test: whatever path a pull request writes where swacheck follows a reference, no
byte of a file outside the root or inside ``.git`` reaches any output.

The tree holds the secret in every place an attacker would aim at: a file beside the
repository, ``.git/config``, a file reached through a link inside the repository, and a
folder link that leaves it.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from tests.conftest import run_cli

SECRET = "Zk4-leak-7Qp"
# what the secret file holds: valid as YAML, as an env file, as a shell script, and as JSON
SECRET_TEXT = f'{{"model-path": "/m/{SECRET}", "TOKEN": "{SECRET}"}}\n'
SEGMENTS = [
    "..",
    ".",
    "outside",
    "repo",
    ".git",
    "config",
    "link",
    "dirlink",
    "secret.yaml",
    "secret.env",
    "config.json",
    "x",
]

paths = st.one_of(
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6).map("/".join),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6).map(
        lambda parts: "{ROOT}/" + "/".join(parts)
    ),
)

TEMPLATES = {
    "server": ("d.yaml", "swacheck: 1\nserver: '{path}'\n"),
    "model_config": (
        "d.yaml",
        "swacheck: 1\nserver: {{model-path: /m/v4, speculative-algorithm: "
        "EAGLE}}\ntarget: {{model_config: '{path}'}}\n",
    ),
    "pairs": ("d.yaml", "swacheck: 1\npairs:\n  - {{prefill: '{path}', decode: '{path}'}}\n"),
    "env_file": (
        "docker-compose.yaml",
        "services:\n  s:\n    image: lmsysorg/sglang\n    env_file: '{path}'\n    "
        "command: python -m sglang.launch_server --model-path $TOKEN "
        "--speculative-algorithm EAGLE\n",
    ),
    "source": (
        "launch.sh",
        ". '{path}'\npython -m sglang.launch_server --model-path \"$TOKEN\" --speculative-algorithm EAGLE\n",
    ),
    "--config": ("launch.sh", "python -m sglang.launch_server --config '{path}'\n"),
    "model-path": ("server.yaml", "model-path: '{path}'\nspeculative-algorithm: EAGLE\n"),
}


def build(tmp: Path) -> Path:
    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp / "outside").mkdir()
    for place in (tmp / "outside", repo / ".git", tmp):
        for name in ("secret.yaml", "secret.env", "config", "config.json", "x"):
            (place / name).write_text(SECRET_TEXT)
    os.symlink(tmp / "outside" / "secret.yaml", repo / "link")
    os.symlink(tmp / "outside", repo / "dirlink")
    return repo


@settings(
    max_examples=examples(1.0),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(sorted(TEMPLATES)),
    path=paths,
    fmt=st.sampled_from(["human", "json", "github", "sarif", "junit"]),
)
def test_no_reference_leaks_a_file_outside_the_root(tmp_path_factory, kind, path, fmt):
    tmp = tmp_path_factory.mktemp("root")
    repo = build(tmp)
    name, template = TEMPLATES[kind]
    (repo / name).write_text(template.format(path=path.replace("{ROOT}", str(tmp))))
    result = run_cli(name, "--no-config", "--format", fmt, cwd=repo)
    assert SECRET not in result.stdout + result.stderr
    assert "internal error" not in result.stderr
