"""SWA224 v41-replay-refused: DeepSeek-V4.1's bounded replay and DSpark PD refusals, per release.

Run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/v41-replay.yaml,
v41-decoder-replay.yaml).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import loc, only

V41 = (Path(__file__).parents[2] / "conformance" / "models" / "v41-flash.json").read_text()
REPLAY = "enable-encoder-swa-bounded-replay: true\n"


def v41(server: str) -> dict[str, str]:
    return {"models/v41/config.json": V41, "server.yaml": "model-path: models/v41\n" + server}


def run_v41(lint, server: str, *args: str):
    return lint(v41(server), *args, target="server.yaml")


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 278), ("0.5.22", 212)])
def test_encoder_replay_needs_v41(lint, version, line):
    run = lint({"server.yaml": "model-path: models/v4\n" + REPLAY}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA224")
    assert f["message"] == (
        "enable-encoder-swa-bounded-replay: true: ValueError: --enable-encoder-swa-bounded-replay "
        f"requires DeepSeek-V4.1 (arg_groups/deepseek_v4_hook.py:{line} "
        f"validate_deepseek_v41_features, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 2, 36)


@pytest.mark.parametrize(
    ("version", "extra", "feature"),
    [
        ("0.5.23", "disaggregation-mode: decode\n", "PD decode"),
        ("0.5.22", "disaggregation-mode: decode\n", "PD disaggregation"),
        ("0.5.22", "disaggregation-mode: prefill\n", "PD disaggregation"),
        ("0.5.23", "enable-mixed-chunk: true\n", "mixed prefill/decode"),
        ("0.5.22", "attn-dp-size: 2\ntp-size: 8\n", "DP attention"),
        (
            "0.5.23",
            "cuda-graph-backend-prefill: full\n",
            "prefill CUDA graphs other than breakable",
        ),
        ("0.5.22", "cuda-graph-backend-prefill: breakable\n", "prefill CUDA graphs"),
    ],
)
def test_encoder_replay_with_what_it_does_not_support(lint, version, extra, feature):
    run = run_v41(lint, REPLAY + extra, "--sglang-version", version)
    messages = [f["message"] for f in run.findings("SWA224")]
    assert any(
        f"--enable-encoder-swa-bounded-replay does not support {feature} yet" in m for m in messages
    ), messages


@pytest.mark.parametrize(
    ("version", "extra"),
    [
        ("0.5.23", "disaggregation-mode: prefill\n"),  # CUDA: prefill replays
        ("0.5.23", "attn-dp-size: 2\ntp-size: 8\n"),  # DP attention only on ROCm
        ("0.5.23", "cuda-graph-backend-prefill: breakable\n"),
        ("0.5.22", "chunked-prefill-size: 256\n"),
        ("0.5.23", ""),
    ],
)
def test_encoder_replay_it_takes(lint, version, extra):
    run = run_v41(lint, REPLAY + extra, "--sglang-version", version)
    assert run.findings("SWA224") == []


def test_the_budget_differs_per_release(lint):
    server = REPLAY + "chunked-prefill-size: 256\n"
    new = only(run_v41(lint, server, "--sglang-version", "0.5.23"), "SWA224")
    assert "at least 384 chunked prefill tokens per attention DP rank" in new["message"]
    assert "validate_deepseek_v41_encoder_replay_budget" in new["message"]
    assert run_v41(lint, server, "--sglang-version", "0.5.22").findings("SWA224") == []
    old = only(
        run_v41(lint, REPLAY + "chunked-prefill-size: 64\n", "--sglang-version", "0.5.22"), "SWA224"
    )
    assert "--chunked-prefill-size >= 128" in old["message"]


def test_the_budget_is_per_attention_dp_rank_in_0_5_23(lint):
    server = REPLAY + "tp-size: 8\nattn-dp-size: 2\nchunked-prefill-size: 512\n"
    f = only(run_v41(lint, server, "--sglang-version", "0.5.23"), "SWA224")
    assert "at least 384" in f["message"]


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        ("disaggregation-transfer-backend: mori\n", True),
        ("dcp-size: 2\n", True),
        ("disaggregation-transfer-backend: nixl\n", False),
        ("disaggregation-transfer-backend: mooncake_tcp\n", False),
    ],
)
def test_v41_dspark_pd(lint, extra, refused):
    server = "disaggregation-mode: decode\nspeculative-algorithm: DSPARK\n" + extra
    found = run_v41(lint, server).findings("SWA224")
    assert bool(found) == refused
    if refused:
        assert (
            "DeepSeek-V4.1 DSpark PD requires static verify, Mooncake or NIXL"
            in found[0]["message"]
        )


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        ("cuda-graph-backend-prefill: full\n", "the prefill CUDA graph"),
        ("tp-size: 8\nattn-dp-size: 2\n", "DP attention other than attention TP 1"),
        ("cuda-graph-backend-prefill: breakable\n", None),
        ("tp-size: 8\nattn-dp-size: 8\n", None),
    ],
)
def test_decoder_replay_from_the_command_line(lint, tmp_path, extra, refused):
    files = v41(extra)
    files["launch.sh"] = (
        "python -m sglang.launch_server --config server.yaml --enable-decoder-swa-bounded-replay\n"
    )
    run = lint(files, target="launch.sh")
    found = run.findings("SWA224")
    if refused is None:
        assert found == []
    else:
        assert refused in found[0]["message"], found
