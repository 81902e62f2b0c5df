"""SWA407 pd-online-compress: SGLANG_OPT_USE_ONLINE_COMPRESS on one side of a CUDA PD pair only.

## What it does

On CUDA, compares `SGLANG_OPT_USE_ONLINE_COMPRESS` between the prefill and the decode server.

## Why it matters

The c128 request state is one row with online compress and 128 rows without, so the
DSV4_REQUEST_STATE item lengths differ (`mem_cache/deepseek_v4_memory_pool.py` 50, 72-75). With
Mooncake (the default) from 0.5.22 the prefill rejects the decode session when it registers
(`disaggregation/mooncake/conn.py` `_validate_peer_state_layout`): every request to that decode
fails. NIXL does the same from 0.5.23. Older Mooncake and NIXL, and Mori (which compares only the
number of components), write the state with the prefill's item lengths: silently wrong.

Online compress together with MTP on one server is refused by that server at start-up ("online
c128 does not support MTP", SWA206): that is reported on the server, not as a pair finding.

## Example

Only the decode server's environment sets `SGLANG_OPT_USE_ONLINE_COMPRESS=1`.

## Fix

Set `SGLANG_OPT_USE_ONLINE_COMPRESS` the same on both servers.

Fix safety: unsafe — it changes one server's environment.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA407"
NAME = "pd-online-compress"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_OPT_USE_ONLINE_COMPRESS on one side of a CUDA PD pair only"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    p, d = pair.prefill_values, pair.decode_values
    cuda = p["platform"].value == "cuda" and d["platform"].value == "cuda"
    if cuda and pair.differs("online_compress"):
        when, outcome = state_outcome(pair, count_differs=False)
        yield pair_finding(
            rule,
            pair,
            "online_compress",
            f"SGLANG_OPT_USE_ONLINE_COMPRESS differs (prefill "
            f"{p['online_compress'].value}, decode {d['online_compress'].value}): "
            "the request-state item lengths differ; " + outcome,
            "Set SGLANG_OPT_USE_ONLINE_COMPRESS the same on both servers.",
            severity="warning" if when == "unknown" else None,
        )
