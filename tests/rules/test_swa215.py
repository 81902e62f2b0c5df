"""SWA215 dsv4-trtllm-refused: what apply_deepseek_v4_defaults asserts against trtllm.

Each refusal was run against real SGLang 0.5.23 and 0.5.22 on a B200
(conformance/cases/dsv4-attn-backend.yaml, dsv4-trtllm-v41.yaml): same verdict, SGLang's message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import loc, only

BASE = "model-path: models/v4\ntp-size: 8\ndsv4-attn-backend: trtllm\n"
V41 = (Path(__file__).parents[2] / "conformance" / "models" / "v41-flash.json").read_text()


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 108), ("0.5.22", 58)])
def test_bfloat16_kv_is_refused_with_the_hook_line_per_release(lint, version, line):
    run = lint({"server.yaml": BASE + "kv-cache-dtype: bfloat16\n"}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA215")
    assert f["message"] == (
        "kv-cache-dtype: bfloat16: AssertionError: --dsv4-attn-backend trtllm requires "
        "kv_cache_dtype=fp8_e4m3, got bfloat16. (arg_groups/deepseek_v4_hook.py:"
        f"{line} apply_deepseek_v4_defaults, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 4, 17)


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ("enable-hisparse: true\n", "enable-hisparse", "does not support enable_hisparse."),
        ("attn-cp-size: 2\n", "attn-cp-size", "does not support context parallelism"),
        ("dcp-size: 2\n", "dcp-size", "does not support context parallelism"),
        (
            "enable-prefill-cp: true\ncp-strategy: interleave\n",
            "enable-prefill-cp",
            "does not support context parallelism",
        ),
        ("chunked-prefill-size: -1\n", "chunked-prefill-size", "requires chunked prefill"),
        ("chunked-prefill-size: 0\n", "chunked-prefill-size", "requires chunked prefill"),
    ],
)
def test_each_refused_combination(lint, extra, field, message):
    run = lint({"server.yaml": BASE + extra})
    f = only(run, "SWA215")
    assert f["message"].startswith(field + ": ")
    assert message in f["message"]


@pytest.mark.parametrize(
    "extra",
    ["", "kv-cache-dtype: fp8_e4m3\n", "chunked-prefill-size: 4096\n", "dcp-size: 1\n"],
)
def test_trtllm_with_what_it_takes_passes(lint, extra):
    run = lint({"server.yaml": BASE + extra}, "--gpu", "B200")
    assert run.findings("SWA215") == []
    assert run.exit_code == 0


def test_other_backends_are_not_checked(lint):
    run = lint(
        {"server.yaml": "model-path: models/v4\nkv-cache-dtype: bfloat16\nenable-hisparse: true\n"}
    )
    assert run.findings("SWA215") == []


@pytest.mark.parametrize(
    ("version", "graph", "refused"),
    [
        ("0.5.23", "full", True),
        ("0.5.23", "breakable", False),
        ("0.5.23", "disabled", False),
        ("0.5.22", "breakable", True),
        ("0.5.22", "disabled", False),
    ],
)
def test_v41_prefill_cuda_graph_per_release(lint, version, graph, refused):
    files = {
        "models/v41/config.json": V41,
        "server.yaml": "model-path: models/v41\ndsv4-attn-backend: trtllm\n"
        f"cuda-graph-backend-prefill: {graph}\n",
    }
    run = lint(files, "--sglang-version", version, target="server.yaml")
    found = run.findings("SWA215")
    if not refused:
        assert found == []
        return
    assert len(found) == 1
    assert (
        "ValueError: DeepSeek-V4.1 TRT-LLM requires --cuda-graph-backend-prefill disabled"
        in (found[0]["message"])
    )
    assert ("or breakable" in found[0]["message"]) == (version == "0.5.23")
    assert loc(found[0]) == ("server.yaml", 3, 29)


def test_v41_fixture_is_v41():
    assert json.loads(V41)["model_type"] == "deepseek_v41"


def test_human_output_names_the_line(lint):
    run = lint({"server.yaml": BASE + "enable-hisparse: true\n"}, "--format", "concise")
    assert "SWA215" in run.stdout
    assert "deepseek_v4_hook.py:112 apply_deepseek_v4_defaults" in run.stdout


@pytest.mark.parametrize(
    ("version", "flag", "text"),
    [
        ("0.5.23", "enable-encoder-swa-bounded-replay", "TRT-LLM with encoder SWA bounded replay"),
        ("0.5.22", "enable-encoder-swa-bounded-replay", "TRT-LLM with SWA bounded replay"),
        ("0.5.22", "enable-decoder-swa-bounded-replay", "TRT-LLM with SWA bounded replay"),
    ],
)
def test_v41_trtllm_with_bounded_replay(lint, version, flag, text):
    files = {
        "models/v41/config.json": V41,
        "server.yaml": f"model-path: models/v41\ndsv4-attn-backend: trtllm\n{flag}: true\n",
    }
    run = lint(files, "--sglang-version", version, target="server.yaml")
    assert any(
        f"DeepSeek-V4.1 does not support {text} yet" in f["message"] for f in run.findings("SWA215")
    )
