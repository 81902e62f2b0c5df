"""The report as GitHub-flavoured Markdown (used for the GitHub Actions step summary).

The summary line first; then the input errors; then each deployment with findings, worst first:
a heading, the target/draft table with the same rows as the human format's table (differing rows
in bold), the findings with their fixes; then every deployment without findings on one line.
The whole stays under GitHub's 1 MiB limit for a step summary (``MAX_BYTES``): what does not fit
is counted in a closing line, never cut in the middle.
The table rows and the edit wording are plain data here, so that other formats can share them.
Every piece of text goes through ``escape.markdown`` or ``escape.markdown_code`` (report/escape.py).
"""

from __future__ import annotations

from ..model.records import Finding
from ..results import DeploymentResult, RunResult
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


# GitHub drops a step summary larger than 1 MiB (1,048,576 bytes) whole; stay below it, with room
# for what other tools append in the same step.
MAX_BYTES = 1_000_000


def _deployment_block(r: DeploymentResult) -> list[str]:
    """A deployment with findings: heading, the target/draft table, the findings with fixes."""
    title, details = heading(r)
    lines = [f"### {escape(title)}  ({escape(details)})", ""]
    if r.resolution.skip_reason:
        lines.extend([escape(r.resolution.skip_reason), ""])
    rows = table_rows(r)
    if rows:
        lines.extend(table(rows))
        lines.append("")
    for f in r.findings:
        lines.extend(finding_lines(f))
    lines.append("")
    return lines


def _passing_line(r: DeploymentResult) -> str:
    """A deployment without findings, on one line: where, what, and the tuple SGLang compares."""
    title, details = heading(r)
    res = r.resolution
    tail = ""
    if res.target is not None and res.mode != "skipped":
        tail = f": {code(str(res.target.tuple(res.mode, res.profile)))}"
    elif res.skip_reason:
        tail = f": not checked, {escape(res.skip_reason)}"
    return f"- {escape(title)}  ({escape(details)}){tail}"


def render_markdown(result: RunResult, max_bytes: int = MAX_BYTES) -> str:
    """The step summary: the summary line, input errors, the deployments with findings (worst
    first, in full), then every passing deployment on one line. Blocks that would take the text
    past ``max_bytes`` (UTF-8) are left out and counted in a closing line."""
    from .human import summary_text

    rank = {"note": 0, "warning": 1, "error": 2}
    failing = [r for r in result.results if r.findings]
    failing.sort(
        key=lambda r: -max(rank[f.severity] for f in r.findings)
    )  # stable: run order within a level
    passing = [r for r in result.results if not r.findings]
    out: list[str] = []
    size = 0
    left_out = {"input errors": 0, "deployments with findings": 0, "passing deployments": 0}
    reserve = 400  # the closing line

    def add(block: list[str], kind: str | None = None) -> bool:
        nonlocal size
        text = "\n".join(block) + "\n"
        n = len(text.encode("utf-8"))
        if size + n + reserve > max_bytes:
            if kind is not None:  # headings and blank lines are not counted
                left_out[kind] += 1
            return False
        out.append(text)
        size += n
        return True

    add(["## swacheck", "", f"**{escape(summary_text(result))}**", ""])
    if result.errors:
        add(["### Input errors", ""])
        for err in result.errors:
            add([f"- {code(str(err))}"], "input errors")
        add([""])
    for r in failing:
        add(_deployment_block(r), "deployments with findings")
    if passing:
        add(
            [
                f"### {len(passing)} deployment{'s' if len(passing) != 1 else ''} without findings",
                "",
            ]
        )
        for r in passing:
            add([_passing_line(r)], "passing deployments")
        add([""])
    missing = [f"{n} {kind}" for kind, n in left_out.items() if n]
    if missing:
        out.append(
            f"_Not shown: {', '.join(missing)}. GitHub keeps a step summary only under 1 MiB; "
            "the job log and `--format json` have everything._\n"
        )
    return "".join(out)
