"""SWA503 kv-cache-dtype-hardware: KV cache dtype vs platform and GPU for DeepSeek-V4."""

from __future__ import annotations

import pytest
from conftest import edits, loc, only


@pytest.mark.parametrize(
    "version,where",
    [
        ("0.5.23", "deepseek_v4_memory_pool.py:321"),
        ("0.5.16", "deepseek_v4_memory_pool.py:117"),
        ("0.5.20", "deepseek_v4_memory_pool.py:137"),
    ],
)
def test_bfloat16_on_cuda_is_the_pool_assertion_on_every_gpu(lint, version, where):
    run = lint(
        {"server.yaml": "model-path: models/v4\nkv-cache-dtype: bfloat16\n"},
        "--sglang-version",
        version,
    )
    f = only(run, "SWA503")
    assert f["severity"] == "error"
    assert "assert self.store_dtype == torch.uint8" in f["message"] and where in f["message"]
    assert loc(f) == ("server.yaml", 2, 17)
    assert edits(f) == [("server.yaml", 2, 17, 2, 25, "fp8_e4m3")]


@pytest.mark.parametrize(
    "args",
    [
        ("--platform", "npu"),
        ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton"),
    ],
)
def test_bfloat16_on_npu_or_rocm_unified_is_not_judged(lint, args):
    run = lint({"server.yaml": "model-path: models/v4\nkv-cache-dtype: bfloat16\n"}, *args)
    assert run.findings("SWA503") == []


def test_bfloat16_on_rocm_paged_trips_the_same_assert(lint):
    # real SGLang on ROCm (MI355X, paged): deepseek_v4_memory_pool.py 0.5.23:321 (conformance
    # matrix case matrix-0-0296)
    run = lint(
        {"server.yaml": "model-path: models/v4\nkv-cache-dtype: bfloat16\n"}, "--platform", "rocm"
    )
    f = only(run, "SWA503")
    assert f["message"].startswith("kv-cache-dtype bfloat16 for DeepSeek-V4 on ROCm (paged KV):")
    assert "assert self.store_dtype == torch.uint8" in f["message"]


@pytest.mark.parametrize("gpu", ["A100", "A800", "NVIDIA-A100-SXM4-40GB"])
def test_default_fp8_on_sm80_fails(lint, gpu):
    run = lint({"server.yaml": "model-path: models/v4\n"}, "--gpu", gpu)
    f = only(run, "SWA503")
    assert f["severity"] == "error"
    assert "fp8e4nv not supported in this architecture" in f["message"]
    assert "SM80" in f["message"]


@pytest.mark.parametrize("gpu", ["L40S", "H100", "H20", "B200", "RTX PRO 6000"])
def test_fp8_on_sm89_and_later_passes(lint, gpu):
    # marlin: FP4 experts on any CUDA GPU (SGLang picks no FP4 runner itself on SM89, SWA501)
    run = lint(
        {
            "server.yaml": "model-path: models/v4\nkv-cache-dtype: fp8_e4m3\nmoe-runner-backend: marlin\n"
        },
        "--gpu",
        gpu,
    )
    assert run.findings("SWA503") == []
    assert run.exit_code == 0


def test_no_gpu_no_fp8_finding(lint):
    run = lint({"server.yaml": "model-path: models/v4\n"})
    assert run.findings("SWA503") == []


def test_amd_gpu_on_cuda_platform_is_a_warning(lint):
    run = lint({"server.yaml": "model-path: models/v4\n"}, "--gpu", "MI300X")
    f = only(run, "SWA503")
    assert f["severity"] == "warning"
    assert "AMD GPU" in f["message"]


def test_gpu_from_a_deployment_file_is_related(lint):
    deploy = "swacheck: 1\ngpu: A100\nserver:\n  model-path: models/v4\n"
    run = lint({"d.yaml": deploy})
    f = only(run, "SWA503")
    assert f["related"][0]["line"] == 2
