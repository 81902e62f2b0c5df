"""Shared by SWA101 (unified) and SWA102 (paged): compare the tuples SGLang compares."""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Edit, Finding, Fix, Location, Related, Val
from ..sglang.resolve import Pool, Resolution
from ..sglang.version import format_tuple
from .base import Rule, RuleContext, arg_mapping


def _explicit(val: Val) -> bool:
    return val.origin.startswith(("target.geometry", "draft.geometry"))


# Numbers written into a deployment file's `geometry` are evidence (copied from a failing server's
# log): overwriting the draft's with the target's would hide the failure, not fix it.
COPIED = (
    "These numbers describe the failing launch (a deployment file's geometry, as copied from its "
    "log): change the launch itself (the draft checkpoint's sliding_window, speculative-draft-model-path "
    "or dcp-size), not the copied numbers."
)


def _window_fix(
    res: Resolution, ctx: RuleContext, moving: Pool, staying: Pool
) -> tuple[str, list[Edit]]:
    server = res.deployment.server
    draft_path = server.get("speculative-draft-model-path")
    model_path = server.get("model-path")
    target_model = res.target.model if res.target else None
    nextn = target_model.get("num_nextn_predict_layers") if target_model else None
    has_nextn = nextn is None or (isinstance(nextn.value, int) and nextn.value > 0)
    if target_model is not None and target_model.bundles_dspark:
        # a DSpark-bundled checkpoint (Flash-0731, -DSpark) may have no NextN head although
        # num_nextn_predict_layers is 1: never point the draft at one it may lack
        has_nextn = False
    if (
        moving.role == "draft"
        and draft_path is not None
        and model_path is not None
        and draft_path.value != model_path.value
        and has_nextn
        and not _explicit(moving.window)
    ):
        edit = fixes.delete_line_of(draft_path.pair, arg_mapping(res))
        return (
            f"Remove {draft_path.written}: DeepSeek-V4's MTP draft is the target checkpoint's own "
            f"NextN layer, and SGLang loads it from model-path when no draft path is set.",
            [edit] if edit else [],
        )
    loc = moving.window.location
    if _explicit(moving.window):
        return (COPIED, [])
    if loc is None:
        return (f"Make the {moving.role}'s sliding_window {staying.window.value}.", [])
    json_style = loc.file.lower().endswith(".json")
    return (
        f"Set the {moving.role} model's sliding_window to {staying.window.value} ({loc}) to match "
        f"the {staying.role}.",
        [fixes.replace(loc, fixes.render_scalar(staying.window.value, json_style))],
    )


def geometry_findings(
    rule: Rule, res: Resolution, ctx: RuleContext, mode: str
) -> Iterator[Finding]:
    if res.mode != mode or res.target is None or res.draft is None:
        return
    t, d = res.target, res.draft
    if t.unified.value != d.unified.value:  # SWA103 reports this; SGLang stops there
        return
    t_fields, d_fields = t.fields(mode, res.profile), d.fields(mode, res.profile)
    differing = [
        (name, tv, dv) for (name, tv), (_, dv) in zip(t_fields, d_fields) if tv.value != dv.value
    ]
    if not differing:
        return
    moving, staying = (d, t) if ctx.align_to == "target" else (t, d)
    message, severity = _message(rule, res, mode, differing)
    descriptions, edits, safe = _fix(res, ctx, mode, differing, moving, staying)

    # Point at the key to edit: the first edit of the fix, else the moving side's input.
    name = differing[0][0]
    values = {"target": differing[0][1], "draft": differing[0][2]}
    related = tuple(
        Related(loc, f"{role} {name} {val.value} comes from here")
        for role, val in values.items()
        if (loc := _root_location(val)) is not None
    )
    yield Finding(
        rule.CODE,
        severity,
        message,
        _location(res, edits, moving, values),
        Fix(" ".join(descriptions), tuple(edits), safe),
        related,
        name,
    )


def _message(rule: Rule, res: Resolution, mode: str, differing: list) -> tuple[str, str]:
    """SGLang's own message where it compares the pools; a note where it does not (yet)."""
    t, d = res.target, res.draft
    assert t is not None and d is not None
    template = res.profile.msg_ring if mode == "unified" else res.profile.msg_paged
    sglang_msg = template.format(
        target=format_tuple(t.tuple(mode, res.profile)),
        draft=format_tuple(d.tuple(mode, res.profile)),
    )
    parts = ", ".join(f"{name} {tv.value} vs {dv.value}" for name, tv, dv in differing)
    if res.checked_by_sglang:
        return f"{sglang_msg} ({parts}; target vs draft)", rule.SEVERITY
    if not res.profile.has_dsv4_block:
        return (
            f"target and draft SWA geometry differ ({parts}); SGLang "
            f"{res.profile.version} does not compare the pools yet "
            f"(the check came in {res.profile.checks_added_in} with the fix of the draft's SWA state transfer for "
            f"disaggregated MTP, PR #30461); from {res.profile.checks_added_in} on "
            f"this launch fails under PD with: {sglang_msg}"
        ), "note"
    return (
        f"target and draft SWA geometry differ ({parts}); SGLang checks this only under PD "
        f"disaggregation, where it would fail with: {sglang_msg}"
    ), "note"


def _fix(
    res: Resolution, ctx: RuleContext, mode: str, differing: list, moving: Pool, staying: Pool
) -> tuple[list[str], list[Edit], bool]:
    """What to change, in words and edits, and whether it is safe (changes no running server)."""
    t, d = res.target, res.draft
    assert t is not None and d is not None
    descriptions: list[str] = []
    edits: list[Edit] = []
    # unsafe (changes what runs): dropping the draft path, a checkpoint's sliding_window,
    # dcp-size; numbers copied into a swacheck file's `geometry` are never edited
    if t.window.value != d.window.value:
        text, window_edits = _window_fix(res, ctx, moving, staying)
        descriptions.append(text)
        edits.extend(window_edits)
    dcp = res.deployment.server.get("dcp-size")
    if (
        any(name == "page_size" for name, _, _ in differing)
        and dcp is not None
        and not _explicit(d.page_size)
    ):
        # the draft worker scales its page by dcp-size (kv_cache_configurator.py loc_space_scale)
        descriptions.append(
            f"The draft pool's page is page size x dcp-size ({d.page_size.value}); run PD servers with dcp-size 1."
        )
        edits.append(fixes.replace(dcp.value_loc, "1"))
    for name, _tv, _dv in differing:
        mv = dict(moving.fields(mode, res.profile))[name]
        if (
            name not in ("window", "sliding_window")
            and _explicit(mv)
            and COPIED not in descriptions
        ):
            descriptions.append(COPIED)
    if not descriptions:
        descriptions.append(f"Make the {moving.role}'s inputs give the {staying.role}'s geometry.")
    return descriptions, edits, not edits  # a hint without edits keeps the default (safe)


def _location(res: Resolution, edits: list[Edit], moving: Pool, values: dict[str, Val]) -> Location:
    """The first edit of the fix, else the draft path to drop, else the moving side's input."""
    t, d = res.target, res.draft
    assert t is not None and d is not None
    draft_path = res.deployment.server.get("speculative-draft-model-path")
    if edits:
        first = edits[0]
        return Location(
            first.file,
            first.line,
            first.column,
            first.line,
            first.column if first.replacement == "" else first.end_column,
        )
    if moving.role == "draft" and draft_path is not None and t.window.value != d.window.value:
        return draft_path.key_loc  # a launch command: point at the flag to drop
    return _root_location(values[moving.role]) or res.deployment.location


def _root_location(val: Val):
    """The first position in a value's derivation: the key a user would edit."""
    if val.location is not None:
        return val.location
    for _, inner in val.inputs:
        loc = _root_location(inner)
        if loc is not None:
            return loc
    return None
