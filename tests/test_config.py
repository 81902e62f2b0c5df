"""Project configuration: discovery, precedence, unknown settings, --show-settings."""

from __future__ import annotations

from conftest import EAGLE, run_cli

SERVER = EAGLE + "disaggregation-mode: decode\npage-size: 64\n"  # SWA201 warning


def test_pyproject_tool_table_is_honoured(tree):
    root = tree({"server.yaml": SERVER, "pyproject.toml": '[tool.swacheck]\nfail-on = "warning"\n'})
    assert run_cli("server.yaml", cwd=root).exit_code == 1
    assert run_cli("--no-config", "server.yaml", cwd=root).exit_code == 0


def test_found_by_walking_up_from_the_working_directory(tree):
    root = tree(
        {
            "deploy/server.yaml": SERVER.replace("models/v4", "../models/v4"),
            "pyproject.toml": '[tool.swacheck]\nignore = ["SWA2"]\n',
        }
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root / "deploy")
    assert run.codes() == []


def test_swacheck_toml_wins_over_pyproject_in_the_same_folder(tree):
    root = tree(
        {
            "server.yaml": SERVER,
            "pyproject.toml": '[tool.swacheck]\nfail-on = "note"\n',
            "swacheck.toml": 'fail-on = "error"\n',
        }
    )
    run = run_cli("--show-settings", cwd=root)
    assert 'fail-on           "error"  (swacheck.toml)' in run.stdout


def test_pyproject_without_the_table_is_passed_over(tree):
    root = tree(
        {
            "sub/server.yaml": SERVER.replace("models/v4", "../models/v4"),
            "sub/pyproject.toml": "[project]\nname = 'x'\n",
            "swacheck.toml": 'ignore = ["SWA201"]\n',
        }
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root / "sub")
    assert run.codes() == []


def test_command_line_wins_over_the_file(tree):
    root = tree(
        {
            "server.yaml": SERVER,
            "pyproject.toml": '[tool.swacheck]\nfail-on = "warning"\nplatform = "rocm"\n',
        }
    )
    assert run_cli("--fail-on", "error", "server.yaml", cwd=root).exit_code == 0
    shown = run_cli("--show-settings", "--fail-on", "error", cwd=root).stdout
    assert 'fail-on           "error"  (command line)' in shown
    assert 'platform          "rocm"  (pyproject.toml)' in shown


def test_unknown_setting_is_an_error_with_did_you_mean_and_position(tree):
    root = tree(
        {
            "server.yaml": SERVER,
            "pyproject.toml": '[tool.swacheck]\nfail-on = "error"\nselcet = ["SWA1"]\n',
        }
    )
    run = run_cli("server.yaml", cwd=root)
    assert run.exit_code == 2
    assert (
        run.stderr.strip() == "pyproject.toml:3:1: unknown setting 'selcet'; did you mean 'select'?"
    )


def test_bad_setting_value_is_an_error(tree):
    root = tree({"server.yaml": SERVER, "swacheck.toml": 'fail-on = "fatal"\n'})
    run = run_cli("server.yaml", cwd=root)
    assert run.exit_code == 2
    assert (
        "swacheck.toml:1:1: fail-on must be one of error, warning, note, got 'fatal'" in run.stderr
    )


def test_invalid_toml_is_an_error(tree):
    root = tree({"server.yaml": SERVER, "swacheck.toml": "fail-on = \n"})
    run = run_cli("server.yaml", cwd=root)
    assert run.exit_code == 2
    assert run.stderr.startswith("swacheck.toml: invalid TOML:")


def test_env_and_platform_and_model_config_from_the_file(tree):
    root = tree(
        {
            "server.yaml": EAGLE.replace("models/v4", "/models/DeepSeek-V4-Flash")
            + "disaggregation-mode: prefill\n",
            "pyproject.toml": (
                '[tool.swacheck]\nplatform = "rocm"\n'
                'env = { SGLANG_HACK_FLASHMLA_BACKEND = "unified_kv_triton" }\n'
                'model-config = { "/models/DeepSeek-V4-Flash" = "models/v4" }\n'
            ),
        }
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stderr
    assert run.deployments[0]["target"]["tuple"] == [128, 131, 33667]


def test_select_and_ignore_prefixes(lint):
    files = {"server.yaml": SERVER + "max-runing-requests: 3\n"}  # SWA201 + SWA303
    assert sorted(lint(files).codes()) == ["SWA201", "SWA303"]
    assert lint(files, "--select", "SWA2").codes() == ["SWA201"]
    assert lint(files, "--ignore", "SWA3").codes() == ["SWA201"]
    assert lint(files, "--select", "SWA201,SWA303", "--ignore", "SWA201").codes() == ["SWA303"]


def test_exit_zero(lint):
    run = lint({"server.yaml": SERVER + "max-runing-requests: 3\n"}, "--exit-zero")
    assert run.codes() and run.exit_code == 0


def test_bad_select_code_is_a_usage_error(lint):
    run = lint({"server.yaml": SERVER}, "--select", "E501")
    assert run.exit_code == 2
    assert "'E501' is not a rule code" in run.stderr


def test_per_file_ignores_silence_json_findings(tree):
    dup = '{\n  "architectures": ["DeepseekV4ForCausalLM"],\n  "sliding_window": 128,\n  "sliding_window": 128\n}\n'
    files = {"server.yaml": EAGLE.replace("models/v4", "models/dup"), "models/dup/config.json": dup}
    root = tree(files)
    assert run_cli("--format", "json", "server.yaml", cwd=root).codes() == ["SWA301"]
    (root / "swacheck.toml").write_text(
        'per-file-ignores = { "models/*/config.json" = ["SWA301"] }\n'
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert run.codes() == []
    assert run.data["summary"]["suppressed"] == 1


def test_github_format_is_chosen_under_github_actions(tree, monkeypatch):
    from swacheck.report import RENDERERS

    root = tree({"server.yaml": SERVER})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    shown = run_cli("--show-settings", cwd=root).stdout
    expected = "github" if "github" in RENDERERS else "human"
    if expected == "github":
        assert 'format            "github"  (GITHUB_ACTIONS=true)' in shown
    assert (
        'format            "human"  (command line)'
        in run_cli("--show-settings", "--format", "human", cwd=root).stdout
    )


UNKNOWN_CODE = (
    "'{code}' is not a rule code or prefix such as SWA1 or SWA101; "
    "`swacheck rules` lists the rule codes"
)


def test_unknown_codes_and_prefixes_are_refused_alike_on_the_command_line_and_in_the_file(tree):
    # one check for both: SWA1234 and SWA7 match no rule (a typo would silently select nothing)
    for option in ("--select", "--extend-select", "--ignore"):
        for code in ("SWA1234", "SWA7", "swa7"):
            run = run_cli(option, code, "server.yaml", cwd=tree({"server.yaml": SERVER}))
            assert run.exit_code == 2, (option, code)
            assert f"Invalid value for {option}: " in run.stderr
            assert UNKNOWN_CODE.format(code=code.upper()) in run.stderr
    for key in ("select", "extend-select", "ignore"):
        root = tree({"server.yaml": SERVER, "swacheck.toml": f'{key} = ["SWA1", "SWA1234"]\n'})
        run = run_cli("server.yaml", cwd=root)
        assert run.exit_code == 2, key
        assert f"swacheck.toml:1:1: {key}: " + UNKNOWN_CODE.format(code="SWA1234") in run.stderr
    root = tree(
        {"server.yaml": SERVER, "swacheck.toml": 'per-file-ignores = { "*.yaml" = ["SWA7"] }\n'}
    )
    run = run_cli("server.yaml", cwd=root)
    assert run.exit_code == 2
    assert "per-file-ignores '*.yaml': " + UNKNOWN_CODE.format(code="SWA7") in run.stderr


def test_known_codes_and_prefixes_are_accepted_in_both(tree):
    for code in ("SWA", "SWA1", "SWA10", "SWA101", "swa9", "SWA902"):
        root = tree({"server.yaml": SERVER, "swacheck.toml": f'ignore = ["{code}"]\n'})
        assert run_cli("--select", code, "server.yaml", cwd=root).exit_code in (0, 1), code


def test_every_setting_has_one_check():
    from swacheck.config import CONVERT, KEYS

    assert list(CONVERT) == list(KEYS)
