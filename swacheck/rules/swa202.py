"""SWA202 speculative-args-refused: speculative arguments SGLang's DeepSeek-V4 hook refuses.

## What it does

Checks `speculative-algorithm` and `speculative-eagle-topk` the way SGLang's DeepSeek-V4
model hook does (`srt/arg_groups/deepseek_v4_hook.py`):

- the algorithm must be `EAGLE` or `DSPARK`. The hook runs *before* the speculative hook
  maps `NEXTN` to `EAGLE`, so `NEXTN` is refused for DeepSeek-V4;
- with `EAGLE`, `speculative-eagle-topk` must be 1 *and given explicitly*: the hook asserts
  it before the speculative hook fills in its (steps 3, top-k 1, draft tokens 4) defaults.

## Why it matters

SGLang stops at argument resolution with
`AssertionError: Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM`
or `AssertionError: Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM`.
This is an error with or without PD: the server never starts.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
speculative-algorithm: NEXTN
```

## Fix

Write `speculative-algorithm: EAGLE` and `speculative-eagle-topk: 1`.
"""

from __future__ import annotations

import sys
from typing import Iterator

from .. import fixes
from ..model import Finding, Fix
from ..sglang.resolve import Resolution
from .base import Context, arg_mapping, finding_for_event

CODE = "SWA202"
NAME = "speculative-args-refused"
SEVERITY = "error"
SUMMARY = "speculative algorithm other than EAGLE/DSPARK, or EAGLE without an explicit top-k of 1, for DeepSeek-V4"

_ALGO = "Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM"
_TOPK = "Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM"


def check(res: Resolution, ctx: Context) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    mapping = arg_mapping(res)
    for event in res.events_of("algorithm-refused", "eagle-topk-missing", "eagle-topk-refused"):
        arg = event.arg
        if event.kind == "algorithm-refused":
            assert arg is not None
            edits = [fixes.replace(arg.value_loc, "EAGLE")]
            if res.deployment.server.get("speculative-eagle-topk") is None:
                if (ins := fixes.insert_after(arg.pair, mapping, "speculative-eagle-topk", 1)) is not None:
                    edits.append(ins)
            what = "NEXTN is mapped to EAGLE only after the DSV4 hook has refused it" if event.data["algorithm"] == "NEXTN" else "no DeepSeek-V4 draft pool exists for it"
            fix = Fix("Use speculative-algorithm: EAGLE (DeepSeek-V4 MTP) with speculative-eagle-topk: 1.", tuple(edits))
            message = f"{event.message}: AssertionError: {_ALGO} ({what})"
        elif event.kind == "eagle-topk-missing":
            edit = fixes.insert_after(arg.pair, mapping, "speculative-eagle-topk", 1) if arg else None
            fix = Fix("Add speculative-eagle-topk: 1.", (edit,) if edit else ())
            message = (
                f"{event.message}: AssertionError: {_TOPK} (the DSV4 hook checks top-k before the "
                "speculative hook's default of 1 is filled in)"
            )
        else:
            assert arg is not None
            fix = Fix("Set speculative-eagle-topk to 1.", (fixes.replace(arg.value_loc, "1"),))
            message = f"{event.message}: AssertionError: {_TOPK}"
        event = type(event)(event.kind, message, event.location, event.arg, event.data)
        yield finding_for_event(rule, event, fix, field="speculative-algorithm" if event.kind == "algorithm-refused" else "speculative-eagle-topk")
