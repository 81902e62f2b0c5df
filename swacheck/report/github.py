"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

    ::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=SWA101 unified-ring-mismatch::message

GitHub shows at most 10 error and 10 warning annotations per step, so at most ``LIMIT``
annotations are printed per level (errors, then warnings, then notices); the rest are printed
as plain ``file:line:col: CODE severity: message`` lines followed by one line saying how many
were not annotated. Then the summary line. When ``GITHUB_STEP_SUMMARY`` names a file, the full
report is appended to it as Markdown (report/markdown.py).
"""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import TextIO

from ..model.records import Finding, InputError, Location
from ..model.recordtype import record
from ..results import RunResult
from ..rules import BY_CODE
from .common import fix_label
from .escape import terminal, workflow_message, workflow_property
from .renderer import WholeRun, render_run
from .sarif import base_dir, repo_path

LIMIT = 10
LEVELS = (
    ("error", "error", "error"),
    ("warning", "warning", "warning"),
    ("note", "notice", "note"),
)
NO_FILE = {"-", "<stdin>", "<input>", "", "swacheck"}  # "swacheck": the run as a whole


def command(level: str, properties: dict[str, object], lines: list[str]) -> str:
    """A workflow command; every property and line through report/escape.py."""
    props = ",".join(f"{key}={workflow_property(str(value))}" for key, value in properties.items())
    return f"::{level}{' ' + props if props else ''}::{workflow_message(*lines)}"


def location_properties(loc: Location | None, base: str | None = None) -> dict[str, object]:
    """file/line/col/endLine/endColumn; never a column range across lines (GitHub rejects it).
    ``file`` is relative to ``base`` (``sarif.base_dir``: the workspace, not the step's
    working directory, since GitHub resolves it against the repository root)."""
    if loc is None or loc.file in NO_FILE:
        return {}
    props: dict[str, object] = {"file": repo_path(loc.file, base), "line": loc.line}
    if loc.end_line == loc.line:
        props["col"] = loc.column
        props["endLine"] = loc.end_line
        if loc.end_column > loc.column:
            props["endColumn"] = loc.end_column
    else:
        props["endLine"] = max(loc.end_line, loc.line)
    return props


def finding_message(f: Finding) -> list[str]:
    """The annotation's lines: the message, related places, the fix."""
    lines = [f.message]
    for rel in f.related:
        lines.append(f"related: {rel.location}: {rel.message}")
    if f.fix is not None:
        lines.append(f"{fix_label(f.fix)}: {f.fix.description}")
    return lines


def title(code: str) -> str:
    rule = BY_CODE.get(code)
    return f"{code} {rule.NAME}" if rule is not None else code


@record
class Item:
    """One finding as a workflow command, and as a plain log line."""

    annotation: str  # the workflow command
    plain: str  # the same as one plain log line, for when the level's limit is reached


def _finding_item(f: Finding, level: str, base: str | None = None) -> Item:
    props = location_properties(f.location, base)
    props["title"] = title(f.code)
    plain = f"{f.location}: " if f.location else ""
    plain += f"{f.code} {f.severity}: {f.message}"
    return Item(command(level, props, finding_message(f)), plain)


def _error_item(e: InputError, base: str | None = None) -> Item:
    props: dict[str, object] = {}
    if e.file not in NO_FILE:
        props["file"] = repo_path(e.file, base)
        if e.line is not None:
            props["line"] = e.line
            props["col"] = e.column or 1
    props["title"] = "swacheck input error"
    return Item(command("error", props, [e.message]), str(e))


def write(result: RunResult, out: TextIO) -> None:
    """The whole report of a run."""
    base = base_dir(result.settings)
    by_severity: dict[str, list[Item]] = {"error": [], "warning": [], "note": []}
    by_severity["error"].extend(_error_item(e, base) for e in result.errors)
    levels = {sev: level for sev, level, _ in LEVELS}
    for r in result.results:
        for f in r.findings:
            by_severity[f.severity].append(_finding_item(f, levels[f.severity], base))
    for sev, _level, _word in LEVELS:
        for item in by_severity[sev][:LIMIT]:
            out.write(item.annotation + "\n")
    for sev, _level, word in LEVELS:
        rest = by_severity[sev][LIMIT:]
        for (
            item
        ) in rest:  # plain log lines: escape.terminal leaves no line break and no workflow command
            out.write(terminal(item.plain) + "\n")
        if rest:
            out.write(
                f"swacheck: {len(rest)} more {word}{'s' if len(rest) != 1 else ''} "
                f"not shown as annotations (limit {LIMIT} per level)\n"
            )
    from .human import summary_text

    if not result.settings.quiet:
        out.write(terminal(summary_text(result)) + "\n")
    write_step_summary(result)


def write_step_summary(result: RunResult) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    from .markdown import MAX_BYTES, render_markdown

    try:
        used = os.path.getsize(path) if os.path.isfile(path) else 0
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(render_markdown(result, max(MAX_BYTES - used, 0)))
    except OSError as exc:
        print(
            f"{path}: cannot write the GitHub step summary: {exc.strerror or exc}", file=sys.stderr
        )


STREAMS = False  # the report needs the whole run: Stream keeps the units
Stream = partial(WholeRun, write=write)


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
