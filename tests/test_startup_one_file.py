"""Start-up of a one-file run: checking one plain SGLang server config imports the loader, the
resolver, the rules and the one report format it prints, and nothing it does not need (no other
reader, no other format, no fixer, ``why``, ``explain``, rich, or TOML parser when there is no
configuration file). These assert the modules imported, never a time (timings are
benchmarks/bench.py's cold-start lines)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

RUN_CLI = """
import json, sys
sys.argv = ["swacheck", *sys.argv[1:]]
from swacheck.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)))
"""

SERVER = """\
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
speculative-algorithm: EAGLE
speculative-num-steps: 2
speculative-eagle-topk: 1
"""

# what a one-file YAML run must not import (a prefix covers its submodules)
NOT_NEEDED = (
    "rich",
    "tomllib",  # only when a configuration file is found
    "swacheck.inputs.argv",
    "swacheck.inputs.compose",
    "swacheck.inputs.containers",
    "swacheck.inputs.dockerfile",
    "swacheck.inputs.kubernetes",
    "swacheck.inputs.launch",
    "swacheck.inputs.markdown",
    "swacheck.inputs.pitfalls",
    "swacheck.inputs.platforms",
    "swacheck.inputs.recognise",
    "swacheck.inputs.script",
    "swacheck.inputs.shell",
    "swacheck.inputs.skypilot",
    "swacheck.inputs.srt_slurm",
    "swacheck.inputs.yaml_words",
    "swacheck.why",
    "swacheck.explain",
    "swacheck.glossary",
    "swacheck.fixer",
    "swacheck.fixplan",
    "swacheck.safewrite",
    "swacheck.baseline",
    "swacheck.api",
)


def _modules(cwd, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", RUN_CLI, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    return set(json.loads(done.stderr.splitlines()[-1]))


def _unneeded(modules: set[str]) -> set[str]:
    return {m for m in modules for n in NOT_NEEDED if m == n or m.startswith(n + ".")}


@pytest.mark.parametrize(
    ("fmt", "renderer"),
    [("human", "swacheck.report.human"), ("json", "swacheck.report.json_format")],
)
def test_a_one_file_yaml_run_imports_only_what_it_needs(tmp_path, fmt, renderer):
    (tmp_path / "server.yaml").write_text(SERVER, encoding="utf-8")
    modules = _modules(tmp_path, "--format", fmt, "server.yaml")
    # the run did happen: the loader, the resolver and the rules were imported
    assert {"swacheck.loading", "swacheck.sglang.resolve", "swacheck.rules", renderer} <= modules
    assert _unneeded(modules) == set()
    formats = {
        m
        for m in modules
        if m.startswith("swacheck.report.")
        and m not in ("swacheck.report.common", "swacheck.report.escape")
        and m != "swacheck.report.renderer"
    }
    assert formats == {renderer}, formats


def test_a_configuration_file_is_what_brings_the_toml_parser(tmp_path):
    # the negative control of the test above: the same run with a swacheck.toml does read it
    (tmp_path / "server.yaml").write_text(SERVER, encoding="utf-8")
    (tmp_path / "swacheck.toml").write_text('sglang-version = "0.5.23"\n', encoding="utf-8")
    modules = _modules(tmp_path, "server.yaml")
    assert "tomllib" in modules
    assert {m.split(".")[0] for m in _unneeded(modules)} == {"tomllib"}
