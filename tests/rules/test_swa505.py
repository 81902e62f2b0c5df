"""SWA505 dsv4-prefill-cp-refused: prefill context parallelism SGLang refuses for DeepSeek-V4."""

from __future__ import annotations

import pytest
from conftest import edits, loc, only

PREFILL = (
    "model-path: models/v4\ndisaggregation-mode: prefill\ntp-size: 8\nenable-prefill-cp: true\n"
)


def test_interleave_passes(lint):
    run = lint({"server.yaml": PREFILL + "cp-strategy: interleave\n"})
    assert run.findings("SWA505") == []
    assert run.exit_code == 0


@pytest.mark.parametrize("version", ["0.5.16", "0.5.20", "0.5.23"])
def test_missing_cp_strategy_is_refused(lint, version):
    run = lint({"server.yaml": PREFILL}, "--sglang-version", version)
    f = only(run, "SWA505")
    assert "--cp-strategy must be set when --enable-prefill-cp is enabled" in f["message"]
    assert loc(f) == ("server.yaml", 4, 1)
    assert edits(f) == [("server.yaml", 5, 1, 5, 1, "cp-strategy: interleave\n")]


@pytest.mark.parametrize(
    "version,text",
    [
        ("0.5.16", "only supports interleave CP strategy"),
        ("0.5.23", "zigzag CP requires the NPU backend"),
    ],
)
def test_zigzag_is_refused_off_npu(lint, version, text):
    run = lint({"server.yaml": PREFILL + "cp-strategy: zigzag\n"}, "--sglang-version", version)
    f = only(run, "SWA505")
    assert text in f["message"]
    assert edits(f) == [("server.yaml", 5, 14, 5, 20, "interleave")]


def test_zigzag_on_npu_passes_in_0_5_23(lint):
    run = lint({"server.yaml": PREFILL + "cp-strategy: zigzag\n"}, "--platform", "npu")
    assert run.findings("SWA505") == []


def test_with_attention_dp_is_refused(lint):
    run = lint({"server.yaml": PREFILL + "cp-strategy: interleave\nattn-dp-size: 2\n"})
    assert "dp attention is not supported" in only(run, "SWA505")["message"]


def test_beyond_one_machine_is_refused(lint):
    run = lint(
        {"server.yaml": PREFILL.replace("tp-size: 8", "tp-size: 16") + "cp-strategy: interleave\n"}
    )
    f = only(run, "SWA505")
    assert "tp_size <= 8" in f["message"]
    assert loc(f) == ("server.yaml", 3, 10)


def test_without_the_flag_nothing(lint):
    run = lint({"server.yaml": "model-path: models/v4\ncp-strategy: zigzag\n"})
    assert run.findings("SWA505") == []


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_an_a2a_backend_cp_does_not_take_is_refused(lint, version):
    # deepseek_v4_hook.py validate_deepseek_v4_cp 0.5.23:230, 0.5.22:184 (conformance/cases/dsv4-cp.yaml)
    server = PREFILL + "cp-strategy: interleave\nmoe-a2a-backend: flashinfer\n"
    run = lint({"server.yaml": server}, "--sglang-version", version)
    f = only(run, "SWA505")
    assert f["message"] == (
        "enable-prefill-cp with moe-a2a-backend flashinfer: ValueError: DeepSeekV4 CP supports "
        "moe_a2a_backend in ('none', 'deepep', 'megamoe', 'mori'), got 'flashinfer'. "
        "(arg_groups/deepseek_v4_hook.py validate_deepseek_v4_cp)"
    )
    assert loc(f) == ("server.yaml", 6, 18)
    older = lint({"server.yaml": server}, "--sglang-version", "0.5.21")
    assert older.findings("SWA505") == []


@pytest.mark.parametrize(
    ("extra", "text"),
    [
        (
            "decode-attention-backend: aiter\n",
            "got prefill='dsv4', decode='aiter'.",
        ),
        ("enable-two-batch-overlap: true\n", "does not support --enable-two-batch-overlap yet."),
        ("nnodes: 2\n", "does not support multiple nodes yet."),
    ],
)
def test_hip_cp_refusals(lint, extra, text):
    server = PREFILL + "cp-strategy: interleave\n" + extra
    run = lint({"server.yaml": server}, "--platform", "rocm")
    assert any(text in f["message"] for f in run.findings("SWA505")), run.stdout
    cuda = lint({"server.yaml": server})
    assert not any("on HIP" in f["message"] for f in cuda.findings("SWA505"))


def test_hip_cp_passes_on_its_own(lint):
    run = lint({"server.yaml": PREFILL + "cp-strategy: interleave\n"}, "--platform", "rocm")
    assert run.findings("SWA505") == []


def test_the_tp_message_is_sglangs(lint):
    server = PREFILL.replace("tp-size: 8", "tp-size: 16") + "cp-strategy: interleave\n"
    run = lint({"server.yaml": server})
    assert any(
        "AssertionError: Context parallel only supports single machine (tp_size <= 8)."
        in f["message"]
        for f in run.findings("SWA505")
    )
