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


def plain_table(header: tuple[str, ...], rows: list, right: tuple[int, ...]) -> str:  # type: ignore[type-arg]
    """The table as aligned text for logs and pipes: rich's layout costs ~6 ms a table, this ~0.05.

    A ``*`` in the first column marks a row whose target and draft (prefill and decode) differ.
    """
    cells = [header] + [row.cells for row in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    lines = []
    for n, c in enumerate(cells):
        mark = "*" if n and rows[n - 1].differs else " "
        parts = [c[i].rjust(widths[i]) if i in right else c[i].ljust(widths[i]) for i in range(len(header))]
        lines.append(f"{mark} " + "  ".join(parts).rstrip())
    return "\n".join(lines)


def _print_table(console: Console, header: tuple[str, ...], rows: list, title_rows: bool = True) -> None:  # type: ignore[type-arg]
    """A rich table on a colour terminal; aligned plain text everywhere else (CI logs, pipes, files)."""
    right = (1, 2)
    if console.is_terminal or console.color_system is not None:
        table = Table(show_edge=True, pad_edge=False, header_style="bold")
        for i, name in enumerate(header):
            table.add_column(name, justify="right" if i in right else "left", overflow="fold")
        for row in rows:
            last = title_rows and row.cells[0] == "tuple"
            table.add_row(*row.cells, style="bold red" if row.differs else ("bold" if last else None))
        console.print(table)
    else:
        console.print(Text(plain_table(header, rows, right)), soft_wrap=True)


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
        rows = table_rows(r)
        if rows:
            _print_table(console, HEADER, rows)
        for f in r.findings:
            _finding(console, f)
        console.print()
    for pair in result.pairs:
        if settings.quiet:
            continue
        title = Text("PD pair: ", style="bold").append(f"{pair.prefill.deployment.file} (prefill) + {pair.decode.deployment.file} (decode)", style="bold")
        console.print(title.append(f"  ({pair.how})", style="dim"), soft_wrap=True)
        _print_table(console, ("value", "prefill", "decode", "prefill from", "decode from"), pair_rows(pair), title_rows=False)
        if not pair.findings:
            console.print(Text("  the two servers agree on everything SGLang compares", style="green"))
        console.print()
    if settings.verbose:
        for path in result.skipped:
            console.print(Text(f"skipped {path}: not a deployment", style="dim"), soft_wrap=True)
    if not settings.quiet:
        console.print(summary_line(result))
