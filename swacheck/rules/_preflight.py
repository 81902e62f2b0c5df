"""What the preflight rules (SWA5xx) share: the GPU, the checkpoint, server arguments as text.

These rules judge a DeepSeek-V4 launch against the hardware and the checkpoint rather than the
target/draft geometry. They read the server arguments as written (the resolver's typed reading
reports bad values already, SWA304) and never guess the GPU: with no ``--gpu`` they stay silent
on what depends on it, and with a GPU swacheck does not know they say what they would need.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from typing import Any

from .. import fixes
from ..model.deployment import Arg
from ..model.records import Edit, Finding, Fix, Location, Val
from ..model.tree import Scalar
from ..sglang import checkpoint as ckpt
from ..sglang.gpus import Gpu, lookup
from ..sglang.resolve import Resolution
from .base import arg_mapping


def is_dsv4(res: Resolution) -> bool:
    """A DeepSeek-V4 target SGLang would load (a skipped non-DSV4 launch has no target pool)."""
    return res.target is not None


def gpu(res: Resolution) -> tuple[Val | None, Gpu | None]:
    """The GPU the deployment names (deployment file ``gpu:`` or ``--gpu``) and what swacheck knows of it."""
    val = res.deployment.gpu
    if val is None:
        return None, None
    return val, _lookup(str(val.value))


@lru_cache(maxsize=256)
def _lookup(name: str) -> Gpu | None:
    return lookup(name)


def arg(res: Resolution, name: str) -> Arg | None:
    """The argument as the selected release reads it; a key it does not know is SWA303's, not ours."""
    a = res.deployment.server.args.get(name)
    return None if a is None or a.how in ("unknown", "ambiguous") else a


def kt_experts(res: Resolution) -> bool:
    """KTransformers hybrid experts (``--kt-*``, upstream's or SGLang-KT's): the routed experts run
    on the CPU through kt-kernel and only ``kt-num-gpu-experts`` of them on the GPU, so the GPU MoE
    runner and the per-GPU weight budget are not what SWA501 / SWA504 model."""
    return any(a.written.startswith(("kt-", "kt_")) for a in res.deployment.server.entries)


def text(res: Resolution, name: str, default: str | None = None) -> str | None:
    """A scalar argument as the text argparse would get; ``default`` when absent or not a scalar."""
    a = res.deployment.server.args.get(name)  # arg(), inline: some forty calls a deployment
    if a is None or a.how in ("unknown", "ambiguous"):
        return default
    node = a.pair.value
    if not isinstance(node, Scalar) or node.value is None:
        return default
    v = node.value
    return ("true" if v else "false") if isinstance(v, bool) else str(v).strip()


def integer(res: Resolution, name: str, default: int) -> int:
    t = text(res, name)
    try:
        n = int(t) if t is not None else default
    except ValueError:
        return default  # a bad value is SWA304's
    return n if n >= 1 else default


def number(res: Resolution, name: str) -> float | None:
    t = text(res, name)
    try:
        f = float(t) if t is not None else None
    except ValueError:
        return None
    return f if f is not None and math.isfinite(f) else None


def flag(res: Resolution, name: str) -> bool:
    a = arg(res, name)
    return a is not None and a.value is True


def env_true(res: Resolution, name: str) -> bool:
    v = res.deployment.env.get(name)
    return v is not None and str(v.value).strip().lower() in ("1", "true", "yes", "y", "on")


def platform(res: Resolution) -> str:
    return str(res.deployment.platform.value)


def where(res: Resolution, a: Arg | None, value: bool = True) -> Location | None:
    """The argument's value (or key) position, else the deployment's."""
    if a is not None:
        return a.value_loc if value else a.key_loc
    return (
        res.deployment.server.mapping.loc
        if res.deployment.server.mapping is not None
        else res.deployment.location
    )


def set_arg(res: Resolution, name: str, value: Any) -> Edit | None:
    """Replace an argument's value, or add ``name: value`` after ``model-path``; None when impossible."""
    a = arg(res, name)
    if a is not None:
        return fixes.replace(a.value_loc, fixes.render_scalar(value, False))
    anchor = arg(res, "model-path")
    if anchor is None:
        return None
    return fixes.insert_after(anchor.pair, arg_mapping(res), name, value)


_CHECKPOINTS: dict[int, Any] = {}


def checkpoint(res: Resolution) -> ckpt.Checkpoint | None:
    """The target checkpoint's facts (once per resolution)."""
    if res.target is None or res.target.model is None:
        return None
    model = res.target.model
    env = res.deployment.env.get(ckpt.ENV_FP4_EXPERTS)
    model_path = text(res, "model-path")
    # thousands of deployments share a handful of model configs: the facts depend on the config,
    # the folder name and the one environment variable
    key = (
        id(model),
        model_path,
        env.value if env is not None else None,
        env.location if env is not None else None,
    )
    hit = _CHECKPOINTS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    facts = ckpt.read(model, res.deployment.env, model_path)
    if len(_CHECKPOINTS) > 256:
        _CHECKPOINTS.clear()
    _CHECKPOINTS[key] = (model, facts)
    return facts


def gib(n: float) -> str:
    return f"{n / (1 << 30):.2f} GiB"


@cache
def unknown_gpu_finding(
    code: str, gpu_val: Val, needs: str, at: Location | None, field: str
) -> Finding:
    """The note of a GPU-dependent rule when the GPU given is not in the table: what the rule
    would need, never a guess."""
    return Finding(
        code,
        "note",
        f"{unknown_gpu_note(str(gpu_val.value))}: {needs}",
        gpu_val.location or at,
        Fix("Name a GPU swacheck knows with --gpu."),
        field=field,
    )


def unknown_gpu_note(name: str) -> str:
    from ..model.text import one_line
    from ..sglang.gpus import closest

    shown = one_line(name if len(name) <= 60 else name[:57] + "...")
    near = closest(name)
    hint = f"closest known: {', '.join(near)}" if near else "no known GPU alike"
    return f"swacheck does not know the GPU '{shown}' ({hint}; `--gpu` takes the names of sglang/gpus.py)"
