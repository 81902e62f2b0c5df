"""SWA211 v41-layout-gpu: `SGLANG_DSV4_KV_LAYOUT=v41` on a GPU that cannot hold the V4.1 layout.

## What it does

With the GPU given (`--gpu` or the deployment file's `gpu:`), reports `SGLANG_DSV4_KV_LAYOUT`
set to `v41` or `v41_new` (SGLang 0.5.22 and later) on a CUDA GPU that is not a compute
capability 10.x part (B200, B300, GB200, GB300), or on ROCm unless the GPU is a gfx95x part whose
HIP attention backend is `aiter_sparse` (`SGLANG_HACK_FLASHMLA_BACKEND` `auto`, the default from
0.5.22, picks it on gfx950; `unified_kv_triton` and `tilelang` do not; 0.5.23 refuses `v41_new` on
HIP always). Without a GPU it stays silent, as the other hardware rules do. `auto` falls back
to the V4 layout where V4.1 is not possible and is fine; a `dsv4-attn-backend` of `flashmla_mega`
or `trtllm` picks its own layout (SWA502, SWA205).

## Why it matters

Building the DeepSeek-V4 KV pool, `select_dsv4_kv_layout` (`mem_cache/deepseek_v4_memory_pool.py`
0.5.23:233, 0.5.22:197) asserts `AssertionError: the V4.1 KV cache layouts need an SM100 / SM103
GPU`, and the server stops at start-up, after loading the weights. On HIP it raises `ValueError:
V4.1 KV layouts on HIP require gfx950 with aiter_sparse attention` (0.5.22:190-193; 0.5.23:226-229
adds ", which reads the block-split v41 layout").

## Example

```yaml
swacheck: 1
gpu: H200
env: {SGLANG_DSV4_KV_LAYOUT: v41}
server:
  model-path: deepseek-ai/DeepSeek-V4-Flash
```

## Fix

Unset `SGLANG_DSV4_KV_LAYOUT` (or `v4`, or `auto`) on this GPU.

Fix safety: none — no automatic fix: it changes the server's environment.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from ._preflight import gpu, is_dsv4, platform, text
from .base import RuleContext

CODE = "SWA211"
NAME = "v41-layout-gpu"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_DSV4_KV_LAYOUT=v41 on a GPU that cannot hold the V4.1 layout"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

MESSAGE = "AssertionError: the V4.1 KV cache layouts need an SM100 / SM103 GPU"
HIP_MESSAGE = "ValueError: V4.1 KV layouts on HIP require gfx950 with aiter_sparse attention"
HIP_TAIL = ", which reads the block-split v41 layout"


def _cuda_refusal(known) -> tuple[str, str] | None:  # type: ignore[no-untyped-def]
    if known.sm is None or known.sm // 10 == 10:
        return None
    return f"{known.name} (SM{known.sm})", MESSAGE


def _hip_refusal(res: Resolution, known, mode: str, version: tuple) -> tuple[str, str] | None:  # type: ignore[no-untyped-def]
    backend = res.deployment.env.get("SGLANG_HACK_FLASHMLA_BACKEND")
    name = str(backend.value).strip() if backend is not None else res.profile.env_backend_default
    gfx95 = (known.gfx or "").startswith("gfx95")
    if name == "auto":
        name = "aiter_sparse" if gfx95 else "tilelang"
    v41_new_refused = mode == "v41_new" and version >= (0, 5, 23)
    if gfx95 and name == "aiter_sparse" and not v41_new_refused:
        return None
    said = f"{known.name} ({known.gfx}) with SGLANG_HACK_FLASHMLA_BACKEND {name}"
    return said, HIP_MESSAGE + (HIP_TAIL if version >= (0, 5, 23) else "")


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    on = platform(res)
    if not is_dsv4(res) or on not in ("cuda", "rocm"):
        return
    version = release_key(res.profile.version)
    if version < (0, 5, 22):
        return
    layout = res.deployment.env.get("SGLANG_DSV4_KV_LAYOUT")
    mode = str(layout.value).strip().lower() if layout is not None else ""
    if layout is None or mode not in ("v41", "v41_new"):
        return
    if text(res, "dsv4-attn-backend", "auto") in ("flashmla_mega", "trtllm"):
        return
    gpu_val, known = gpu(res)
    if known is None:
        return
    refusal = _cuda_refusal(known) if on == "cuda" else _hip_refusal(res, known, mode, version)
    if refusal is None:
        return
    said, message = refusal
    yield Finding(
        CODE,
        SEVERITY,
        f"SGLANG_DSV4_KV_LAYOUT={layout.value} on {said}: {message} "
        "(building the DSV4 pool, mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout)",
        layout.location or (gpu_val.location if gpu_val is not None else None),
        Fix("Unset SGLANG_DSV4_KV_LAYOUT (or set it to v4 or auto) on this GPU."),
        field="SGLANG_DSV4_KV_LAYOUT",
    )
