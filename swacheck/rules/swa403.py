"""SWA403 pd-kv-layout: prefill and decode servers use different DSV4 KV layouts.

## What it does

Compares the KV layout each server selects: `dsv4-attn-backend` (`flashmla_mega` forces the
V4.1 layout, `trtllm` uses uniform FP8 pools), `SGLANG_DSV4_KV_LAYOUT` (default `v4`) and
`SGLANG_DSV4_COMPRESSED_KV_LAYOUT` (default `auto`), as `select_dsv4_kv_layout` in
`mem_cache/deepseek_v4_memory_pool.py` does. A side whose layout is `auto` depends on the GPU
(SM100 / gfx950): then the finding is a warning.

## Why it matters

At the first request the decode server raises `RuntimeError: KV layout mismatch: ... Both
servers must use the same --dsv4-attn-backend and SGLANG_DSV4_KV_LAYOUT.` and dies.

## Example

Prefill with `dsv4-attn-backend: flashmla_mega`, decode with the default backend.

## Fix

Give both servers the same `dsv4-attn-backend` and the same layout environment variables.

Fix safety: unsafe — it changes one server's attention backend or KV layout.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..pairing import ServerPair
from ..records import Finding
from ._pair import pair_finding
from .base import RuleContext

CODE = "SWA403"
NAME = "pd-kv-layout"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers use different DSV4 KV layouts"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    if pair.differs("kv_layout"):
        p, d = pair.prefill_values["kv_layout"].value, pair.decode_values["kv_layout"].value
        unknown = p.startswith("auto") or d.startswith("auto")
        yield pair_finding(
            rule,
            pair,
            "kv_layout",
            f"KV layout mismatch: prefill {p}, decode {d}: the decode server dies at the first request"
            + (
                " (an `auto` layout depends on the GPU: SM100 or gfx950 choose V4.1)"
                if unknown
                else ""
            ),
            "Give both servers the same dsv4-attn-backend, SGLANG_DSV4_KV_LAYOUT and SGLANG_DSV4_COMPRESSED_KV_LAYOUT.",
            severity="warning" if unknown else None,
        )
