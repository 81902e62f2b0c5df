"""The default terminal report: a table per deployment, findings with fixes, a summary.

Each finding is one ``file:line:col: CODE severity message`` line (clickable in editors and
greppable in CI logs), followed by its fix.

The report is built as lines of ``(text, style)`` segments and written by one of two writers:
on a terminal (or with ``--color always`` / ``FORCE_COLOR``) rich draws boxed, coloured tables;
everywhere else (CI logs, pipes, files, ``--color never``) the same lines are written as plain,
aligned text without importing rich at all. Rich's layout costs about 6 ms per table; the plain
writer about 0.05 ms, which is what a run over thousands of deployments in CI needs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

from ..pairing import ServerPair
from ..records import Finding, one_line
from ..results import DeploymentResult, RunResult
from ..settings import Settings
from .common import (
    HEADER,
    Row,
    catalogue_labels,
    edit_text,
    fix_label,
    heading,
    pair_rows,
    table_rows,
)
from .escape import InertLines, terminal
from .renderer import render_run

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}
RIGHT = (1, 2)  # right-aligned columns: the two values

Segment = tuple[str, "str | None"]  # text and its rich style

# Text from the inputs (keys, values, paths) can hold control characters, e.g. a YAML "\e[2J"
# or a JSON "\u001b", bidi overrides, rich markup or a credential: printed raw they would drive
# the terminal or a CI log viewer (ANSI escape injection), reorder what is shown, become an OSC-8
# hyperlink, raise MarkupError or leak the secret. Both writers print every piece of text through
# ``escape.terminal`` (report/escape.py), and rich only ever gets it inside ``Text`` objects built
# by ``text``/``cell`` below, never as markup. explain and why write through the same writer.


def text(*segments: Segment) -> Text:
    """Rich text from ``(text, style)`` segments, each through :func:`escape.terminal`; never markup."""
    from rich.text import Text

    return Text.assemble(*((terminal(t), style) for t, style in segments))


def cell(value: str, style: str | None = None) -> Text:
    """A table cell or tree label for rich: :func:`text` of one segment (``add_row`` and ``Tree``
    would read a plain ``str`` as markup)."""
    return text((value, style))


def make_console(out: TextIO, color: str) -> Console:
    """A rich console for ``out`` ("auto" leaves NO_COLOR and FORCE_COLOR to rich, which honours both)."""
    from rich.console import Console

    force = {"always": True, "never": False}.get(color)
    is_tty = out.isatty() if hasattr(out, "isatty") else False
    return Console(
        file=InertLines(out),  # type: ignore[arg-type]
        force_terminal=force,
        no_color=True if force is False else None,
        width=None if is_tty else 120,
        highlight=False,
        emoji=False,
        markup=False,  # a str that reaches rich is text, never markup (the writers pass Text anyway)
    )


def wants_rich(out: TextIO, color: str) -> bool:
    """Rich tables where a person looks at a terminal or colour was asked for; plain text elsewhere."""
    if color == "never":
        return False
    if color == "always" or os.environ.get("FORCE_COLOR"):
        return True
    return out.isatty() if hasattr(out, "isatty") else False


def plain_table(header: tuple[str, ...], rows: list[Row], right: tuple[int, ...] = RIGHT) -> str:
    """The table as aligned text for logs and pipes.

    A ``*`` in the first column marks a row whose target and draft (prefill and decode) differ.
    """
    cells = [header] + [row.cells for row in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    lines = []
    for n, c in enumerate(cells):
        mark = "*" if n and rows[n - 1].differs else " "
        parts = [
            c[i].rjust(widths[i]) if i in right else c[i].ljust(widths[i])
            for i in range(len(header))
        ]
        lines.append(f"{mark} " + "  ".join(parts).rstrip())
    return "\n".join(lines)


class PlainWriter:
    """Lines as plain text, buffered and written in large chunks."""

    def __init__(self, out: TextIO):
        self.out = out
        self.buf: list[str] = []

    def line(self, *segments: Segment) -> None:
        self.buf.append(terminal("".join(t for t, _ in segments)))
        if len(self.buf) > 4096:
            self.flush()

    def table(self, header: tuple[str, ...], rows: list[Row], title_rows: bool = True) -> None:
        self.buf.append(
            plain_table(
                header, [Row(tuple(terminal(c) for c in row.cells), row.differs) for row in rows]
            )
        )  # type: ignore[arg-type]

    def flush(self) -> None:
        if self.buf:
            self.out.write("\n".join(self.buf) + "\n")
            self.buf.clear()

    def capture(self, draw: Callable[[], None]) -> str:
        """What ``draw`` writes, as text to :meth:`raw` later."""
        self.flush()
        draw()
        text = "\n".join(self.buf) + "\n" if self.buf else ""
        self.buf.clear()
        return text

    def raw(self, text: str) -> None:
        self.flush()
        self.out.write(text)


class RichWriter:
    """Lines and boxed tables through rich, with colour where the terminal has it."""

    def __init__(self, out: TextIO, color: str):
        self.console = make_console(out, color)

    @property
    def width(self) -> int:
        return self.console.width

    def line(self, *segments: Segment) -> None:
        self.console.print(text(*segments), soft_wrap=True)

    def table(
        self,
        header: tuple[str, ...],
        rows: list[Row],
        title_rows: bool = True,
        right: tuple[int, ...] = RIGHT,
        styles: list[str | None] | None = None,
        overflow: str | None = "fold",
    ) -> None:
        """A boxed table; every cell through :func:`cell`. ``styles`` gives each row's style
        (default: bold red where the row differs, bold for the tuple row)."""
        from rich.table import Table

        table = Table(show_edge=True, pad_edge=False, header_style="bold")
        for i, name in enumerate(header):
            table.add_column(
                cell(name), justify="right" if i in right else "left", overflow=overflow
            )  # type: ignore[arg-type]
        for n, row in enumerate(rows):
            last = title_rows and row.cells[0] == "tuple"
            style = (
                styles[n]
                if styles is not None
                else "bold red"
                if row.differs
                else ("bold" if last else None)
            )
            table.add_row(*(cell(c) for c in row.cells), style=style)
        self.console.print(table)

    def print(self, renderable: RenderableType = "", soft_wrap: bool = False) -> None:
        """A renderable built from :func:`text`/:func:`cell` (a tree); "" is an empty line."""
        self.console.print(renderable, soft_wrap=soft_wrap)

    def flush(self) -> None:
        pass

    def capture(self, draw: Callable[[], None]) -> str:
        with self.console.capture() as captured:
            draw()
        return captured.get()

    def raw(self, text: str) -> None:
        self.console.file.write(text)


def finding_lines(f: Finding) -> Iterable[tuple[Segment, ...]]:
    """A finding as lines: the ``file:line:col: CODE severity: message`` line, related places, the fix."""
    style = STYLE[f.severity]
    yield (
        (f"{f.location}: " if f.location else "", "bold"),
        (f.code, style),
        (f" {f.severity}: ", style),
        (f.message, None),
    )
    for rel in f.related:
        yield ((f"    related: {rel.location}: {rel.message}", "dim"),)
    if f.fix is not None:
        yield ((f"    {fix_label(f.fix)}: ", "green"), (f.fix.description, None))
        for e in f.fix.edits:
            yield ((f"      {e.file}:{e.line}:{e.column}: {edit_text(e)}", "green"),)


def summary_line(result: RunResult) -> list[Segment]:
    s = result.summary
    files = f"{s.files} file{'s' if s.files != 1 else ''}"
    skipped = [
        f"{n} {what}{'s' if n != 1 else ''} skipped"
        for n, what in ((s.skipped_deployments, "deployment"), (s.skipped_files, "file"))
        if n
    ]
    counted = f" ({', '.join(skipped)})" if skipped else ""
    line: list[Segment] = [
        (
            f"Checked {s.deployments} deployment{'s' if s.deployments != 1 else ''} in {files}{counted}: ",
            None,
        )
    ]
    parts = []
    for sev in ("error", "warning", "note"):
        n = s.counts[sev]
        parts.append((f"{n} {sev}{'s' if n != 1 else ''}", STYLE[sev] if n else "green"))
    if s.suppressed:
        parts.append((f"{s.suppressed} suppressed", "dim"))
    if s.baselined:
        parts.append((f"{s.baselined} in the baseline", "dim"))
    if s.input_errors:
        parts.append(
            (f"{s.input_errors} input error{'s' if s.input_errors != 1 else ''}", "bold red")
        )
    for i, part in enumerate(parts):
        line.append(part)
        if i < len(parts) - 1:
            line.append((", ", None))
    line.append((f"  ({_releases(result)}; exit {result.exit_code})", "dim"))
    return line


def _releases(result: RunResult) -> str:
    """The release the run was checked with, and the ones the files chose (with their source)."""
    s, default = result.summary, f"SGLang {result.settings.sglang_version}"
    if not s.releases:
        return default
    if len(s.releases) == 1 and sum(s.releases.values()) == s.deployments:
        return one_line(next(iter(s.releases)))[:200]
    chosen = "; ".join(
        f"{n} deployment{'s' if n != 1 else ''} with {one_line(text)[:200]}"
        for text, n in sorted(s.releases.items())
    )
    return f"{default}; {chosen}"


def summary_text(result: RunResult) -> str:
    return "".join(text for text, _ in summary_line(result))


def _findings(w: PlainWriter | RichWriter, findings: list[Finding]) -> None:
    for f in findings:
        for segments in finding_lines(f):
            w.line(*segments)


def _deployment(w: PlainWriter | RichWriter, r: DeploymentResult) -> None:
    """A deployment in full: its heading, table and findings (with findings, or with -v)."""
    title, details = heading(r)
    w.line((title, "bold"), (f"  ({details})", "dim"))
    if r.resolution.skip_reason:
        w.line((f"  {r.resolution.skip_reason}", "dim"))
    for label in catalogue_labels(r):
        w.line((f"  model values from {label} (no config.json found)", "dim"))
    rows = table_rows(r)
    if rows:
        w.table(HEADER, rows)
    _findings(w, r.findings)
    w.line()


STREAMS = True  # Stream writes each unit as it comes and keeps none


class Stream:
    """The report written unit by unit (``engine.run_units``): each deployment as soon as its unit
    is checked; the PD pairs (captured as text), skipped files and the summary at the end."""

    def __init__(self, settings: Settings, out: TextIO):
        self.settings = settings
        self.w: PlainWriter | RichWriter = (
            RichWriter(out, settings.color) if wants_rich(out, settings.color) else PlainWriter(out)
        )
        self.pairs: list[str] = []

    def unit(self, unit: RunResult) -> None:
        w, quiet = self.w, self.settings.quiet
        verbose = self.settings.verbose
        for r in unit.results:
            if quiet:
                _findings(w, r.findings)
                continue
            if not r.findings and not verbose:
                continue  # quiet by default, like ruff: a pass is counted in the summary line
            _deployment(w, r)
        if not quiet:
            self.pairs.extend(
                w.capture(lambda pair=pair: _pair(w, pair, verbose))
                for pair in unit.pairs
                if verbose or pair.findings
            )

    def finish(self, totals: RunResult) -> None:
        w = self.w
        after_line = False  # one-line pairs (servers that agree) are listed without blank lines
        for text in self.pairs:
            one_line = text.count("\n") == 1
            if after_line and not one_line:
                w.raw("\n")
            w.raw(text)
            after_line = one_line
        if after_line:
            w.raw("\n")
        if self.settings.verbose:
            for path in totals.skipped:
                w.line(
                    (
                        f"skipped {path}: "
                        f"{totals.skipped_why.get(path) or getattr(path, 'reason', 'not a deployment')}",
                        "dim",
                    )
                )
        if not self.settings.quiet:
            w.line(*summary_line(totals))
        w.flush()


def _pair(w: PlainWriter | RichWriter, pair: ServerPair, verbose: bool = True) -> None:
    """A PD pair: every compared value with -v; otherwise one line when the servers agree, and
    only the differing values when they do not."""
    files = f"{pair.prefill.deployment.file} (prefill) + {pair.decode.deployment.file} (decode)"
    agree = not pair.findings and all(p.value == d.value for _, p, d in pair.rows())
    if not verbose and agree:  # the usual pair: one line, no table to build
        w.line(
            ("PD pair: ", "bold"),
            (files, "bold"),
            (f"  ({pair.how})", "dim"),
            ("  the two servers agree on everything SGLang compares", "green"),
        )
        return
    rows = pair_rows(pair)
    differing = [row for row in rows if row.differs]
    w.line(("PD pair: ", "bold"), (files, "bold"), (f"  ({pair.how})", "dim"))
    w.table(
        ("value", "prefill", "decode", "prefill from", "decode from"),
        rows if verbose else differing,
        title_rows=False,
    )
    if not verbose and len(differing) < len(rows):
        w.line((f"  {len(rows) - len(differing)} other values agree (-v shows them)", "dim"))
    if not pair.findings and not differing:
        w.line(("  the two servers agree on everything SGLang compares", "green"))
    w.line()


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
