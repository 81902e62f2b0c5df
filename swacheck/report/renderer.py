"""The renderer contract: what every output-format module of swacheck/report/ provides.

A renderer module is registered in :data:`swacheck.report.REGISTRY` under its command and
format name, and satisfies :class:`Renderer`:

* ``Stream(settings, out)`` returns a :class:`ReportStream` that writes one report to the text
  stream ``out``: ``unit(part)`` for each piece once it is final -- a checked unit of the run
  (``check``, ``explain``), one explained error (``why``), one rule (``rules``, ``rule``) -- then
  ``finish(totals)`` once, with what needs every piece (the run's totals, the ``why`` report,
  the rule list);
* ``render(whole, out)`` writes the whole report at once, through ``Stream``;
* ``STREAMS`` is True when ``Stream`` writes each piece as it comes and keeps none of them (so
  ``check`` holds one unit in memory at a time, ``engine.run_units``), False for a format that
  needs every piece before it writes anything (one JSON document, SARIF, JUnit XML): its
  ``Stream`` keeps the pieces (:class:`Kept`, :class:`WholeRun`) and writes at ``finish``;
* optionally, a ``check`` stream whose ``parts`` is true can have its units checked in worker
  processes (``workers.py``): ``part(unit)`` returns, as plain picklable text, what
  ``unit(unit)`` would write and keep, writing nothing, and ``take(part)`` writes it as
  ``unit`` would have; ``unit(u)`` is ``take(part(u))``.

``tests/test_renderers.py`` checks every registered renderer against this contract.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TextIO, runtime_checkable


@runtime_checkable
class ReportStream(Protocol):
    """One report being written: its pieces one at a time, then its end."""

    def unit(self, part: Any) -> None:
        """Write (or keep, when the format needs everything first) one piece of the report."""

    def finish(self, totals: Any) -> None:
        """Write the end of the report: what needs every piece (pairs, the summary, brackets)."""


@runtime_checkable
class Renderer(Protocol):
    """An output format: a module of swacheck/report/ registered in ``REGISTRY``."""

    STREAMS: bool
    Stream: Callable[[Any, TextIO], ReportStream]
    render: Callable[[Any, TextIO], None]


def render_pieces(
    stream: Callable[[Any, TextIO], ReportStream],
    settings: Any,
    parts: Iterable[Any],
    totals: Any,
    out: TextIO,
) -> None:
    """The whole report at once: every piece through ``stream``, then its end."""
    s = stream(settings, out)
    for part in parts:
        s.unit(part)
    s.finish(totals)


def render_run(stream: Callable[[Any, TextIO], ReportStream], result: Any, out: TextIO) -> None:
    """A whole run (a ``results.RunResult``) as one unit, then its totals: ``render`` of the
    ``check`` and ``explain`` formats."""
    render_pieces(stream, result.settings, (result,), result, out)


class Kept:
    """The Stream of a format that writes only at the end: it keeps every piece, then calls
    ``write(pieces, totals, out)``."""

    def __init__(
        self, settings: Any, out: TextIO, write: Callable[[list[Any], Any, TextIO], None]
    ) -> None:
        self.settings = settings
        self.out = out
        self.write = write
        self.parts: list[Any] = []

    def unit(self, part: Any) -> None:
        self.parts.append(part)

    def finish(self, totals: Any) -> None:
        self.write(self.parts, totals, self.out)


class WholeRun(Kept):
    """The Stream of a ``check``/``explain`` format that needs the whole run: it keeps every
    unit and writes ``write(result, out)`` at the end, ``result`` being the totals with every
    unit's deployments, pairs and files (the result ``engine.run`` returns)."""

    def __init__(self, settings: Any, out: TextIO, write: Callable[[Any, TextIO], None]) -> None:
        super().__init__(settings, out, lambda units, totals, out: write(whole(units, totals), out))


def whole(units: list[Any], totals: Any) -> Any:
    """The run's totals with the units' deployments, pairs, unpaired servers and files; the
    totals themselves when they are the one unit (``render_run``)."""
    if len(units) == 1 and units[0] is totals:
        return totals
    return dataclasses.replace(
        totals,
        results=[r for u in units for r in u.results],
        pairs=[p for u in units for p in u.pairs],
        alone=[a for u in units for a in u.alone],
        files=[f for u in units for f in u.files],
    )
