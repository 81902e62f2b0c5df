"""SWA244 validation-args-refused: the sampling-mask switches and the chunked-prefill page check.

Each refusal was run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/hook-refusals.yaml):
same verdict, and the message quotes SGLang's.
"""

from __future__ import annotations

import pytest
from conftest import loc, only

BASE = "model-path: models/v4\ntp-size: 8\n"
MASK = "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS"


def lint_server(lint, extra, version="0.5.23", *args):
    return lint({"server.yaml": BASE + extra}, "--sglang-version", version, *args)


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 244), ("0.5.22", 243)])
def test_chunk_per_attention_dp_rank_not_a_page_multiple(lint, version, line):
    run = lint_server(lint, "attn-dp-size: 8\nchunked-prefill-size: 1024\n", version)
    assert run.exit_code == 1
    f = only(run, "SWA244")
    assert f["message"] == (
        "chunked-prefill-size: 1024: AssertionError: chunked_prefill_size must be divisible by "
        "page_size (chunked-prefill-size 1024 / attn-dp-size 8 = 128, page size 256) "
        f"(arg_groups/validation_hook.py:{line} check_server_args, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 4, 23)
    assert f["fix"]["description"] == (
        "Set chunked-prefill-size to a multiple of 2048 (page size 256 x attn-dp-size 8), e.g. 2048."
    )


@pytest.mark.parametrize(
    "extra",
    [
        "chunked-prefill-size: 2048\nattn-dp-size: 8\n",
        "chunked-prefill-size: 4096\n",
        "chunked-prefill-size: -1\n",
        "chunked-prefill-size: 0\n",
        "chunked-prefill-size: 100\ndisaggregation-mode: decode\n",  # decode servers skip it
        "attn-dp-size: 8\n",  # the default depends on the GPU: not named, not judged
    ],
)
def test_chunks_sglang_accepts(lint, extra):
    assert lint_server(lint, extra).findings("SWA244") == []


def test_the_default_chunk_is_judged_for_a_named_gpu(lint):
    # H200: 8192 by default (memory_hook.py, below 160 GiB); 8192 / 64 = 128
    run = lint_server(lint, "tp-size: 64\nattn-dp-size: 64\n", "0.5.23", "--gpu", "H200")
    f = only(run, "SWA244")
    assert "(SGLang's default chunked-prefill size 8192 / attn-dp-size 64 = 128" in f["message"]
    ok = lint_server(lint, "tp-size: 32\nattn-dp-size: 32\n", "0.5.23", "--gpu", "H200")
    assert ok.findings("SWA244") == []


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 680), ("0.5.22", 677)])
def test_the_retired_sampling_mask_switch(lint, version, line):
    run = lint_server(lint, "", version, "--env", f"{MASK}=16")
    assert run.exit_code == 1
    f = only(run, "SWA244")
    assert f["message"].startswith(
        f"{MASK}=16: ValueError: {MASK} is no longer supported. Unset it. To enable sampling "
        "masks for disaggregated serving, set SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1"
    )
    assert f["message"].endswith(
        f"(arg_groups/validation_hook.py:{line} validate_sampling_mask_max_tokens, SGLang {version})"
    )


def test_sampling_mask_max_tokens_below_one(lint):
    run = lint_server(lint, "sampling-mask-max-tokens: 0\n")
    f = only(run, "SWA244")
    assert f["message"] == (
        "sampling-mask-max-tokens: 0: ValueError: --sampling-mask-max-tokens must be positive "
        "(got 0). (arg_groups/validation_hook.py:688 validate_sampling_mask_max_tokens, "
        "SGLang 0.5.23)"
    )
    assert loc(f) == ("server.yaml", 3, 27)
    assert lint_server(lint, "sampling-mask-max-tokens: 4096\n").findings("SWA244") == []


def test_releases_not_read_stay_silent(lint):
    run = lint_server(lint, "chunked-prefill-size: 100\n", "0.5.21")
    assert run.findings("SWA244") == []
