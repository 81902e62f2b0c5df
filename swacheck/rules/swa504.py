"""SWA504 gpu-memory-budget: the weights do not fit in `mem-fraction-static` of the GPU's memory.

## What it does

Estimates the bytes one GPU holds after loading a DeepSeek-V4 checkpoint -- the checkpoint's
tensor bytes (`model.safetensors.index.json` `metadata.total_size` beside `config.json`, else
swacheck's catalogue of the published DeepSeek-V4-Flash / -Pro checkpoints) divided by
`tp-size x pp-size` (expert parallelism shards the experts *within* the TP group, so it does not
change the per-GPU total; attention data parallelism replicates the attention weights, so the
estimate is a lower bound), plus, with MTP speculative decoding from the same checkpoint, the
draft's NextN layer (one layer's share of the checkpoint, also divided by `tp-size`) -- and
compares it with `mem-fraction-static` x the GPU's memory (`--gpu`, `sglang/gpus.py`). It
reports the minimum `mem-fraction-static` that fits. A launch with KTransformers flags (`kt-*`,
routed experts on the CPU) is not judged.

## Why it matters

SGLang sizes the KV cache from what is left after loading: `rest = free_after_load -
free_before_load x (1 - mem_fraction_static)` (`KVCacheConfigurator._profile_available_bytes`,
`srt/mem_cache/kv_cache_configurator.py` 0.5.23:2990-3060, the same check since 0.5.16). When the
weights exceed `mem_fraction_static x free_before_load` it stops with `ValueError: Loaded weights
leave no GPU memory for the KV cache under --mem-fraction-static=...` (or, when a little is left,
`RuntimeError: Not enough memory. Please try to increase --mem-fraction-static`,
`srt/model_executor/pool_configurator.py` 0.5.23:96) -- after loading every weight. The memory
free before loading is the GPU's memory minus the CUDA context, so swacheck's minimum is a lower
bound: weights at or above `mem-fraction-static x memory` fail for certain (error); within 3% of
it they probably fail (warning). Example from a field report: DeepSeek-V4-Pro with FP8 experts at
TP 8 holds about 125.65 GiB per GPU; on an H200 (140.4 GiB) `mem-fraction-static 0.88` gives
123.6 GiB and fails; SGLang computed the minimum as 0.9113 (0.9335 with MTP).

## Example

```yaml
# swacheck --gpu H200
model-path: /models/DeepSeek-V4-Pro   # with model.safetensors.index.json
tp-size: 8
mem-fraction-static: 0.88
```

## Fix

Raise `mem-fraction-static` above the minimum (the fix proposes it with a 2-point margin for the
CUDA context and the KV cache), or spread the weights over more GPUs (`tp-size`, `pp-size`).

Fix safety: unsafe — it changes a memory setting or the parallelism.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..model.records import Finding, Fix, Related, Val
from ..model.recordtype import record
from ..sglang import checkpoint as ckpt
from ..sglang.gpus import Gpu
from ..sglang.resolve import Resolution
from . import _preflight as pf
from .base import RuleContext

CODE = "SWA504"
NAME = "gpu-memory-budget"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = "per-GPU weights (+ MTP draft) do not fit in mem-fraction-static x the GPU's memory"

MARGIN = 0.03  # of the GPU's memory: the CUDA context and other processes come out of it


def _draft_bytes(res: Resolution, ck: ckpt.Checkpoint, tp: int) -> tuple[int, str] | None:
    """Per-GPU bytes of the MTP draft, and how they were estimated; None when unknown. Bytes are
    integers throughout (a 401-digit tp-size is no float overflow)."""
    if res.draft is None or res.target is None:
        return 0, ""
    if res.draft.model is not None and res.draft.model is not res.target.model:
        other = ckpt.read(
            res.draft.model, res.deployment.env, pf.text(res, "speculative-draft-model-path")
        )
        if other.weight_bytes is None:
            return None
        return (
            other.weight_bytes.value // tp,
            f"the draft checkpoint's {other.weight_bytes.origin} / tp {tp}",
        )
    if ck.dspark_bundled:
        return _bundled_draft_bytes(res, ck, tp)
    if ck.weight_bytes is None or not ck.num_layers or not ck.nextn_layers:
        return None
    layers = ck.num_layers + ck.nextn_layers
    share = ck.weight_bytes.value * ck.nextn_layers // layers
    return (
        share // tp,
        f"MTP draft: {ck.nextn_layers} NextN layer(s) of {layers} = {pf.gib(share)} / tp {tp}, estimated",
    )


def _bundled_draft_bytes(res: Resolution, ck: ckpt.Checkpoint, tp: int) -> tuple[float, str] | None:
    """A DSpark-bundled target (dspark_* keys) as its own draft. DSPARK (or no algorithm) loads
    the bundled DSpark stages (DeepseekV4ForCausalLMDSpark: configs/model_config.py
    0.5.23:1041-1060, 0.5.22:938-957); EAGLE/NEXTN a NextN head (DeepseekV4ForCausalLMNextN),
    which such a checkpoint may lack (Flash-0731 and Flash-DSpark have none): not a layer
    share of the weights. Sized only from the catalogue's bytes of the stages' files."""
    algo = res.values.get("speculative_algorithm")
    name = str(algo.value).upper() if algo is not None and algo.value else ""
    pub = ck.published
    if name != "DSPARK" or pub is None or pub.dspark_draft_bytes is None:
        return None
    share = pub.dspark_draft_bytes
    return (
        share / tp,
        f"DSpark draft: the bundled DSpark stages' files, {pf.gib(share)} ({pub.label}) / tp {tp}",
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not pf.is_dsv4(res):
        return
    gpu_val, gpu = pf.gpu(res)
    if gpu_val is None:
        return
    if pf.kt_experts(res):  # (after the cheaper test above: this one reads every key)
        return  # KTransformers runs the experts on the CPU (kt-kernel): not this model
    ck = pf.checkpoint(res)
    if ck is None or ck.weight_bytes is None:
        return
    if gpu is None:
        needs = f"the memory check needs the GPU's memory (the weights are {pf.gib(ck.weight_bytes.value)} in all)"
        yield pf.unknown_gpu_finding(
            CODE, gpu_val, needs, pf.where(res, None), "mem-fraction-static"
        )
        return
    b = _budget(res, ck, gpu_val, gpu)
    if b.minimum >= 1:
        yield _cannot_load(b)
        return
    yield from _against_fraction(b, _fix(b))


@record
class _Budget:
    """What one GPU must hold: the weights (and MTP draft) per GPU, against its memory."""

    res: Resolution
    ck: ckpt.Checkpoint
    gpu_val: Val
    gpu: Gpu
    tp: int
    pp: int
    draft_bytes: int
    need: int  # bytes per GPU
    mem: int  # the GPU's memory, bytes
    minimum: float  # need / mem: the least mem-fraction-static
    what: str  # the need, in words
    on: str  # the GPU, in words
    related: tuple[Related, ...]


def _budget(res: Resolution, ck: ckpt.Checkpoint, gpu_val: Val, gpu: Gpu) -> _Budget:
    assert ck.weight_bytes is not None
    tp = pf.integer(res, "tp-size", 1)
    pp = pf.integer(res, "pp-size", 1)
    per_gpu = ck.weight_bytes.value // (tp * pp)  # integers: no float overflow at any tp
    draft = _draft_bytes(res, ck, tp)
    draft_bytes, draft_how = draft if draft is not None else (0, "")
    need = per_gpu + draft_bytes
    mem = gpu.memory_bytes
    approx = " (approximate: from swacheck's catalogue)" if ck.weights_approximate else ""
    what = f"{pf.gib(per_gpu)} of weights per GPU ({pf.gib(ck.weight_bytes.value)} / tp {tp} x pp {pp}){approx}"
    if draft_bytes:
        what += f" + {pf.gib(draft_bytes)} ({draft_how})"
    elif draft is None:
        what += " (+ the MTP draft's weights, which swacheck cannot size)"
    on = f"{gpu.name} ({pf.gib(mem)}, {gpu.memory_source})"
    related = []
    if ck.weight_bytes.location is not None:
        related.append(Related(ck.weight_bytes.location, "the checkpoint's size comes from here"))
    if gpu_val.location is not None:
        related.append(Related(gpu_val.location, "the GPU is named here"))
    return _Budget(
        res, ck, gpu_val, gpu, tp, pp, draft_bytes, need, mem, need / mem, what, on, tuple(related)
    )


def _cannot_load(b: _Budget) -> Finding:
    """The weights alone exceed one GPU's memory."""
    res, tp, pp = b.res, b.tp, b.pp
    gpus_needed = -(-(b.need * tp * 10) // (9 * b.mem))  # ceil(need x tp / 90% of one GPU)
    return Finding(
        CODE,
        SEVERITY,
        f"{b.what} exceed the memory of one {b.on}: no mem-fraction-static fits; the server cannot load the model",
        pf.where(res, pf.arg(res, "tp-size") or pf.arg(res, "mem-fraction-static")),
        Fix(
            f"Spread the weights over more GPUs: about tp-size "
            f"{max(gpus_needed, tp + 1)} (x pp-size {pp}) leaves 10% for the KV cache."
        ),
        b.related,
        "mem-fraction-static",
    )


def _fix(b: _Budget) -> Fix:
    """A mem-fraction-static that holds the weights and leaves some KV cache, else more GPUs."""
    res, tp, pp, mem, minimum = b.res, b.tp, b.pp, b.mem, b.minimum
    suggested = math.ceil((minimum + 0.02) * 100) / 100
    if suggested <= 0.95:
        return Fix(
            f"Set mem-fraction-static to at least {minimum:.4f}; {suggested:.2f} "
            f"leaves room for the CUDA context and the KV cache "
            "(or raise tp-size / pp-size).",
            tuple(e for e in (pf.set_arg(res, "mem-fraction-static", suggested),) if e is not None),
            safe=False,  # a memory setting
        )
    # no fraction leaves a useful KV cache: more GPUs
    assert b.ck.weight_bytes is not None
    weights, draft_bytes = b.ck.weight_bytes.value, b.draft_bytes
    wider = tp

    def share(gpus: int) -> float:  # of one GPU's memory, over ``gpus`` x pp GPUs
        return (weights // (gpus * pp) + draft_bytes * tp // gpus) / mem

    while wider < 1024 and share(wider) > 0.85:
        wider *= 2
    return Fix(
        f"The weights need at least {minimum:.4f} of the GPU, which leaves almost "
        f"nothing for the KV cache: spread them over "
        f"more GPUs, e.g. tp-size {wider} (about "
        f"{share(wider):.2f} "
        f"of each GPU).",
        tuple(e for e in (pf.set_arg(res, "tp-size", wider),) if e is not None),
        safe=False,  # parallelism
    )


def _against_fraction(b: _Budget, fix: Fix) -> Iterator[Finding]:
    """The need against mem-fraction-static x the GPU's memory (or, unset, the minimum)."""
    res, mem, need, minimum, what, on = b.res, b.mem, b.need, b.minimum, b.what, b.on
    mfs_arg = pf.arg(res, "mem-fraction-static")
    mfs = pf.number(res, "mem-fraction-static")
    if mfs is None:
        if minimum >= 0.8:
            yield Finding(
                CODE,
                "note",
                f"{what} on {on} need mem-fraction-static of at least {minimum:.4f}; it is "
                f"unset, so SGLang chooses it: check the value it logs",
                pf.where(res, None),
                fix,
                b.related,
                "mem-fraction-static",
            )
        return
    budget = mfs * mem
    if budget <= need:
        sglang = (
            f"ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={mfs:g} "
            "(kv_cache_configurator.py _profile_available_bytes)"
        )
        yield Finding(
            CODE,
            SEVERITY if not b.ck.weights_approximate or need - budget > MARGIN * mem else "warning",
            f"{what} > mem-fraction-static {mfs:g} x {on} = {pf.gib(budget)}: "
            f"{sglang}; the minimum is {minimum:.4f} (lower bound)",
            pf.where(res, mfs_arg),
            fix,
            b.related,
            "mem-fraction-static",
        )
    elif budget - need < MARGIN * mem:
        yield Finding(
            CODE,
            "warning",
            f"{what} leave only {pf.gib(budget - need)} of mem-fraction-static {mfs:g} "
            f"x {on} for the KV cache and the CUDA context: "
            f"SGLang measures the memory free before loading, which is less than the "
            f"GPU's; likely 'Loaded weights leave no GPU memory "
            f"for the KV cache' or 'Not enough memory'; the minimum is {minimum:.4f} (lower bound)",
            pf.where(res, mfs_arg),
            fix,
            b.related,
            "mem-fraction-static",
        )
