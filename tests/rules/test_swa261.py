"""SWA261 checkpoint-pool-refused: a config.json the DSV4 pools cannot be built from."""

from __future__ import annotations

import pytest
from conftest import V4_FLASH, loc, only
from rules.test_swa260 import config, files, line_of

ROW = (
    "AssertionError: DSV4 KV layout: qk_nope_head_dim FP8 (448) + qk_rope_head_dim BF16 (64*2) "
    "+ nope FP8 scales + scale_pad = 584 bytes/token"
)


@pytest.mark.parametrize(
    ("version", "site"),
    [("0.5.23", "deepseek_v4_memory_pool.py:313"), ("0.5.22", "deepseek_v4_memory_pool.py:277")],
)
def test_head_dim_256_gives_a_row_the_v4_layout_refuses(lint, version, site):
    target = config(head_dim=256)
    run = lint(files(target), "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA261")
    assert f["message"] == (
        "models/v4/config.json (target): qk_nope_head_dim 192 + qk_rope_head_dim 64 give a row "
        f"of 324 bytes, not 584: SGLang {version} stops building the target's KV pool, "
        f"sglang/srt/mem_cache/{site}: {ROW}"
    )
    assert loc(f)[:2] == ("models/v4/config.json", line_of(target, "head_dim"))
    # the geometry is still computed: SGLang gets past the target/draft checks to the pools
    assert run.deployments[0]["target"]["tuple"][:2] == [256, 128]


def test_no_head_dim_takes_qk_rope_head_dim(lint):
    f = only(lint(files(config(head_dim=KeyError))), "SWA261")
    assert "qk_nope_head_dim 0 + qk_rope_head_dim 64 give a row of 129 bytes" in f["message"]
    assert "(no head_dim: the alias class takes qk_rope_head_dim)" in f["message"]
    assert loc(f)[1:] == (1, 1)


def test_the_draft_pool_too(lint):
    f = only(lint(files(draft=config(qk_rope_head_dim=128))), "SWA261")
    assert f["message"].startswith(
        "models/draft/config.json (draft): qk_nope_head_dim 384 + qk_rope_head_dim 128 give a "
        "row of 647 bytes, not 584: SGLang 0.5.23 stops building the draft's KV pool"
    )


def test_v41_layout_asserts_512_dimensions(lint):
    run = lint(
        files(config(head_dim=576)),
        "--gpu",
        "B200",
        "--env",
        "SGLANG_DSV4_KV_LAYOUT=v41",
    )
    f = only(run, "SWA261")
    assert "give 576 head dimensions, not 512" in f["message"]
    assert f["message"].endswith("deepseek_v4_memory_pool.py:297: AssertionError")


@pytest.mark.parametrize(
    ("key", "value", "site", "said"),
    [
        (
            "kv_source_layer_ids",
            None,
            "kv_cache_configurator.py:2083",
            "TypeError: 'NoneType' object is not iterable",
        ),
        (
            "compress_ratios",
            None,
            "deepseek_v4_memory_pool.py:1056",
            "TypeError: 'NoneType' object is not iterable",
        ),
        (
            "max_position_embeddings",
            0,
            "kv_cache_configurator.py:3123",
            "ZeroDivisionError: division by zero",
        ),
    ],
)
def test_target_values_the_pools_cannot_take(lint, key, value, site, said):
    f = only(lint(files(config(**{key: value}))), "SWA261")
    assert f["message"].endswith(f"sglang/srt/mem_cache/{site}: {said}")
    assert loc(f)[0] == "models/v4/config.json"
    assert f"(target): {key} is" in f["message"] or "context length is 0" in f["message"]


def test_a_context_length_spares_the_division(lint):
    run = lint(files(config(max_position_embeddings=0)))
    assert len(run.findings("SWA261")) == 1
    text = files(config(max_position_embeddings=0))
    text["server.yaml"] += "context-length: 4096\n"
    assert lint(text).findings("SWA261") == []


@pytest.mark.parametrize(
    "changes",
    [{}, {"kv_source_layer_ids": [2, 20]}, {"head_dim": 512, "qk_rope_head_dim": 64}],
)
def test_deepseek_v4_dimensions_pass(lint, changes):
    run = lint(files(config(**changes)))
    assert run.findings("SWA261") == []
    assert run.exit_code == 0


def test_catalogue_and_older_releases_are_not_checked(lint):
    run = lint(files(config(head_dim=256)), "--sglang-version", "0.5.21")
    assert run.findings("SWA261") == []
    assert V4_FLASH  # the published config passes (test_deepseek_v4_dimensions_pass)
