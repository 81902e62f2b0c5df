"""SWA218 dspark-dp-refused: DSPARK with attention DP and what `_handle_dspark` refuses with it.

## What it does

For `speculative-algorithm: DSPARK` with attention data parallelism (`attn-dp-size` > 1, or
`enable-dp-attention` with `dp-size`) off NPU, checks what `_handle_dspark`
(`arg_groups/speculative_hook.py`) refuses after `enable-dp-lm-head` (SWA210), SGLang 0.5.22
and 0.5.23 (where the code was read):

- `moe-a2a-backend` other than `none`, `megamoe` or `mori` (0.5.23:676-682, 0.5.22:615-621);
- a MoE all-to-all backend, or `SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION` on, with
  `SGLANG_RAGGED_VERIFY_MODE` other than `static` (`cap-accept`, `compact`; an invalid value
  is SWA220's) (0.5.23:683-695, 0.5.22:622-634);
- attention context parallelism, `attn-cp-size` > 1 (0.5.23:696-700, 0.5.22:635-639);
- `speculative-moe-a2a-backend` written and different from `moe-a2a-backend` (DSpark ignores
  it, 0.5.23:701-710, 0.5.22:640-649).

## Why it matters

The server stops while it resolves its arguments, e.g. `ValueError: DSpark with dp attention
does not support context parallel (attn_cp_size=2).`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: DSPARK
speculative-draft-model-path: models/dspark-draft
tp-size: 8
attn-dp-size: 8
enable-dp-lm-head: true
moe-a2a-backend: deepep
```

## Fix

With attention DP, run DSPARK on the built-in TP MoE (`moe-a2a-backend: none`), `megamoe` or
`mori`, with `SGLANG_RAGGED_VERIFY_MODE=static` (the default) when the MoE is all-to-all or
prefill coordination is on, without `attn-cp-size`, and leave `speculative-moe-a2a-backend` unset.

Fix safety: none — no automatic fix: the MoE backend and the parallel layout are choices.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import is_dsv4, platform
from .base import RuleContext
from .swa217 import COORDINATION

CODE = "SWA218"
NAME = "dspark-dp-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "DSPARK with attention DP and a MoE a2a backend, a ragged-verify mode, attention CP or a "
    "speculative MoE backend _handle_dspark refuses"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

RAGGED = "SGLANG_RAGGED_VERIFY_MODE"
MODES = ("static", "cap-accept", "compact")


def _site(l23: int, l22: int) -> R.Site:
    return R.Site(
        "arg_groups/speculative_hook.py", "_handle_dspark", (("0.5.23", l23), ("0.5.22", l22))
    )


def refusals(res: Resolution) -> Iterator[R.Refused]:
    a2a = R.raw(res, "moe-a2a-backend") or "none"
    if a2a not in ("none", "megamoe", "mori"):
        yield R.Refused(
            "moe-a2a-backend",
            "ValueError",
            "DSpark with dp attention supports moe_a2a_backend 'none' (built-in TP MoE), "
            f"'megamoe', or 'mori', got {a2a!r}.",
            _site(678, 617),
            "Use moe-a2a-backend none, megamoe or mori with DSPARK and attention DP.",
        )
    mode = res.deployment.env.get(RAGGED)
    text = str(mode.value) if mode is not None else "static"
    if (a2a != "none" or R.env_on(res, COORDINATION)) and text in MODES and text != "static":
        yield R.Refused(
            RAGGED,
            "ValueError",
            "DSpark DP MoE or prefill coordination requires SGLANG_RAGGED_VERIFY_MODE=static.",
            _site(693, 632),
            f"Set {RAGGED}=static (or unset it).",
            env=True,
        )
    cp = R.as_int(res, "attn-cp-size", 1)
    if cp > 1:
        yield R.Refused(
            "attn-cp-size",
            "ValueError",
            f"DSpark with dp attention does not support context parallel (attn_cp_size={cp}).",
            _site(698, 637),
            "Run DSPARK with attention DP without attn-cp-size.",
        )
    spec = R.raw(res, "speculative-moe-a2a-backend")
    if spec is not None and spec != a2a:
        yield R.Refused(
            "speculative-moe-a2a-backend",
            "ValueError",
            "DSpark ignores --speculative-moe-a2a-backend; with dp attention it must match the "
            f"target moe_a2a_backend={a2a!r} (got {spec!r}).",
            _site(707, 646),
            "Remove speculative-moe-a2a-backend (or set it to moe-a2a-backend's value).",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm") or R.algorithm(res) != "DSPARK":
        return
    attn_dp = res.values.get("attn_dp_size")
    if attn_dp is None or not isinstance(attn_dp.value, int) or attn_dp.value <= 1:
        return
    yield from R.findings(sys.modules[__name__], res, refusals(res))
