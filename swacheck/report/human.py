"""The default terminal report: a rich table per deployment, findings with fixes, a summary.

Each finding is one ``file:line:col: CODE severity message`` line (clickable in editors and
greppable in CI logs), followed by its fix.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine import DeploymentResult, RunResult
from ..model import Finding
from .common import HEADER, edit_text, heading, pair_rows, table_rows

STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def make_console(out: TextIO, color: str) -> Console:
    # "auto" leaves NO_COLOR and FORCE_COLOR to rich, which honours both.
    force = {"always": True, "never": False}.get(color)
    is_tty = out.isatty() if hasattr(out, "isatty") else False
    width = None if is_tty else 120
    return Console(
        file=out,
        force_terminal=force,
        no_color=True if force is False else None,
        width=width,
        highlight=False,
        emoji=False,
    )


def _heading(r: DeploymentResult) -> Text:
    title, details = heading(r)
    return Text(title, style="bold").append(f"  ({details})", style="dim")


def _table(r: DeploymentResult) -> Table | None:
    rows = table_rows(r)
    if not rows:
        return None
    table = Table(show_edge=True, pad_edge=False, header_style="bold")
    for name in HEADER:
        justify = "right" if name in ("target", "draft") else "left"
        table.add_column(name, justify=justify, overflow="fold" if name.endswith("from") else "ellipsis")
    for row in rows:
        last = row.cells[0] == "tuple"
        table.add_row(*row.cells, style="bold red" if row.differs else ("bold" if last else None))
    return table


def _finding(console: Console, f: Finding) -> None:
    line = Text()
    line.append(f"{f.location}: " if f.location else "", style="bold")
    line.append(f.code, style=STYLE[f.severity])
    line.append(f" {f.severity}: ", style=STYLE[f.severity])
    line.append(f.message)
    console.print(line, soft_wrap=True)
    for rel in f.related:
        console.print(Text(f"    related: {rel.location}: {rel.message}", style="dim"), soft_wrap=True)
    if f.fix is not None:
        console.print(Text("    fix: ", style="green").append(f.fix.description, style=None), soft_wrap=True)
        for e in f.fix.edits:
            console.print(Text(f"      {e.file}:{e.line}:{e.column}: {edit_text(e)}", style="green"), soft_wrap=True)


def summary_line(result: RunResult) -> Text:
    s = result.summary
    text = Text()
    files = f"{s.files} file{'s' if s.files != 1 else ''}"
    text.append(f"Checked {s.deployments} deployment{'s' if s.deployments != 1 else ''} in {files}: ")
    parts = []
    for sev, label in (("error", "error"), ("warning", "warning"), ("note", "note")):
        n = s.counts[sev]
        parts.append((f"{n} {label}{'s' if n != 1 else ''}", STYLE[sev] if n else "green"))
    if s.suppressed:
        parts.append((f"{s.suppressed} suppressed", "dim"))
    if s.input_errors:
        parts.append((f"{s.input_errors} input error{'s' if s.input_errors != 1 else ''}", "bold red"))
    for i, (p, style) in enumerate(parts):
        text.append(p, style=style)
        text.append(", " if i < len(parts) - 1 else "")
    text.append(f"  (SGLang {result.settings.sglang_version}; exit {result.exit_code})", style="dim")
    return text


def render(result: RunResult, out: TextIO) -> None:
    settings = result.settings
    console = make_console(out, settings.color)
    for r in result.results:
        if settings.quiet:
            for f in r.findings:
                _finding(console, f)
            continue
        console.print(_heading(r), soft_wrap=True)
        if r.resolution.skip_reason:
            console.print(Text(f"  {r.resolution.skip_reason}", style="dim"), soft_wrap=True)
        table = _table(r)
        if table is not None:
            console.print(table)
        for f in r.findings:
            _finding(console, f)
        console.print()
    for pair in result.pairs:
        if settings.quiet:
            continue
        title = Text("PD pair: ", style="bold").append(f"{pair.prefill.deployment.file} (prefill) + {pair.decode.deployment.file} (decode)", style="bold")
        console.print(title.append(f"  ({pair.how})", style="dim"), soft_wrap=True)
        table = Table(show_edge=True, pad_edge=False, header_style="bold")
        for name in ("value", "prefill", "decode", "prefill from", "decode from"):
            table.add_column(name, justify="right" if name in ("prefill", "decode") else "left", overflow="fold")
        for row in pair_rows(pair):
            table.add_row(*row.cells, style="bold red" if row.differs else None)
        console.print(table)
        if not pair.findings:
            console.print(Text("  the two servers agree on everything SGLang compares", style="green"))
        console.print()
    if settings.verbose:
        for path in result.skipped:
            console.print(Text(f"skipped {path}: not a deployment", style="dim"), soft_wrap=True)
    if not settings.quiet:
        console.print(summary_line(result))
