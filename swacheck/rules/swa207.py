"""SWA207 pd-pipeline-args-refused: pipeline parallelism with speculative decoding, or the
`prefill_complete` decode allocation policy with what it does not support.

## What it does

Checks two argument validations SGLang runs on one server, per release:

- `pp-size` > 1 with speculative decoding. 0.5.12-0.5.19 refuse it on every server
  (`server_args.py` 0.5.17:8723, `arg_groups/validation_hook.py` 0.5.19:54); 0.5.20 too, except
  EAGLE on an NPU PD prefill server (`validation_hook.py` 0.5.20:62-85); from 0.5.21 EAGLE runs
  with pipeline parallelism only on a PD prefill server, or with `SGLANG_ENABLE_PP_SPEC=1`
  only without PD, without `speculative-adaptive` and without attention DP
  (`check_pipeline_parallel_compat`, 0.5.23:119-166, 0.5.22:118-165); a DSPARK PD prefill server
  refuses `SGLANG_ENABLE_PP_SPEC` (0.5.23:128, 0.5.22:127). DSPARK's
  own check comes first (`speculative_hook.py`): `pp-size` 1 only (0.5.17-0.5.20), a PD
  prefill server only (0.5.21+).
- `disaggregation-decode-allocation-policy: prefill_complete` (0.5.22+) with aggregated serving,
  a transfer backend other than Mooncake, pipeline or attention context parallelism, attention
  tensor parallelism (`tp-size` > 1 without attention DP), PD role switching, HiSparse, decode
  host KV buffering or a decode radix cache (`pd_disaggregation_hook.py` `_validate_prefill_complete`,
  0.5.23:199-242, 0.5.22:205-248).

## Why it matters

The server stops during argument validation, e.g.
`AssertionError: PP + speculative decoding (MTP) is only supported on prefill nodes (disaggregation-mode=prefill)`
or
`ValueError: --disaggregation-decode-allocation-policy prefill_complete does not yet support attention tensor parallelism greater than one`.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
disaggregation-mode: decode
tp-size: 8
pp-size: 2
disaggregation-decode-allocation-policy: prefill_complete
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
```

## Fix

Run the decode server with `pp-size: 1` (more tensor parallelism instead); drop
`disaggregation-decode-allocation-policy` (the default `early` supports all of these) or
remove what it lists.

Fix safety: none — no automatic fix: both change how the server is parallelised or scheduled.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA207"
NAME = "pd-pipeline-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "pp-size > 1 with speculative decoding where the release refuses it; "
    "prefill_complete allocation with what it does not support"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of(Kind.PP_SPEC_REFUSED):
        fix = Fix(
            "Run this server with pp-size 1 (use tensor parallelism instead), or without speculative decoding."
        )
        yield finding_for_event(rule, event, fix, field="pp-size")
    for event in res.events_of(Kind.PREFILL_COMPLETE_REFUSED):
        fix = Fix(
            "Remove disaggregation-decode-allocation-policy (the default, early, "
            "supports these) or what the message lists."
        )
        yield finding_for_event(rule, event, fix, field="disaggregation-decode-allocation-policy")
