"""SWA212 dspark-gamma-refused: DSPARK draft tokens other than gamma + 1, or a block size below 1.

## What it does

For `speculative-algorithm: DSPARK`, works out gamma the way SGLang's speculative hook does
(`_handle_dspark` in `arg_groups/speculative_hook.py`): `speculative-dspark-block-size` if
given, else the draft checkpoint's `dspark_block_size` (or `block_size`), else SGLang's default
7 when no draft-token count is given. Reports `speculative-num-draft-tokens` that is not
gamma + 1, and a block size of 0 or less.

## Why it matters

SGLang stops during argument resolution, on every server with this launch, PD or not:
`ValueError: DSpark speculative_num_draft_tokens must equal gamma + 1 (= 8 for gamma=7), but got
speculative_num_draft_tokens=4.` or `ValueError: DSpark requires
--speculative-dspark-block-size to be positive, got 0.` (0.5.23:806-833, 0.5.22:732-759,
0.5.20:643-670, 0.5.17:344-382; the same checks in every release with DSPARK). The draft tokens
of an EAGLE launch copied to a DSPARK one are the usual cause.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: DSPARK
speculative-draft-model-path: models/dspark-draft   # its config.json: dspark_block_size 7
speculative-num-draft-tokens: 4
```

## Fix

Remove `speculative-num-draft-tokens` (SGLang sets gamma + 1 itself), or write gamma + 1.

Fix safety: safe — SGLang would run with exactly gamma + 1 draft tokens, the only value it
accepts; a block size below 1 has no automatic fix.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA212"
NAME = "dspark-gamma-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "DSPARK speculative-num-draft-tokens other than gamma + 1, or a block size below 1"
FIX_SAFETY = "safe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of(Kind.DSPARK_GAMMA_REFUSED):
        where = "(argument resolution, arg_groups/speculative_hook.py _handle_dspark)"
        gamma = event.data.get("gamma")
        if gamma is None:  # the block size itself
            fix = Fix("Set speculative-dspark-block-size to the draft's gamma (1 or more).")
            yield finding_for_event(
                rule,
                event,
                fix,
                message=f"ValueError: {event.message} {where}",
                field="speculative-dspark-block-size",
            )
            continue
        want = gamma.value + 1
        arg = event.arg
        edits = (fixes.replace(arg.value_loc, str(want)),) if arg is not None else ()
        fix = Fix(
            f"Set speculative-num-draft-tokens to {want} (gamma {gamma.value} + 1), or remove it: "
            "SGLang sets gamma + 1 itself.",
            edits,
        )
        yield finding_for_event(
            rule,
            event,
            fix,
            message=f"ValueError: {event.message} {where}",
            field="speculative-num-draft-tokens",
        )
