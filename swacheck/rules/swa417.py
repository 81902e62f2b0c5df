"""SWA417 mooncake-efa-allocator: a CUDA VMM allocator with Mooncake's EFA protocol.

## What it does

On a PD server whose transfer backend is Mooncake (`mooncake`, `mooncake_tcp`) and whose
`MOONCAKE_PROTOCOL` is `efa` (any case; default `rdma`), reports what
`_validate_efa_allocator_compatibility` (`disaggregation/mooncake/utils.py` 0.5.23:40-62,
0.5.22:40-62, called first thing in `MooncakeKVManager.__init__`, `mooncake/conn.py`
0.5.23:272, 0.5.22:258) refuses:

- `SGLANG_MOONCAKE_CUSTOM_MEM_POOL` `NVLINK` or `BAREX` (`true`, any case, means `NVLINK`;
  `check_mooncake_custom_mem_pool_enabled`): `ValueError: SGLANG_MOONCAKE_CUSTOM_MEM_POOL=NVLINK
  is incompatible with MOONCAKE_PROTOCOL=efa. ...` (utils.py:48);
- `expandable_segments:True` in `PYTORCH_CUDA_ALLOC_CONF` or `PYTORCH_ALLOC_CONF`:
  `ValueError: PYTORCH_CUDA_ALLOC_CONF enables expandable_segments, which is incompatible with
  MOONCAKE_PROTOCOL=efa ...` (utils.py:57).

`INTRA_NODE_NVLINK` and a type SGLang does not support are not refused there.

## Why it matters

The server stops when its scheduler builds the KV manager: the EFA provider of libfabric cannot
transfer CUDA VMM allocations.

## Example

```yaml
# deploy.yaml (swacheck deployment file)
server: {model-path: models/DeepSeek-V4-Flash, disaggregation-mode: decode}
env: {MOONCAKE_PROTOCOL: efa, SGLANG_MOONCAKE_CUSTOM_MEM_POOL: NVLINK}
```

## Fix

Unset `SGLANG_MOONCAKE_CUSTOM_MEM_POOL` (or turn `expandable_segments` off), or use another
Mooncake protocol.

Fix safety: none — no automatic fix: the allocator and the protocol are the operator's choice.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ._pdenv import backend, env_loc, raw, role
from .base import RuleContext

CODE = "SWA417"
NAME = "mooncake-efa-allocator"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "SGLANG_MOONCAKE_CUSTOM_MEM_POOL NVLINK/BAREX or expandable_segments with MOONCAKE_PROTOCOL=efa"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

POOL = "SGLANG_MOONCAKE_CUSTOM_MEM_POOL"
PROTOCOL = "MOONCAKE_PROTOCOL"
ALLOC = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
LINES = {"0.5.23": (48, 57, 272), "0.5.22": (48, 57, 258)}


def _expandable(res: Resolution) -> str | None:
    """``_cuda_expandable_segments_enabled``: the first allocator variable turning them on."""
    for var in ALLOC:
        for part in (raw(res, var) or "").split(","):
            key, _, value = part.partition(":")
            if key.strip() == "expandable_segments" and value.strip().lower() == "true":
                return var
    return None


def _refusal(res: Resolution) -> tuple[str, str] | None:
    kind = raw(res, POOL)
    if kind is not None and kind.lower() == "true":
        kind = "NVLINK"
    if kind in ("NVLINK", "BAREX"):
        return (
            f"ValueError: {POOL}={kind} is incompatible with {PROTOCOL}=efa. Mooncake custom "
            "memory pools use CUDA VMM allocations, which the current libfabric EFA provider "
            f"cannot transfer. Unset {POOL}.",
            POOL,
        )
    var = _expandable(res)
    if var is not None:
        return (
            f"ValueError: {var} enables expandable_segments, which is incompatible with "
            f"{PROTOCOL}=efa because the current libfabric EFA provider cannot transfer CUDA VMM "
            "allocations. Disable expandable_segments.",
            var,
        )
    return None


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    lines = LINES.get(res.profile.version)
    if lines is None or role(res) is None or backend(res) != "mooncake":
        return
    if (raw(res, PROTOCOL) or "rdma").lower() != "efa":
        return
    found = _refusal(res)
    if found is None:
        return
    message, name = found
    line = lines[0] if name == POOL else lines[1]
    yield Finding(
        CODE,
        SEVERITY,
        f"SGLang {res.profile.version} stops building this {role(res)} server's Mooncake KV "
        f"manager (sglang/srt/disaggregation/mooncake/utils.py:{line}, from conn.py:{lines[2]}): "
        f"{message}",
        env_loc(res, name),
        Fix(
            f"Unset {POOL}"
            if name == POOL
            else f"Drop expandable_segments from {name}, or use another {PROTOCOL}."
        ),
        field=name,
    )
