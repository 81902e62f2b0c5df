"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning (``upload-sarif``).

One run; ``tool.driver.rules`` lists every rule (documentation included), each result points
at the key to edit, with the related locations, and carries a ``partialFingerprints`` entry
that does not depend on line numbers or on the other files of the run (``fingerprints.py``), so
an alert survives lines moving above it and folders being added beside it. Paths are relative to
``GITHUB_WORKSPACE``, else the run's root (``fingerprints.base_dir``). An input
error (a file swacheck cannot read or use) is a result of rule ``input-error`` (level error) at
its file and line, which code scanning shows as an alert, and also a
``toolExecutionNotification`` of the invocation, which then is not successful; one about the run
as a whole ("no deployments found") has no file and is a notification only.
Columns are 1-based with an exclusive end, as in swacheck's own model. Every result and
notification goes through ``escape.json_data`` and every URI through ``escape.path_for_uri``
(report/escape.py) before it is written.
"""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from .. import __version__
from ..fingerprints import (
    INPUT_ERROR,
    NO_FILE,
    base_dir,
    fingerprinted,
    input_error_fingerprint,
    repo_path,
)
from ..model.records import Location
from ..results import RunResult
from .common import catalogue_labels, fix_label
from .escape import json_data, path_for_uri
from .renderer import WholeRun, render_run

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://github.com/swacheck/swacheck"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "swacheck/v2"  # v2: file path + rule + logical location (v1 had no file path)
LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def artifact_location(file: str, base: str | None = None) -> dict[str, Any]:
    """A relative ``uri`` with ``uriBaseId`` %SRCROOT%, or a file:// URI outside the tree."""
    if file in NO_FILE:
        return {"uri": quote("stdin")}
    rel = repo_path(file, base)
    if os.path.isabs(rel) or rel.startswith("../"):
        absolute = os.path.abspath(file)
        if absolute.isprintable() and path_for_uri(absolute) == absolute:
            return {"uri": Path(absolute).as_uri()}
        return {"uri": "file://" + quote(path_for_uri(absolute), safe="/")}
    return {"uri": quote(path_for_uri(rel), safe="/"), "uriBaseId": SRCROOT}


def region(loc: Location) -> dict[str, Any]:
    out: dict[str, Any] = {"startLine": loc.line, "startColumn": loc.column}
    if loc.end_line > loc.line:
        out["endLine"] = loc.end_line
        out["endColumn"] = max(loc.end_column, 1)
    elif loc.end_column > loc.column:  # an empty (insert position) region has no endColumn
        out["endLine"] = loc.line
        out["endColumn"] = loc.end_column
    return out


def physical_location(loc: Location, base: str | None = None) -> dict[str, Any]:
    return {"artifactLocation": artifact_location(loc.file, base), "region": region(loc)}


def pascal_case(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_\s]+", name) if part)


def doc_section(doc: str, heading: str) -> str:
    """The text under ``## heading`` of a rule's Markdown docstring, up to the next heading."""
    match = re.search(rf"^##\s+{re.escape(heading)}\s*$(.*?)(?=^##\s|\Z)", doc, re.M | re.S | re.I)
    return match.group(1).strip() if match else ""


def rule_descriptor(rule: Any) -> dict[str, Any]:
    doc = (rule.__doc__ or "").strip()
    return {
        "id": rule.CODE,
        "name": pascal_case(rule.NAME),
        "shortDescription": {"text": rule.SUMMARY},
        "fullDescription": {"text": doc_section(doc, "What it does") or rule.SUMMARY},
        "help": {"text": doc or rule.SUMMARY, "markdown": doc or rule.SUMMARY},
        "defaultConfiguration": {"level": LEVEL[rule.SEVERITY]},
        "properties": {"tags": ["sglang", "deepseek-v4", "speculative-decoding"]},
    }


INPUT_RULE: dict[str, Any] = {
    "id": INPUT_ERROR,
    "name": "InputError",
    "shortDescription": {"text": "A file swacheck cannot read or use"},
    "fullDescription": {
        "text": "swacheck could not check this file: it does not parse, passes a budget, names a "
        "file that is missing or outside the run's root, or holds a value swacheck cannot use. "
        "The deployments in it are not checked until it is fixed (exit 2)."
    },
    "help": {
        "text": "Fix the file at the place the message names; `swacheck check FILE` shows the "
        "same message.",
        "markdown": "Fix the file at the place the message names; `swacheck check FILE` shows "
        "the same message.",
    },
    "defaultConfiguration": {"level": "error"},
    "properties": {"tags": ["sglang", "input-error"]},
}


def as_data(result: RunResult) -> dict[str, Any]:
    from ..rules import RULES

    rules = list(RULES)
    index = {rule.CODE: i for i, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    base = base_dir(result.settings)
    for r, f, logical, key in fingerprinted(result, base):
        item: dict[str, Any] = {"ruleId": f.code}
        if f.code in index:
            item["ruleIndex"] = index[f.code]
        item["level"] = LEVEL[f.severity]
        text = f.message
        if f.fix is not None:
            text += f"\n{fix_label(f.fix).capitalize()}: {f.fix.description}"
        item["message"] = {"text": text}
        if f.location is not None:
            item["locations"] = [{"physicalLocation": physical_location(f.location, base)}]
        else:  # code scanning wants a location: the deployment's file, without a region
            item["locations"] = [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact_location(r.deployment.file, base)
                    }
                }
            ]
        item["locations"][0]["logicalLocations"] = [
            {"fullyQualifiedName": logical, "kind": "member"}
        ]
        if f.related:
            item["relatedLocations"] = [
                {
                    "id": i + 1,
                    "physicalLocation": physical_location(rel.location, base),
                    "message": {"text": rel.message},
                }
                for i, rel in enumerate(f.related)
            ]
        item["partialFingerprints"] = {FINGERPRINT: key}
        if labels := catalogue_labels(r):  # values from swacheck's catalogue, not a config.json
            item["properties"] = {"modelSource": labels}
        results.append(item)
    notifications = []
    for e in result.errors:
        note: dict[str, Any] = {"level": "error", "message": {"text": e.message}}
        notifications.append(note)
        if e.file == "swacheck":  # about the run as a whole ("no deployments found"): no file
            continue
        loc: dict[str, Any] = {"artifactLocation": artifact_location(e.file, base)}
        if e.line is not None:
            loc["region"] = {"startLine": e.line, "startColumn": e.column or 1}
        note["locations"] = [{"physicalLocation": loc}]
        results.append(
            {
                "ruleId": INPUT_ERROR,
                "ruleIndex": len(rules),
                "level": "error",
                "message": {"text": e.message},
                "locations": [{"physicalLocation": loc}],
                "partialFingerprints": {
                    FINGERPRINT: input_error_fingerprint(repo_path(e.file, base), e.message)
                },
            }
        )
    invocation: dict[str, Any] = {
        "executionSuccessful": not result.errors,
        "exitCode": result.exit_code,
    }
    if notifications:
        invocation["toolExecutionNotifications"] = json_data(notifications)
    run: dict[str, Any] = {}
    used = [
        {"deployment": r.deployment.file, "name": r.deployment.name, "modelSource": labels}
        for r in result.results
        if (labels := catalogue_labels(r))
    ]
    if used:  # every deployment whose model values come from swacheck's catalogue
        run["properties"] = {"modelSources": json_data(used)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "swacheck",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [rule_descriptor(rule) for rule in rules] + [INPUT_RULE],
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": json_data(results),
                **run,
            }
        ],
    }


def write(result: RunResult, out: TextIO) -> None:
    """The whole report of a run."""
    json.dump(as_data(result), out, indent=2)
    out.write("\n")


STREAMS = False  # the report needs the whole run: Stream keeps the units
Stream = partial(WholeRun, write=write)


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
