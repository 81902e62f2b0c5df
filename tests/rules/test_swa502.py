"""SWA502 dsv4-attention-backend: attention backends other than dsv4 for DeepSeek-V4."""

from __future__ import annotations

import pytest
from conftest import edits, loc, only


@pytest.mark.parametrize("name", ["prefill-attention-backend", "decode-attention-backend"])
@pytest.mark.parametrize("platform", ["cuda", "rocm"])
def test_per_phase_backend_other_than_dsv4_is_an_error(lint, name, platform):
    run = lint({"server.yaml": f"model-path: models/v4\n{name}: aiter\n"}, "--platform", platform)
    f = only(run, "SWA502")
    assert f["severity"] == "error"
    assert f["message"].startswith(f"{name} aiter for DeepSeek-V4")
    assert loc(f) == ("server.yaml", 2, len(name) + 3)
    assert edits(f) == [("server.yaml", 2, 1, 3, 1, "")]
    assert run.exit_code == 1


@pytest.mark.parametrize("value", ["dsv4", "compressed"])
def test_dsv4_and_its_alias_pass(lint, value):
    run = lint(
        {
            "server.yaml": f"model-path: models/v4\ndecode-attention-backend: {value}\nattention-backend: {value}\n"
        }
    )
    assert run.findings("SWA502") == []
    assert run.exit_code == 0


def test_npu_pins_both_phases_to_dsv4(lint):
    run = lint(
        {"server.yaml": "model-path: models/v4\ndecode-attention-backend: ascend\n"},
        "--platform",
        "npu",
    )
    assert run.findings("SWA502") == []


def test_attention_backend_is_replaced_a_warning(lint):
    run = lint({"server.yaml": "model-path: models/v4\nattention-backend: flashinfer\n"})
    f = only(run, "SWA502")
    assert f["severity"] == "warning"
    assert "replaced by dsv4" in f["message"]
    assert run.exit_code == 0


def test_not_a_deepseek_v4_model_is_left_alone(lint):
    run = lint(
        {
            "models/l/config.json": '{"architectures": ["LlamaForCausalLM"]}',
            "server.yaml": "model-path: models/l\ndecode-attention-backend: flashinfer\n",
        }
    )
    assert run.findings("SWA502") == []


@pytest.mark.parametrize(
    "gpu,fails", [("H200", True), ("RTX PRO 6000", True), ("B200", False), ("B300", False)]
)
def test_dsv4_trtllm_kernels_need_blackwell(lint, gpu, fails):
    run = lint(
        {
            "server.yaml": "model-path: models/v4\ndsv4-attn-backend: trtllm\nmoe-runner-backend: flashinfer_mxfp4\n"
        },
        "--gpu",
        gpu,
    )
    found = run.findings("SWA502")
    if fails:
        (f,) = found
        assert "requires an SM100/SM103 (Blackwell) GPU" in f["message"]
        assert edits(f) == [("server.yaml", 2, 20, 2, 26, "auto")]
    else:
        assert found == []
        assert run.exit_code == 0


def test_dsv4_trtllm_without_gpu_is_not_guessed(lint):
    run = lint({"server.yaml": "model-path: models/v4\ndsv4-attn-backend: trtllm\n"})
    assert run.findings("SWA502") == []


def test_flashmla_mega_needs_deepseek_v4_1(lint):
    run = lint({"server.yaml": "model-path: models/v4\ndsv4-attn-backend: flashmla_mega\n"})
    assert "requires DeepSeek-V4.1" in only(run, "SWA502")["message"]


@pytest.mark.parametrize(
    ("backend", "text"),
    [
        ("trtllm", "--dsv4-attn-backend trtllm requires an SM100/SM103 (Blackwell) GPU."),
        (
            "flashmla_mega",
            "--dsv4-attn-backend flashmla_mega requires DeepSeek-V4.1 on SM100/SM103.",
        ),
    ],
)
def test_trtllm_and_flashmla_mega_fail_on_every_rocm_gpu(lint, backend, text):
    # conformance/cases/dsv4-attn-backend-rocm.yaml: refused on real 0.5.23 on an MI355X
    run = lint(
        {"server.yaml": f"model-path: models/v4\ndsv4-attn-backend: {backend}\n"},
        "--platform",
        "rocm",
    )
    found = [f for f in run.findings("SWA502") if "on ROCm" in f["message"]]
    assert (
        found
        and found[0]["message"] == f"dsv4-attn-backend {backend} on ROCm: AssertionError: {text}"
    )
