"""``--format json``: the versioned, documented report (README "JSON output")."""

from __future__ import annotations

import json
from typing import TextIO

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


def render(result: RunResult, out: TextIO) -> None:
    out.write(json.dumps(as_data(result), indent=2) + "\n")  # one write, not one per token
