"""SWA248 serving-args-refused: the FP4 indexer on a GPU without it; `prefill_complete` with
optimistic prefill off.

## What it does

Checks two refusals of SGLang's serving hook (`arg_groups/serving_hook.py`; SGLang 0.5.22 and
0.5.23, where the code was read; found by the raise inventory, `conformance/inventory/`) on a
DeepSeek-V4 server:

- `enable-deepseek-v4-fp4-indexer` on a GPU that is neither SM100 (B200, B300, GB200), SM120
  (RTX PRO 6000, DGX Spark) nor gfx95 (MI355X, MI350X): `handle_environment_variables` tests
  `get_platform().is_sm100 or is_sm120 or is_gfx95_supported()` (0.5.23:464-470,
  0.5.22:443-449). Judged only when the GPU is named (`--gpu` or the deployment file's `gpu:`)
  and swacheck knows it;
- `disaggregation-decode-allocation-policy: prefill_complete` on a PD prefill server with
  `optimistic-prefill-attempts` below 0: `handle_other_validations` (0.5.23:533-540,
  0.5.22:512-519) wants optimistic prefill on, and the PD hook turns a 0 into 1 but leaves a
  negative count (`arg_groups/pd_disaggregation_hook.py` 0.5.23:47-55). What the PD hook itself
  refuses with `prefill_complete` is SWA207's, and is reported instead.

## Why it matters

The server stops while it resolves its arguments:
`ValueError: --enable-deepseek-v4-fp4-indexer requires SM100, SM120, or gfx95 GPUs with FP4
indexer support.` or `ValueError: prefill_complete requires optimistic prefill, but the resolved
model/cache configuration disabled it.`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
gpu: H200
tp-size: 8
enable-deepseek-v4-fp4-indexer: true
```

## Fix

Drop `enable-deepseek-v4-fp4-indexer` on Hopper and older GPUs (and on MI300X); remove the
negative `optimistic-prefill-attempts` (SGLang then uses 1 with `prefill_complete`).

Fix safety: none — no automatic fix: the indexer choice and the prefill policy change how the
server runs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.events import Kind
from ..sglang.gpus import Gpu
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import flag, gpu, is_dsv4, platform, text
from .base import RuleContext

CODE = "SWA248"
NAME = "serving-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "enable-deepseek-v4-fp4-indexer on a GPU other than SM100/SM120/gfx95; prefill_complete with "
    "a negative optimistic-prefill-attempts"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_SH = "arg_groups/serving_hook.py"
FP4 = "enable-deepseek-v4-fp4-indexer"
FP4_SITE = R.Site(_SH, "handle_environment_variables", (("0.5.23", 467), ("0.5.22", 446)))
OPTIMISTIC = R.Site(_SH, "handle_other_validations", (("0.5.23", 538), ("0.5.22", 517)))


def has_fp4_indexer(known: Gpu) -> bool:
    """``get_platform().is_sm100 or is_sm120 or is_gfx95_supported()`` for this GPU."""
    if known.platform == "rocm":
        return (known.gfx or "").startswith("gfx95")
    return known.sm_major in (10, 12)


def _fp4(res: Resolution) -> Iterator[R.Refused]:
    if not flag(res, FP4):
        return
    named, known = gpu(res)
    if known is None or has_fp4_indexer(known):
        return
    yield R.Refused(
        FP4,
        "ValueError",
        "--enable-deepseek-v4-fp4-indexer requires SM100, SM120, or gfx95 GPUs with FP4 indexer "
        f"support. ({known.name}: {known.arch_text})",
        FP4_SITE,
        "Drop enable-deepseek-v4-fp4-indexer on this GPU.",
    )


def _optimistic(res: Resolution) -> Iterator[R.Refused]:
    if text(res, "disaggregation-decode-allocation-policy") != "prefill_complete":
        return
    if str(res.values["disaggregation_mode"].value) != "prefill":
        return
    if res.events_of(Kind.PREFILL_COMPLETE_REFUSED):  # the PD hook stops it first (SWA207)
        return
    if R.raw(res, "optimistic-prefill-attempts") is None:
        return
    if R.as_int(res, "optimistic-prefill-attempts", 0) < 0:
        yield R.Refused(
            "optimistic-prefill-attempts",
            "ValueError",
            "prefill_complete requires optimistic prefill, but the resolved model/cache "
            "configuration disabled it.",
            OPTIMISTIC,
            "Remove optimistic-prefill-attempts (SGLang uses 1 with prefill_complete), or set it "
            "above 0.",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    # handle_environment_variables runs before handle_other_validations: the first one stops it
    refusals = list(_fp4(res)) or list(_optimistic(res))
    yield from R.findings(sys.modules[__name__], res, refusals)
