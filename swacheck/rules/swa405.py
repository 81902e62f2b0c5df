"""SWA405 pd-unified-fp8: SGLANG_DSV4_UNIFIED_KV_FP8 on one side of a unified-KV PD pair (requests hang).

## What it does

When both servers use unified KV, compares `SGLANG_DSV4_UNIFIED_KV_FP8`.

## Why it matters

The pre-check only logs; the first KV send raises `ValueError: PD peers disagree on the
compressed-MLA KV layout: ... SGLANG_DSV4_UNIFIED_KV_FP8 must be set the same on both sides.`
inside the Mooncake transfer worker, which dies: requests then hang until the decode's
300-second timeout (`disaggregation/common/conn.py` `_mla_slice_ptrs_for_pp`). The fp8 layout
needs an AMD gfx95 GPU, which swacheck cannot see: it assumes one.

## Example

Both servers unified; only the decode server sets `SGLANG_DSV4_UNIFIED_KV_FP8=1`.

## Fix

Set `SGLANG_DSV4_UNIFIED_KV_FP8` the same on both servers.

Fix safety: unsafe — it changes one server's environment.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..pairing import ServerPair
from ..records import Finding
from ._pair import pair_finding
from .base import RuleContext

CODE = "SWA405"
NAME = "pd-unified-fp8"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_DSV4_UNIFIED_KV_FP8 on one side of a unified-KV PD pair (requests hang)"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    p, d = pair.prefill_values, pair.decode_values
    if p["unified_kv"].value and d["unified_kv"].value and pair.differs("unified_kv_fp8"):
        yield pair_finding(
            rule,
            pair,
            "unified_kv_fp8",
            f"SGLANG_DSV4_UNIFIED_KV_FP8 differs (prefill {p['unified_kv_fp8'].value}, "
            f"decode {d['unified_kv_fp8'].value}): "
            "the transfer worker dies on the first KV send and requests hang until the 300 s timeout",
            "Set SGLANG_DSV4_UNIFIED_KV_FP8 the same on both servers.",
        )
