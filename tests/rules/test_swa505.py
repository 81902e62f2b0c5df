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
