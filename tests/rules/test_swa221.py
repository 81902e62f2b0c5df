"""SWA221 dsv4-env-refused: DeepSeek-V4 KV environment switches set to values SGLang refuses."""

from __future__ import annotations

import pytest
from conftest import loc, only


def deployment(env: str, extra: str = "", platform: str = "cuda") -> str:
    # line 3: the env mapping (its first value at column 7 + len(key) + 2)
    return (
        "swacheck: 1\n"
        f"platform: {platform}\n"
        f"env: {{{env}}}\n"
        "server:\n"
        "  model-path: models/v4\n" + extra
    )


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_an_unknown_compress_state_dtype_is_refused(lint, version):
    # mem_cache/kv_cache_configurator.py _get_dsv4_compress_state_dtypes: 0.5.22:152, 0.5.23:157
    run = lint(
        {"deploy.yaml": deployment("SGLANG_DSV4_COMPRESS_STATE_DTYPE: ' Float16'")},
        "--sglang-version",
        version,
    )
    assert run.exit_code == 1
    f = only(run, "SWA221")
    assert f["severity"] == "error"
    assert f["message"] == (
        "SGLANG_DSV4_COMPRESS_STATE_DTYPE= Float16: ValueError: Unsupported "
        "SGLANG_DSV4_COMPRESS_STATE_DTYPE='float16'. Expected one of: float32, fp32, bfloat16, bf16. "
        "(building the DSV4 pool, mem_cache/kv_cache_configurator.py _get_dsv4_compress_state_dtypes)"
    )
    assert loc(f) == ("deploy.yaml", 3, 41)


@pytest.mark.parametrize(
    ("version", "mode", "refused"),
    [
        ("0.5.23", "v42", True),
        ("0.5.23", "v41_new", False),  # 0.5.23's fourth value (SWA211 judges the GPU)
        ("0.5.22", "v41_new", True),  # not a value 0.5.22 knows
        ("0.5.23", "V4", False),  # lower-cased
        ("0.5.23", "auto", False),
    ],
)
def test_the_kv_layout_values_of_each_release(lint, version, mode, refused):
    # mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout: 0.5.22:178, 0.5.23:213
    run = lint(
        {"deploy.yaml": deployment(f"SGLANG_DSV4_KV_LAYOUT: {mode}")}, "--sglang-version", version
    )
    found = run.findings("SWA221")
    if not refused:
        assert found == []
        return
    assert [f["message"] for f in found] == [
        f"SGLANG_DSV4_KV_LAYOUT={mode}: AssertionError: unknown SGLANG_DSV4_KV_LAYOUT='{mode.lower()}' "
        "(building the DSV4 pool, mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout)"
    ]
    assert loc(found[0]) == ("deploy.yaml", 3, 30)


def test_flashmla_mega_replaces_the_layout_in_0_5_23(lint):
    run = lint(
        {
            "deploy.yaml": deployment(
                "SGLANG_DSV4_KV_LAYOUT: v42", "  dsv4-attn-backend: flashmla_mega\n"
            )
        },
        "--sglang-version",
        "0.5.23",
    )
    assert run.findings("SWA221") == []


def test_trtllm_takes_only_the_v4_layouts(lint):
    run = lint(
        {"deploy.yaml": deployment("SGLANG_DSV4_KV_LAYOUT: v41", "  dsv4-attn-backend: trtllm\n")}
    )
    assert [f["message"].split(": ", 1)[1] for f in run.findings("SWA221")] == [
        "AssertionError: trtllm uses uniform FP8 pools, not the packed V4.1 KV layouts "
        "(building the DSV4 pool, mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout)"
    ]


@pytest.mark.parametrize(
    ("env", "refused"),
    [
        (
            "SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp4",
            "AssertionError: the V4 main cache only pairs with V4 caches",
        ),
        (
            "SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp16",
            "AssertionError: unknown compressed KV layout 'fp16'",
        ),
        ("SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp4, SGLANG_DSV4_KV_LAYOUT: v41", None),
        ("SGLANG_DSV4_COMPRESSED_KV_LAYOUT: FP8", None),
    ],
)
def test_the_compressed_layout(lint, env, refused):
    # mem_cache/deepseek_v4_memory_pool.py resolve_compressed_kv_layout: 0.5.23:182-190
    run = lint({"deploy.yaml": deployment(env)})
    found = [f["message"] for f in run.findings("SWA221")]
    assert found == ([] if refused is None else [found[0]])
    if refused:
        assert refused in found[0] and "resolve_compressed_kv_layout" in found[0]


def test_the_values_sglang_takes_and_older_releases(lint):
    good = "SGLANG_DSV4_COMPRESS_STATE_DTYPE: bf16, SGLANG_DSV4_KV_LAYOUT: v4"
    assert lint({"deploy.yaml": deployment(good)}).findings("SWA221") == []
    bad = "SGLANG_DSV4_COMPRESS_STATE_DTYPE: float16"
    assert (
        lint({"deploy.yaml": deployment(bad)}, "--sglang-version", "0.5.20").findings("SWA221")
        == []
    )
    assert lint({"deploy.yaml": deployment(bad, platform="rocm")}).findings("SWA221") != []


@pytest.mark.parametrize(
    ("version", "mode", "refused"),
    [
        ("0.5.23", "decode", True),  # the PD layout it publishes resolves the option
        ("0.5.23", None, False),  # unified rings build no compressed pool
        ("0.5.22", "decode", False),  # 0.5.22 publishes no PD layout
    ],
)
def test_unified_rings_resolve_the_compressed_layout_only_to_publish_a_pd_layout(
    lint, version, mode, refused
):
    # conformance matrix-1001-0016: a unified decode server with fp4 builds its pools
    env = "SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton, SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp4"
    extra = f"  disaggregation-mode: {mode}\n" if mode else ""
    run = lint(
        {"deploy.yaml": deployment(env, extra, platform="rocm")}, "--sglang-version", version
    )
    assert run.deployments[0]["target"]["unified"] is True
    found = [f["message"] for f in run.findings("SWA221")]
    if refused:
        assert len(found) == 1 and "the V4 main cache only pairs with V4 caches" in found[0]
    else:
        assert found == []
