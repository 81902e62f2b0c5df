"""SWA502 dsv4-attention-backend: an attention backend other than dsv4 for DeepSeek-V4.

## What it does

Reports `prefill-attention-backend` or `decode-attention-backend` set to anything but `dsv4`
(or its deprecated alias `compressed`) for a DeepSeek-V4 model on CUDA or ROCm (error), and
`attention-backend` set to anything but `dsv4` (warning: SGLang replaces it).

It also checks DeepSeek-V4's own kernel choice, `dsv4-attn-backend`, against the GPU:
`trtllm` needs a Blackwell SM100/SM103 GPU (`AssertionError: --dsv4-attn-backend trtllm requires
an SM100/SM103 (Blackwell) GPU.`, `srt/arg_groups/deepseek_v4_hook.py` 0.5.20:141, 0.5.22:55,
0.5.23:105), and `flashmla_mega` (0.5.23) needs DeepSeek-V4.1 on SM100/SM103 (0.5.23:96-99) --
with a DeepSeek-V4 (not V4.1) checkpoint it fails on every GPU. On ROCm both fail on every GPU
(`is_sm100_supported()` is false on HIP; measured on real 0.5.23 and 0.5.22,
`conformance/cases/dsv4-attn-backend.yaml`).

## Why it matters

DeepSeek-V4's compressed sparse attention exists only in the `dsv4` backend. SGLang's DeepSeek-V4
override sets `attention_backend = "dsv4"` whatever was configured (0.5.12-0.5.13
`srt/arg_groups/deepseek_v4_hook.py:15`; 0.5.16 `srt/arg_groups/overrides.py:793`; 0.5.19+
`srt/arg_groups/model_overrides/deepseek_v4.py`, 0.5.23:24), so `--attention-backend aiter` is
silently replaced. The split backends are a different matter: the per-phase backend is
`prefill_attention_backend or attention_backend` (`attention_backends_of`,
`srt/arg_groups/model_override_base.py` 0.5.23:138-152), and the override pins them to `dsv4` only
on NPU (0.5.23 `model_overrides/deepseek_v4.py:52-60`). On CUDA and ROCm an explicit
`--decode-attention-backend flashinfer` / `aiter` / `triton` therefore reaches a backend with
no DeepSeek-V4 support: `NotImplementedError`, or wrong output.

## Example

```yaml
model-path: /models/DeepSeek-V4-Flash
decode-attention-backend: aiter
```

## Fix

Remove the per-phase attention backend (or set it to `dsv4`); choose DeepSeek-V4's kernels with
`dsv4-attn-backend` instead.

Fix safety: mixed — removing `attention-backend` is safe (SGLang uses dsv4 whatever is
written); removing a per-phase backend or changing `dsv4-attn-backend` changes the kernels that run, so it is unsafe.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix, Related
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from . import _preflight as pf
from .base import RuleContext, arg_mapping

CODE = "SWA502"
NAME = "dsv4-attention-backend"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "mixed"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = (
    "prefill/decode attention backend other than dsv4 for DeepSeek-V4 "
    "(attention-backend: replaced, a warning); dsv4-attn-backend "
    "trtllm/flashmla_mega off Blackwell"
)

OK = ("dsv4", "compressed")
_TEXT = {
    "trtllm": "--dsv4-attn-backend trtllm requires an SM100/SM103 (Blackwell) GPU.",
    "flashmla_mega": "--dsv4-attn-backend flashmla_mega requires DeepSeek-V4.1 on SM100/SM103.",
}


def _fix(res: Resolution, a) -> Fix:
    edit = fixes.delete_line_of(a.pair, arg_mapping(res))
    if edit is None:
        edit = fixes.replace(a.value_loc, "dsv4")
    # removing attention-backend writes what SGLang does anyway (safe); a per-phase backend changes what runs
    return Fix(
        f"Remove {a.written} (DeepSeek-V4 runs only on the dsv4 attention backend; "
        f"pick its kernels with dsv4-attn-backend).",
        (edit,),
        safe=a.name == "attention-backend",
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not pf.is_dsv4(res) or pf.platform(res) == "npu":
        return
    for name in ("prefill-attention-backend", "decode-attention-backend"):
        value = pf.text(res, name)
        a = pf.arg(res, name)
        if value is None or a is None or value in OK:
            continue
        phase = name.split("-")[0]
        yield Finding(
            CODE,
            SEVERITY,
            f"{name} {value} for DeepSeek-V4: the {phase} phase would run on {value}, "
            f"which has no DeepSeek-V4 attention "
            "(SGLang's DSV4 override sets only attention_backend on CUDA/ROCm; the "
            "per-phase backend wins): NotImplementedError or wrong output",
            a.value_loc,
            _fix(res, a),
            field=name,
        )
    value = pf.text(res, "attention-backend")
    a = pf.arg(res, "attention-backend")
    if value is not None and a is not None and value not in OK:
        yield Finding(
            CODE,
            "warning",
            f"attention-backend {value} is replaced by dsv4 for DeepSeek-V4 (SGLang's "
            f"DSV4 override sets attention_backend whatever is configured)",
            a.value_loc,
            _fix(res, a),
            field="attention-backend",
        )
    yield from _kernels(res)


def _kernels(res: Resolution) -> Iterator[Finding]:
    a = pf.arg(res, "dsv4-attn-backend")
    value = pf.text(res, "dsv4-attn-backend")
    if (
        a is None
        or value not in ("trtllm", "flashmla_mega")
        or pf.platform(res) not in ("cuda", "rocm")
    ):
        return
    if value == "flashmla_mega" and release_key(res.profile.version) < (0, 5, 23):
        return  # not a choice before 0.5.23: SWA304 reports it
    gpu_val, gpu = pf.gpu(res)
    fix = Fix(
        "Use dsv4-attn-backend: auto (SGLang picks flashmla).",
        (fixes.replace(a.value_loc, "auto"),),
        safe=False,
    )
    if pf.platform(res) == "rocm":  # is_sm100_supported() is False on every HIP GPU
        yield Finding(
            CODE,
            SEVERITY,
            f"dsv4-attn-backend {value} on ROCm: AssertionError: {_TEXT[value]}",
            a.value_loc,
            fix,
            field="dsv4-attn-backend",
        )
        return
    model = res.target.model if res.target is not None else None
    if (
        value == "flashmla_mega"
        and model is not None
        and model.model_type not in (None, "deepseek_v41")
    ):
        yield Finding(
            CODE,
            SEVERITY,
            "dsv4-attn-backend flashmla_mega with a DeepSeek-V4 (not V4.1) "
            "checkpoint: AssertionError: --dsv4-attn-backend "
            "flashmla_mega requires DeepSeek-V4.1 on SM100/SM103.",
            a.value_loc,
            fix,
            field="dsv4-attn-backend",
        )
        return
    if gpu is None or gpu.sm_major is None or gpu.sm_major == 10:
        return  # no GPU named, or one swacheck does not know (SWA501/SWA503 say so), or Blackwell
    related = (
        (Related(gpu_val.location, "the GPU is named here"),)
        if gpu_val is not None and gpu_val.location
        else ()
    )
    text = _TEXT[value]
    yield Finding(
        CODE,
        SEVERITY,
        f"dsv4-attn-backend {value} on {gpu.name} ({gpu.arch_text}): AssertionError: {text}",
        a.value_loc,
        fix,
        related,
        "dsv4-attn-backend",
    )
