"""SWA101 unified-ring-mismatch: target and draft unified SWA ring geometry differ.

## What it does

In unified-KV mode (ROCm with `SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`), derives the
tuple SGLang compares for the target and the draft pool, `(unified_swa_window,
unified_swa_ring_size, unified_swa_pages)`, and reports when they differ:

- window = the model's `sliding_window` (each pool reads its own checkpoint's `config.json`);
- ring size = window + speculative draft tokens - 1;
- pages = request slots x ring size.

## Why it matters

Under PD disaggregation (`disaggregation-mode: prefill|decode`) SGLang registers both pools
for KV transfer and refuses to start, after loading every weight, with

    RuntimeError: DSV4 target and draft pools must share SWA ring geometry:
    target=(128, 131, 33667), draft=(256, 259, 66563)

(`srt/disaggregation/utils.py`, `setup_state_kv_args`). Without PD SGLang does not compare
the pools, so the finding is a note there.

## Example

```yaml
# prefill.yaml, run on ROCm with SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton
model-path: models/DeepSeek-V4-Flash                          # sliding_window: 128
speculative-draft-model-path: models/DeepSeek-V4-Flash-MTP    # sliding_window: 256
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
disaggregation-mode: prefill
```

## Fix

Drop `speculative-draft-model-path`: DeepSeek-V4's MTP draft is the target checkpoint's own
NextN layer, and SGLang loads it from `model-path` when no draft path is given. Otherwise
make the draft checkpoint's `sliding_window` equal to the target's.

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

CODE = "SWA101"
NAME = "unified-ring-mismatch"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "unified SWA ring geometry (window, ring_size, pages) differs between target and draft"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    yield from geometry_findings(sys.modules[__name__], res, ctx, "unified")
