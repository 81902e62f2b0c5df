"""SWA223 deterministic-inference-refused: run against real SGLang 0.5.23 and 0.5.22
(conformance/cases/speculative-switches.yaml, rs-deterministic)."""

from __future__ import annotations

import pytest
from conftest import loc, only


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 1119), ("0.5.22", 1060)])
def test_deterministic_inference_is_refused_for_dsv4(lint, version, line):
    run = lint(
        {"server.yaml": "model-path: models/v4\nenable-deterministic-inference: true\n"},
        "--sglang-version",
        version,
    )
    assert run.exit_code == 1
    f = only(run, "SWA223")
    assert f["message"] == (
        "enable-deterministic-inference: true: ValueError: Currently only ['ascend', 'fa3', "
        "'fa4', 'flashinfer', 'intel_xpu', 'triton'] attention backends are supported for "
        "deterministic inference, but you explicitly specified 'dsv4'. "
        f"(arg_groups/overrides.py:{line} _deterministic_attention_backend, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 2, 33)


def test_rl_on_policy_target_turns_it_on(lint):
    run = lint({"server.yaml": "model-path: models/v4\nrl-on-policy-target: fsdp\n"})
    assert only(run, "SWA223")["message"].startswith("rl-on-policy-target: fsdp: ValueError")


def test_off_passes(lint):
    run = lint({"server.yaml": "model-path: models/v4\nenable-deterministic-inference: false\n"})
    assert run.findings("SWA223") == []
