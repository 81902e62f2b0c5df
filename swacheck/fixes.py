"""Span edits: build them from the positions the loader kept (applying them comes later).

An edit replaces the text between two 1-based positions. Edits only touch the value or the
line of the key they are about, so comments and layout elsewhere are untouched.
"""

from __future__ import annotations

import json
from typing import Any

from .loading import Mapping, Pair
from .model import Edit, Location


def render_scalar(value: Any, json_style: bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value) if json_style else str(value)


def replace(loc: Location, text: str) -> Edit:
    return Edit(loc.file, loc.line, loc.column, loc.end_line, loc.end_column, text)


def delete_line_of(pair: Pair, mapping: Mapping | None) -> Edit | None:
    """Remove a ``key: value`` entry of a block mapping (its whole lines). None for flow style."""
    if mapping is None or mapping.flow:
        return None
    end = pair.value.loc
    # A value that ends at column 1 of a later line (block scalars) already ends its lines.
    last_line = end.end_line - 1 if end.end_column == 1 and end.end_line > pair.key_loc.line else end.end_line
    return Edit(pair.key_loc.file, pair.key_loc.line, 1, last_line + 1, 1, "")


def insert_after(pair: Pair, mapping: Mapping | None, key: str, value: Any) -> Edit | None:
    """Add ``key: value`` on a new line after ``pair``, indented like it. None for flow style."""
    if mapping is None or mapping.flow:
        return None
    end = pair.value.loc
    line = end.end_line if end.end_column == 1 and end.end_line > pair.key_loc.line else end.end_line + 1
    indent = " " * (pair.key_loc.column - 1)
    text = f"{indent}{key}: {render_scalar(value, False)}\n"
    return Edit(pair.key_loc.file, line, 1, line, 1, text)


def insert_into(mapping: Mapping | None, key: str, value: Any) -> Edit | None:
    """Add ``key: value`` after the last entry of a block mapping."""
    if mapping is None or mapping.flow or not mapping.pairs:
        return None
    last = max(mapping.pairs.values(), key=lambda p: (p.value.loc.end_line, p.value.loc.end_column))
    return insert_after(last, mapping, key, value)
