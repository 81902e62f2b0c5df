"""SWA405 pd-unified-fp8: SGLANG_DSV4_UNIFIED_KV_FP8 on one side of a unified-KV PD pair.

## What it does

When both servers use unified KV (ROCm `unified_kv_triton`) and the release lets a PD server run
`SGLANG_DSV4_UNIFIED_KV_FP8` (0.5.22 and later), compares the switch between the two servers.

## Why it matters

The FP8 switch changes the item length of the unified SWA ring (one row of 512 bytes instead of
1024), so the two servers' state layouts differ. What follows depends on the transfer backend
(`--disaggregation-transfer-backend`) and the release:

- **mooncake** (the default), 0.5.22 and later: the prefill rejects the decode session when the
  decode registers (`_validate_peer_state_layout`, `disaggregation/mooncake/conn.py` 0.5.23:938;
  it logs "Rejecting state transfers to decode session ...", 0.5.23:3005): every request to that
  decode fails, cleanly, at once. No hang.
- **nixl**, 0.5.23: the prefill rejects the decode's state layout at registration
  (`disaggregation/nixl/conn.py` 0.5.23:736) and every transfer raises "NIXL state layout
  rejected". 0.5.22's NIXL compares no state layout: the state is silently wrong.
- **mori**: only the number of state components is compared (the same on both sides here): the
  state is silently wrong.

In 0.5.20 and 0.5.21 a PD server refuses `SGLANG_DSV4_UNIFIED_KV_FP8=1` at start-up on its own
(`pool_configurator.py`, reported by SWA204 on that server); before 0.5.20 the switch does not
exist. Neither is a pair finding. The FP8 layout needs an AMD gfx95 GPU, which swacheck cannot
see: it assumes one.

## Example

Both servers unified; only the decode server sets `SGLANG_DSV4_UNIFIED_KV_FP8=1`.

## Fix

Set `SGLANG_DSV4_UNIFIED_KV_FP8` the same on both servers.

Fix safety: unsafe — it changes one server's environment.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA405"
NAME = "pd-unified-fp8"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_DSV4_UNIFIED_KV_FP8 on one side of a unified-KV PD pair"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    p, d = pair.prefill_values, pair.decode_values
    if pair.prefill.resolution.profile.fp8_pd != "pp-hisparse":
        return  # absent (< 0.5.20), or refused on any PD server at start-up (SWA204)
    if p["unified_kv"].value and d["unified_kv"].value and pair.differs("unified_kv_fp8"):
        when, outcome = state_outcome(pair, count_differs=False)
        yield pair_finding(
            rule,
            pair,
            "unified_kv_fp8",
            f"SGLANG_DSV4_UNIFIED_KV_FP8 differs (prefill {p['unified_kv_fp8'].value}, "
            f"decode {d['unified_kv_fp8'].value}): the unified SWA ring's item length differs; "
            + outcome,
            "Set SGLANG_DSV4_UNIFIED_KV_FP8 the same on both servers.",
            severity="warning" if when == "unknown" else None,
        )
