"""SWA201 page-size-replaced: an explicit page-size that SGLang replaces for DeepSeek-V4.

## What it does

Reports a `page-size` other than 256 (128 on NPU) for a DeepSeek-V4 target.

## Why it matters

SGLang's DeepSeek-V4 model override declares `page_size = 256` (128 on NPU) and appends it
after the user's arguments, so the last writer wins and the configured value is silently
replaced (`srt/arg_groups/model_overrides/deepseek_v4.py`, `srt/arg_groups/model_hook.py`).
The config file then says something the server does not do.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
page-size: 64
```

## Fix

Remove `page-size` (or set it to 256; 128 on NPU).

Fix safety: safe — SGLang uses 256 (128 on NPU) whatever is written, so removing the key changes
nothing that runs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, arg_mapping, finding_for_event

CODE = "SWA201"
NAME = "page-size-replaced"
SEVERITY = "warning"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "explicit page-size other than 256 (128 on NPU), which SGLang replaces for DeepSeek-V4"
FIX_SAFETY = "safe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.PAGE_SIZE_REPLACED):
        assert event.arg is not None
        forced = event.data["forced"]
        edit = fixes.delete_line_of(event.arg.pair, arg_mapping(res))
        if edit is not None:
            fix = Fix(
                f"Remove {event.arg.written}: SGLang uses {forced} for DeepSeek-V4 whatever is configured.",
                (edit,),
            )
        else:  # a flow mapping: change the value rather than cut the entry out
            fix = Fix(
                f"Set {event.arg.written} to {forced}: SGLang uses it for DeepSeek-V4 whatever is configured.",
                (fixes.replace(event.arg.value_loc, str(forced)),),
            )
        message = f"{event.message} for DeepSeek-V4: SGLang's DSV4 override sets page_size={forced}"
        yield finding_for_event(sys.modules[__name__], event, fix, message=message)
