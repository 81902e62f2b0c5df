"""SWA404 pd-unified-kv: unified KV (ROCm unified_kv_triton) on one side of a PD pair only.

## What it does

Reports a PD pair where exactly one server uses unified KV (ROCm with
`SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`).

## Why it matters

SGLang does not check this at bootstrap: both sides report layout V4 and the same dtype. The
transferred state components differ (unified: SWA, SWA_RING, DSV4_REQUEST_STATE, SWA_RING for
the draft; paged: SWA, DSV4_REQUEST_STATE, SWA for the draft), so by SGLang's code the prefill
rejects the decode session ("StateType.X item length mismatch") and every request fails, or
the main KV is written with the wrong stride and accuracy drops to 0
(`disaggregation/mooncake/conn.py`, `mem_cache/deepseek_v4_memory_pool.py`).

## Example

The decode server's environment sets `SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`, the
prefill's does not.

## Fix

Set `SGLANG_HACK_FLASHMLA_BACKEND` the same on both servers.

Fix safety: unsafe — it changes one server's KV mode.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..pairing import ServerPair
from ..records import Finding
from ._pair import pair_finding
from .base import RuleContext

CODE = "SWA404"
NAME = "pd-unified-kv"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "unified KV (ROCm unified_kv_triton) on one side of a PD pair only"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    if pair.differs("unified_kv"):
        p, d = pair.prefill_values["unified_kv"].value, pair.decode_values["unified_kv"].value
        # on the decode side (the one reported): its backend variable, or where its platform/env
        # leave it unset; the prefill's variable is related
        backend = pair.decode.deployment.env.get("SGLANG_HACK_FLASHMLA_BACKEND")
        prefill_backend = pair.prefill.deployment.env.get("SGLANG_HACK_FLASHMLA_BACKEND")
        yield pair_finding(
            rule,
            pair,
            "unified_kv",
            f"unified KV on the {'prefill' if p else 'decode'} server only (prefill unified={p}, decode unified={d}): "
            "SGLang does not check this; the state components differ, so requests fail or KV is silently corrupted",
            "Set SGLANG_HACK_FLASHMLA_BACKEND the same (unified_kv_triton or unset) on both servers.",
            location=backend.location if backend is not None else None,
            prefill_location=prefill_backend.location if prefill_backend is not None else None,
        )
