"""``swacheck rules``: one line per rule -- code, name, default severity and what it checks."""

from __future__ import annotations

from functools import partial
from typing import Any, TextIO

from .renderer import Kept, render_pieces


def write(rules: list[Any], totals: Any, out: TextIO) -> None:
    width = max(len(r.NAME) for r in rules)
    for rule in rules:
        out.write(f"{rule.CODE}  {rule.NAME:<{width}}  {rule.SEVERITY:<7}  {rule.SUMMARY}\n")


STREAMS = False  # the names are aligned to the longest: Stream keeps the rules
Stream = partial(Kept, write=write)


def render(rules: list[Any], out: TextIO) -> None:
    render_pieces(Stream, None, rules, rules, out)
