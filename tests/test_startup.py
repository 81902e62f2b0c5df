"""Start-up: which modules a command imports (never a time; timings are benchmarks/bench.py's).

- ``--version`` and help import only what they print: no PyYAML, no rich, no reader or format;
- a one-file run imports the loader, the resolver, the rules and the one report format it prints,
  and nothing it does not need (no other reader or format, no fixer, ``why``, ``explain``, rich,
  or TOML parser without a configuration file);
- ``settings`` is a leaf (with the ``@record`` decorator it is declared with);
- ``swacheck PATH...``, with ``--format`` at most, imports neither typer nor click (entry.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

RUN_CLI = """
import json, sys
sys.argv = ["swacheck", *sys.argv[1:]]
import swacheck.entry as entry
entry.leave = lambda code: None  # stay alive (no os._exit) to list the modules loaded
entry.main()
sys.stdout.flush()
sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)))
"""


def _modules(*args: str, cwd=None, env=None) -> set[str]:
    """The modules loaded by the time ``swacheck ARGS`` ends, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_CLI, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env=env,
    )
    return set(json.loads(done.stderr.splitlines()[-1]))


@pytest.mark.parametrize(
    "args", [("--version",), ("--help",), ("check", "--help"), ("pair", "--help"), ("why", "-h")]
)
def test_version_and_help_import_neither_yaml_nor_rich(args):
    modules = _modules(*args)
    assert "swacheck.cli" in modules
    heavy = {m for m in modules if m.split(".")[0] in ("yaml", "rich", "tomllib", "pydantic")}
    assert heavy == set(), heavy
    ours = {m for m in modules if m.startswith("swacheck.")}
    # the command line's own modules; no loader, engine, rule, reader or report format
    assert ours <= {
        "swacheck.entry",
        "swacheck.model",  # the model package (its __init__ imports nothing)
        "swacheck.model.recordtype",  # @record, which settings' Settings is declared with
        "swacheck.cli",
        "swacheck.options",
        "swacheck.settings",
        "swacheck.report",  # the format registry: names only
        "swacheck.sglang",
        "swacheck.sglang.version",  # --version names the releases
    }, ours


def test_settings_is_a_leaf():
    code = "import sys, swacheck.settings; print(sorted(m for m in sys.modules if m.startswith('swacheck')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "['swacheck', 'swacheck.model', 'swacheck.model.recordtype', 'swacheck.settings']"
    )


def test_the_settings_constants_agree_with_their_sources():
    from swacheck import limits, settings
    from swacheck.model import records

    assert settings.MAX_FILE_SIZE == limits.MAX_FILE_SIZE == settings.Settings().max_file_size
    assert settings.FAIL_ON == records.SEVERITIES


def test_the_default_release_is_the_newest_profile():
    from swacheck import settings
    from swacheck.sglang.version import NEWEST

    assert settings.Settings().sglang_version == NEWEST.version


SERVER = """\
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
speculative-algorithm: EAGLE
speculative-num-steps: 2
speculative-eagle-topk: 1
"""

CLEAN_ENV = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}

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


def _unneeded(modules: set[str]) -> set[str]:
    return {m for m in modules for n in NOT_NEEDED if m == n or m.startswith(n + ".")}


@pytest.mark.parametrize(
    ("fmt", "renderer"),
    [("human", "swacheck.report.human"), ("json", "swacheck.report.json_format")],
)
def test_a_one_file_yaml_run_imports_only_what_it_needs(tmp_path, fmt, renderer):
    (tmp_path / "server.yaml").write_text(SERVER, encoding="utf-8")
    modules = _modules("--format", fmt, "server.yaml", cwd=tmp_path, env=CLEAN_ENV)
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
    modules = _modules("server.yaml", cwd=tmp_path, env=CLEAN_ENV)
    assert "tomllib" in modules
    assert {m.split(".")[0] for m in _unneeded(modules)} == {"tomllib"}


def test_paths_and_a_format_are_checked_without_typer(tmp_path):
    # `swacheck PATH...` with --format at most (entry.py): no parser, neither typer nor click
    (tmp_path / "server.yaml").write_text(SERVER, encoding="utf-8")
    for args in (("server.yaml",), ("--format", "json", "server.yaml")):
        plain = _modules(*args, cwd=tmp_path, env=CLEAN_ENV)
        assert "swacheck.rules" in plain and "swacheck.cli" not in plain
        assert {m for m in plain if m.split(".")[0] in ("typer", "click")} == set()
    # the negative control: another option, and the command line is parsed by typer
    assert "typer" in _modules("-q", "server.yaml", cwd=tmp_path, env=CLEAN_ENV)
