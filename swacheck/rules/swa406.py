"""SWA406 pd-speculative: speculative decoding on one side of a PD pair only (every request fails).

## What it does

Reports a PD pair where one server runs speculative decoding and the other does not.

## Why it matters

The c4 state ring is 8 rows without speculative decoding and 16 with it, so the SWA state
item lengths differ: the prefill rejects the decode session ("StateType.SWA item length
mismatch for positional entry ...") and every request fails; the draft components exist on
one side only (`mem_cache/deepseek_v4_memory_pool.py` 60-79, `disaggregation/mooncake/conn.py`
`_validate_peer_state_layout`).

## Example

The prefill server has `speculative-algorithm: EAGLE`, the decode server none.

## Fix

Run speculative decoding on both servers, or on neither.

Fix safety: unsafe — it changes one server's speculative decoding.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..pairing import ServerPair
from ..records import Finding
from ._pair import pair_finding
from .base import RuleContext

CODE = "SWA406"
NAME = "pd-speculative"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "speculative decoding on one side of a PD pair only (every request fails)"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    if pair.differs("speculative"):
        p = pair.prefill_values["speculative"]
        yield pair_finding(
            rule,
            pair,
            "speculative",
            f"speculative decoding on the {'prefill' if p.value else 'decode'} server only: the SWA state item lengths "
            "differ, so the prefill rejects the decode session and every request fails",
            "Use the same speculative-algorithm on both servers, or none on either.",
        )
