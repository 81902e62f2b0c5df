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
- one machine: `tp-size <= 8` off NPU (0.5.16:86, 0.5.20:230, 0.5.23:226);
- 0.5.22 and later: `moe-a2a-backend` other than `none`, `deepep`, `megamoe` or `mori`
  (`ValueError: DeepSeekV4 CP supports moe_a2a_backend in ('none', 'deepep', 'megamoe',
  'mori'), got 'flashinfer'.`, 0.5.23:229-234, 0.5.22:183-188);
- 0.5.22 and later, on ROCm (HIP): a per-phase attention backend other than `dsv4`
  (`prefill-attention-backend` / `decode-attention-backend`; `DeepSeekV4 prefill CP on HIP
  requires the dsv4 attention backend for both phases`, 0.5.23:177-186, 0.5.22:131-140), then
  `nnodes` > 1, a DeepSeek-V4.1 target, `enable-decoder-swa-bounded-replay` or
  `enable-two-batch-overlap` (`DeepSeekV4 prefill CP on HIP does not support {feature} yet.`,
  0.5.23:187-203, 0.5.22:141-157).

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

Add `cp-strategy: interleave`; run prefill CP without attention DP, on at most 8 GPUs, with a
MoE all-to-all backend it takes; on ROCm on one node, with `dsv4` for both phases, a DeepSeek-V4
(not V4.1) target and neither bounded replay nor two-batch overlap.

Fix safety: unsafe — it changes the context-parallel layout.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from . import _preflight as pf
from .base import RuleContext, arg_mapping

CODE = "SWA505"
NAME = "dsv4-prefill-cp-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = (
    "enable-prefill-cp without cp-strategy interleave, with attention DP, beyond tp-size 8, "
    "with a MoE a2a backend it does not take, or on ROCm with what HIP CP does not support, "
    "for DeepSeek-V4"
)


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
    if release_key(v) >= (0, 5, 22):
        yield from _hip(res)
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
            f"enable-prefill-cp with tp-size {tp}: AssertionError: Context parallel "
            f"only supports single machine (tp_size <= 8). "
            "Cross-machine CP has precision issues.",
            pf.where(res, a),
            Fix("Use prefill CP within one machine: tp-size 8 or less."),
            field="tp-size",
        )
    if release_key(v) >= (0, 5, 22):
        yield from _a2a(res)


A2A = ("none", "deepep", "megamoe", "mori")


def _a2a(res: Resolution) -> Iterator[Finding]:
    a2a = pf.text(res, "moe-a2a-backend", "none") or "none"
    if a2a in A2A:
        return
    yield Finding(
        CODE,
        SEVERITY,
        f"enable-prefill-cp with moe-a2a-backend {a2a}: ValueError: DeepSeekV4 CP supports "
        f"moe_a2a_backend in {A2A}, got {a2a!r}. (arg_groups/deepseek_v4_hook.py "
        "validate_deepseek_v4_cp)",
        pf.where(res, pf.arg(res, "moe-a2a-backend")),
        Fix("Use moe-a2a-backend none, deepep, megamoe or mori with DeepSeek-V4 prefill CP."),
        field="moe-a2a-backend",
    )


def _hip_feature(res: Resolution, version: tuple[int, ...]) -> tuple[str, str] | None:
    model = res.target.model if res.target is not None else None
    replay = (
        "decoder SWA bounded replay"
        if version >= (0, 5, 23)
        else ("--enable-decoder-swa-bounded-replay")
    )
    for name, feature, on in (
        ("nnodes", "multiple nodes", pf.integer(res, "nnodes", 1) > 1),
        ("model-path", "DeepSeek-V4.1", model is not None and model.model_type == "deepseek_v41"),
        (
            "enable-decoder-swa-bounded-replay",
            replay,
            pf.flag(res, "enable-decoder-swa-bounded-replay"),
        ),
        (
            "enable-two-batch-overlap",
            "--enable-two-batch-overlap",
            pf.flag(res, "enable-two-batch-overlap"),
        ),
    ):
        if on:
            return name, feature
    return None


def _hip(res: Resolution) -> Iterator[Finding]:
    """validate_deepseek_v4_cp on HIP: the per-phase backends, then what HIP CP lacks."""
    if pf.platform(res) != "rocm":
        return
    at = "(arg_groups/deepseek_v4_hook.py validate_deepseek_v4_cp, on HIP)"
    phases = {n: pf.text(res, f"{n}-attention-backend") or "dsv4" for n in ("prefill", "decode")}
    odd = [n for n, b in phases.items() if b not in ("dsv4", "compressed")]
    if odd:
        name = f"{odd[0]}-attention-backend"
        yield Finding(
            CODE,
            SEVERITY,
            f"enable-prefill-cp on ROCm with {name} {phases[odd[0]]}: ValueError: DeepSeekV4 "
            "prefill CP on HIP requires the dsv4 attention backend for both phases, got "
            f"prefill={phases['prefill']!r}, decode={phases['decode']!r}. {at}",
            pf.where(res, pf.arg(res, name)),
            Fix("Remove the per-phase attention backend (or set it to dsv4)."),
            field=name,
        )
        return
    found = _hip_feature(res, release_key(res.profile.version))
    if found is None:
        return
    name, feature = found
    yield Finding(
        CODE,
        SEVERITY,
        f"enable-prefill-cp on ROCm: ValueError: DeepSeekV4 prefill CP on HIP does not support "
        f"{feature} yet. {at}",
        pf.where(res, pf.arg(res, name)),
        Fix(f"Run DeepSeek-V4 prefill CP on ROCm without {feature}, or without prefill CP."),
        field=name,
    )
