"""SWA416 mooncake-env-out-of-range: failed-session probe and sender-thread switches."""

from __future__ import annotations

import pytest
from conftest import EAGLE, V4_FLASH, loc, only

MODEL = {"models/v4/config.json": V4_FLASH}


def server(mode: str = "prefill", extra: str = "") -> dict[str, str]:
    return {**MODEL, "server.yaml": EAGLE + f"disaggregation-mode: {mode}\n" + extra}


def envs(*pairs: str) -> list[str]:
    out = []
    for pair in pairs:
        out += ["--env", pair]
    return out


@pytest.mark.parametrize("mode", ["prefill", "decode"])
def test_probe_interval_above_its_maximum(lint, mode):
    run = lint(server(mode), *envs("SGLANG_FAILED_SESSION_PROBE_INTERVAL_S=600"))
    assert run.exit_code == 1
    f = only(run, "SWA416")
    assert f["message"] == (
        f"SGLang 0.5.23 stops building this {mode} server's Mooncake KV manager "
        "(MooncakeKVManager.__init__, sglang/srt/disaggregation/mooncake/conn.py:304): "
        "ValueError: Need 0 < SGLANG_FAILED_SESSION_PROBE_INTERVAL_S <= "
        "SGLANG_FAILED_SESSION_PROBE_MAX_INTERVAL_S (they are 600 and 300)"
    )


@pytest.mark.parametrize(
    "pairs",
    [
        ("SGLANG_FAILED_SESSION_PROBE_INTERVAL_S=600", "SGLANG_ENABLE_FAILED_SESSION_PROBE=0"),
        ("SGLANG_FAILED_SESSION_PROBE_INTERVAL_S=abc",),  # warned, the default 30 used
        (
            "SGLANG_FAILED_SESSION_PROBE_INTERVAL_S=600",
            "SGLANG_FAILED_SESSION_PROBE_MAX_INTERVAL_S=900",
        ),
        ("SGLANG_DISAGGREGATION_QUEUE_SIZE=8",),  # depends on the CPU count: not said
        ("SGLANG_DISAGGREGATION_THREAD_POOL_SIZE=2", "SGLANG_DISAGGREGATION_QUEUE_SIZE=2"),
    ],
)
def test_values_mooncake_takes(lint, pairs):
    assert lint(server(), *envs(*pairs)).findings("SWA416") == []


def test_idle_timeout_must_be_positive(lint):
    f = only(lint(server("decode"), *envs("SGLANG_FAILED_SESSION_IDLE_TIMEOUT_S=0")), "SWA416")
    assert f["message"].endswith(
        "conn.py:309): ValueError: SGLANG_FAILED_SESSION_IDLE_TIMEOUT_S must be positive (it is 0)"
    )


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 336), ("0.5.22", 294)])
def test_thread_pool_below_queue_on_a_prefill_server(lint, version, line):
    run = lint(
        server(),
        "--sglang-version",
        version,
        *envs("SGLANG_DISAGGREGATION_THREAD_POOL_SIZE=2"),
    )
    f = only(run, "SWA416")
    assert f["message"].endswith(
        f"mooncake/conn.py:{line}): AssertionError: The environment variable "
        "SGLANG_DISAGGREGATION_THREAD_POOL_SIZE=2 must be greater than or equal to "
        "SGLANG_DISAGGREGATION_QUEUE_SIZE=4."
    )
    # the decode server builds no sender pool
    assert (
        lint(server("decode"), *envs("SGLANG_DISAGGREGATION_THREAD_POOL_SIZE=2")).findings("SWA416")
        == []
    )


def test_a_queue_above_the_largest_default_pool(lint):
    f = only(lint(server(), *envs("SGLANG_DISAGGREGATION_QUEUE_SIZE=16")), "SWA416")
    assert "THREAD_POOL_SIZE=at most 12 (unset: min(max(4, CPUs // 2 // 8), 12))" in f["message"]


def test_only_mooncake(lint):
    run = lint(
        server(extra="disaggregation-transfer-backend: nixl\n"),
        *envs("SGLANG_DISAGGREGATION_THREAD_POOL_SIZE=2"),
    )
    assert run.findings("SWA416") == []


def test_the_finding_is_at_the_variable_in_a_deployment_file(lint):
    deploy = (
        "swacheck: 1\n"
        "env:\n  SGLANG_DISAGGREGATION_THREAD_POOL_SIZE: '1'\n"
        "server:\n  model-path: models/v4\n  disaggregation-mode: prefill\n"
    )
    run = lint({**MODEL, "deploy.yaml": deploy})
    assert loc(only(run, "SWA416")) == ("deploy.yaml", 3, 43)
