"""SWA415 pd-dspark-layout: a DeepSeek-V4.1 DSpark PD pair whose DSpark layouts or TP sizes differ.

## What it does

For a DeepSeek-V4.1 checkpoint (compress ratio 2 among its `compress_ratios`) served with
`speculative-algorithm: DSPARK`, each server publishes a DSpark layout
(`get_dsv41_spec_layout`, `disaggregation/utils.py` 0.5.23:1894-1914, 0.5.22:1816): the draft
tokens, the compression ratios, the KV layer ids and item lengths, the state types and item
lengths. At the first request the decode server compares it with the prefill's and then the
attention TP sizes (`try_ensure_parallel_info`, `disaggregation/common/conn.py`
0.5.23:1359-1389, 0.5.22:1201-1231). swacheck compares what those lengths are made of: DSpark
on each side, the draft tokens, the checkpoint, the KV layout and dtype, the compress-state
dtype and online compress, and `tp-size` / `attn-dp-size`.

## Why it matters

The decode server raises at the first request and dies: `RuntimeError: DeepSeek-V4.1 DSpark PD
layout mismatch (...): both servers must enable DSpark with the same block size and target/draft
KV layout. Upgrade both servers together.` or `RuntimeError: DeepSeek-V4.1 DSpark PD requires
the same TP size on both servers (including prefill CP ranks for MLA)`.

## Example

Both servers serve DeepSeek-V4.1 with DSPARK; the decode runs `tp-size: 4`, the prefill 8.

## Fix

Run DSpark on both servers with the same checkpoint, block size and KV settings, and the same
attention TP size.

Fix safety: none — no automatic fix: it changes how one server is parallelised or drafts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Val
from ..results import ServerPair
from ..sglang.pd import compared_values, env_flag
from ..sglang.version import release_key
from ._pair import fails_alone, pair_finding, root_location
from .base import RuleContext
from .swa414 import state_dtype

CODE = "SWA415"
NAME = "pd-dspark-layout"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "a DeepSeek-V4.1 DSpark PD pair whose DSpark layouts or attention TP sizes differ"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def dspark_v41(res) -> bool:  # type: ignore[no-untyped-def]
    """A DeepSeek-V4.1 checkpoint served with DSPARK: its server publishes a DSpark layout."""
    model = res.target.model if res.target is not None else None
    ratios = model.get("compress_ratios") if model is not None else None
    algo = res.values.get("speculative_algorithm")
    return (
        ratios is not None
        and isinstance(ratios.value, list)
        and 2 in ratios.value
        and algo is not None
        and str(algo.value).upper() == "DSPARK"
    )


def _layout(res) -> dict:  # type: ignore[no-untyped-def]
    """What the DSpark layout's fields are made of, by the field SGLang names."""
    if not dspark_v41(res):
        return {}
    model = res.target.model
    tokens = res.values.get("speculative_num_draft_tokens")
    values = compared_values(res)
    state = (state_dtype(res).value, env_flag(res, "SGLANG_OPT_USE_ONLINE_COMPRESS").value)
    return {
        "num_draft_tokens": tokens.value if tokens is not None else None,
        "compression_ratios": model.get("compress_ratios").value,
        "kv_item_lens": (values["kv_layout"].value, values["kv_cache_dtype"].value),
        "kv_layer_ids": model.get("num_hidden_layers").value
        if model.get("num_hidden_layers")
        else None,
        "state_item_lens": state,
    }


def _source(res, field: str) -> Val | None:  # type: ignore[no-untyped-def]
    """Where a DSpark layout field of ``res`` comes from (what the finding points at)."""
    model = res.target.model
    if field == "num_draft_tokens":
        return res.values.get("speculative_num_draft_tokens")
    if field == "compression_ratios":
        return model.get("compress_ratios")
    if field == "kv_layer_ids":
        return model.get("num_hidden_layers")
    if field == "kv_item_lens":
        values = compared_values(res)
        return values["kv_layout"] if values["kv_layout"].location else values["kv_cache_dtype"]
    return state_dtype(res)


def _places(pair: ServerPair, fields: list[str], both: bool) -> tuple:  # type: ignore[type-arg]
    """(decode, prefill) places of the first field that differs; with DSpark on one side, each
    side's speculative algorithm."""
    sides = (pair.decode.resolution, pair.prefill.resolution)
    vals = (
        [_source(res, fields[0]) for res in sides]
        if both
        else [res.values.get("speculative_algorithm") for res in sides]
    )
    return tuple(root_location(v) if v is not None else None for v in vals)


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair) or release_key(pair.prefill.resolution.profile.version) < (0, 5, 22):
        return
    p_res, d_res = pair.prefill.resolution, pair.decode.resolution
    p, d = _layout(p_res), _layout(d_res)
    if not p and not d:
        return
    rule = sys.modules[__name__]
    if p != d:
        fields = sorted(k for k in p.keys() | d.keys() if p.get(k) != d.get(k))
        at, prefill_at = _places(pair, fields, bool(p and d))
        if not p or not d:
            fields = ["DSpark on one server only: " + ", ".join(sorted(p.keys() | d.keys()))]
        yield pair_finding(
            rule,
            pair,
            "dspark_layout",
            f"DeepSeek-V4.1 DSpark PD layout mismatch ({', '.join(fields)}): both servers must "
            "enable DSpark with the same block size and target/draft KV layout; the decode "
            "server dies at the first request",
            "Run DSpark on both servers with the same checkpoint and KV settings.",
            values=(
                Val(bool(p), "DSpark layout published" if p else "no DSpark layout"),
                Val(bool(d), "DSpark layout published" if d else "no DSpark layout"),
            ),
            fix_value=None,
            location=at,
            prefill_location=prefill_at,
        )
        return
    pv, dv = pair.prefill_values["attn_tp_size"], pair.decode_values["attn_tp_size"]
    if pv.value != dv.value:
        yield pair_finding(
            rule,
            pair,
            "attn_tp_size",
            "DeepSeek-V4.1 DSpark PD requires the same TP size on both servers (including "
            f"prefill CP ranks for MLA): attention TP prefill {pv.value}, decode {dv.value}; the "
            "decode server dies at the first request",
            "Give both servers the same tp-size / attn-dp-size.",
            fix_value=None,
        )
