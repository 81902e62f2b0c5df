"""The command line as a user meets it: commands, exit codes, one-line input errors."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import pytest
from conftest import EAGLE, EXAMPLES, ROOT, run_cli

from swacheck import __version__
from swacheck.rules import RULES


def test_version():
    run = run_cli("--version")
    assert run.exit_code == 0
    assert (
        run.stdout.strip()
        == f"swacheck {__version__} (SGLang 0.5.23 behaviour; knows 0.5.12, 0.5.13, "
        f"0.5.14, 0.5.15, 0.5.15.post1, 0.5.16, 0.5.17, 0.5.18, 0.5.19, 0.5.20, "
        f"0.5.21, 0.5.22, 0.5.23)"
    )


def test_python_dash_m_runs_the_same_cli():
    proc = subprocess.run(
        [sys.executable, "-m", "swacheck", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0 and proc.stdout.startswith("swacheck ")


def test_help_lists_the_commands():
    run = run_cli("--help")
    assert run.exit_code == 0
    for word in ("check", "rules", "rule"):
        assert word in run.stdout


def test_check_help_documents_exit_codes():
    run = run_cli("check", "--help")
    assert "Exit codes: 0" in run.stdout and "--fail-on" in run.stdout


def test_rules_lists_every_rule_once():
    run = run_cli("rules")
    lines = run.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == [r.CODE for r in RULES]
    assert "SWA101  unified-ring-mismatch" in run.stdout


def test_rule_prints_the_full_doc():
    run = run_cli("rule", "swa101")
    assert run.exit_code == 0
    for heading in ("## What it does", "## Why it matters", "## Example", "## Fix"):
        assert heading in run.stdout


def test_every_rule_doc_has_the_four_sections():
    for rule in RULES:
        doc = rule.__doc__ or ""
        assert doc.startswith(f"{rule.CODE} {rule.NAME}:"), rule.CODE
        for heading in ("## What it does", "## Why it matters", "## Example", "## Fix"):
            assert heading in doc, (rule.CODE, heading)
        # every rule says whether its fix is safe (applied by --fix) or unsafe (--unsafe-fixes too),
        # in its doc and as FIX_SAFETY, which tests/fix/test_fix_safety.py holds the findings to
        assert rule.FIX_SAFETY in ("safe", "unsafe", "mixed", "none"), rule.CODE
        fix_section = doc.split("## Fix", 1)[1]
        assert f"Fix safety: {rule.FIX_SAFETY} — " in fix_section, rule.CODE


def test_unknown_rule_suggests_and_exits_2():
    run = run_cli("rule", "SWA1O1")  # letter O
    assert run.exit_code == 2
    assert "did you mean SWA101?" in run.stderr


def test_no_paths_is_a_usage_error():
    run = run_cli("check")
    assert run.exit_code == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "xml", "x.yaml"], "'xml' is not one of human, json"),
        (["--platform", "tpu", "x.yaml"], "'tpu' is not one of cuda, rocm, npu"),
        (["--env", "NOEQUALS", "x.yaml"], "expected KEY=VALUE"),
        (["--fail-on", "info", "x.yaml"], "'info' is not one of error, warning, note"),
    ],
)
def test_bad_options_exit_2(args, message):
    run = run_cli(*args)
    assert run.exit_code == 2
    assert message in run.stderr


def test_broken_file_is_one_line_and_other_files_are_still_checked(tree):
    root = tree(
        {
            "bad.yaml": "model-path: models/v4\n  oops: [\n",
            "good.yaml": EAGLE + "disaggregation-mode: prefill\n",
        }
    )
    run = run_cli("--format", "json", "bad.yaml", "good.yaml", cwd=root)
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        "bad.yaml:2:7: invalid YAML: mapping values are not allowed in this context"
    ]
    assert [d["file"] for d in run.deployments] == ["good.yaml"]
    assert run.data["errors"][0] == {
        "file": "bad.yaml",
        "line": 2,
        "column": 7,
        "message": "invalid YAML: mapping values are not allowed in this context",
    }


def test_missing_path_is_an_input_error(tree):
    root = tree({})
    run = run_cli("nope.yaml", cwd=root)
    assert run.exit_code == 2
    assert run.stderr.strip() == "nope.yaml: no such file or directory"


def test_explicit_file_that_is_not_a_deployment_is_skipped_and_counted(tree):
    root = tree({"values.yaml": "replicas: 3\n", "server.yaml": EAGLE})
    run = run_cli("values.yaml", "server.yaml", cwd=root)
    assert run.exit_code == 0
    assert run.stderr == ""  # quiet, like ruff: counted in the summary line, listed with -v
    assert run.stdout == (
        "Checked 1 deployment in 1 file (1 file skipped): 0 errors, 0 warnings, 0 notes  "
        "(SGLang 0.5.23; exit 0)\n"
    )
    verbose = run_cli("-v", "values.yaml", "server.yaml", cwd=root)
    assert verbose.stderr == ""
    assert "skipped values.yaml: a mapping with keys replicas, not an SGLang server config" in (
        verbose.stdout
    )


def test_a_run_that_finds_no_deployment_is_an_input_error(tree):
    root = tree({"values.yaml": "replicas: 3\n", "empty/README.md": "x\n"})
    run = run_cli("values.yaml", cwd=root)
    assert run.exit_code == 2
    assert (
        run.stderr.splitlines()[-1]
        == "values.yaml: no deployments found (--allow-empty allows a run without any)"
    )
    assert (
        run_cli("empty", cwd=root).exit_code == 2
    )  # an explicitly named folder without deployments
    assert (
        run_cli("empty", "values.yaml", cwd=root).stderr.splitlines()[-1]
        == "swacheck: no deployments found in 2 inputs (--allow-empty allows a run without any)"
    )
    allowed = run_cli("--allow-empty", "values.yaml", "empty", cwd=root)
    assert allowed.exit_code == 0 and "no deployments found" not in allowed.stderr


def test_walked_directory_skips_non_deployments(tree):
    root = tree(
        {
            "conf/values.yaml": "replicas: 3\n",
            "conf/server.yaml": EAGLE.replace("models/v4", "../models/v4"),
        }
    )
    run = run_cli("--format", "json", "conf", cwd=root)
    assert run.exit_code == 0
    assert [d["file"] for d in run.deployments] == ["conf/server.yaml"]
    verbose = run_cli("-v", "conf", cwd=root)
    assert "skipped conf/values.yaml" in verbose.stdout


def test_missing_model_config_names_every_place_looked(tree):
    root = tree({"server.yaml": EAGLE.replace("models/v4", "/models/DeepSeek-V4-Flash")})
    run = run_cli("--no-builtin-models", "server.yaml", cwd=root)
    assert run.exit_code == 0  # a SWA308 warning, not an input error: the run still counts
    assert run.stderr == ""
    (line,) = [line for line in run.stdout.splitlines() if "SWA308" in line]
    assert line.startswith(
        "server.yaml:1:13: SWA308 warning: config.json for model '/models/DeepSeek-V4-Flash' "
        "not found (looked in: /models/DeepSeek-V4-Flash/config.json"
    )
    assert "--model-config /models/DeepSeek-V4-Flash=PATH" in line
    assert (
        run_cli("--no-builtin-models", "--fail-on", "warning", "server.yaml", cwd=root).exit_code
        == 1
    )
    # --model-config pointing nowhere is the user's path: still an input error
    wrong = run_cli("--model-config", "/models/DeepSeek-V4-Flash=nope", "server.yaml", cwd=root)
    assert wrong.exit_code == 2 and "looked in: nope (--model-config)" in wrong.stderr


def test_model_config_mapping_resolves_a_production_path(tree):
    root = tree({"server.yaml": EAGLE.replace("models/v4", "/models/DeepSeek-V4-Flash")})
    run = run_cli(
        "--format",
        "json",
        "--model-config",
        "/models/DeepSeek-V4-Flash=models/v4",
        "server.yaml",
        cwd=root,
    )
    assert run.exit_code == 0
    assert run.deployments[0]["target"]["tuple"] == [256, 128, None]


def test_stdin(tree):
    import os

    from typer.testing import CliRunner

    from swacheck.cli import app

    root = tree({})
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(
            app, ["--format", "json", "-"], input=EAGLE + "disaggregation-mode: decode\n"
        )
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.stdout
    assert '"file": "-"' in result.stdout


def test_output_file(tree):
    root = tree({"server.yaml": EAGLE})
    run = run_cli("--format", "json", "--output", "report.json", "server.yaml", cwd=root)
    assert run.exit_code == 0
    assert (
        run.stdout
        == "Checked 1 deployment in 1 file: 0 errors, 0 warnings, 0 notes  (SGLang 0.5.23; exit 0) -> report.json\n"
    )
    assert '"version": 1' in (root / "report.json").read_text()


@pytest.mark.parametrize("fail_on, expected", [("error", 0), ("warning", 1), ("note", 1)])
def test_fail_on_levels(lint, fail_on, expected):
    # page-size 64 is replaced by SGLang: a warning, not an error
    run = lint({"server.yaml": EAGLE + "page-size: 64\n"}, "--fail-on", fail_on)
    assert run.codes() == ["SWA201"]
    assert run.exit_code == expected


def test_unknown_deployment_key_suggests(tree):
    root = tree({"d.yaml": "swacheck: 1\nplatfrom: rocm\nserver: {model-path: models/v4}\n"})
    run = run_cli("d.yaml", cwd=root)
    assert run.exit_code == 2
    assert (
        run.stderr.strip()
        == "d.yaml:2:11: unknown key 'platfrom' in a swacheck deployment file; did you mean 'platform'?"
    )


def test_deployment_file_version_must_be_1(tree):
    root = tree({"d.yaml": "swacheck: 2\nserver: {model-path: models/v4}\n"})
    run = run_cli("d.yaml", cwd=root)
    assert run.exit_code == 2
    assert "d.yaml:1:11: unsupported deployment file version 2" in run.stderr


def test_human_output_has_table_findings_and_summary():
    run = run_cli("--color", "never", "examples/rocm-draft-window/prefill.yaml", cwd=ROOT)
    out = run.stdout
    assert "(128, 131, 33667)" in out and "(256, 259, 66563)" in out
    assert "examples/rocm-draft-window/prefill.yaml:12:1: SWA101 error:" in out
    assert "fix (unsafe): Remove speculative-draft-model-path" in out
    assert out.rstrip().endswith(
        "Checked 1 deployment in 1 file: 1 error, 0 warnings, 0 notes  (SGLang 0.5.23; exit 1)\n"
        "0 fixable with --fix (1 more with --unsafe-fixes)"  # the fix deletes a line: unsafe
    )


def test_quiet_prints_only_findings():
    run = run_cli("-q", "--color", "never", "examples/", cwd=ROOT)
    assert "┏" not in run.stdout and "Checked" not in run.stdout
    assert "SWA101 error" in run.stdout


def test_color_always_emits_ansi_and_never_does_not():
    colored = run_cli("--color", "always", "examples/rocm-draft-window/prefill.yaml", cwd=ROOT)
    plain = run_cli("--color", "never", "examples/rocm-draft-window/prefill.yaml", cwd=ROOT)
    assert "\x1b[" in colored.stdout
    assert "\x1b[" not in plain.stdout


def _digest(root):
    return {
        p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def test_checking_never_modifies_a_file():
    before = _digest(EXAMPLES)
    for fmt in ("human", "json"):
        run_cli("--format", fmt, "examples/", cwd=ROOT)
    assert _digest(EXAMPLES) == before


def test_installed_console_script_runs_on_examples():
    """The README's main command, through the entry point pip installed next to this Python."""
    from pathlib import Path

    script = Path(sys.executable).parent / "swacheck"
    assert script.exists(), "install the package first: python -m pip install -e '.[test]'"
    proc = subprocess.run([str(script), "examples/"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1
    assert "SWA101" in proc.stdout and "Checked 22 deployments" in proc.stdout


def test_a_pipe_named_on_the_command_line_is_refused_and_dash_reads_standard_input(tree):
    """Only regular files are opened (issue 15): /dev/fd/N (bash process substitution) is a pipe,
    refused with one line that names the way that works: ``-`` reads standard input."""
    root = tree({"server.yaml": EAGLE + "disaggregation-mode: prefill\n"})
    proc = subprocess.run(
        [
            "bash",
            "-c",
            f'"{sys.executable}" -m swacheck --no-config --format json <(cat server.yaml)',
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
    )
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert re.fullmatch(
        r"/dev/fd/\d+: is a FIFO \(named pipe\), not a regular file: swacheck "
        r"reads only regular files \(use - for standard input\)",
        line,
    )
    proc = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m swacheck --no-config --format json - < server.yaml'],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["deployments"][0]["target"]["tuple"] == [256, 128, None]


def test_a_named_pd_servers_partner_is_checked_and_other_siblings_are_not_inputs(tree):
    pd = (
        "swacheck: 1\nplatform: rocm\n{env}server:\n  model-path: ../models/v4\n  "
        "disaggregation-mode: {role}\n  speculative-algorithm: EAGLE\n  "
        "speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
    )
    unified = "env:\n  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
    root = tree(
        {
            "d/prefill.yaml": pd.format(env="", role="prefill"),
            "d/decode.yaml": pd.format(env=unified, role="decode"),
            "d/broken.yaml": "disaggregation-mode: [\n",  # a sibling that cannot be read: not the run's input error
            "d/other.yaml": "model-path: ../models/gone\ndisaggregation-mode: decode\n",
        }
    )
    for named in ("d/decode.yaml", "d/prefill.yaml"):
        run = run_cli("--format", "json", named, cwd=root)
        assert run.exit_code == 1, run.stderr
        assert run.data["errors"] == [] and run.stderr == ""
        assert [f["code"] for f in run.findings("SWA404")] == ["SWA404"]
        assert sorted(d["file"] for d in run.deployments) == ["d/decode.yaml", "d/prefill.yaml"]


def test_a_named_servers_folder_reports_no_pair_of_two_servers_that_were_not_named(tree):
    """Naming one prefill server in a folder of many PD pairs checks it and its partner only:
    a broken pair of two other files there is not the named file's business."""
    pd = (
        "swacheck: 1\nname: {name}\nplatform: rocm\n{env}server:\n  model-path: "
        "../models/v4\n  disaggregation-mode: {role}\n  speculative-algorithm: "
        "EAGLE\n  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
    )
    unified = "env:\n  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
    root = tree(
        {
            "d/a-prefill.yaml": pd.format(name="a-prefill", env="", role="prefill"),
            "d/a-decode.yaml": pd.format(name="a-decode", env="", role="decode"),
            "d/b-prefill.yaml": pd.format(name="b-prefill", env="", role="prefill"),
            "d/b-decode.yaml": pd.format(
                name="b-decode", env=unified, role="decode"
            ),  # b's pair is broken
        }
    )
    run = run_cli("--format", "json", "d/a-prefill.yaml", cwd=root)
    assert run.exit_code == 0, run.stdout
    assert sorted(d["file"] for d in run.deployments) == ["d/a-decode.yaml", "d/a-prefill.yaml"]
    assert (
        run_cli("--format", "json", "d/b-decode.yaml", cwd=root).exit_code == 1
    )  # and the broken pair is found when named


def test_verbose_does_not_list_a_server_config_read_through_its_deployment_file_as_skipped():
    run = run_cli("-v", "--color", "never", "examples/rocm-unified", cwd=ROOT)
    assert "skipped examples/rocm-unified/sglang-decode.yaml" not in run.stdout
    assert "(2 files skipped)" not in run.stdout


def test_fix_never_edits_a_partner_that_was_not_named(tree):
    pd = (
        "swacheck: 1\nserver:\n  model-path: ../models/v4\n  disaggregation-mode: "
        "{role}\n  speculative-algorithm: EAGLE\n  speculative-num-steps: 3\n  "
        "speculative-eagle-topk: 1\n  page-size: 64\n"
    )
    root = tree(
        {"d/prefill.yaml": pd.format(role="prefill"), "d/decode.yaml": pd.format(role="decode")}
    )
    before = (root / "d/decode.yaml").read_text()
    run = run_cli("--fix", "d/prefill.yaml", cwd=root)
    assert "page-size: 64" not in (root / "d/prefill.yaml").read_text()  # the named file is fixed
    assert (root / "d/decode.yaml").read_text() == before  # its partner, not named, is not
    assert run.exit_code in (0, 1)
