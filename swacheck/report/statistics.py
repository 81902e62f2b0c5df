"""``--statistics``: how many findings each rule made, most first, instead of the report.

    2  SWA101  error    unified-ring-mismatch
    1  SWA201  warning  page-size-replaced

then the summary line (not with ``-q``). Counted unit by unit (``Summary.by_code``), so memory
stays flat. With ``--output FILE`` the report goes to the file and this table to the terminal.
"""

from __future__ import annotations

from typing import TextIO

from ..results import RunResult
from ..settings import Settings
from .renderer import render_run


def table(totals: RunResult) -> str:
    from ..rules import BY_CODE

    counts = sorted(totals.summary.by_code.items(), key=lambda item: (-item[1], item[0]))
    if not counts:
        return ""
    width = len(str(counts[0][1]))
    lines = []
    for code, n in counts:
        rule = BY_CODE.get(code)
        severity = totals.summary.severity_of.get(code, rule.SEVERITY if rule else "")
        lines.append(f"{n:>{width}}  {code}  {severity:<7}  {rule.NAME if rule else ''}".rstrip())
    return "\n".join(lines) + "\n"


STREAMS = True  # the engine counts the findings; Stream keeps nothing


class Stream:
    def __init__(self, settings: Settings, out: TextIO):
        self.settings = settings
        self.out = out

    def unit(self, unit: RunResult) -> None:
        pass  # counted by the engine

    def finish(self, totals: RunResult) -> None:
        self.out.write(table(totals))
        if not self.settings.quiet:
            from .human import summary_lines

            self.out.write(summary_lines(totals))


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
