"""SWA402 pd-kv-cache-dtype: prefill and decode servers resolve different KV cache dtypes.

## What it does

Compares the KV cache dtype each server resolves (`auto` becomes `fp8_e4m3`, `bfloat16` on
NPU, for DeepSeek-V4). SGLang compares the strings even when both servers use unified KV,
whose pool ignores the flag: then equal bytes are still rejected.

## Why it matters

At the first request the decode server raises `RuntimeError: KV cache dtype mismatch: ...
Both servers must use the same --kv-cache-dtype value.` and dies
(`disaggregation/common/conn.py` `try_ensure_parallel_info`).

## Example

```yaml
# prefill.yaml                 # decode.yaml
kv-cache-dtype: bfloat16       kv-cache-dtype: auto      # -> fp8_e4m3
```

## Fix

Give both servers the same `kv-cache-dtype`.

Fix safety: unsafe — it changes one server's KV cache dtype.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding
from .base import RuleContext

CODE = "SWA402"
NAME = "pd-kv-cache-dtype"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers resolve different KV cache dtypes"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    p, d = pair.prefill_values, pair.decode_values
    if pair.differs("kv_cache_dtype"):
        yield pair_finding(
            rule,
            pair,
            "kv_cache_dtype",
            f"KV cache dtype mismatch: prefill {p['kv_cache_dtype'].value}, decode {d['kv_cache_dtype'].value}: "
            "the decode server dies at the first request"
            + (
                " (the unified pools ignore the flag, but SGLang compares the strings)"
                if p["unified_kv"].value and d["unified_kv"].value
                else ""
            ),
            "Give both servers the same kv-cache-dtype.",
        )
