"""SWA406 pd-speculative: speculative decoding on one side of a PD pair only.

## What it does

Reports a PD pair where one server runs speculative decoding and the other does not.

## Why it matters

The c4 state ring is 8 rows without speculative decoding and 16 with it, so the SWA state item
lengths differ, and the draft's state components exist on one side only
(`mem_cache/deepseek_v4_memory_pool.py` 60-79). What follows depends on the transfer backend
(`--disaggregation-transfer-backend`) and the release:

- **mooncake** (the default), 0.5.22 and later: the prefill rejects the decode session when the
  decode registers (`_validate_peer_state_layout`, `disaggregation/mooncake/conn.py` 0.5.22:911,
  0.5.23:938; "Rejecting state transfers to decode session ...: StateType.SWA item length mismatch
  for positional entry ..."): every request to that decode fails, cleanly. Before 0.5.22 Mooncake
  compares no state layout: the state is written by position with the prefill's item lengths.
- **nixl**: 0.5.23 rejects the decode's state layout at registration
  (`disaggregation/nixl/conn.py` 0.5.23:736, "NIXL state layout rejected"); older releases compare
  none.
- **mori**: the number of state components differs, so every request fails with "PD state
  transfer failed: state component count mismatch" (`disaggregation/mori/conn.py` 0.5.23:1645).
- other backends: not modelled; the finding says so.

## Example

The prefill server has `speculative-algorithm: EAGLE`, the decode server none.

## Fix

Run speculative decoding on both servers, or on neither.

Fix safety: unsafe — it changes one server's speculative decoding.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA406"
NAME = "pd-speculative"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "speculative decoding on one side of a PD pair only"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    if pair.differs("speculative"):
        p = pair.prefill_values["speculative"]
        when, outcome = state_outcome(pair, count_differs=True)
        yield pair_finding(
            rule,
            pair,
            "speculative",
            f"speculative decoding on the {'prefill' if p.value else 'decode'} server only: the SWA "
            "state item lengths differ and the draft's state exists on one side; " + outcome,
            "Use the same speculative-algorithm on both servers, or none on either.",
            severity="warning" if when == "unknown" else None,
        )
