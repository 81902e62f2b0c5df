"""SWA414 pd-compress-state-dtype: SGLANG_DSV4_COMPRESS_STATE_DTYPE differs between prefill and decode.

## What it does

Compares the compress-state dtype each server's DeepSeek-V4 pool uses:
`SGLANG_DSV4_COMPRESS_STATE_DTYPE` (default `float32`; `fp32` is float32, `bf16` is bfloat16),
read by `_get_dsv4_compress_state_dtypes` (`mem_cache/kv_cache_configurator.py` 0.5.23:151-160,
0.5.22:146-155). A value SGLang refuses is reported on that server (SWA221).

## Why it matters

The c4 and c128 compress-state rows are stored in that dtype, so their item lengths halve with
bfloat16 (e.g. 131072 vs 65536 bytes for the c4 state entry). The handshake does not compare
the dtype; the state layouts differ, and what follows depends on the prefill's transfer backend
and the release, as for SWA406: with Mooncake from 0.5.22 (and NIXL from 0.5.23) the prefill
rejects the decode session when it registers ("Rejecting state transfers to decode session:
StateType.SWA item length mismatch for positional entry 43: prefill=131072 decode=65536",
`disaggregation/mooncake/conn.py` `_validate_peer_state_layout` 0.5.23:938) and every request
to that decode fails; other backends and older releases write the state by position, silently
wrong.

## Example

The decode server has `SGLANG_DSV4_COMPRESS_STATE_DTYPE=bfloat16`, the prefill the default.

## Fix

Set `SGLANG_DSV4_COMPRESS_STATE_DTYPE` the same on both servers (or on neither).

Fix safety: none — no automatic fix: the variable lives in each server's environment.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Val
from ..results import ServerPair
from ..sglang.version import release_key
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA414"
NAME = "pd-compress-state-dtype"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_DSV4_COMPRESS_STATE_DTYPE differs between the prefill and the decode server"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

NAME_OF = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16"}
ENV = "SGLANG_DSV4_COMPRESS_STATE_DTYPE"


def state_dtype(res) -> Val:  # type: ignore[no-untyped-def]
    got = res.deployment.env.get(ENV)
    if got is None:
        return Val("float32", f"SGLang default ({ENV} unset)")
    name = NAME_OF.get(str(got.value).strip().lower())
    return Val(name, f"{ENV}={got.value}", got.location)


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair) or release_key(pair.prefill.resolution.profile.version) < (0, 5, 22):
        return  # a server that fails on its own never reaches the handshake; no switch before
    if pair.prefill.resolution.target is None or pair.decode.resolution.target is None:
        return
    p, d = state_dtype(pair.prefill.resolution), state_dtype(pair.decode.resolution)
    if p.value is None or d.value is None or p.value == d.value:
        return  # a value SGLang refuses fails that server alone (SWA221)
    when, what = state_outcome(pair, False)
    yield pair_finding(
        sys.modules[__name__],
        pair,
        "compress_state_dtype",
        f"Compress-state dtypes differ (prefill {p.value}, decode {d.value}): the c4/c128 state "
        f"entries differ in item length, which the handshake does not compare; {what}",
        f"Set {ENV} the same on both servers.",
        severity=None if when == "every request" else "warning",
        values=(p, d),
        fix_value=None,
    )
