"""SWA243 compress-ring-overflow: more draft tokens than the DSV4 compress-state rings hold.

## What it does

A speculative DeepSeek-V4 server keeps, per request, compress-state rings of 16 rows for its
ratio-4 layers and 256 for its ratio-128 layers (`get_compress_state_ring_size`,
`mem_cache/deepseek_v4_memory_pool.py` 0.5.23:60-79, 0.5.22:50-69); a ring serves at most
`ring - window + 2` draft tokens (`get_compress_state_write_pad`: 10 for c4, 130 for c128).
`DSV4PoolConfigurator.__init__` asserts that the largest draft-token count fits
(`_assert_ring_serves_draft_tokens`, `model_executor/pool_configurator.py` 0.5.23:1291-1308,
0.5.22:1252-1269): the draft tokens (EAGLE: steps + 1; DSPARK: gamma + 1), or with
`speculative-adaptive` the largest candidate steps + 1 of the adaptive config (SWA242). The
c128 ring is not checked under `SGLANG_OPT_USE_ONLINE_COMPRESS`. SGLang 0.5.22 and 0.5.23.

## Why it matters

The server stops while it sizes the KV pool, after loading the weights: `AssertionError:
speculative_num_draft_tokens=11 exceeds what the c4 compress state ring can keep resident
(ring_size=16 serves at most 10 draft tokens).`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: EAGLE
speculative-eagle-topk: 1
speculative-num-steps: 10
```

## Fix

At most 9 steps (10 draft tokens) with ratio-4 layers: lower `speculative-num-steps`, DSPARK's
block size, or the largest adaptive candidate.

Fix safety: none — no automatic fix: it changes how far the draft runs ahead.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from ._preflight import arg, where
from .base import RuleContext, finding_for_event

CODE = "SWA243"
NAME = "compress-ring-overflow"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "more speculative draft tokens (the largest adaptive tier) than a DSV4 compress-state ring serves"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of(Kind.RING_OVERFLOW):
        f = finding_for_event(
            rule,
            event,
            Fix(f"Use at most {event.data['serves']} draft tokens (steps + 1, gamma + 1)."),
            field="speculative-num-steps",
        )
        if f.location is None:
            name = next(
                (
                    n
                    for n in (
                        "speculative-num-steps",
                        "speculative-dspark-block-size",
                        "speculative-adaptive-config",
                        "speculative-algorithm",
                    )
                    if arg(res, n) is not None
                ),
                None,
            )
            f = Finding(
                f.code,
                f.severity,
                f.message,
                where(res, arg(res, name) if name else None),
                f.fix,
                f.related,
                f.field,
            )
        yield f
