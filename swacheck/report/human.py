"""The default terminal report: a table per deployment, findings with fixes, a summary.

Each finding is one ``file:line:col: CODE severity message`` line (clickable in editors and
greppable in CI logs), followed by its fix.

The report is built as lines of ``(text, style)`` segments and written by one of two writers:
on a terminal rich draws boxed, coloured tables as wide as the terminal (``COLUMNS`` if set),
never splitting a path or a tuple (a table that cannot fit so is written plain); everywhere else
(CI logs, pipes, files, and ``--color never``) the same lines are written as plain, aligned,
unwrapped text without importing rich at all. Colour is a separate choice: ``FORCE_COLOR`` or
``--color always`` colours the plain lines too (SGR codes), never changing their layout.
Rich's layout costs about 6 ms per table; the plain
writer about 0.05 ms, which is what a run over thousands of deployments in CI needs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

from ..model.records import Finding
from ..model.text import one_line
from ..results import DeploymentResult, RunResult, ServerPair
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


def _isatty(out: TextIO) -> bool:
    return out.isatty() if hasattr(out, "isatty") else False


def make_console(out: TextIO, color: str) -> Console:
    """A rich console for ``out`` ("auto" leaves NO_COLOR and FORCE_COLOR to rich, which honours both).

    On a terminal rich takes its width (``COLUMNS`` first, as rich reads it); elsewhere lines are
    never wrapped."""
    from rich.console import Console

    force = {"always": True, "never": False}.get(color)
    return Console(
        file=InertLines(out),  # type: ignore[arg-type]
        force_terminal=force,
        no_color=True if force is False else None,
        width=None if _isatty(out) else UNWRAPPED,
        highlight=False,
        emoji=False,
        markup=False,  # a str that reaches rich is text, never markup (the writers pass Text anyway)
    )


UNWRAPPED = 100_000  # the width of a console that is not a terminal: no line is wrapped


def wants_rich(out: TextIO, color: str) -> bool:
    """Rich's boxed tables only where a person looks at a terminal; plain lines elsewhere,
    whatever FORCE_COLOR says (it colours the plain lines: :func:`wants_color`)."""
    return color != "never" and _isatty(out)


def wants_color(out: TextIO, color: str) -> bool:
    """Colour: ``--color always``, else FORCE_COLOR, else a terminal, unless NO_COLOR or never."""
    if color in ("always", "never"):
        return color == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or _isatty(out)


def make_writer(out: TextIO, color: str) -> PlainWriter | RichWriter:
    """The writer for ``out``: rich on a terminal, plain lines (coloured or not) elsewhere."""
    if wants_rich(out, color):
        return RichWriter(out, color)
    return PlainWriter(out, wants_color(out, color))


NBSP = "\u00a0"  # holds a tuple's parts together while a line is wrapped


TUPLE = re.compile(r"\((?:[\w.+-]+, )+[\w.+-]*\)")  # (128, 131, 6419), (256, 128, None)


def wrap_words(line: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """``line`` wrapped to ``width`` between words only: a path (one word) or a tuple (its
    parts held together) is never split, and a line of one long word stays one line."""
    import textwrap

    held = TUPLE.sub(lambda m: m.group().replace(" ", NBSP), line)
    wrapped = textwrap.wrap(
        held,
        width=max(20, width),
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [w.replace(NBSP, " ") for w in wrapped] or [first]


SGR = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def sgr(text: str, style: str | None) -> str:
    """``text`` in ``style`` ("bold red", ...) as ANSI SGR codes; ``text`` is already escaped."""
    codes = ";".join(SGR[word] for word in (style or "").split() if word in SGR)
    return f"\x1b[{codes}m{text}\x1b[0m" if codes and text else text


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
    """Lines as plain, unwrapped text (SGR-coloured with ``color``), buffered and written in
    large chunks."""

    width = None  # no wrapping

    def __init__(self, out: TextIO, color: bool = False):
        self.out = out
        self.color = color
        self.buf: list[str] = []

    def line(self, *segments: Segment) -> None:
        if self.color:
            self.buf.append("".join(sgr(terminal(t), style) for t, style in segments))
        else:
            self.buf.append(terminal("".join(t for t, _ in segments)))
        if len(self.buf) > 4096:
            self.flush()

    def table(
        self,
        header: tuple[str, ...],
        rows: list[Row],
        title_rows: bool = True,
        right: tuple[int, ...] = RIGHT,
        **_: object,
    ) -> None:
        """The aligned table (:func:`plain_table`); the rich writer's style arguments do not
        apply."""
        self.buf.append(
            plain_table(
                header,
                [Row(tuple(terminal(c) for c in row.cells), row.differs) for row in rows],  # type: ignore[arg-type]
                right,
            )
        )

    def print(self, renderable: object = "", soft_wrap: bool = False) -> None:
        """An empty line (the rich writer's ``print("")``)."""
        assert renderable == "", "the plain writer prints lines, not renderables"
        self.line()

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
        (default: bold red where the row differs, bold for the tuple row). No path or tuple is
        ever split: a value column never wraps, another wraps only between words, and a table
        that cannot fit the terminal so is written as the plain table (one line per row)."""
        from rich.table import Table

        shown = [tuple(terminal(c) for c in row.cells) for row in rows]
        cells = [header, *shown]
        least = [
            max(len(c[i]) if i in right else max(map(len, c[i].split()), default=0) for c in cells)
            for i in range(len(header))
        ]
        if sum(least) + 3 * len(header) + 1 > self.console.width:
            lines = plain_table(header, [Row(c, r.differs) for c, r in zip(shown, rows)], right)
            for line in lines.split("\n"):
                self.console.print(cell(line), soft_wrap=True)
            return
        table = Table(show_edge=True, pad_edge=False, header_style="bold")
        for i, name in enumerate(header):
            table.add_column(
                cell(name),
                justify="right" if i in right else "left",
                overflow=overflow,  # type: ignore[arg-type]
                no_wrap=i in right,
                min_width=least[i],
            )
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
        self.console.print(renderable, soft_wrap=soft_wrap, crop=not soft_wrap)

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


def summary_lines(result: RunResult) -> str:
    """The summary line and, under it, the fixable line when there is one: through
    ``escape.terminal``, each ending in a line break."""
    lines = [summary_text(result), fixable_line(result)]
    return "".join(terminal(line) + "\n" for line in lines if line)


def fixable_line(result: RunResult) -> str:
    """``N fixable with --fix (M more with --unsafe-fixes)``, as ruff says it; "" when no
    finding has a fix with edits. With ``unsafe-fixes`` on, ``--fix`` applies both kinds."""
    s = result.summary
    safe, unsafe = s.fixable, s.unsafe_fixable
    if result.settings.unsafe_fixes:
        safe, unsafe = safe + unsafe, 0
    if not safe and not unsafe:
        return ""
    more = f" ({unsafe} more with --unsafe-fixes)" if unsafe else ""
    return f"{safe} fixable with --fix{more}"


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
        self.w = make_writer(out, settings.color)
        self.pairs: list[str] = []

    def unit(self, unit: RunResult) -> None:
        self._deployments(unit)
        self.pairs.extend(self._pairs(unit))

    def _deployments(self, unit: RunResult) -> None:
        w, quiet = self.w, self.settings.quiet
        verbose = self.settings.verbose
        for r in unit.results:
            if quiet:
                _findings(w, r.findings)
                continue
            if not r.findings and not verbose:
                continue  # quiet by default, like ruff: a pass is counted in the summary line
            _deployment(w, r)

    def _pairs(self, unit: RunResult) -> list[str]:
        if self.settings.quiet:
            return []
        w, verbose = self.w, self.settings.verbose
        return [
            w.capture(lambda pair=pair: _pair(w, pair, verbose))
            for pair in unit.pairs
            if verbose or pair.findings
        ]

    # checked in a worker process (workers.py): what unit() would write and keep, as text
    @property
    def parts(self) -> bool:
        """Whether :meth:`part` can stand for :meth:`unit`: plain lines (rich wraps to the
        terminal the parent writes to)."""
        return isinstance(self.w, PlainWriter)

    def part(self, unit: RunResult) -> tuple[str, list[str]]:
        """What :meth:`unit` writes, and the pair texts it keeps for the end; nothing written."""
        return self.w.capture(lambda: self._deployments(unit)), self._pairs(unit)  # type: ignore[union-attr]

    def take(self, part: tuple[str, list[str]]) -> None:
        """Write a :meth:`part` made in a worker, as :meth:`unit` would have."""
        text, pairs = part
        if text:
            self.w.raw(text)
        self.pairs.extend(pairs)

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
            if fixable := fixable_line(totals):
                w.line((fixable, "dim"))
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
