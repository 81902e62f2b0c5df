"""SWA410 pd-tolerated-difference: a prefill/decode difference SGLang tolerates for DeepSeek-V4.

## What it does

Lists differences between the prefill and the decode server that SGLang tolerates for
DeepSeek-V4: the speculative draft-token count, EAGLE top-k and steps, TP and attention-DP
sizes. A DeepSeek-V4.1 DSpark pair compares its draft tokens and attention TP size at the first
request (SWA415, an error): those differences are SWA415's, not listed here.

## Why it matters

Nothing fails: the c4/c128 rings do not depend on the draft-token count, each side indexes the
unified ring over the same window, and decode maps ranks across TP/DP sizes. The note makes an
unintended difference visible before it matters (V4.1 DSpark compares the draft-token count).

## Example

Prefill with `speculative-num-steps: 3`, decode with `speculative-num-steps: 2`.

## Fix

Nothing is required; align the values if the difference is not intended.

Fix safety: unsafe — it changes one server of the pair.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ..sglang.version import release_key
from ._pair import fails_alone, pair_finding
from .base import RuleContext
from .swa415 import dspark_v41

CODE = "SWA410"
NAME = "pd-tolerated-difference"
SEVERITY = "note"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "a prefill/decode difference SGLang tolerates for DeepSeek-V4"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def _compared_by_dspark(pair: ServerPair) -> tuple[str, ...]:
    """What a DeepSeek-V4.1 DSpark pair compares (SWA415, 0.5.22 and later): the draft tokens in
    the DSpark layout, then the attention TP size (tp-size and attn-dp-size make it)."""
    p, d = pair.prefill.resolution, pair.decode.resolution
    if release_key(p.profile.version) < (0, 5, 22) or not (dspark_v41(p) or dspark_v41(d)):
        return ()
    attn = pair.prefill_values["attn_tp_size"].value != pair.decode_values["attn_tp_size"].value
    return ("speculative_num_draft_tokens", *(("tp_size", "attn_dp_size") if attn else ()))


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    compared = _compared_by_dspark(pair)
    for name in (
        "speculative_num_draft_tokens",
        "speculative_eagle_topk",
        "speculative_num_steps",
        "tp_size",
        "attn_dp_size",
    ):
        if name == "speculative_num_draft_tokens" and pair.differs("speculative_num_steps"):
            continue  # the draft-token count follows the steps: report the cause once
        if (
            name in ("tp_size", "attn_dp_size")
            and pair.prefill_values["kv_cache_sharding"].value is True
        ):
            continue  # with KV sharding the attention TP must match: SWA408's business
        if name in compared:
            continue  # a DeepSeek-V4.1 DSpark pair compares it at the first request: SWA415
        if (
            pair.differs(name)
            and pair.prefill_values[name].value is not None
            and pair.decode_values[name].value is not None
        ):
            yield pair_finding(
                rule,
                pair,
                name,
                f"{name} differs (prefill {pair.prefill_values[name].value}, decode {pair.decode_values[name].value}); "
                "SGLang tolerates this for DeepSeek-V4",
                "Nothing is required; align the values if the difference is not intended.",
                fix_value=None,
            )
