"""SWA211 v41-layout-gpu: `SGLANG_DSV4_KV_LAYOUT=v41` on a CUDA GPU that is not SM100/SM103.

## What it does

On CUDA, with the GPU given (`--gpu` or the deployment file's `gpu:`), reports
`SGLANG_DSV4_KV_LAYOUT` set to `v41` or `v41_new` (SGLang 0.5.22 and later) when the GPU is not
a compute capability 10.x part (B200, B300, GB200, GB300). Without a GPU it stays silent, as the
other hardware rules do. `auto` falls back to the V4 layout on other GPUs and is fine; a
`dsv4-attn-backend` of `flashmla_mega` or `trtllm` picks its own layout (SWA502, SWA205).

## Why it matters

Building the DeepSeek-V4 KV pool, `select_dsv4_kv_layout` (`mem_cache/deepseek_v4_memory_pool.py`
0.5.23:233, 0.5.22:197) asserts `AssertionError: the V4.1 KV cache layouts need an SM100 / SM103
GPU`, and the server stops at start-up, after loading the weights.

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

from ..records import Finding, Fix
from ..sglang.pd import release
from ..sglang.resolve import Resolution
from ._preflight import gpu, is_dsv4, platform, text
from .base import RuleContext

CODE = "SWA211"
NAME = "v41-layout-gpu"
SEVERITY = "error"
SUMMARY = "SGLANG_DSV4_KV_LAYOUT=v41 on a CUDA GPU that is not SM100/SM103"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

MESSAGE = "AssertionError: the V4.1 KV cache layouts need an SM100 / SM103 GPU"


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) != "cuda":
        return
    if release(res.profile.version) < (0, 5, 22):
        return
    layout = res.deployment.env.get("SGLANG_DSV4_KV_LAYOUT")
    if layout is None or str(layout.value).strip().lower() not in ("v41", "v41_new"):
        return
    if text(res, "dsv4-attn-backend", "auto") in ("flashmla_mega", "trtllm"):
        return
    gpu_val, known = gpu(res)
    if known is None or known.sm is None or known.sm // 10 == 10:
        return
    yield Finding(
        CODE,
        SEVERITY,
        f"SGLANG_DSV4_KV_LAYOUT={layout.value} on {known.name} (SM{known.sm}): {MESSAGE} "
        "(building the DSV4 pool, mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout)",
        layout.location or (gpu_val.location if gpu_val is not None else None),
        Fix("Unset SGLANG_DSV4_KV_LAYOUT (or set it to v4 or auto) on this GPU."),
        field="SGLANG_DSV4_KV_LAYOUT",
    )
