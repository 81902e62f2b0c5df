"""SWA211 v41-layout-gpu: SGLANG_DSV4_KV_LAYOUT=v41 on a CUDA GPU that is not SM100/SM103."""

from __future__ import annotations

import pytest
from conftest import loc, only

MESSAGE = "AssertionError: the V4.1 KV cache layouts need an SM100 / SM103 GPU"


def deployment(layout: str, gpu: str | None = "H200", extra: str = "") -> str:
    # line 3: the env value (column 30)
    return (
        "swacheck: 1\n"
        + (f"gpu: {gpu}\n" if gpu else "platform: cuda\n")
        + f"env: {{SGLANG_DSV4_KV_LAYOUT: {layout}}}\n"
        "server:\n"
        "  model-path: models/v4\n"
        "  disaggregation-mode: prefill\n" + extra
    )


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize("layout", ["v41", "v41_new"])
def test_v41_on_hopper_is_refused(lint, version, layout):
    # mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout: 0.5.22:197, 0.5.23:233
    run = lint({"deploy.yaml": deployment(layout)}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA211")
    assert f["severity"] == "error"
    assert f["message"] == (
        f"SGLANG_DSV4_KV_LAYOUT={layout} on H200 (SM90): {MESSAGE} (building the DSV4 pool, "
        "mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout)"
    )
    assert loc(f) == ("deploy.yaml", 3, 30)


@pytest.mark.parametrize(
    ("layout", "gpu", "extra"),
    [
        ("v41", "B200", ""),  # SM100
        ("auto", "H200", ""),  # auto falls back to V4
        ("v4", "H200", ""),
        ("v41", None, ""),  # no GPU given: silent, as the other hardware rules
        ("v41", "H200", "  dsv4-attn-backend: flashmla_mega\n"),  # SWA502's
    ],
)
def test_what_is_not_refused(lint, layout, gpu, extra):
    run = lint({"deploy.yaml": deployment(layout, gpu, extra)})
    assert run.findings("SWA211") == []


def test_releases_without_the_layout_switch(lint):
    run = lint({"deploy.yaml": deployment("v41")}, "--sglang-version", "0.5.20")
    assert run.findings("SWA211") == []


def rocm(layout: str, backend: str | None, gpu: str = "MI355X") -> str:
    env = f"SGLANG_DSV4_KV_LAYOUT: {layout}"
    if backend:
        env += f", SGLANG_HACK_FLASHMLA_BACKEND: {backend}"
    return (
        f"swacheck: 1\nplatform: rocm\ngpu: {gpu}\nenv: {{{env}}}\nserver:\n  model-path: models/v4\n"
        "  disaggregation-mode: prefill\n"
    )


@pytest.mark.parametrize(
    ("version", "tail"), [("0.5.22", ""), ("0.5.23", ", which reads the block-split v41 layout")]
)
def test_v41_on_hip_without_aiter_sparse_is_refused(lint, version, tail):
    # deepseek_v4_memory_pool.py select_dsv4_kv_layout: 0.5.22:190-193, 0.5.23:226-229
    run = lint({"deploy.yaml": rocm("v41", "unified_kv_triton")}, "--sglang-version", version)
    f = only(run, "SWA211")
    assert f["message"].startswith(
        "SGLANG_DSV4_KV_LAYOUT=v41 on MI355X (gfx950) with SGLANG_HACK_FLASHMLA_BACKEND "
        "unified_kv_triton: ValueError: V4.1 KV layouts on HIP require gfx950 with aiter_sparse "
        f"attention{tail} (building"
    )


@pytest.mark.parametrize(
    ("layout", "backend", "gpu", "refused"),
    [
        ("v41", None, "MI355X", False),  # auto -> aiter_sparse on gfx950
        ("v41", "aiter_sparse", "MI355X", False),
        ("v41", "tilelang", "MI355X", True),
        ("v41", None, "MI300X", True),  # gfx942: auto -> tilelang
        ("v41_new", None, "MI355X", True),  # 0.5.23 refuses v41_new on HIP
    ],
)
def test_v41_on_hip_needs_gfx95_and_aiter_sparse(lint, layout, backend, gpu, refused):
    run = lint({"deploy.yaml": rocm(layout, backend, gpu)})
    assert bool(run.findings("SWA211")) is refused
