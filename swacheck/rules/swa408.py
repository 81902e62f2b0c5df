"""SWA408 pd-parallelism: decode context/pipeline parallelism or KV sharding the PD handshake refuses.

## What it does

Checks the rank-mapping assertions of the PD handshake
(`disaggregation/common/conn.py` 1432-1529): the decode server's attention CP size must be 1;
its PP size must be 1 or the prefill's; a prefill with `enable-kv-cache-sharding` needs the
same attention TP size (tp-size / attn-dp-size) on both servers (that assertion came in 0.5.23,
`disaggregation/common/conn.py` 0.5.23:1445; the CP and PP ones are in every supported release,
0.5.17:606-630).

A DeepSeek-V4 prefill server refuses KV sharding on its own in 0.5.22-0.5.23 (SWA246: the
KV-sharding hook, else the pool configurator), so for it the sharding check speaks only with SWA246
ignored.

Pipeline parallelism with speculative decoding on a decode server is refused by that server at
start-up ("PP + speculative decoding (MTP) is only supported on prefill nodes", SWA207): that is
reported on the server, not as a pair finding.

## Why it matters

The assertion fires in the decode scheduler at the first request, and the decode server dies:
`AssertionError: Decode cp size (2) should be equal to 1`,
`Decode pp size (2) should be equal to prefill pp size (4) or 1`.

## Example

```yaml
# decode.yaml
attn-cp-size: 2
```

## Fix

Run the decode server with `attn-cp-size: 1` and a `pp-size` of 1 or the prefill's.

Fix safety: unsafe — it changes one server's parallelism.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ..sglang.version import release_key
from ._pair import fails_alone, pair_finding
from .base import RuleContext

CODE = "SWA408"
NAME = "pd-parallelism"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "decode context/pipeline parallelism or KV sharding the PD handshake refuses"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    p, d = pair.prefill_values, pair.decode_values
    if d["attn_cp_size"].value != 1:
        yield pair_finding(
            rule,
            pair,
            "attn_cp_size",
            f"Decode cp size ({d['attn_cp_size'].value}) should be equal to 1: the "
            f"decode server dies at the first request",
            "Run the decode server with attn-cp-size 1.",
            fix_value=1,
        )
    if d["pp_size"].value not in (1, p["pp_size"].value):
        yield pair_finding(
            rule,
            pair,
            "pp_size",
            f"Decode pp size ({d['pp_size'].value}) should be equal to prefill pp size ({p['pp_size'].value}) or 1: "
            "the decode server dies at the first request",
            "Run the decode server with pp-size 1 or the prefill's pp-size.",
        )
    sharding_checked = release_key(pair.prefill.resolution.profile.version) >= (0, 5, 23)
    if sharding_checked and p["kv_cache_sharding"].value is True and pair.differs("attn_tp_size"):
        yield pair_finding(
            rule,
            pair,
            "attn_tp_size",
            f"MLA KV cache sharding requires equal prefill/decode attn TP sizes (prefill {p['attn_tp_size'].value}, "
            f"decode {d['attn_tp_size'].value}; attention TP = tp-size / "
            f"attn-dp-size): the decode server dies at the first request",
            "Give both servers the same attention TP (tp-size / attn-dp-size), or "
            "drop enable-kv-cache-sharding on the prefill.",
            fix_value=None,
        )
