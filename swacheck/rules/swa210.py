"""SWA210 dspark-dp-lm-head: DSPARK with attention data parallelism but no `enable-dp-lm-head`.

## What it does

Reports a DeepSeek-V4 server with `speculative-algorithm: DSPARK` and attention data parallelism
that does not set `enable-dp-lm-head`.

## Why it matters

SGLang's speculative hook (`_handle_dspark` in `arg_groups/speculative_hook.py`) stops the server
during argument resolution with `ValueError: DSpark with dp attention requires
--enable-dp-lm-head.` Which servers count as "with dp attention" depends on the release:

- 0.5.22 and later: attention DP size above 1 (`attn-dp-size`, or `enable-dp-attention` with
  `dp-size`; 0.5.22:612-615, 0.5.23:674-676);
- 0.5.18-0.5.21: `enable-dp-attention` with `dp-size` above 1 (0.5.20:527-530);
- 0.5.17 and older: `enable-dp-attention` at all, whatever `dp-size` (0.5.17:282-284).

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
attn-dp-size: 2
speculative-algorithm: DSPARK
```

## Fix

Add `enable-dp-lm-head: true`, or run DSPARK without attention data parallelism.

Fix safety: none — no automatic fix: it changes how the server computes its logits.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from ._preflight import arg, flag, where
from .base import RuleContext

CODE = "SWA210"
NAME = "dspark-dp-lm-head"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "DSPARK with attention data parallelism but no enable-dp-lm-head"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

MESSAGE = "ValueError: DSpark with dp attention requires --enable-dp-lm-head."


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    algorithm = res.values.get("speculative_algorithm")
    if res.quiet or algorithm is None or algorithm.value != "DSPARK":
        return
    if flag(res, "enable-dp-lm-head"):
        return
    attn_dp = res.values["attn_dp_size"]
    dp_attention = flag(res, "enable-dp-attention")
    if attn_dp.value > 1:
        said = f"attention DP size {attn_dp.value}"
    elif dp_attention and release_key(res.profile.version) < (0, 5, 18):
        said = "enable-dp-attention"
    else:
        return
    at = arg(res, "attn-dp-size") or arg(res, "enable-dp-attention")
    yield Finding(
        CODE,
        SEVERITY,
        f"speculative-algorithm DSPARK with {said} and no enable-dp-lm-head: {MESSAGE} "
        "(argument resolution, arg_groups/speculative_hook.py _handle_dspark)",
        where(res, at, value=False) if at is not None else algorithm.location,
        Fix("Add enable-dp-lm-head: true, or run DSPARK without attention data parallelism."),
        field="enable-dp-lm-head",
    )
