"""SWA203 draft-tokens-adjusted: speculative-num-draft-tokens that SGLang rewrites.

## What it does

With top-k 1 (the only value DeepSeek-V4 accepts) SGLang resets
`speculative_num_draft_tokens` to `speculative_num_steps + 1`
(`srt/arg_groups/speculative_hook.py`). This rule reports an explicit draft-token count
that differs.

## Why it matters

The ring size of every SWA pool is `window + draft tokens - 1`. A reader of the config who
trusts `speculative-num-draft-tokens` computes the wrong geometry; SGLang only logs
`speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1`.

## Example

```yaml
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 8    # SGLang uses 4
```

## Fix

Set `speculative-num-draft-tokens` to `speculative-num-steps + 1`, or remove it.

Fix safety: safe — SGLang rewrites the value to steps + 1 anyway; the fix writes what runs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA203"
NAME = "draft-tokens-adjusted"
SEVERITY = "warning"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "speculative-num-draft-tokens differs from speculative-num-steps + 1, which SGLang enforces at top-k 1"
FIX_SAFETY = "safe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.DRAFT_TOKENS_ADJUSTED):
        assert event.arg is not None
        resolved = event.data["resolved"]
        fix = Fix(
            f"Set {event.arg.written} to {resolved} (speculative-num-steps + 1).",
            (fixes.replace(event.arg.value_loc, str(resolved)),),
        )
        message = f"{event.message} (speculative-num-steps + 1, because top-k is 1); the SWA ring uses {resolved}"
        yield finding_for_event(sys.modules[__name__], event, fix, message=message)
