"""SWA218 dspark-dp-refused: DSPARK with attention DP and what _handle_dspark refuses with it.

Run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/dspark-dp.yaml, dspark-dp-ragged.yaml).
"""

from __future__ import annotations

import pytest
from conftest import loc, only

DSPARK = (
    "model-path: models/v4\ntp-size: 8\nenable-dp-lm-head: true\nspeculative-algorithm: DSPARK\n"
    "speculative-draft-model-path: models/v4\n"
)


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 678), ("0.5.22", 617)])
def test_an_a2a_backend_it_does_not_take_is_refused(lint, version, line):
    run = lint(
        {"server.yaml": DSPARK + "attn-dp-size: 8\nmoe-a2a-backend: deepep\n"},
        "--sglang-version",
        version,
    )
    f = only(run, "SWA218")
    assert f["message"] == (
        "moe-a2a-backend: deepep: ValueError: DSpark with dp attention supports moe_a2a_backend "
        "'none' (built-in TP MoE), 'megamoe', or 'mori', got 'deepep'. "
        f"(arg_groups/speculative_hook.py:{line} _handle_dspark, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 7, 18)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "attn-dp-size: 4\nattn-cp-size: 2\n",
            "DSpark with dp attention does not support context parallel (attn_cp_size=2).",
        ),
        (
            "attn-dp-size: 8\nspeculative-moe-a2a-backend: deepep\n",
            "must match the target moe_a2a_backend='none' (got 'deepep').",
        ),
    ],
)
def test_each_refused_combination(lint, extra, message):
    run = lint({"server.yaml": DSPARK + extra})
    assert message in only(run, "SWA218")["message"]


@pytest.mark.parametrize(
    "extra",
    [
        "attn-dp-size: 8\n",
        "attn-dp-size: 8\nmoe-a2a-backend: megamoe\n",
        "attn-dp-size: 8\nspeculative-moe-a2a-backend: none\n",
        "attn-cp-size: 2\nmoe-a2a-backend: deepep\n",  # no attention DP: not these checks
    ],
)
def test_what_dspark_takes_passes(lint, extra):
    run = lint({"server.yaml": DSPARK + extra})
    assert run.findings("SWA218") == []


def _deployment(mode: str) -> str:
    server = DSPARK + "attn-dp-size: 8\n"
    return (
        "swacheck: 1\nplatform: cuda\n"
        f"env: {{SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION: '1', SGLANG_RAGGED_VERIFY_MODE: {mode}}}\n"
        "server:\n" + "".join("  " + line + "\n" for line in server.splitlines())
    )


def test_prefill_coordination_needs_static_ragged_verify(lint):
    run = lint({"deploy.yaml": _deployment("compact")})
    f = only(run, "SWA218")
    assert f["message"].startswith(
        "SGLANG_RAGGED_VERIFY_MODE=compact: ValueError: DSpark DP MoE or prefill coordination "
        "requires SGLANG_RAGGED_VERIFY_MODE=static."
    )
    assert loc(f)[:2] == ("deploy.yaml", 3)
    assert lint({"deploy.yaml": _deployment("static")}).findings("SWA218") == []
