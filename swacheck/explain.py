"""``swacheck explain``: how every geometry number of a deployment was derived.

Each number is shown with the formula that produced it and, recursively, its inputs down to
where they came from: ``file:line:col`` of a key, an SGLang default (with the reason), or an
explicit number. The trace is the provenance the resolver kept (:class:`swacheck.model.records.Val`).
This module builds the trace as data; the ``explain`` renderers of :mod:`swacheck.report`
(``explain_human``, ``explain_json``) write it, like every report.
"""

from __future__ import annotations

from typing import Any

from .model.records import Val
from .report.common import deployment_head, pool_mode
from .results import DeploymentResult
from .sglang.resolve import Pool, Resolution

MEMORY_NOTE = (
    "SGLang may lower the per-worker max-running-requests at start-up when GPU memory is short "
    "(min(requests // attn-dp-size, token capacity // 2)); swacheck assumes it does not. Target and "
    "draft share the value, so the verdict does not depend on it, only the printed pages."
)


def node(name: str, val: Val, shown: dict[int, str] | None = None) -> dict[str, Any]:
    """One value as data: name, value, how it was obtained, where, and its inputs.

    An input that is itself one of the pool's fields (the ring size inside pages) is not
    traced again: it says ``"see": FIELD`` instead.
    """
    derived = bool(val.inputs) and val.location is None  # a value read from a file is not a formula
    out: dict[str, Any] = {
        "name": name,
        "value": val.value,
        "formula": val.origin if derived else None,
        "origin": None if derived else val.origin,
        "location": val.location.to_json() if val.location else None,
        "see": None,
        "inputs": [],
    }
    for n, v in val.inputs:
        if shown and id(v) in shown:
            out["inputs"].append(
                {
                    "name": n,
                    "value": v.value,
                    "formula": None,
                    "origin": None,
                    "location": None,
                    "see": shown[id(v)],
                    "inputs": [],
                }
            )
        else:
            out["inputs"].append(node(n, v, shown))
    return out


def pool_trace(res: Resolution, pool: Pool) -> dict[str, Any]:
    mode = pool_mode(res, pool)
    fields = pool.fields(mode, res.profile)
    shown: dict[int, str] = {}
    traced = []
    for name, v in fields:  # tuple order: each field may refer to the ones before it
        traced.append(node(name, v, shown))
        shown[id(v)] = name
    return {
        "tuple": [v.value for _, v in fields],
        "unified": node("unified", pool.unified),
        "fields": traced,
    }


def preflight_trace(r: DeploymentResult) -> dict[str, Any] | None:
    """The facts the SWA5xx rules used -- only when the deployment names its GPU."""
    gpu_val = r.deployment.gpu
    if gpu_val is None or r.resolution.target is None:
        return None
    from .rules import _preflight as pf
    from .sglang.gpus import lookup

    gpu = lookup(str(gpu_val.value))
    ck = pf.checkpoint(r.resolution)
    return {
        "gpu": {
            "given": gpu_val.value,
            "origin": gpu_val.origin,
            "location": gpu_val.location.to_json() if gpu_val.location else None,
            "known": gpu is not None,
            "name": gpu.name if gpu else None,
            "architecture": gpu.arch_text if gpu else None,
            "memory_bytes": gpu.memory_bytes if gpu else None,
            "memory_source": gpu.memory_source if gpu else None,
            "fp8": gpu.fp8 if gpu else None,
            "fp4": gpu.fp4 if gpu else None,
            "source": gpu.source if gpu else None,
        },
        "checkpoint": None
        if ck is None
        else {
            "experts": ck.experts.value,
            "experts_origin": ck.experts.origin,
            "experts_assumed": ck.experts_assumed,
            "weight_bytes": ck.weight_bytes.value if ck.weight_bytes else None,
            "weights_origin": ck.weight_bytes.origin if ck.weight_bytes else None,
            "weights_approximate": ck.weights_approximate,
        },
    }


def deployment_trace(r: DeploymentResult) -> dict[str, Any]:
    res = r.resolution
    out = {
        **deployment_head(r),
        "target": pool_trace(res, res.target) if res.target else None,
        "draft": pool_trace(res, res.draft) if res.draft else None,
        "notes": [MEMORY_NOTE] if res.mode == "unified" else [],
    }
    if (pre := preflight_trace(r)) is not None:
        out["preflight"] = pre
    return out
