"""SWA503 kv-cache-dtype-hardware: a KV cache dtype the platform or the GPU cannot hold for DeepSeek-V4.

## What it does

For a DeepSeek-V4 model on CUDA, resolves `kv-cache-dtype` as SGLang does (`auto` becomes
`fp8_e4m3`: `_deepseek_v4_kv_cache_dtype`, `srt/arg_groups/overrides.py` 0.5.23:892-913) and reports:

- `bfloat16` on CUDA (error, every GPU): the DeepSeek-V4 KV pool stores its rows as bytes and
  asserts it in `DeepSeekV4SingleKVPool.create_buffer` -- `assert self.store_dtype == torch.uint8`
  (`srt/mem_cache/deepseek_v4_memory_pool.py`: 0.5.14:113, 0.5.16:117, 0.5.18:125, 0.5.20:137,
  0.5.22:285, 0.5.23:321), while the base pool keeps a bfloat16 `store_dtype`
  (`srt/mem_cache/memory_pool.py` 0.5.23:2029-2033). (0.5.12-0.5.13 refuse `bfloat16` for
  DeepSeek-V4 earlier, at argument resolution.)
- FP8 (`fp8_e4m3`, also the default) on a GPU without FP8 (SM < 89: A100, A800, A10; error): the
  DeepSeek-V4 KV kernels are Triton kernels on `fp8e4nv`, which Triton refuses there with
  `type fp8e4nv not supported in this architecture`. Together with the first point: SGLang cannot
  serve DeepSeek-V4 on such a GPU on CUDA.
- a `--gpu` that is an AMD GPU while the deployment's platform is `cuda` (warning): the rules
  then judge the wrong platform.

A GPU swacheck does not know gets a note saying what the check needs.

## Why it matters

Both failures come after the weights are loaded, minutes into start-up.

## Example

```yaml
model-path: /models/DeepSeek-V4-Flash
kv-cache-dtype: bfloat16
```

## Fix

Use `kv-cache-dtype: fp8_e4m3` (or leave it unset) on an SM89+ GPU (L40S, H100/H200/H20/H800,
B200/B300, RTX PRO 6000).

Fix safety: unsafe — it changes the KV cache dtype.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.deployment import Arg
from ..model.records import Finding, Fix, Related, Val
from ..sglang.gpus import Gpu
from ..sglang.resolve import Resolution
from . import _preflight as pf
from .base import RuleContext

CODE = "SWA503"
NAME = "kv-cache-dtype-hardware"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = "kv-cache-dtype the platform or GPU cannot hold for DeepSeek-V4 (bfloat16 on CUDA, FP8 below SM89)"


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not pf.is_dsv4(res):
        return
    gpu_val, gpu = pf.gpu(res)
    plat = pf.platform(res)
    if gpu is not None and gpu.platform != plat and plat == "cuda":
        yield _platform_mismatch(res, gpu_val, gpu)
        return
    # ROCm's paged pool is the same class and asserts the same (the conformance suite's ROCm
    # MI355X case hits deepseek_v4_memory_pool.py 0.5.23:321); the unified pool takes no dtype
    paged_rocm = plat == "rocm" and res.target is not None and not res.target.unified.value
    if plat != "cuda" and not paged_rocm:
        return
    a = pf.arg(res, "kv-cache-dtype")
    dtype = pf.text(res, "kv-cache-dtype", "auto")
    if (
        dtype == "bfloat16" and "bfloat16" in res.profile.dsv4_kv_dtypes
    ):  # else the hook refuses it first (SWA205)
        yield _bfloat16(res, a, plat)
        return
    yield from _fp8_on_gpu(res, a, dtype, plat, gpu_val, gpu)


def _platform_mismatch(res: Resolution, gpu_val: Val | None, gpu: Gpu) -> Finding:
    return Finding(
        CODE,
        "warning",
        f"the GPU {gpu.name} is an AMD GPU (ROCm) but the deployment's platform is "
        f"cuda: the platform-dependent checks judge a CUDA server",
        gpu_val.location if gpu_val is not None and gpu_val.location else pf.where(res, None),  # type: ignore[union-attr]
        Fix("Give --platform rocm (or platform: rocm in the deployment file)."),
        field="platform",
    )


def _bfloat16(res: Resolution, a: Arg | None, plat: str) -> Finding:
    return Finding(
        CODE,
        SEVERITY,
        f"kv-cache-dtype bfloat16 for DeepSeek-V4 on {'CUDA' if plat == 'cuda' else 'ROCm (paged KV)'}: "
        "the DSV4 KV pool holds only byte (FP8) rows, "
        f"AssertionError: assert self.store_dtype == torch.uint8 "
        f"({res.profile.kv_bf16_assert_at}, SGLang {res.profile.version})",
        pf.where(res, a),
        Fix(
            "Use kv-cache-dtype: fp8_e4m3 (SGLang's DeepSeek-V4 default on CUDA).",
            (fixes.replace(a.value_loc, "fp8_e4m3"),) if a is not None else (),
            safe=False,
        ),
        field="kv-cache-dtype",
    )


def _fp8_on_gpu(
    res: Resolution, a: Arg | None, dtype: str, plat: str, gpu_val: Val | None, gpu: Gpu | None
) -> Iterator[Finding]:
    if dtype not in ("auto", "fp8_e4m3") or plat != "cuda":
        return  # other values: SWA205
    if gpu_val is None:
        return
    how = (
        "kv-cache-dtype fp8_e4m3"
        if dtype == "fp8_e4m3"
        else "the default KV cache dtype fp8_e4m3 (kv-cache-dtype auto on DeepSeek-V4)"
    )
    if gpu is None:
        yield pf.unknown_gpu_finding(
            CODE,
            gpu_val,
            f"{how} needs FP8 (e4m3) support, SM89 or later",
            pf.where(res, a),
            "kv-cache-dtype",
        )
        return
    if gpu.sm is not None and gpu.sm < 89:
        related = (Related(gpu_val.location, "the GPU is named here"),) if gpu_val.location else ()
        yield Finding(
            CODE,
            SEVERITY,
            f"{how} on {gpu.name} ({gpu.arch_text}): no FP8 e4m3 below SM89, the DSV4 KV kernels fail with "
            "'type fp8e4nv not supported in this architecture'; and bfloat16 KV trips "
            "the DSV4 pool's uint8 assertion on CUDA, "
            "so SGLang cannot serve DeepSeek-V4 on this GPU",
            pf.where(res, a),
            Fix(
                "Run DeepSeek-V4 on an SM89+ GPU (L40S, H100, H200, H20, H800, B200, RTX PRO 6000)."
            ),
            related,
            "kv-cache-dtype",
        )
