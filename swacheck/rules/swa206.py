"""SWA206 online-compress-mtp: online c128 compression together with speculative decoding on CUDA.

## What it does

Reports `SGLANG_OPT_USE_ONLINE_COMPRESS=1` on a CUDA DeepSeek-V4 server that runs speculative
decoding (EAGLE/MTP or DSPARK) when the target checkpoint has c128 layers (a `128` in
`compress_ratios`) and `SGLANG_EXPERIMENTAL_ONLINE_C128_MTP` is not on. Every release swacheck
knows does this (`mem_cache/deepseek_v4_memory_pool.py` `get_compress_state_ring_size`:
0.5.23:72-74, 0.5.22:62-64, 0.5.20:48-50, 0.5.17:41-43); ROCm ignores the variable
(`ONLINE_C128 = not _is_hip and ...`). 0.5.23 asserts it a second time when it sizes the pools
(`DSV4PoolConfigurator.__init__`, `model_executor/pool_configurator.py` 0.5.23:1266-1270).
One server is enough: SWA407 covers a PD pair whose two sides set it differently.

## Why it matters

SGLang stops while building the KV pools with
`AssertionError: online c128 does not support MTP`: the online c128 state keeps one row per
request, and the speculative ring needs one per draft token.

## Example

```yaml
swacheck: 1
platform: cuda
env:
  SGLANG_OPT_USE_ONLINE_COMPRESS: "1"
server:
  model-path: models/DeepSeek-V4-Flash
  speculative-algorithm: EAGLE
  speculative-num-steps: 3
  speculative-eagle-topk: 1
```

## Fix

Unset `SGLANG_OPT_USE_ONLINE_COMPRESS` (or set it to 0), or run without speculative decoding.
`SGLANG_EXPERIMENTAL_ONLINE_C128_MTP=1` enables SGLang's experimental path instead.

Fix safety: none — no automatic fix: which of the two to give up is your choice.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA206"
NAME = "online-compress-mtp"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "SGLANG_OPT_USE_ONLINE_COMPRESS=1 with speculative decoding on CUDA (the DSV4 pool asserts)"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.ONLINE_COMPRESS_MTP):
        fix = Fix(
            "Unset SGLANG_OPT_USE_ONLINE_COMPRESS (or 0) on this server, or run it without speculative decoding."
        )
        yield finding_for_event(
            sys.modules[__name__], event, fix, field="SGLANG_OPT_USE_ONLINE_COMPRESS"
        )
