"""The report as GitHub-flavoured Markdown (used for the GitHub Actions step summary).

Per deployment: a heading, the target/draft table with the same rows as the human format's
table (differing rows in bold), then the findings with their fixes; then the summary line.
The table rows and the edit wording are plain data here, so that other formats can share them.
Every piece of text goes through ``escape.markdown`` or ``escape.markdown_code`` (report/escape.py).
"""

from __future__ import annotations

from ..engine import RunResult
from ..model import Finding
from .common import HEADER, Row, edit_text, fix_label, heading, table_rows
from .escape import markdown as escape
from .escape import markdown_code as code


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
    lines = [f"- **{escape(f.code)}** {escape(f.severity)}{where}: {escape(f.message)}"]
    for rel in f.related:
        lines.append(f"  - related: {code(str(rel.location))}: {escape(rel.message)}")
    if f.fix is not None:
        lines.append(f"  - {fix_label(f.fix)}: {escape(f.fix.description)}")
        for e in f.fix.edits:
            lines.append(f"    - {code(f'{e.file}:{e.line}:{e.column}')}: {escape(edit_text(e))}")
    return lines


def render_markdown(result: RunResult) -> str:
    from .human import summary_text

    lines = ["## swacheck", ""]
    for r in result.results:
        title, details = heading(r)
        lines.append(f"### {escape(title)}  ({escape(details)})")
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
    lines.append(f"**{escape(summary_text(result))}**")
    lines.append("")
    return "\n".join(lines)
