"""What several renderers share: pool values as plain data."""

from __future__ import annotations

from typing import Any

from ..sglang.resolve import Pool, Resolution


def pool_mode(res: Resolution, pool: Pool) -> str:
    if res.mode != "skipped":
        return res.mode
    return "unified" if pool.unified.value else "paged"


def pool_json(res: Resolution, pool: Pool | None) -> dict[str, Any] | None:
    if pool is None:
        return None
    mode = pool_mode(res, pool)
    fields = pool.fields(mode, res.profile)
    out: dict[str, Any] = {"tuple": [v.value for _, v in fields], "unified": pool.unified.value}
    out.update({name: v.value for name, v in fields})
    out["model_config"] = pool.model.label if pool.model else None
    out["sources"] = {name: v.describe() for name, v in fields}
    return out


def location_text(res: Resolution) -> str:
    return res.deployment.file
