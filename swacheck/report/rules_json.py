"""``swacheck rules --format json``: every rule as data, with its documentation."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, TextIO

from .renderer import Kept, render_pieces


def rule_json(rule: Any) -> dict[str, Any]:
    return {
        "code": rule.CODE,
        "name": rule.NAME,
        "severity": rule.SEVERITY,
        "summary": rule.SUMMARY,
        "documentation": (rule.__doc__ or "").strip(),
    }


def write(rules: list[Any], totals: Any, out: TextIO) -> None:
    out.write(json.dumps([rule_json(r) for r in rules], indent=2) + "\n")


STREAMS = False  # one JSON document: Stream keeps the rules
Stream = partial(Kept, write=write)


def render(rules: list[Any], out: TextIO) -> None:
    render_pieces(Stream, None, rules, rules, out)
