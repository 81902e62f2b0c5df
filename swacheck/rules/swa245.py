"""SWA245 swa-cache-args-refused: SWA pool arguments out of the range SGLang's cache hook accepts.

## What it does

Checks the two range checks of `handle_cache_compatibility` (`arg_groups/kv_cache_hook.py`,
SGLang 0.5.22 and 0.5.23, where the code was read; found by the raise inventory,
`conformance/inventory/`) on a DeepSeek-V4 server:

- `swa-full-tokens-ratio` written outside (0, 1]: 0, a negative number, above 1, `nan` or
  `inf` (0.5.23:427-428, 0.5.22:427-428). SGLang checks the effective ratio, and a written
  one is what takes effect for DeepSeek-V4 (the model override sets 0.1 only when it is unset,
  `arg_groups/model_overrides/deepseek_v4.py` 0.5.23:44-49);
- `swa-prefix-tails` below 0 (0.5.23:429-431, 0.5.22:429-431).

## Why it matters

The server stops while it resolves its arguments:
`ValueError: --swa-full-tokens-ratio should be in range (0, 1.0].` or
`ValueError: --swa-prefix-tails should be a non-negative integer.`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
swa-full-tokens-ratio: 1.5
```

## Fix

Give `swa-full-tokens-ratio` a value above 0 and at most 1 (or remove it: DeepSeek-V4 then
sizes the SWA pool from the request cap), and `swa-prefix-tails` 0 or more.

Fix safety: none — no automatic fix: both size the SWA pool.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import is_dsv4, platform
from .base import RuleContext

CODE = "SWA245"
NAME = "swa-cache-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "swa-full-tokens-ratio outside (0, 1] or swa-prefix-tails below 0"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_KV = "arg_groups/kv_cache_hook.py"
RATIO = R.Site(_KV, "handle_cache_compatibility", (("0.5.23", 428), ("0.5.22", 428)))
TAILS = R.Site(_KV, "handle_cache_compatibility", (("0.5.23", 431), ("0.5.22", 431)))


def _ratio(text: str) -> float | None:
    """The ratio as argparse's ``float`` reads it (None: not a number, SWA304's)."""
    try:
        return float(text)
    except ValueError:
        return None


def refusals(res: Resolution) -> Iterator[R.Refused]:
    written = R.raw(res, "swa-full-tokens-ratio")
    ratio = _ratio(written) if written is not None else None
    if ratio is not None and not 0 < ratio <= 1.0:  # nan fails both comparisons, as in SGLang
        yield R.Refused(
            "swa-full-tokens-ratio",
            "ValueError",
            "--swa-full-tokens-ratio should be in range (0, 1.0].",
            RATIO,
            "Set swa-full-tokens-ratio above 0 and at most 1, or remove it.",
        )
        return  # SGLang stops at the first
    tails = R.raw(res, "swa-prefix-tails")
    if tails is not None and R.as_int(res, "swa-prefix-tails", 0) < 0:
        yield R.Refused(
            "swa-prefix-tails",
            "ValueError",
            "--swa-prefix-tails should be a non-negative integer.",
            TAILS,
            "Set swa-prefix-tails to 0 or more, or remove it.",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    yield from R.findings(sys.modules[__name__], res, refusals(res))
