"""SWA302 impossible-geometry: explicit geometry that no SGLang pool can have.

## What it does

Checks the numbers a deployment file gives under `target.geometry` / `draft.geometry`
(copied from a log or a pool dump) against SGLang's own formulas:

- `ring_size` is never smaller than `window` (ring = window + draft tokens - 1);
- `pages` is a whole multiple of `ring_size` (pages = request slots x ring size).

## Why it matters

Numbers that break these relations cannot come from a real pool: they were copied wrongly or
belong to different pools, and any verdict built on them is wrong.

## Example

```yaml
swacheck: 1
target: {geometry: {window: 128, ring_size: 131, pages: 33668}}   # 33668 = 257 x 131 + 1
```

## Fix

Copy the tuple again from SGLang's error message or pool dump.

Fix safety: none — no automatic fix; the numbers must be copied again from SGLang's output.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from .base import RuleContext

CODE = "SWA302"
NAME = "impossible-geometry"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "explicit geometry inconsistent with itself (ring_size < window, pages not a multiple of ring_size)"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    dep = res.deployment
    for role, geometry in (("target", dep.target_geometry), ("draft", dep.draft_geometry)):
        window, ring, pages = (
            geometry.get("window"),
            geometry.get("ring_size"),
            geometry.get("pages"),
        )
        if ring is not None and window is not None and ring.value < window.value:
            yield Finding(
                CODE,
                SEVERITY,
                f"{role}.geometry ring_size {ring.value} is smaller than window {window.value}: "
                "SGLang's ring is window + draft tokens - 1",
                ring.location,
                Fix(
                    f"Copy {role}.geometry again from SGLang's output; ring_size is at least the window."
                ),
                (),
                f"{role}.ring_size",
            )
        if ring is not None and pages is not None and pages.value % ring.value:
            yield Finding(
                CODE,
                SEVERITY,
                f"{role}.geometry pages {pages.value} is not a multiple of ring_size {ring.value} "
                f"({pages.value} / {ring.value} = {pages.value / ring.value:.2f}): "
                f"SGLang's pages are request slots x ring size",
                pages.location,
                Fix(f"Copy {role}.geometry again from SGLang's output."),
                (),
                f"{role}.pages",
            )
