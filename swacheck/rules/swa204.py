"""SWA204 unified-fp8-with-pd: unified-KV fp8 under PD disaggregation.

## What it does

Reports `SGLANG_DSV4_UNIFIED_KV_FP8=1` in the server environment of a unified-KV deployment
(ROCm, `SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`) that runs with
`disaggregation-mode: prefill|decode`.

## Why it matters

Registering the target pool for PD transfer calls `get_unified_swa_ring_buf_infos()`, which
raises `NotImplementedError` for the fp8 unified layout
(`srt/mem_cache/deepseek_v4_memory_pool.py`), before any target/draft check runs.

## Example

```yaml
swacheck: 1
platform: rocm
env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton, SGLANG_DSV4_UNIFIED_KV_FP8: "1"}
server: {model-path: models/DeepSeek-V4-Flash, disaggregation-mode: decode}
```

## Fix

Unset `SGLANG_DSV4_UNIFIED_KV_FP8` for PD servers.
"""

from __future__ import annotations

import sys
from typing import Iterator

from .. import fixes
from ..model import Finding, Fix
from ..sglang.resolve import Resolution
from .base import Context

CODE = "SWA204"
NAME = "unified-fp8-with-pd"
SEVERITY = "error"
SUMMARY = "SGLANG_DSV4_UNIFIED_KV_FP8 with unified KV under PD disaggregation (NotImplementedError)"


def check(res: Resolution, ctx: Context) -> Iterator[Finding]:
    for event in res.events_of("unified-fp8-pd"):
        loc = event.location
        edits = (fixes.replace(loc, '"0"'),) if loc else ()
        yield Finding(
            CODE,
            SEVERITY,
            f"{event.message}: SGLANG_DSV4_UNIFIED_KV_FP8=1 makes get_unified_swa_ring_buf_infos() "
            "raise NotImplementedError when the pool is registered for transfer",
            loc or res.deployment.location,
            Fix("Set SGLANG_DSV4_UNIFIED_KV_FP8 to 0 (or remove it) on PD servers.", edits),
            (),
            "SGLANG_DSV4_UNIFIED_KV_FP8",
        )
