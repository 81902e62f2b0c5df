"""SWA505 dsv4-prefill-cp-refused: prefill context parallelism SGLang refuses for DeepSeek-V4.

## What it does

For `enable-prefill-cp` on a DeepSeek-V4 model (the flag exists from 0.5.16; 0.5.12-0.5.13 name
it `enable-nsa-prefill-context-parallel`, and swacheck reports the unknown key there, SWA303),
checks what SGLang's argument resolution asserts:

- `cp-strategy` must be given: `ValueError: --cp-strategy must be set when --enable-prefill-cp is
  enabled.` (0.5.16 `srt/server_args.py:5537`; 0.5.20 `srt/arg_groups/parallel_hook.py:74`;
  0.5.23 `parallel_hook.py:153`);
- DeepSeek-V4 takes only `interleave` (`validate_deepseek_v4_cp`, `srt/arg_groups/deepseek_v4_hook.py`:
  0.5.16:73 and 0.5.20:209 `DeepSeekV4 only supports interleave CP strategy`; 0.5.23:168-176 also
  `zigzag`, on NPU only: `DeepSeekV4 zigzag CP requires the NPU backend`);
- no data-parallel attention with it off NPU: `For round-robin split mode, dp attention is not
  supported.` (0.5.16:84, 0.5.20:228, 0.5.23:224);
- one machine: `tp-size <= 8` off NPU (0.5.16:86, 0.5.20:230, 0.5.23:226).

## Why it matters

Each is an `AssertionError` or `ValueError` at start-up.

## Example

```yaml
model-path: /models/DeepSeek-V4-Flash
disaggregation-mode: prefill
tp-size: 8
enable-prefill-cp: true
```

## Fix

Add `cp-strategy: interleave`; run prefill CP without attention DP, on at most 8 GPUs.

Fix safety: unsafe — it changes the context-parallel layout.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from . import _preflight as pf
from .base import RuleContext, arg_mapping

CODE = "SWA505"
NAME = "dsv4-prefill-cp-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = "enable-prefill-cp without cp-strategy interleave, with attention DP, or beyond tp-size 8, for DeepSeek-V4"


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not pf.is_dsv4(res) or not pf.flag(res, "enable-prefill-cp"):
        return
    cp = pf.arg(res, "enable-prefill-cp")
    assert cp is not None
    npu = pf.platform(res) == "npu"
    strategy = pf.text(res, "cp-strategy")
    v = res.profile.version
    if strategy is None:
        edit = fixes.insert_after(cp.pair, arg_mapping(res), "cp-strategy", "interleave")
        yield Finding(
            CODE,
            SEVERITY,
            "enable-prefill-cp without cp-strategy: ValueError: --cp-strategy must be "
            "set when --enable-prefill-cp is enabled. "
            f"(SGLang {v}; DeepSeek-V4 takes interleave)",
            cp.key_loc,
            Fix("Add cp-strategy: interleave.", (edit,) if edit else (), safe=False),
            field="cp-strategy",
        )
    elif strategy != "interleave" and not (
        strategy == "zigzag" and npu and res.profile.cp_zigzag_npu
    ):
        a = pf.arg(res, "cp-strategy")
        assert a is not None
        yield Finding(
            CODE,
            SEVERITY,
            f"cp-strategy {strategy} for DeepSeek-V4: ValueError: "
            + (
                "DeepSeekV4 zigzag CP requires the NPU backend; CUDA/HIP backends reindex with interleave order."
                if res.profile.cp_zigzag_npu
                else f"DeepSeekV4 only supports interleave CP strategy, got {strategy}"
            ),
            a.value_loc,
            Fix(
                "Use cp-strategy: interleave.",
                (fixes.replace(a.value_loc, "interleave"),),
                safe=False,
            ),
            field="cp-strategy",
        )
    if npu:
        return
    attn_dp = res.values.get("attn_dp_size")
    if attn_dp is not None and attn_dp.value > 1:
        yield Finding(
            CODE,
            SEVERITY,
            f"enable-prefill-cp with attention data parallelism ({attn_dp.value}): "
            f"AssertionError: For round-robin split mode, dp attention is not "
            f"supported.",
            attn_dp.location or cp.key_loc,
            Fix("Run DeepSeek-V4 prefill CP without attention DP (dp-size / attn-dp-size 1)."),
            field="enable-prefill-cp",
        )
    tp = pf.integer(res, "tp-size", 1)
    if tp > 8:
        a = pf.arg(res, "tp-size")
        yield Finding(
            CODE,
            SEVERITY,
            f"enable-prefill-cp with tp-size {tp}: AssertionError: RuleContext parallel "
            f"only supports single machine (tp_size <= 8). "
            "Cross-machine CP has precision issues.",
            pf.where(res, a),
            Fix("Use prefill CP within one machine: tp-size 8 or less."),
            field="tp-size",
        )
