"""SWA247 lm-head-args-refused: _dp_lm_head_validation's asserts, in their order."""

from __future__ import annotations

import pytest
from conftest import loc, only, run_cli

BASE = "model-path: models/v4\ntp-size: 8\n"


def lint_command(tree, args, version="0.5.23"):
    """The launch command alone (``--command``), reading server.yaml through --config."""
    return run_cli(
        "--format",
        "json",
        "--sglang-version",
        version,
        "--command",
        f"python -m sglang.launch_server --config server.yaml {args}",
        cwd=tree({"server.yaml": BASE}),
    )


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 1425), ("0.5.22", 1388)])
def test_dp_lm_head_with_replicas_and_no_attention_dp(lint, version, line):
    run = lint(
        {"server.yaml": BASE + "dp-size: 2\nenable-dp-lm-head: true\n"}, "--sglang-version", version
    )
    assert run.exit_code == 1
    f = only(run, "SWA247")
    assert f["message"] == (
        "enable-dp-lm-head: true: AssertionError: --enable-dp-lm-head requires attention DP "
        f"(--attn-dp-size). (arg_groups/overrides.py:{line} _dp_lm_head_validation, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 4, 20)


@pytest.mark.parametrize(
    "extra",
    [
        "enable-dp-lm-head: true\n",  # one DP rank: SGLang turns it off itself
        "attn-dp-size: 2\nenable-dp-lm-head: true\n",
        "attn-dp-size: 8\ndisaggregation-mode: decode\n",  # the all-to-all default applies
    ],
)
def test_what_sglang_accepts(lint, extra):
    assert lint({"server.yaml": BASE + extra}).findings("SWA247") == []


@pytest.mark.parametrize(
    ("args", "said", "line"),
    [
        ("", "--enable-tp-lm-head-all-to-all requires attention DP (--attn-dp-size).", 1429),
        (
            "--attn-dp-size 8 --enable-dp-lm-head",
            "--enable-tp-lm-head-all-to-all uses a TP-sharded LM head and is incompatible with "
            "--enable-dp-lm-head.",
            1432,
        ),
        (
            "--attn-dp-size 4",
            "--enable-tp-lm-head-all-to-all currently requires tp_size == attn_dp_size, got "
            "tp_size=8, attn_dp_size=4.",
            1436,
        ),
    ],
)
def test_tp_lm_head_all_to_all_on_the_command_line(tree, args, said, line):
    run = lint_command(tree, f"--enable-tp-lm-head-all-to-all {args}")
    assert run.exit_code == 1
    f = only(run, "SWA247")
    assert f["message"] == (
        f"enable-tp-lm-head-all-to-all: true: AssertionError: {said} "
        f"(arg_groups/overrides.py:{line} _dp_lm_head_validation, SGLang 0.5.23)"
    )
    assert [d["file"] for d in run.deployments] == ["<command>"]
    assert loc(f) == ("<command>", 1, 55)


def test_tp_lm_head_all_to_all_where_it_applies(tree):
    run = lint_command(tree, "--enable-tp-lm-head-all-to-all --attn-dp-size 8")
    assert run.findings("SWA247") == []
    off = lint_command(tree, "--no-enable-tp-lm-head-all-to-all", "0.5.22")
    assert off.findings("SWA247") == []


def test_releases_not_read_stay_silent(lint):
    run = lint(
        {"server.yaml": BASE + "dp-size: 2\nenable-dp-lm-head: true\n"},
        "--sglang-version",
        "0.5.21",
    )
    assert run.findings("SWA247") == []
