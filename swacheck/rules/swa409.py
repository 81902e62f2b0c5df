"""SWA409 pd-metadata-buffers: PD metadata-buffer switches differ (checksum, sampling mask).

## What it does

Compares the switches that add PD metadata buffers: `disaggregation-enable-kv-checksum` and
`SGLANG_ENABLE_DISAGG_SAMPLING_MASK`.

## Why it matters

SGLang only logs "Decode ... registered N metadata buffers but this prefill has M; only the
first M are transferred, and misaligned if the extra buffer is not the last"
(`disaggregation/common/conn.py` `check_peer_aux_buffer_count`): the extra metadata is
silently misaligned.

## Example

Only the decode server has `disaggregation-enable-kv-checksum: true`.

## Fix

Set both switches the same on both servers.

Fix safety: unsafe — it changes one server's metadata switches.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding
from .base import RuleContext

CODE = "SWA409"
NAME = "pd-metadata-buffers"
SEVERITY = "warning"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "PD metadata-buffer switches differ (checksum, sampling mask)"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    for name, what in (
        ("kv_checksum", "disaggregation-enable-kv-checksum"),
        ("sampling_mask", "SGLANG_ENABLE_DISAGG_SAMPLING_MASK"),
    ):
        if pair.differs(name):
            yield pair_finding(
                rule,
                pair,
                name,
                f"{what} differs (prefill {pair.prefill_values[name].value}, decode {pair.decode_values[name].value}): "
                "the metadata buffers are counted differently and silently misaligned",
                f"Set {what} the same on both servers.",
            )
