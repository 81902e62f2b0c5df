"""SWA418 nixl-ib-device-port: `--disaggregation-ib-device` with a port suffix under NIXL's UCX
backend.

## What it does

On a PD server whose transfer backend is NIXL with its UCX backend
(`SGLANG_DISAGGREGATION_NIXL_BACKEND`, default `UCX`) and no `UCX_NET_DEVICES` (which makes SGLang
ignore the option), reads `--disaggregation-ib-device` as `_resolve_ucx_device_list`
(`disaggregation/nixl/conn.py` 0.5.23:186-200, called from the KV manager's agent set-up,
0.5.23:571) does: a list of HCA names split at commas (a JSON mapping or a `.json` file names a
list per GPU, not checked here). A name with a port suffix (`mlx5_0:1`) or an empty name (a
trailing comma) is refused: `ValueError: NIXL UCX --disaggregation-ib-device requires HCA names
without port suffixes (e.g. mlx5_0); NIXL appends port 1.` 0.5.22 has no such check (it passes the
names on).

## Why it matters

The server stops when its scheduler builds the NIXL KV manager; Mooncake takes the same option
with ports, so a value copied from a Mooncake deployment trips it.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
disaggregation-mode: prefill
disaggregation-transfer-backend: nixl
disaggregation-ib-device: mlx5_0:1,mlx5_1:1
```

## Fix

Drop the port suffixes (`mlx5_0,mlx5_1`): NIXL appends port 1.

Fix safety: safe — the names without their `:PORT` are what NIXL uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..model.tree import Scalar
from ..sglang.resolve import Resolution
from ._pdenv import backend, raw, role
from ._preflight import arg, text, where
from .base import RuleContext

CODE = "SWA418"
NAME = "nixl-ib-device-port"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "--disaggregation-ib-device with a port suffix (or an empty name) under NIXL UCX"
FIX_SAFETY = "safe"  # safe | unsafe | mixed (the doc says which) | none: no edits

LINES = {"0.5.23": (196, 571)}
OPTION = "disaggregation-ib-device"
MESSAGE = (
    "ValueError: NIXL UCX --disaggregation-ib-device requires HCA names without port suffixes "
    "(e.g. mlx5_0); NIXL appends port 1."
)


def _names(res: Resolution) -> list[str] | None:
    """The HCA names NIXL's UCX backend gets from the option, when SGLang reads them."""
    if role(res) is None or backend(res) != "nixl":
        return None
    if (raw(res, "SGLANG_DISAGGREGATION_NIXL_BACKEND") or "UCX") != "UCX" or raw(
        res, "UCX_NET_DEVICES"
    ):
        return None  # another NIXL backend, or UCX_NET_DEVICES wins (only a warning)
    value = (text(res, OPTION) or "").strip()
    if not value or value.endswith(".json") or value.startswith("{"):
        return None  # unset, or a per-GPU mapping: each rank reads its own entry
    return [name.strip() for name in value.split(",")]


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    lines = LINES.get(res.profile.version)
    names = _names(res) if lines is not None else None
    if names is None or all(name and ":" not in name for name in names):
        return
    a = arg(res, OPTION)
    cleaned = ",".join(re.sub(r":.*$", "", n) for n in names if n)
    edits = []
    if a is not None and isinstance(a.node, Scalar) and cleaned:
        json_style = a.value_loc.file.lower().endswith(".json")
        edits = [fixes.replace(a.value_loc, fixes.render_scalar(cleaned, json_style))]
    yield Finding(
        CODE,
        SEVERITY,
        f"SGLang {res.profile.version} stops building this {role(res)} server's NIXL KV manager "
        f"(_resolve_ucx_device_list, sglang/srt/disaggregation/nixl/conn.py:{lines[0]}): {MESSAGE}",
        where(res, a),
        Fix(f"Write {OPTION} without port suffixes: {cleaned}.", tuple(edits), True),
        field=OPTION,
    )
