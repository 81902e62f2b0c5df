"""SWA246 kv-cache-sharding-dsv4: the first refusal of KV sharding on a DeepSeek-V4 prefill server.

Run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/hook-refusals.yaml): the hook's
order, the 0.5.22 tree-core default, and the pool refusal past the hook.
"""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc, only

BASE = "model-path: models/v4\ntp-size: 8\ndisaggregation-mode: prefill\nenable-kv-cache-sharding: true\n"
P = "--enable-kv-cache-sharding"
PASSES_HOOK = "prefill-attention-backend: fa3\nenable-prefill-cp: true\ncp-strategy: interleave\n"


def message(lint, extra="", version="0.5.23", *args):
    run = lint({"server.yaml": BASE + extra}, "--sglang-version", version, *args)
    assert run.exit_code == 1
    return only(run, "SWA246")["message"]


def test_the_dsv4_backend_is_refused_first_on_0_5_23(lint):
    run = lint({"server.yaml": BASE}, "--sglang-version", "0.5.23")
    f = only(run, "SWA246")
    assert f["message"] == (
        f"enable-kv-cache-sharding: true: ValueError: {P} currently requires the fa3 prefill "
        "attention backend, or trtllm_mla for plain-TP MLA; got 'dsv4'. "
        "(arg_groups/kv_shard_hook.py:71 validate_kv_shard_attention_backend, SGLang 0.5.23)"
    )
    assert loc(f) == ("server.yaml", 4, 27)
    assert f["fix"]["description"] == (
        "Remove enable-kv-cache-sharding: SGLang has no sharded KV pool for DeepSeek-V4."
    )


def test_0_5_22_stops_at_its_rust_tree_core_default(lint):
    said = message(lint, "", "0.5.22")
    assert said == (
        f"enable-kv-cache-sharding: true: ValueError: {P} requires the Python UnifiedTreeCore: "
        "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND='rust' is not supported for sharded KV. "
        "(arg_groups/kv_shard_hook.py:87 handle_kv_cache_sharding, SGLang 0.5.22)"
    )
    # with the radix cache off (or the Python core) it goes on to the backend check
    assert "got 'dsv4'. (arg_groups/kv_shard_hook.py:32 " in message(
        lint, "disable-radix-cache: true\n", "0.5.22"
    )
    assert "got 'dsv4'" in message(
        lint, "", "0.5.22", "--env", "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND=python"
    )
    assert "'rust' is not supported" in message(
        lint, "", "0.5.23", "--env", "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND=rust"
    )


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (
            "dcp-size: 2\n",
            f"{P} and decode context parallelism (--dcp-size) are mutually exclusive",
        ),
        ("radix-cache-backend: mine\n", "does not support --radix-cache-backend='mine'."),
        ("enable-two-batch-overlap: true\n", "does not support --enable-two-batch-overlap"),
        ("prefill-attention-backend: trtllm_mla\n", "KV sharding with trtllm_mla requires an MLA"),
        ("prefill-attention-backend: dsa\n", "DSA KV sharding requires CUDA interleave prefill CP"),
        ("prefill-attention-backend: fa3\n", "for GQA models shards across attention-CP ranks"),
        (
            "prefill-attention-backend: fa3\ndisaggregation-transfer-backend: mori\n",
            "only supports the mooncake and nixl transfer backends: both route sends through "
            "CommonKVSender._prepare_send_indices and pair destinations by fancy index. Got "
            "--disaggregation-transfer-backend 'mori'.",
        ),
        (PASSES_HOOK + "chunked-prefill-size: -1\n", f"{P} requires chunked prefill"),
        (
            PASSES_HOOK + "chunked-prefill-size: 8192\n",
            f"{P} does not support this model family (pool DeepSeekV4TokenToKVPool). (at "
            "scheduler start, when the KV pools are built: every check of the hook passed) "
            "(mem_cache/kv_cache_configurator.py:786 KVCacheConfigurator._init_pools, SGLang 0.5.23)",
        ),
    ],
)
def test_each_refusal_in_the_hooks_order(lint, extra, said):
    assert said in message(lint, extra)


def test_the_staging_buffer_and_the_pool_on_0_5_22(lint):
    said = message(
        lint,
        "disable-radix-cache: true\n" + PASSES_HOOK,
        "0.5.22",
        "--env",
        "SGLANG_DISAGG_STAGING_BUFFER=1",
    )
    assert said.startswith("SGLANG_DISAGG_STAGING_BUFFER=1: ValueError: " + P + " is incompatible")
    assert said.endswith(
        "(arg_groups/kv_shard_hook.py:180 handle_kv_cache_sharding, SGLang 0.5.22)"
    )
    pool = message(lint, "disable-radix-cache: true\n" + PASSES_HOOK, "0.5.22")
    assert pool.endswith(
        "(mem_cache/kv_cache_configurator.py:748 KVCacheConfigurator._init_pools, SGLang 0.5.22)"
    )


@pytest.mark.parametrize(
    "text",
    [
        "model-path: models/v4\ntp-size: 8\ndisaggregation-mode: decode\nenable-kv-cache-sharding: true\n",
        BASE + EAGLE.split("\n", 1)[1],
        "model-path: models/v4\ntp-size: 8\ndisaggregation-mode: prefill\n",
    ],
)
def test_swa209s_cases_and_no_sharding_are_not_this_rule(lint, text):
    assert lint({"server.yaml": text}).findings("SWA246") == []


def test_releases_not_read_stay_silent(lint):
    run = lint({"server.yaml": BASE}, "--sglang-version", "0.5.21")
    assert run.findings("SWA246") == []
