"""``--format gitlab``: a GitLab Code Quality report (``artifacts: reports: codequality``).

A JSON array with one issue per finding: ``description``, ``check_name`` (the rule code),
``fingerprint`` (the SARIF fingerprint: file, rule and logical location, no line number),
``severity`` and ``location`` (``path`` relative to ``CI_PROJECT_DIR``, else the run's root,
and ``lines.begin``), every string through ``escape.json_data``. GitLab shows the issues in merge requests;
an input error (a file swacheck cannot read or use) is an issue too, ``check_name``
``input-error`` and ``severity`` ``blocker``, at its file and line (a run-level one, such as
"no deployments found", at the repository root ``.``), so a merge request shows why the job
failed; it still goes to stderr as well (exit 2), as with every format.
"""

from __future__ import annotations

import json
import os
from functools import partial
from typing import Any, TextIO

from ..fingerprints import INPUT_ERROR, input_error_fingerprint
from ..results import RunResult
from .escape import json_data
from .renderer import WholeRun, render_run
from .sarif import base_dir, fingerprinted, repo_path

# GitLab's severities: info, minor, major, critical, blocker
SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


def as_data(result: RunResult) -> list[dict[str, Any]]:
    project = os.environ.get("CI_PROJECT_DIR")
    base = (
        os.path.realpath(project)
        if project and os.path.isdir(project)
        else base_dir(result.settings)
    )
    issues: list[dict[str, Any]] = []
    for r, f, _, key in fingerprinted(result, base):
        path = repo_path(f.location.file if f.location else r.deployment.file, base)
        issue: dict[str, Any] = {
            "type": "issue",
            "description": f"{f.code}: {f.message}",
            "check_name": f.code,
            "fingerprint": key,
            "severity": SEVERITY[f.severity],
            "location": {"path": path, "lines": {"begin": f.location.line if f.location else 1}},
        }
        if f.location is not None and f.location.end_line > f.location.line:
            issue["location"]["lines"]["end"] = f.location.end_line
        issues.append(issue)
    for e in result.errors:
        path = "." if e.file == "swacheck" else repo_path(e.file, base)
        issues.append(
            {
                "type": "issue",
                "description": f"input error: {e.message}",
                "check_name": INPUT_ERROR,
                "fingerprint": input_error_fingerprint(path, e.message),
                "severity": "blocker",
                "location": {"path": path, "lines": {"begin": e.line or 1}},
            }
        )
    return issues


def write(result: RunResult, out: TextIO) -> None:
    """The whole report of a run."""
    json.dump(json_data(as_data(result)), out, indent=2)
    out.write("\n")


STREAMS = False  # the report needs the whole run: Stream keeps the units
Stream = partial(WholeRun, write=write)


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
