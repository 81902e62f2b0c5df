"""SWA103 unified-mode-mismatch: target and draft pools use different unified-KV modes.

## What it does

Compares the `unified` flag of the two pools. Both pools read one process-wide gate
(`is_unified_kv_triton()`: ROCm and `SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`), so
derived values always agree; this fires on explicit input, e.g. `unified:` values copied
from two pool dumps into a deployment file's `target.geometry` / `draft.geometry`.

## Why it matters

Under PD disaggregation SGLang refuses to start (`setup_state_kv_args`,
`srt/disaggregation/utils.py`) with
`RuntimeError: DSV4 target and draft pools must use the same unified-KV mode`, before it
compares any geometry.

## Example

```yaml
swacheck: 1
target: {geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}}
draft: {geometry: {unified: false, page_size: 256, sliding_window: 128}}
```

## Fix

Start both pools with the same gate: the target and the draft run in one process, so set
`SGLANG_HACK_FLASHMLA_BACKEND` once for the server; correct the copied numbers.

Fix safety: mixed — unsafe when it edits the environment that picks the KV backend; safe when
it corrects a copied `geometry.unified`.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix, Related
from ..sglang.resolve import Resolution
from .base import RuleContext

CODE = "SWA103"
NAME = "unified-mode-mismatch"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "target and draft pools use different unified-KV modes"
FIX_SAFETY = "mixed"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    t, d = res.target, res.draft
    if t is None or d is None or t.unified.value == d.unified.value:
        return
    moving, staying = (d, t) if ctx.align_to == "target" else (t, d)
    edits = ()
    if moving.unified.location is not None:
        edits = (
            fixes.replace(
                moving.unified.location, fixes.render_scalar(staying.unified.value, False)
            ),
        )
    message = (
        res.profile.msg_unified_mode
        + f" (target unified={t.unified.value}, draft unified={d.unified.value})"
    )
    related = (
        (Related(staying.unified.location, f"{staying.role} unified comes from here"),)
        if staying.unified.location
        else ()
    )
    yield Finding(
        CODE,
        SEVERITY if res.checked_by_sglang else "note",
        message if res.checked_by_sglang else "not checked without PD disaggregation: " + message,
        moving.unified.location or res.deployment.location,
        Fix(
            f"Make the {moving.role} pool "
            f"{'unified' if staying.unified.value else 'paged'}, like the "
            f"{staying.role} pool.",
            edits,
            # a number copied into `geometry` is safe to correct; the environment that picks the backend is not
            moving.unified.origin.startswith(("target.geometry", "draft.geometry")),
        ),
        related,
        "unified",
    )
