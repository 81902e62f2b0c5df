"""SWA506 dsv4-pd-pipeline-refused: pipeline parallelism on a DeepSeek-V4 PD server in SGLang 0.5.12.

## What it does

Reports `pp-size` greater than 1 on a DeepSeek-V4 server with `disaggregation-mode: prefill` or
`decode` when the selected release is 0.5.12.

## Why it matters

SGLang 0.5.12's DeepSeek-V4 hook refuses the combination at argument resolution:
`ValueError: V4 PD disaggregation requires pp_size=1, got pp_size=2.`
(`srt/arg_groups/deepseek_v4_hook.py:54-59`: the PD transfer's `get_mla_kv_ptrs_with_pp` cannot
slice DeepSeek-V4's buffer-type-organised KV pointers by PP layer range). 0.5.13 dropped the
check; later releases refuse narrower cases (unified FP8 KV under PD with PP, SWA204; a decode
`pp-size` that is neither 1 nor the prefill's, SWA408).

## Example

```yaml
# swacheck --sglang-version 0.5.12
model-path: /models/DeepSeek-V4-Flash
disaggregation-mode: prefill
pp-size: 2
```

## Fix

Run the PD server with `pp-size: 1` (use more tensor parallelism), or a later SGLang release.

Fix safety: unsafe — it changes pipeline parallelism.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA506"
NAME = "dsv4-pd-pipeline-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = "pp-size > 1 on a DeepSeek-V4 PD server (SGLang 0.5.12 refuses it)"


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.PD_PP_REFUSED):
        arg = event.arg
        fix = Fix(
            "Run the PD server with pp-size 1 (SGLang 0.5.13 and later accept pipeline parallelism here).",
            (fixes.replace(arg.value_loc, "1"),) if arg is not None else (),
            safe=False,
        )
        yield finding_for_event(
            sys.modules[__name__],
            event,
            fix,
            message=f"ValueError: {event.message} (SGLang {res.profile.version}, deepseek_v4_hook.py)",
            field="pp-size",
        )
