"""What several renderers share: pool values, table rows, headings and edit wording as plain data."""

from __future__ import annotations

import os
from typing import Any

from ..model.deployment import release_text
from ..model.records import Edit, Fix
from ..model.recordtype import record
from ..model.text import one_line
from ..results import DeploymentResult
from ..sglang.resolve import Pool, Resolution

HEADER = ("field", "target", "draft", "target from", "draft from")
PLATFORM = {"cuda": "CUDA", "rocm": "ROCm", "npu": "NPU"}


def pool_mode(res: Resolution, pool: Pool) -> str:
    if res.mode != "skipped":
        return res.mode
    return "unified" if pool.unified.value else "paged"


def deployment_head(r: DeploymentResult) -> dict[str, Any]:
    """What every per-deployment JSON object (the report, ``explain``) starts with."""
    res = r.resolution
    head = {
        "file": r.deployment.file,
        "name": r.deployment.name,
        "mode": res.mode,
        "pd": res.pd,
        "checked_by_sglang": res.checked_by_sglang,
        "skip_reason": res.skip_reason or None,
    }
    if r.deployment.evidence:  # read from what a server printed (inputs/server_output.py)
        head["evidence"] = r.deployment.evidence
    return head


def pool_json(res: Resolution, pool: Pool | None) -> dict[str, Any] | None:
    if pool is None:
        return None
    mode = pool_mode(res, pool)
    fields = pool.fields(mode, res.profile)
    out: dict[str, Any] = {"tuple": [v.value for _, v in fields], "unified": pool.unified.value}
    out.update({name: v.value for name, v in fields})
    out["model_config"] = pool.model.label if pool.model else None
    out.update(model_source(pool))
    out["sources"] = {name: v.describe() for name, v in fields}
    return out


def model_source(pool: Pool) -> dict[str, Any]:
    """Where a pool's model values come from: ``source`` config.json, inline (a deployment
    file's mapping), catalogue (swacheck's built-in one: then ``catalogue`` says which entry) or
    geometry (numbers the deployment file gives)."""
    model = pool.model
    if model is None:
        return {"source": "geometry"}
    entry = model.catalogue
    if entry is None:
        return {"source": "config.json" if model.file else "inline"}
    return {
        "source": "catalogue",
        "catalogue": {
            "id": entry.id,
            "revision": entry.revision,
            "status": entry.status,
            "label": entry.label,
        },
    }


def catalogue_labels(r: DeploymentResult) -> list[str]:
    """The catalogue entries a deployment's pools take their values from (no config.json found)."""
    res = r.resolution
    labels = [
        p.model.catalogue.label
        for p in (res.target, res.draft)
        if p is not None and p.model is not None and p.model.catalogue is not None
    ]
    return list(dict.fromkeys(labels))


@record(unsafe_hash=True)
class Row:
    """One geometry table row: its cells, and whether target and draft differ there."""

    cells: tuple[str, str, str, str, str]
    differs: bool


def fmt(value: object) -> str:
    return "None" if value is None else str(value)


def tuples(r: DeploymentResult) -> tuple[tuple, tuple | None] | None:  # type: ignore[type-arg]
    """(target tuple, draft tuple or None) as SGLang compares them; None without a target pool."""
    res = r.resolution
    if res.target is None:
        return None
    mode = pool_mode(res, res.target)
    draft = res.draft.tuple(mode, res.profile) if res.draft else None
    return res.target.tuple(mode, res.profile), draft


def table_rows(r: DeploymentResult) -> list[Row]:
    """The rows of the human format's table: one per geometry field, then the tuple."""
    res = r.resolution
    if res.target is None:
        return []
    t, d = res.target, res.draft
    mode = pool_mode(res, t)
    d_fields = dict(d.fields(mode, res.profile)) if d else {}
    rows: list[Row] = []
    for name, tv in t.fields(mode, res.profile):
        dv = d_fields.get(name)
        rows.append(
            Row(
                (
                    name,
                    fmt(tv.value),
                    fmt(dv.value) if dv else "-",
                    tv.describe(),
                    dv.describe() if dv else "no draft pool",
                ),
                dv is not None and dv.value != tv.value,
            )
        )
    t_tuple, d_tuple = tuples(r)  # type: ignore[misc]
    rows.append(
        Row(
            (
                "tuple",
                fmt(t_tuple),
                fmt(d_tuple) if d_tuple else "-",
                "compared by SGLang"
                if res.checked_by_sglang
                else "not compared by SGLang (no PD)"
                if d
                else "",
                "",
            ),
            d_tuple is not None and d_tuple != t_tuple,
        )
    )
    return rows


def fix_label(fix: Fix) -> str:
    """``fix`` for a safe fix, ``fix (unsafe)`` for an unsafe one (applied only with
    ``--unsafe-fixes`` when it has edits; to act on by hand when it has none). Every format that
    prints a fix says it in these words, as JSON's ``"safe"`` does."""
    return "fix" if fix.safe else "fix (unsafe)"


def edit_text(e: Edit) -> str:
    """What an edit does, in the human format's words."""
    n = e.end_line - e.line
    if e.replacement == "" and e.column == 1 and e.end_column == 1 and n > 0:
        return f"delete line{'s' if n > 1 else ''} {e.line}" + (
            f"-{e.end_line - 1}" if n > 1 else ""
        )
    if e.replacement == "":
        return f"delete to {e.end_line}:{e.end_column}" if n else f"delete to column {e.end_column}"
    if e.line == e.end_line and e.column == e.end_column:
        return f"insert {e.replacement.strip()!r}"
    return f"replace with {e.replacement!r}"


def heading(r: DeploymentResult) -> tuple[str, str]:
    """(file and name, "platform, mode, PD role, algorithm") for a deployment's heading."""
    res = r.resolution
    pd = res.values.get("disaggregation_mode")
    parts = [PLATFORM.get(res.values["platform"].value, res.values["platform"].value)]
    gpu = r.deployment.gpu
    if gpu is not None:  # --gpu, gpu: or a Kubernetes node label (SWA5xx)
        from ..sglang.gpus import lookup

        known = lookup(str(gpu.value))
        parts.append(
            f"{known.name} ({known.arch_text})"
            if known
            else f"unknown GPU {one_line(str(gpu.value))[:40]!r}"
        )
    parts.append("skipped" if res.mode == "skipped" else f"{res.mode} KV")
    if res.pd and pd is not None and pd.value != "null":
        parts.append(f"PD {pd.value}")
    else:
        parts.append("PD (assumed)" if res.pd else "no PD")
    algo = res.values.get("speculative_algorithm")
    if algo is not None and algo.value:
        parts.append(str(algo.value))
    if r.deployment.evidence:
        parts.append(f"as resolved: {r.deployment.evidence}")
    said = release_text(r.deployment.release, res.profile.version, res.profile.fork)
    if said:
        parts.append(one_line(said)[:160])
    title = r.deployment.file
    if r.deployment.name != os.path.splitext(os.path.basename(r.deployment.file))[0]:
        title += f" · {r.deployment.name}"
    return title, ", ".join(parts)


def pair_rows(pair) -> list[Row]:  # type: ignore[no-untyped-def]
    """Rows of a pair's table: value | prefill | decode | prefill from | decode from."""
    return [
        Row((name, fmt(p.value), fmt(d.value), p.describe(), d.describe()), p.value != d.value)
        for name, p, d in pair.rows()
    ]
