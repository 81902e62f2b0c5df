"""``swacheck why --format json``: the explained errors as one JSON document (version 1)."""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

from .escape import json_data
from .renderer import Kept, render_pieces

if TYPE_CHECKING:
    from ..why.match import Explained, WhyReport
    from ..why.parse import ParsedError


def side_json(err: ParsedError, side: tuple | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {"tuple": list(side), **dict(zip(err.fields, side))}


def error_json(item: Explained) -> dict[str, Any]:
    err, diag = item.error, item.diagnosis
    return {
        "kind": err.kind,
        "message": err.message,
        "count": err.count,
        "first_line": err.first_line,
        "sglang_versions": err.wording.version_range,
        "sglang_versions_from_traceback": list(err.frame_versions),
        "target": side_json(err, err.target),
        "draft": side_json(err, err.draft),
        "differs": list(diag.differs),
        "derived": {
            x.name.replace(" ", "_"): {"target": x.target, "draft": x.draft} for x in diag.derived
        },
        "diagnosis": list(diag.sentences),
        "deployments": [m.to_json() for m in item.deployments],
    }


def to_json(items: list[Explained]) -> dict[str, Any]:
    return {"version": 1, "errors": [error_json(item) for item in items]}


def write(items: list[Explained], totals: WhyReport, out: TextIO) -> None:
    json.dump(json_data(to_json(items)), out, indent=2)
    out.write("\n")


STREAMS = False  # one JSON document: Stream keeps the explained errors
Stream = partial(Kept, write=write)


def render(report: WhyReport, out: TextIO) -> None:
    render_pieces(Stream, report.settings, report.items, report, out)
