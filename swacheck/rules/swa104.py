"""SWA104 draft-compression-ratios: the draft pool's compression ratios are not all 0.

## What it does

SGLang builds a DeepSeek-V4 NextN draft pool with one compression ratio of 0 per draft layer
(`COMPRESS_RATIO_NEXTN_LAYER = 0`, `srt/models/deepseek_v4_nextn.py`). This rule checks
`draft.geometry.compression_ratios` when a deployment file gives it (numbers copied from a
pool dump): an empty list or any non-zero entry is what SGLang refuses.

## Why it matters

Under PD disaggregation SGLang refuses to start (`setup_state_kv_args`,
`srt/disaggregation/utils.py`) with
`RuntimeError: DSV4 draft state transfer expects SWA-only NextN layers`: the draft state is
transferred as SWA-only layers.

## Example

```yaml
swacheck: 1
target: {geometry: {window: 128, ring_size: 131, pages: 33667}}
draft: {geometry: {window: 128, ring_size: 131, pages: 33667, compression_ratios: [4, 128]}}
```

## Fix

Use a NextN/MTP draft (its layers are SWA-only): drop a draft path that points at a full
DeepSeek-V4 checkpoint, and correct the copied numbers.

Fix safety: mixed — unsafe when it edits a checkpoint's `config.json`; safe when it corrects
copied `geometry.compression_ratios`.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from .base import RuleContext

CODE = "SWA104"
NAME = "draft-compression-ratios"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "draft pool compression ratios are empty or not all 0 (SWA-only NextN layers expected)"
FIX_SAFETY = "mixed"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    d = res.draft
    if d is None or d.compression_ratios is None:
        return
    ratios = d.compression_ratios.value
    if ratios and all(r == 0 for r in ratios):
        return
    loc = d.compression_ratios.location
    fix_value = "[" + ", ".join("0" for _ in ratios or [0]) + "]"
    edits = (fixes.replace(loc, fix_value),) if loc else ()
    prefix = "" if res.checked_by_sglang else "not checked without PD disaggregation: "
    yield Finding(
        CODE,
        SEVERITY if res.checked_by_sglang else "note",
        f"{prefix}{res.profile.msg_draft_ratios} (draft compression ratios {ratios})",
        loc or res.deployment.location,
        Fix(
            "A DeepSeek-V4 NextN draft has compression ratio 0 on every layer.",
            edits,
            # copied numbers are safe to correct; a checkpoint's config.json is not
            d.compression_ratios.origin.startswith("draft.geometry"),
        ),
        (),
        "compression_ratios",
    )
