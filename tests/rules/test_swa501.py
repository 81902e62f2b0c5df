"""SWA501 moe-runner-fp4-experts: the MoE runner vs DeepSeek-V4's FP4 experts and the GPU."""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, edits, loc, only

BASE = "model-path: models/fp4\ntp-size: 8\n"
# a checkpoint whose config.json declares MXFP4 routed experts (the format is then known, not assumed)
_cfg = json.loads(V4_FLASH)
_cfg["quantization_config"] = {"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"}
FP4 = {"models/fp4/config.json": json.dumps(_cfg, indent=1)}


@pytest.fixture
def lint(lint):
    """The conftest lint, with the declared-FP4 checkpoint in models/fp4."""
    return lambda files, *args, **kw: lint({**FP4, **files}, *args, **kw)


def test_hopper_auto_without_a2a_passes_on_0_5_19_and_later(lint):
    run = lint({"server.yaml": BASE}, "--gpu", "H200")
    assert run.exit_code == 0
    assert run.findings("SWA501") == []


@pytest.mark.parametrize("version", ["0.5.16", "0.5.18"])
def test_hopper_auto_before_0_5_19_falls_back_to_triton(lint, version):
    run = lint({"server.yaml": BASE}, "--gpu", "H100", "--sglang-version", version)
    f = only(run, "SWA501")
    assert f["severity"] == "error"
    assert "Hidden size mismatch" in f["message"]
    assert (
        f"SGLang {version} picks flashinfer_mxfp4 for DeepSeek-V4 FP4 experts only on SM120"
        in f["message"]
    )
    assert edits(f) == [("server.yaml", 2, 1, 2, 1, "moe-runner-backend: flashinfer_mxfp4\n")]


def test_sm120_auto_passes_on_0_5_16(lint):
    run = lint({"server.yaml": BASE}, "--gpu", "RTX PRO 6000", "--sglang-version", "0.5.16")
    assert run.findings("SWA501") == []


def test_deepep_on_hopper_is_the_deepgemm_blackwell_assertion(lint):
    run = lint({"server.yaml": BASE + "moe-a2a-backend: deepep\n"}, "--gpu", "H20")
    f = only(run, "SWA501")
    assert f["severity"] == "error"
    assert "arch_major == 10" in f["message"]
    assert loc(f) == ("server.yaml", 3, 18)  # the a2a backend's value
    assert "moe-runner-backend: flashinfer_mxfp4" in edits(f)[0][5]


def test_deepep_on_blackwell_passes(lint):
    run = lint({"server.yaml": BASE + "moe-a2a-backend: deepep\n"}, "--gpu", "B200")
    assert run.findings("SWA501") == []


def test_deepep_without_gpu_is_a_note_saying_what_it_needs(lint):
    run = lint({"server.yaml": BASE + "moe-a2a-backend: deepep\n"})
    f = only(run, "SWA501")
    assert f["severity"] == "note"
    assert "needs a Blackwell (SM100) GPU" in f["message"] and "give --gpu" in f["message"]
    assert run.exit_code == 0


@pytest.mark.parametrize("runner", ["triton", "flashinfer_trtllm"])
def test_runners_without_an_fp4_path_fail_on_every_gpu_even_without_gpu(lint, runner):
    run = lint({"server.yaml": BASE + f"moe-runner-backend: {runner}\n"})
    f = only(run, "SWA501")
    assert f["severity"] == "error"
    assert loc(f) == ("server.yaml", 3, 21)
    assert edits(f) == [("server.yaml", 3, 21, 3, 21 + len(runner), "marlin")]


@pytest.mark.parametrize(
    "runner,gpu",
    [
        ("marlin", "H100"),
        ("flashinfer_mxfp4", "H100"),
        ("flashinfer_mxfp4", "B200"),
        ("deep_gemm", "B300"),
    ],
)
def test_runners_with_an_fp4_path_pass(lint, runner, gpu):
    run = lint({"server.yaml": BASE + f"moe-runner-backend: {runner}\n"}, "--gpu", gpu)
    assert run.findings("SWA501") == []
    assert run.exit_code == 0


def test_explicit_deep_gemm_on_hopper_fails(lint):
    run = lint({"server.yaml": BASE + "moe-runner-backend: deep_gemm\n"}, "--gpu", "H800")
    assert "arch_major == 10" in only(run, "SWA501")["message"]


def test_fp8_experts_from_the_environment_are_left_alone(lint):
    # models/v4 declares no expert format, so the server's variable decides (model_config.py)
    run = lint(
        {"server.yaml": "model-path: models/v4\nmoe-runner-backend: triton\n"},
        "--env",
        "SGLANG_DSV4_FP4_EXPERTS=0",
    )
    assert run.findings("SWA501") == []


def test_the_config_json_format_wins_over_the_environment(lint):
    # SGLang reads SGLANG_DSV4_FP4_EXPERTS only when routed_experts_quant_method is absent
    run = lint(
        {"server.yaml": BASE + "moe-runner-backend: triton\n"}, "--env", "SGLANG_DSV4_FP4_EXPERTS=0"
    )
    assert only(run, "SWA501")["severity"] == "error"


def test_fp4_dequant_with_auto_passes_on_0_5_16_and_later(lint):
    run = lint(
        {"server.yaml": BASE + "moe-a2a-backend: deepep\n"},
        "--gpu",
        "H100",
        "--env",
        "SGLANG_DSV4_FP4_DEQUANT=1",
    )
    assert run.findings("SWA501") == []


def test_expert_format_from_config_json_is_related(lint):
    cfg = json.loads(V4_FLASH)
    cfg["quantization_config"] = {"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"}
    run = lint(
        {
            "models/q/config.json": json.dumps(cfg, indent=1),
            "server.yaml": "model-path: models/q\nmoe-runner-backend: triton\n",
        }
    )
    f = only(run, "SWA501")
    assert "routed_experts_quant_method" in f["message"]
    assert f["related"][0]["message"] == "the FP4 expert format comes from here"
    assert "SGLANG_DSV4_FP4_EXPERTS=0" not in f["fix"]["description"]  # not assumed


def test_assumed_format_is_a_warning_that_says_how_to_declare_fp8_experts(lint):
    # models/v4 declares no expert format: only SGLang's default (FP4) says so; SGLang would read the weights
    run = lint({"server.yaml": "model-path: models/v4\nmoe-runner-backend: triton\n"})
    f = only(run, "SWA501")
    assert f["severity"] == "warning"
    assert "SGLang's default, which the weights' header may overrule" in f["message"]
    assert "SGLANG_DSV4_FP4_EXPERTS=0" in f["fix"]["description"]
    assert run.exit_code == 0


def test_published_checkpoint_folder_is_known_fp4(lint):
    from conftest import V4_FLASH as cfg

    run = lint(
        {
            "models/DeepSeek-V4-Flash/config.json": cfg,
            "server.yaml": "model-path: models/DeepSeek-V4-Flash\nmoe-runner-backend: triton\n",
        }
    )
    assert only(run, "SWA501")["severity"] == "error"


def test_rocm_is_not_judged(lint):
    run = lint(
        {"server.yaml": BASE + "moe-runner-backend: triton\n"},
        "--platform",
        "rocm",
        "--gpu",
        "MI355X",
    )
    assert run.findings("SWA501") == []


def test_unknown_gpu_is_a_note_never_a_guess(lint):
    run = lint({"server.yaml": BASE}, "--gpu", "T4")
    f = only(run, "SWA501")
    assert f["severity"] == "note"
    assert "does not know the GPU 'T4'" in f["message"]
    assert run.exit_code == 0


def test_an_unknown_gpu_name_is_shown_as_written_not_doubly_escaped(lint):
    # the name is quoted once; repr() of an already escaped name doubled each backslash
    run = lint({"server.yaml": BASE}, "--gpu", "Foo\\zz")
    messages = [
        f["message"]
        for f in run.findings("SWA501") + run.findings("SWA503")
        if "GPU" in f["message"]
    ]
    assert messages, run.output
    assert all("does not know the GPU 'Foo\\zz' (" in m for m in messages), messages


@pytest.mark.parametrize("version", ["0.5.12", "0.5.13"])
@pytest.mark.parametrize("gpu", [(), ("--gpu", "H100"), ("--gpu", "B200")])
def test_auto_is_triton_on_every_gpu_in_0_5_12_and_0_5_13_so_no_gpu_is_needed(lint, version, gpu):
    # those releases pick no FP4 runner for DeepSeek-V4 on any GPU: the verdict is platform-wide
    run = lint({"server.yaml": BASE}, *gpu, "--sglang-version", version)
    f = only(run, "SWA501")
    assert f["severity"] == "error"
    assert (
        f"SGLang {version} picks no FP4-capable runner for DeepSeek-V4 on any GPU" in f["message"]
    )
    assert "picks  " not in f["message"] and "(SM)" not in f["message"]  # never an empty name
    assert run.exit_code == 1


def test_without_gpu_auto_stays_silent_where_it_depends_on_the_gpu(lint):
    assert lint({"server.yaml": BASE}, "--sglang-version", "0.5.14").findings("SWA501") == []
