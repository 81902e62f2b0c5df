"""``--format json``: the versioned, documented report (README "JSON output")."""

from __future__ import annotations

import json
from typing import Any, TextIO

from .. import __version__
from ..engine import RunResult
from .common import pair_json, pool_json

SCHEMA_VERSION = 1


def as_data(result: RunResult) -> dict:
    deployments = []
    for r in result.results:
        res = r.resolution
        deployments.append(
            {
                "file": r.deployment.file,
                "name": r.deployment.name,
                "mode": res.mode,
                "pd": res.pd,
                "checked_by_sglang": res.checked_by_sglang,
                "skip_reason": res.skip_reason or None,
                "platform": res.values["platform"].value,
                "target": pool_json(res, res.target),
                "draft": pool_json(res, res.draft),
                "findings": [f.to_json() for f in r.findings],
            }
        )
    s = result.summary
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": "swacheck", "version": __version__, "sglang_version": result.settings.sglang_version},
        "deployments": deployments,
        "pairs": [pair_json(p) for p in result.pairs],
        "errors": [e.to_json() for e in result.errors],
        "summary": {
            "files": s.files,
            "deployments": s.deployments,
            "errors": s.counts["error"],
            "warnings": s.counts["warning"],
            "notes": s.counts["note"],
            "input_errors": s.input_errors,
            "suppressed": s.suppressed,
            "exit_code": result.exit_code,
        },
    }


# ``json.dumps`` with ``indent`` runs CPython's pure-Python encoder (about 1 s per 2,000
# deployments); without it the C encoder writes the same data about 10x faster. So only the
# outer levels are indented here: the report, each deployment and pair, and each list of
# findings (one finding per line); everything deeper (a pool, a finding, a location) is written
# compactly on one line by the C encoder.
INDENTED_LEVELS = 3  # objects and lists above this depth are indented
_compact = json.JSONEncoder(separators=(", ", ": ")).encode
_string = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


def dump(value: Any, out: TextIO, level: int = 0) -> None:
    """Write ``value`` as JSON: indented by two spaces down to :data:`INDENTED_LEVELS` (and lists
    one level further), compact below."""
    if type(value) is str:
        out.write(_string(value))
        return
    indented = level < INDENTED_LEVELS or (level == INDENTED_LEVELS and type(value) is list)
    if not indented or not value or not isinstance(value, (dict, list)):
        out.write(_compact(value))
        return
    pad = "\n" + "  " * (level + 1)
    if isinstance(value, dict):
        out.write("{")
        for i, (key, member) in enumerate(value.items()):
            out.write(f"{',' if i else ''}{pad}{_string(str(key))}: ")
            dump(member, out, level + 1)
        out.write("\n" + "  " * level + "}")
    else:
        out.write("[")
        for i, item in enumerate(value):
            out.write(f"{',' if i else ''}{pad}")
            dump(item, out, level + 1)
        out.write("\n" + "  " * level + "]")


def render(result: RunResult, out: TextIO) -> None:
    dump(as_data(result), out)
    out.write("\n")
