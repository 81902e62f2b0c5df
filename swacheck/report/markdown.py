"""The report as GitHub-flavoured Markdown (used for the GitHub Actions step summary).

Per deployment: a heading, the target/draft table with the same rows as the human format's
table (differing rows in bold), then the findings with their fixes; then the summary line.
The table rows and the edit wording are plain data here, so that other formats can share them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engine import DeploymentResult, RunResult
from ..model import Edit, Finding
from .common import pool_mode

HEADER = ("field", "target", "draft", "target from", "draft from")


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[str, str, str, str, str]
    differs: bool


def fmt(value: object) -> str:
    return "None" if value is None else str(value)


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
    t_tuple = t.tuple(mode, res.profile)
    d_tuple = d.tuple(mode, res.profile) if d else None
    rows.append(
        Row(
            (
                "tuple",
                fmt(t_tuple),
                fmt(d_tuple) if d_tuple else "-",
                "compared by SGLang" if res.checked_by_sglang else "not compared by SGLang (no PD)" if d else "",
                "",
            ),
            d_tuple is not None and d_tuple != t_tuple,
        )
    )
    return rows


def edit_text(e: Edit) -> str:
    """What an edit does, in the human format's words."""
    if e.replacement == "":
        n = e.end_line - e.line
        return f"delete line{'s' if n > 1 else ''} {e.line}" + (f"-{e.end_line - 1}" if n > 1 else "")
    if e.line == e.end_line and e.column == e.end_column:
        return f"insert {e.replacement.strip()!r}"
    return f"replace with {e.replacement!r}"


_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#~])")


def escape(text: str) -> str:
    """Plain text as inline Markdown: no emphasis, links, HTML or table breaks; one line."""
    text = _SPECIAL.sub(r"\\\1", text)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def code(text: str) -> str:
    """Inline code span that survives backticks and pipes in the text (GFM tables)."""
    text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| " + " | ".join(HEADER) + " |",
        "|:--|--:|--:|:--|:--|",
    ]
    for row in rows:
        name, *rest = row.cells
        cells = [code(name)] + [escape(c) for c in rest]
        if row.differs:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def finding_lines(f: Finding) -> list[str]:
    where = f" at {code(str(f.location))}" if f.location else ""
    lines = [f"- **{f.code}** {f.severity}{where}: {escape(f.message)}"]
    for rel in f.related:
        lines.append(f"  - related: {code(str(rel.location))}: {escape(rel.message)}")
    if f.fix is not None:
        lines.append(f"  - fix: {escape(f.fix.description)}")
        for e in f.fix.edits:
            lines.append(f"    - {code(f'{e.file}:{e.line}:{e.column}')}: {escape(edit_text(e))}")
    return lines


def render_markdown(result: RunResult) -> str:
    from .human import _heading, summary_line

    lines = ["## swacheck", ""]
    for r in result.results:
        lines.append(f"### {escape(_heading(r).plain)}")
        lines.append("")
        if r.resolution.skip_reason:
            lines.extend([escape(r.resolution.skip_reason), ""])
        rows = table_rows(r)
        if rows:
            lines.extend(table(rows))
            lines.append("")
        if r.findings:
            for f in r.findings:
                lines.extend(finding_lines(f))
            lines.append("")
    if result.errors:
        lines.extend(["### Input errors", ""])
        for err in result.errors:
            lines.append(f"- {code(str(err))}")
        lines.append("")
    lines.append(f"**{escape(summary_line(result).plain)}**")
    lines.append("")
    return "\n".join(lines)
