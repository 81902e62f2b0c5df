"""``--format concise``: one ``file:line:col: CODE severity: message`` line per finding, nothing else.

For editors' problem matchers, ``grep`` and CI logs: no tables, no fixes, no related places.
A unit's findings are written in file and position order as soon as the unit is checked; a
finding without a position names its deployment's file. Then the summary line (not with
``-q``). Input errors go to stderr as with every format. Each line goes through
``escape.terminal`` (report/escape.py).
"""

from __future__ import annotations

from typing import TextIO

from ..results import RunResult
from ..settings import Settings
from .escape import terminal
from .renderer import render_run


def line(file: str, f) -> str:  # type: ignore[no-untyped-def]
    where = str(f.location) if f.location is not None else file
    return terminal(f"{where}: {f.code} {f.severity}: {f.message}")


def _order(f, file: str) -> tuple[str, int, int, str]:  # type: ignore[no-untyped-def]
    """By file, line and column; a finding without a position first in its deployment's file."""
    loc = f.location
    return (loc.file, loc.line, loc.column, f.code) if loc is not None else (file, 0, 0, f.code)


STREAMS = True  # Stream writes each unit as it comes and keeps none


class Stream:
    def __init__(self, settings: Settings, out: TextIO):
        self.settings = settings
        self.out = out

    def unit(self, unit: RunResult) -> None:
        self.take(self.part(unit))

    parts = True  # checked in a worker process (workers.py): part() stands for unit()

    def part(self, unit: RunResult) -> str:
        found = [(f, r.deployment.file) for r in unit.results for f in r.findings]
        found.sort(key=lambda pair: _order(*pair))
        return "".join(line(file, f) + "\n" for f, file in found)

    def take(self, part: str) -> None:
        if part:
            self.out.write(part)

    def finish(self, totals: RunResult) -> None:
        if not self.settings.quiet:
            from .human import summary_lines

            self.out.write(summary_lines(totals))


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
