"""``swacheck rule CODE``: a rule's full documentation (its module's docstring)."""

from __future__ import annotations

from typing import Any, TextIO

from .renderer import render_pieces

STREAMS = True


class Stream:
    def __init__(self, settings: Any, out: TextIO):
        self.out = out

    def unit(self, rule: Any) -> None:
        self.out.write(f"{rule.CODE} ({rule.NAME}), default severity: {rule.SEVERITY}\n\n")
        self.out.write((rule.__doc__ or "").strip() + "\n")

    def finish(self, totals: Any) -> None:
        pass


def render(rule: Any, out: TextIO) -> None:
    render_pieces(Stream, None, (rule,), rule, out)
