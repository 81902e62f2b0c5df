"""SWA102 paged-geometry-mismatch: target and draft paged SWA geometry differ.

## What it does

In paged mode (CUDA, NPU, and ROCm without the unified backend), derives the tuple SGLang
0.5.23 compares, `(page_size, sliding_window, ring_capacity)`, for the target and the draft
pool and reports when they differ. For DeepSeek-V4 the page size is 256 on both pools (128
on NPU) and the third element is `None`, so in practice this is a `sliding_window` mismatch
between the two checkpoints.

## Why it matters

Under PD disaggregation SGLang refuses to start (`setup_state_kv_args`,
`srt/disaggregation/utils.py`) with

    RuntimeError: DSV4 target and draft pools must share SWA geometry:
    target=(256, 128, None), draft=(256, 256, None)

(0.5.16 - 0.5.22 print `must share paged SWA geometry` with a 2-tuple). Without PD SGLang
does not compare the pools, so the finding is a note there.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash                          # sliding_window: 128
speculative-draft-model-path: models/DeepSeek-V4-Flash-MTP    # sliding_window: 256
speculative-algorithm: EAGLE
speculative-eagle-topk: 1
disaggregation-mode: decode
```

## Fix

Drop `speculative-draft-model-path` (the MTP draft is the target checkpoint's NextN layer),
or make the draft checkpoint's `sliding_window` equal to the target's.

Fix safety: unsafe — dropping `speculative-draft-model-path`, editing a checkpoint's
`sliding_window` or setting `dcp-size` changes what runs. Numbers copied into a deployment
file's `geometry` (from a failing server's log, `examples/from-log/`) are never edited: they are
the evidence, and overwriting the draft's with the target's would fix nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from ._geometry import geometry_findings
from .base import RuleContext

CODE = "SWA102"
NAME = "paged-geometry-mismatch"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "paged SWA geometry (page_size, sliding_window, ring capacity) differs between target and draft"
)
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    yield from geometry_findings(sys.modules[__name__], res, ctx, "paged")
