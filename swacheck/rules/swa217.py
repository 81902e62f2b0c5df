"""SWA217 speculative-switch-refused: speculative switches SGLang's speculative hook refuses.

## What it does

Checks what `handle_speculative_decoding` (`arg_groups/speculative_hook.py`) and its EAGLE
handler `_handle_eagle_family` refuse for a DeepSeek-V4 server, on the arguments as written
(SGLang 0.5.22 and 0.5.23, where the code was read; found by the raise inventory):

- `speculative-draft-window-size` 0 or less (0.5.23:205, 0.5.22:191), checked for every
  algorithm and without speculative decoding too;
- `speculative-draft-sink-size` below 0 (0.5.23:224, 0.5.22:210), or written without
  `speculative-draft-window-size` (0.5.23:228, 0.5.22:214);
- 0.5.22: `speculative-skip-dp-mlp-sync` with an algorithm other than EAGLE (DSPARK, or none):
  `AssertionError` (0.5.22:237-241; 0.5.23 has no such flag, SWA303);
- `SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION` on (`1`, `true`, `yes`, `y`) without single-layer
  EAGLE or DSPARK: no speculative decoding, or `enable-multi-layer-eagle` (0.5.23:251-258,
  0.5.22:243-250);
- EAGLE with rejection sampling (`speculative-use-rejection-sampling`, or
  `speculative-use-block-verification`, which turns it on, 0.5.23:186-195) and an accept
  threshold (`speculative-accept-threshold-single` / `-acc`) other than 1.0 (0.5.23:1229-1240,
  0.5.22:1132-1143). On ROCm SGLang turns rejection sampling on by itself only when both
  thresholds are 1.0.

What these checks cannot reach for DeepSeek-V4, whose hook admits only EAGLE with top-k 1 and
DSPARK (SWA202) before: the decode radix cache with another algorithm (0.5.23:163-172), block
verification with another algorithm, rejection sampling with another algorithm or top-k, and
(0.5.23) deterministic rejection sampling off CUDA; `enable-deterministic-inference` itself is
refused earlier for DeepSeek-V4 (SWA223), so 0.5.22's rejection-sampling check against it
(0.5.22:1144-1149) is never reached.

## Why it matters

The server stops while it resolves its arguments, e.g. `ValueError:
--speculative-draft-sink-size requires --speculative-draft-window-size.`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-draft-sink-size: 4
```

## Fix

Give a positive `speculative-draft-window-size` with a sink size of 0 or more; leave the
coordination switch off without single-layer EAGLE or DSPARK; drop the accept thresholds (or
rejection sampling and block verification).

Fix safety: none — no automatic fix: each switch changes how the draft runs or is verified.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import flag, is_dsv4, number, platform
from .base import RuleContext

CODE = "SWA217"
NAME = "speculative-switch-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "draft window/sink sizes, SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION, "
    "speculative-skip-dp-mlp-sync or rejection sampling with accept thresholds, refused by "
    "the speculative hook"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_SH = "arg_groups/speculative_hook.py"
COORDINATION = "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"


def _hook(l23: int | None, l22: int) -> R.Site:
    lines = (("0.5.23", l23), ("0.5.22", l22)) if l23 is not None else (("0.5.22", l22),)
    return R.Site(_SH, "handle_speculative_decoding", lines)


def _windows(res: Resolution) -> Iterator[R.Refused]:
    window = R.raw(res, "speculative-draft-window-size")
    if window is not None and R.as_int(res, "speculative-draft-window-size", 1) <= 0:
        n = R.as_int(res, "speculative-draft-window-size", 1)
        yield R.Refused(
            "speculative-draft-window-size",
            "ValueError",
            f"--speculative-draft-window-size must be positive, got {n}.",
            _hook(205, 191),
            "Set speculative-draft-window-size above 0, or remove it.",
        )
    if R.raw(res, "speculative-draft-sink-size") is None:
        return
    sink = R.as_int(res, "speculative-draft-sink-size", 0)
    if sink < 0:
        yield R.Refused(
            "speculative-draft-sink-size",
            "ValueError",
            f"--speculative-draft-sink-size must be non-negative, got {sink}.",
            _hook(224, 210),
            "Set speculative-draft-sink-size to 0 or more, or remove it.",
        )
    elif window is None:
        yield R.Refused(
            "speculative-draft-sink-size",
            "ValueError",
            "--speculative-draft-sink-size requires --speculative-draft-window-size.",
            _hook(228, 214),
            "Add speculative-draft-window-size, or remove speculative-draft-sink-size.",
        )


def refusals(res: Resolution) -> Iterator[R.Refused]:
    algo = R.algorithm(res)
    yield from _windows(res)
    if flag(res, "speculative-skip-dp-mlp-sync") and algo != "EAGLE":
        yield R.Refused(
            "speculative-skip-dp-mlp-sync",
            "AssertionError",
            "--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm == "
            f"EAGLE, got {algo}.",
            _hook(None, 239),
            "Remove speculative-skip-dp-mlp-sync (it is for EAGLE only).",
        )
    if R.env_on(res, COORDINATION) and (
        algo not in ("EAGLE", "DSPARK") or flag(res, "enable-multi-layer-eagle")
    ):
        yield R.Refused(
            COORDINATION,
            "ValueError",
            "DP spec/prefill coordination requires single-layer EAGLE, EAGLE3 or DSPARK",
            _hook(257, 249),
            f"Unset {COORDINATION} (or run single-layer EAGLE or DSPARK).",
            env=True,
        )
    rejection = flag(res, "speculative-use-rejection-sampling") or flag(
        res, "speculative-use-block-verification"
    )
    thresholds = [
        n
        for n in ("speculative-accept-threshold-single", "speculative-accept-threshold-acc")
        if (v := number(res, n)) is not None and v != 1.0
    ]
    if algo == "EAGLE" and rejection and thresholds:
        yield R.Refused(
            thresholds[0],
            "ValueError",
            "--speculative-use-rejection-sampling is incompatible with "
            "--speculative-accept-threshold-single / --speculative-accept-threshold-acc; "
            "rejection sampling ignores the accept thresholds.",
            R.Site(_SH, "_handle_eagle_family", (("0.5.23", 1235), ("0.5.22", 1138))),
            "Remove the accept thresholds, or rejection sampling (and block verification).",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    yield from R.findings(sys.modules[__name__], res, refusals(res))
