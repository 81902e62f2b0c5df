"""SWA213 v41-feature-refused: a DeepSeek-V4.1 target with a feature SGLang does not run it with.

## What it does

Reports a DeepSeek-V4.1 target (`model_type` `deepseek_v41`, read as SGLang normalises it) with
speculative decoding other than DSPARK (EAGLE, NEXTN, MTP), `enable-hisparse`, the unified KV
layout (ROCm `SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`), `enable-two-batch-overlap` or
`pp-size` above 1. The model hook's `validate_deepseek_v41_features`
(`arg_groups/deepseek_v4_hook.py` 0.5.23:331-352, 0.5.22:258-284, 0.5.21:214-232, called from
`arg_groups/model_hook.py`) raises for each; SGLang 0.5.20 and earlier cannot load DeepSeek-V4.1
at all (SWA208).

## Why it matters

The server stops during argument resolution with `ValueError: DeepSeek-V4.1 does not support
speculative decoding other than DSpark yet; disable it to serve this model.` (or the feature
named). A DeepSeek-V4 launch pointed at a V4.1 checkpoint keeps its EAGLE flags and stops here.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4.1-Flash
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
```

## Fix

Run `speculative-algorithm: DSPARK` (V4.1 bundles its DSpark draft), or leave the feature off.

Fix safety: none — no automatic fix: which speculative setup to run is a choice.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA213"
NAME = "v41-feature-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "a DeepSeek-V4.1 target with EAGLE/NEXTN, HiSparse, unified KV, two-batch overlap or pp > 1"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

FIXES = {
    "speculative decoding other than DSpark": "Run speculative-algorithm DSPARK (DeepSeek-V4.1 "
    "bundles its DSpark draft), or no speculative decoding.",
    "the unified KV layout": "Leave SGLANG_HACK_FLASHMLA_BACKEND unset (not unified_kv_triton) "
    "for DeepSeek-V4.1.",
}


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.V41_FEATURE_REFUSED):
        feature = event.data["feature"]
        fix = Fix(FIXES.get(feature, f"Turn off {feature} for DeepSeek-V4.1."))
        yield finding_for_event(sys.modules[__name__], event, fix)
