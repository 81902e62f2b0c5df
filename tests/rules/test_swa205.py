"""SWA205 dsv4-args-refused: kv-cache-dtype and dsv4-attn-backend the DSV4 hook refuses."""

from __future__ import annotations

import pytest
from conftest import EAGLE, edits, loc
from conftest import only as the_only


def only(run, code="SWA205"):
    return the_only(run, code)


@pytest.mark.parametrize("dtype", ["auto", "fp8_e4m3", "bfloat16"])
def test_supported_kv_cache_dtypes_pass(lint, dtype):
    # the DSV4 hook accepts bfloat16; on CUDA the DSV4 pool then asserts (SWA503, not this rule)
    run = lint({"server.yaml": EAGLE + f"kv-cache-dtype: {dtype}\n"}, "--ignore", "SWA503")
    assert run.exit_code == 0
    assert run.codes() == []


def test_bf16_is_refused_and_fixed_to_fp8_on_cuda(lint):
    # bfloat16 would be the spelling fix, but the CUDA DSV4 pool refuses it (SWA503): the fix
    # must lead into no other finding
    run = lint({"server.yaml": EAGLE + "kv-cache-dtype: bf16\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        "kv-cache-dtype 'bf16' is not supported for DeepSeek-V4: AssertionError: "
        "bf16 is not supported for DeepseekV4ForCausalLM"
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert edits(f) == [("server.yaml", 5, 17, 5, 21, "fp8_e4m3")]
    assert "refused on CUDA, SWA503" in f["fix"]["description"]


def test_bf16_is_fixed_to_bfloat16_off_cuda(lint):
    run = lint({"server.yaml": EAGLE + "kv-cache-dtype: bf16\n"}, "--platform", "rocm")
    assert edits(only(run)) == [("server.yaml", 5, 17, 5, 21, "bfloat16")]


@pytest.mark.parametrize("dtype", ["fp8_e5m2", "mxfp8", "nvfp4", "fp4_mx_block16"])
def test_other_refused_dtypes_are_fixed_to_fp8_e4m3(lint, dtype):
    run = lint({"server.yaml": EAGLE + f"kv-cache-dtype: {dtype}\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f"AssertionError: {dtype} is not supported for DeepseekV4ForCausalLM" in f["message"]
    assert edits(f) == [("server.yaml", 5, 17, 5, 17 + len(dtype), "fp8_e4m3")]


def test_refused_even_without_speculative_decoding(lint):
    run = lint({"server.yaml": "model-path: models/v4\nkv-cache-dtype: bf16\n"})
    assert run.exit_code == 1
    assert loc(only(run)) == ("server.yaml", 2, 1)


def test_dtype_outside_argparse_choices_is_swa304_not_swa205(lint):
    run = lint({"server.yaml": "model-path: models/v4\nkv-cache-dtype: int4\n"})
    assert "SWA205" not in run.codes()
    assert "SWA304" in run.codes()


def test_trtllm_backend_on_a_pd_server_is_refused(lint):
    run = lint({"server.yaml": EAGLE + "dsv4-attn-backend: trtllm\ndisaggregation-mode: decode\n"})
    assert run.exit_code == 1
    f = only(run)
    assert (
        f["message"]
        == "AssertionError: --dsv4-attn-backend trtllm does not support PD disaggregation yet"
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert edits(f) == [("server.yaml", 5, 20, 5, 26, "auto")]


@pytest.mark.parametrize("mode", ["", "disaggregation-mode: 'null'\n"])
def test_trtllm_without_pd_passes(lint, mode):
    run = lint({"server.yaml": EAGLE + "dsv4-attn-backend: trtllm\n" + mode})
    assert run.exit_code == 0
    assert "SWA205" not in run.codes()


def test_flashmla_on_a_pd_server_passes(lint):
    run = lint(
        {"server.yaml": EAGLE + "dsv4-attn-backend: flashmla\ndisaggregation-mode: decode\n"}
    )
    assert run.exit_code == 0
    assert run.codes() == []
