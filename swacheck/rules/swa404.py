"""SWA404 pd-unified-kv: unified KV (ROCm unified_kv_triton) on one side of a PD pair only.

## What it does

Reports a PD pair where exactly one server uses unified KV (ROCm with
`SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`).

## Why it matters

SGLang compares neither the unified mode nor anything that reveals it at bootstrap: both sides
report layout V4 and the same dtype. The transferred state components differ (unified: SWA,
SWA_RING, DSV4_REQUEST_STATE, SWA_RING for the draft; paged: SWA, DSV4_REQUEST_STATE, SWA for
the draft; `disaggregation/utils.py` `setup_state_kv_args`), and so do their item lengths. What
follows depends on the transfer backend and the release:

- **mooncake** (the default), 0.5.22 and later: the prefill rejects the decode session when the
  decode registers (`_validate_peer_state_layout`, `disaggregation/mooncake/conn.py` 0.5.23:938;
  SWA entry 0 differs): every request to that decode fails. Before 0.5.22: no state check, the
  state is written with the prefill's item lengths (accuracy drops to 0).
- **nixl**: 0.5.23 rejects the layout at registration ("NIXL state layout rejected",
  `disaggregation/nixl/conn.py` 0.5.23:736); older releases compare none.
- **mori**: the component counts differ: every request fails with "state component count
  mismatch" (`disaggregation/mori/conn.py` 0.5.23:1645).

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

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA404"
NAME = "pd-unified-kv"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "unified KV (ROCm unified_kv_triton) on one side of a PD pair only"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    if pair.differs("unified_kv"):
        p, d = pair.prefill_values["unified_kv"].value, pair.decode_values["unified_kv"].value
        # on the decode side (the one reported): its backend variable, or where its platform/env
        # leave it unset; the prefill's variable is related
        backend = pair.decode.deployment.env.get("SGLANG_HACK_FLASHMLA_BACKEND")
        prefill_backend = pair.prefill.deployment.env.get("SGLANG_HACK_FLASHMLA_BACKEND")
        when, outcome = state_outcome(pair, count_differs=True)
        yield pair_finding(
            rule,
            pair,
            "unified_kv",
            f"unified KV on the {'prefill' if p else 'decode'} server only (prefill unified={p}, "
            f"decode unified={d}): the handshake does not compare it; the state components differ; "
            + outcome,
            "Set SGLANG_HACK_FLASHMLA_BACKEND the same (unified_kv_triton or unset) on both servers.",
            location=backend.location if backend is not None else None,
            prefill_location=prefill_backend.location if prefill_backend is not None else None,
            severity="warning" if when == "unknown" else None,
        )
