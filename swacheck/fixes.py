"""Span edits: build them from the positions the loader kept, show them as a diff, apply them.

An edit replaces the text between two 1-based positions. Edits only touch the value or the
line of the key they are about, so comments, quoting, key order, indentation, blank lines and
line endings elsewhere stay byte-for-byte the same (PyYAML cannot round-trip a file, so the
text is edited through the positions, never re-serialised).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
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


# --------------------------------------------------------------------------- applying


_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(slots=True, repr=False, eq=False)
class FileEdits:
    """The edits of one file, turned into character offsets of its text."""

    path: str
    original: str  # decoded text (a UTF-8 BOM is removed and remembered)
    bom: bool
    edits: list[Edit] = field(default_factory=list)
    skipped: int = 0  # edits dropped because they overlap an earlier one

    def newline(self) -> str:
        m = _BREAK.search(self.original)
        return m.group(0) if m else "\n"

    def offset(self, line: int, column: int) -> int:
        starts = [0] + [m.end() for m in _BREAK.finditer(self.original)]
        if line > len(starts):
            return len(self.original)
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.original)
        return min(start + column - 1, end)

    def result(self) -> str:
        text = self.original
        newline = self.newline()
        spans: list[tuple[int, int, str]] = []
        for e in self.edits:
            start, end = self.offset(e.line, e.column), self.offset(e.end_line, e.end_column)
            replacement = e.replacement.replace("\n", newline)
            if start == len(text) and replacement and text and not text.endswith(("\n", "\r")):
                replacement = newline + replacement  # inserting after a last line without a break
            spans.append((start, end, replacement))
        # Identical edits from two findings count once; insertions at one point are joined;
        # an edit that overlaps an earlier one is dropped (and counted) for the next run.
        kept: list[tuple[int, int, str]] = []
        for start, end, replacement in sorted(dict.fromkeys(spans), key=lambda s: (s[0], s[1])):
            if kept:
                p_start, p_end, p_repl = kept[-1]
                if start == end == p_start == p_end:
                    kept[-1] = (start, end, p_repl + replacement)
                    continue
                if start < p_end:
                    self.skipped += 1
                    continue
            kept.append((start, end, replacement))
        for start, end, replacement in reversed(kept):
            text = text[:start] + replacement + text[end:]
        return text


def read_for_edit(path: str, max_size: int) -> str:
    """The text edit positions refer to, with a UTF-8 BOM kept as its first character."""
    from .loading import read_text

    text = read_text(path, max_size)
    with open(path, "rb") as fh:
        bom = fh.read(3) == b"\xef\xbb\xbf"
    return "\ufeff" + text if bom else text


def plan(edits: list[Edit], read) -> list[FileEdits]:  # type: ignore[no-untyped-def]
    """Group edits by file. ``read(path) -> str`` gives the text the positions refer to."""
    by_file: dict[str, FileEdits] = {}
    for e in edits:
        fe = by_file.get(e.file)
        if fe is None:
            raw = read(e.file)
            bom = raw.startswith("\ufeff")
            fe = by_file[e.file] = FileEdits(e.file, raw[1:] if bom else raw, bom)
        fe.edits.append(e)
    return list(by_file.values())


def unified_diff(fe: FileEdits) -> str:
    import difflib

    from .report.escape import diff_path

    new = fe.result()
    if new == fe.original:
        return ""
    return "".join(
        difflib.unified_diff(
            fe.original.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=diff_path(f"a/{fe.path}"),  # quoted as git does when unusual (report/escape.py)
            tofile=diff_path(f"b/{fe.path}"),
        )
    )


def write_atomically(path: str, text: str, bom: bool) -> None:
    """Write next to the file and rename over it, keeping its permissions."""
    data = (("\ufeff" if bom else "") + text).encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    import tempfile  # only when a fix is written

    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".swacheck", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
