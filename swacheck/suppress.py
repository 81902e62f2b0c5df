"""Inline suppressions in YAML files: ``# swacheck: ignore[SWA101] reason text``.

A comment at the end of a line suppresses the listed codes (or prefixes such as ``SWA1``) on
that line; a comment alone on its line suppresses them on the next line. JSON has no comments:
use ``per-file-ignores`` in the configuration file instead.
"""

from __future__ import annotations

import re
from dataclasses import field

from .model.records import Location
from .model.recordtype import record

PATTERN = re.compile(r"#\s*swacheck:\s*ignore\[([^\]]*)\](.*)$")
_CODE = re.compile(r"SWA\d{0,3}")


@record
class Suppression:
    """A ``# swacheck: ignore[...]`` comment: where, the codes, the reason and the line it covers."""

    location: Location  # the comment
    codes: tuple[str, ...]
    reason: str
    target_line: int
    removal: Location  # the span that deleting the comment removes (a whole line when it is alone)
    used: set[str] = field(default_factory=set)

    def matches(self, code: str, line: int) -> bool:
        return line == self.target_line and any(code.startswith(c) for c in self.codes)


def scan(text: str, path: str) -> list[Suppression]:
    """Every suppression comment of a YAML file (a cheap text scan: most files have none)."""
    if "swacheck:" not in text:
        return []
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = PATTERN.search(line)
        if m is None or _inside_quotes(line, m.start()):
            continue
        codes = tuple(c.strip().upper() for c in m.group(1).split(",") if c.strip())
        if not codes or not all(_CODE.fullmatch(c) for c in codes):
            continue
        start = m.start() + 1
        loc = Location(path, number, start, number, len(line) + 1)
        alone = not line[: m.start()].strip()
        if alone:
            removal = Location(path, number, 1, number + 1, 1)
        else:
            removal = Location(
                path, number, len(line[: m.start()].rstrip()) + 1, number, len(line) + 1
            )
        out.append(
            Suppression(loc, codes, m.group(2).strip(), number + 1 if alone else number, removal)
        )
    return out


def _inside_quotes(line: str, index: int) -> bool:
    before = line[:index]
    return before.count('"') % 2 == 1 or before.count("'") % 2 == 1
