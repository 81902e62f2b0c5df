"""SWA403 pd-kv-layout: prefill and decode servers use different DSV4 KV layouts.

## What it does

Compares the KV layout each server selects: `dsv4-attn-backend` (`flashmla_mega` forces the
V4.1 layout, `trtllm` uses uniform FP8 pools), `SGLANG_DSV4_KV_LAYOUT` (default `v4`) and
`SGLANG_DSV4_COMPRESSED_KV_LAYOUT` (default `auto`), as `select_dsv4_kv_layout` in
`mem_cache/deepseek_v4_memory_pool.py` does. A side whose layout is `auto` depends on the GPU
(SM100 / gfx950): then the finding is a warning.

## Why it matters

From 0.5.23, at the first request the decode server raises `RuntimeError: KV layout mismatch:
... Both servers must use the same --dsv4-attn-backend and SGLANG_DSV4_KV_LAYOUT.`
(`try_ensure_parallel_info`, `disaggregation/common/conn.py` 0.5.23:1348-1357) and dies. Earlier
releases do not compare the layout (0.5.22's `try_ensure_parallel_info` checks only the page
size and the dtype): the KV is transferred with the prefill's layout, silently wrong. But in
0.5.22 the main layout (V4 against V4.1) also sizes each SWA state entry, which Mooncake and NIXL
compare when the decode registers (`_validate_peer_state_layout`, `mooncake/conn.py`
0.5.22:883, `nixl/conn.py` 0.5.22:1808): the prefill rejects the state transfers ("Rejecting
state transfers to decode session: StateType.SWA item length mismatch ...", 0.5.22:2933) and
every request to that decode fails.

A layout one server refuses on its own (`flashmla_mega` with a DeepSeek-V4 checkpoint, SWA502;
`trtllm` under PD, SWA205) is reported on that server, not as a pair finding.

## Example

Prefill with `SGLANG_DSV4_KV_LAYOUT=v41` (on an SM100 GPU), decode with the default `v4`.

## Fix

Give both servers the same `dsv4-attn-backend` and the same layout environment variables.

Fix safety: unsafe — it changes one server's attention backend or KV layout.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ..sglang.version import release_key
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA403"
NAME = "pd-kv-layout"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers use different DSV4 KV layouts"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    if pair.differs("kv_layout"):
        p, d = pair.prefill_values["kv_layout"].value, pair.decode_values["kv_layout"].value
        unknown = p.startswith("auto") or d.startswith("auto")
        message, severity = _said(pair, p, d, unknown)
        yield pair_finding(
            rule,
            pair,
            "kv_layout",
            message
            + (
                " (an `auto` layout depends on the GPU: SM100 or gfx950 choose V4.1)"
                if unknown
                else ""
            ),
            "Give both servers the same dsv4-attn-backend, SGLANG_DSV4_KV_LAYOUT and SGLANG_DSV4_COMPRESSED_KV_LAYOUT.",
            severity="warning" if unknown else severity,
        )


def _said(pair: ServerPair, p: str, d: str, unknown: bool) -> tuple[str, str | None]:
    """What SGLang does with the two layouts, and the severity (None: the rule's)."""
    version = pair.prefill.resolution.profile.version
    if release_key(version) >= (0, 5, 23):
        return (
            f"KV layout mismatch: prefill server has kv_layout={p}, but decode server has "
            f"kv_layout={d}: the decode server dies at the first request",
            None,
        )
    said = (
        f"KV layout differs (prefill {p}, decode {d}): SGLang {version} does not compare it "
        "(the check came in 0.5.23)"
    )
    if not unknown and p.split("/")[0] != d.split("/")[0]:
        # the main layout sizes each SWA state entry (a V4 row against a V4.1 one): the state
        # check of the prefill's backend compares those item lengths
        when, what = state_outcome(pair, False)
        return (
            f"{said}, but the SWA state entries it sizes differ in item length: {what}",
            "warning" if when == "unknown" else None,  # silently wrong stays an error
        )
    return f"{said}: the KV is transferred with the prefill's layout, silently wrong", None
