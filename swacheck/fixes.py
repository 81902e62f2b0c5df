"""Span edits: build them from the positions the loader kept, show them as a diff, apply them.

An edit replaces the text between two 1-based positions. Edits only touch the value or the
line of the key they are about, so comments, quoting, key order, indentation, blank lines and
line endings elsewhere stay byte-for-byte the same (PyYAML cannot round-trip a file, so the
text is edited through the positions, never re-serialised).
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from typing import Any

from .model.records import Edit, Location
from .model.recordtype import record
from .model.tree import Mapping, Pair


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


def _block(pair: Pair, mapping: Mapping | None) -> bool:
    """Whether ``pair`` is written on lines of its own in a block mapping: not in a flow mapping
    (``{a: 1, b: 2}``), also not one that a merge key brings in (``<<: {page-size: 64, ...}``),
    where editing the key's whole lines would take its neighbours along."""
    if mapping is None or mapping.flow:
        return False
    source = mapping.merged.get(pair.key) if mapping.merged else None
    return source is None or (not source.flow and source.pairs.get(pair.key) is pair)


def delete_line_of(pair: Pair, mapping: Mapping | None) -> Edit | None:
    """Remove a ``key: value`` entry of a block mapping (its whole lines). None for flow style."""
    if not _block(pair, mapping):
        return None
    end = pair.value.loc
    # A value that ends at column 1 of a later line (block scalars) already ends its lines.
    last_line = (
        end.end_line - 1
        if end.end_column == 1 and end.end_line > pair.key_loc.line
        else end.end_line
    )
    return Edit(pair.key_loc.file, pair.key_loc.line, 1, last_line + 1, 1, "")


def replace_entry(
    pair: Pair, mapping: Mapping | None, entries: tuple[tuple[str, Any], ...]
) -> Edit | None:
    """Write ``key: value`` lines in place of a block mapping entry (its whole lines). None for flow style."""
    edit = delete_line_of(pair, mapping)
    if edit is None:
        return None
    indent = " " * (pair.key_loc.column - 1)
    text = "".join(f"{indent}{key}: {render_scalar(value, False)}\n" for key, value in entries)
    return Edit(edit.file, edit.line, edit.column, edit.end_line, edit.end_column, text)


def insert_after(pair: Pair, mapping: Mapping | None, key: str, value: Any) -> Edit | None:
    """Add ``key: value`` on a new line after ``pair``, indented like it. None for flow style."""
    if not _block(pair, mapping):
        return None
    end = pair.value.loc
    line = (
        end.end_line
        if end.end_column == 1 and end.end_line > pair.key_loc.line
        else end.end_line + 1
    )
    indent = " " * (pair.key_loc.column - 1)
    text = f"{indent}{key}: {render_scalar(value, False)}\n"
    return Edit(pair.key_loc.file, line, 1, line, 1, text)


# --------------------------------------------------------------------------- applying


_BREAK = re.compile(r"\r\n|\r|\n")


class Overlap(ValueError):
    """Two different edits of one fix run change the same text."""


def line_starts(text: str) -> list[int]:
    """Character offset of each line's start; lines break at CR, LF and CRLF, as the loader counts them."""
    return [0] + [m.end() for m in _BREAK.finditer(text)]


def offset(text: str, starts: list[int], line: int, column: int) -> int:
    if line > len(starts):
        return len(text)
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    return min(start + column - 1, end)


def _line(text: str, starts: list[int], line: int) -> str:
    return text[starts[line - 1] : starts[line] if line < len(starts) else len(text)]


def spans(
    text: str, edits: list[Edit], starts: list[int] | None = None
) -> list[tuple[int, int, str]]:
    """Each edit as (start, end, replacement) character offsets of ``text``, its line breaks
    written as the file's own. ``starts``: ``line_starts(text)``, when known."""
    m = _BREAK.search(text)
    newline = m.group(0) if m else "\n"
    if starts is None:
        starts = line_starts(text)
    out = []
    for e in edits:
        end_line = e.end_line
        if not e.replacement and e.column == 1 and e.end_column == 1:
            # deleting whole lines: a block scalar's span takes in the blank lines after it
            # (chomped, not content); they belong to the layout around the entry, so they stay
            while (
                end_line - 1 > e.line
                and end_line - 1 <= len(starts)
                and not _line(text, starts, end_line - 1).strip()
            ):
                end_line -= 1
        start, end = (
            offset(text, starts, e.line, e.column),
            offset(text, starts, end_line, e.end_column),
        )
        replacement = e.replacement.replace("\n", newline)
        if (
            replacement.endswith(newline)
            and start == len(text)
            and text
            and not text.endswith(("\n", "\r"))
        ):
            replacement = newline + replacement  # a new line after a last line without a break
        elif (
            start == end
            and replacement
            and not replacement.endswith(newline)
            and start
            and text[start - 1] == ":"
        ):
            replacement = (
                " " + replacement
            )  # an empty value (`key:`): `key:VALUE` would be one plain scalar
        out.append((start, end, replacement))
    return out


def apply_spans(
    text: str, edit_spans: list[tuple[int, int, str]], strict: bool = True
) -> tuple[str, int]:
    """``text`` with the spans replaced, and how many were dropped.

    Identical edits (two findings, one fix) count once; insertions at one point are joined.
    Overlapping different edits raise :class:`Overlap` when ``strict``, else the later one is
    dropped and counted.
    """
    kept: list[tuple[int, int, str]] = []
    dropped = 0
    for start, end, replacement in sorted(dict.fromkeys(edit_spans), key=lambda s: (s[0], s[1])):
        if kept:
            p_start, p_end, p_repl = kept[-1]
            if start == end == p_start == p_end:
                kept[-1] = (start, end, p_repl + replacement)
                continue
            if start < p_end:
                if strict:
                    raise Overlap(f"edits overlap at character {start}")
                dropped += 1
                continue
        kept.append((start, end, replacement))
    for start, end, replacement in reversed(kept):
        text = text[:start] + replacement + text[end:]
    return text, dropped


@record(repr=False, eq=False)
class FileEdits:
    """The edits of one file's text (without its BOM)."""

    path: str
    original: str
    edits: list[Edit] = field(default_factory=list)
    skipped: int = 0  # edits dropped because they overlap an earlier one

    def result(self) -> str:
        text, self.skipped = apply_spans(
            self.original, spans(self.original, self.edits), strict=False
        )
        return text


def plan(edits: list[Edit], read) -> list[FileEdits]:  # type: ignore[no-untyped-def]
    """Group edits by file. ``read(path) -> str`` gives the text the positions refer to."""
    by_file: dict[str, FileEdits] = {}
    for e in edits:
        fe = by_file.get(e.file)
        if fe is None:
            fe = by_file[e.file] = FileEdits(e.file, read(e.file))
        fe.edits.append(e)
    return list(by_file.values())


def anchored_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of YAML that is shared through anchors: every alias, and every anchored
    node that some alias refers to. An edit there would change (or break) other places too."""
    import yaml

    from .loading import _SafeLoader

    anchored: list[tuple[str, int, int]] = []
    used: set[str] = set()
    aliases: list[tuple[int, int]] = []
    stack: list[tuple[str | None, int]] = []
    try:
        for event in yaml.parse(text, Loader=_SafeLoader):
            kind = type(event)
            if kind is yaml.AliasEvent:
                used.add(event.anchor)
                aliases.append((event.start_mark.index, event.end_mark.index))
            elif kind is yaml.ScalarEvent:
                if event.anchor:
                    anchored.append((event.anchor, event.start_mark.index, event.end_mark.index))
            elif kind in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
                stack.append((event.anchor, event.start_mark.index))
            elif kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
                anchor, start = stack.pop()
                if anchor:
                    anchored.append((anchor, start, event.end_mark.index))
    except yaml.YAMLError:
        return [(0, len(text))]  # cannot tell: treat everything as shared
    return aliases + [(s, e) for name, s, e in anchored if name in used]


def touches(spans: list[tuple[int, int, str]], shared: list[tuple[int, int]]) -> bool:
    """Whether an edit's character spans reach into YAML shared through anchors (``shared``)."""
    for start, end, _ in spans:
        for a, b in shared:
            if max(start, a) < min(end, b) or (start == end and a <= start <= b):
                return True
    return False


_DIFF_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def diff_lines(text: str) -> list[str]:
    """Lines as ``git`` and ``patch`` count them: broken at LF only (a CR stays in its line)."""
    return _DIFF_LINE.findall(text)


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff of one file that ``git apply`` and ``patch -p1`` accept: ``a/PATH`` and
    ``b/PATH`` headers (``path`` relative to the root, with ``/``), and ``\\ No newline at end
    of file`` after a last line without a line break."""
    import difflib

    from .model.text import diff_path

    if new == old:
        return ""
    out = []
    # names quoted as git does when unusual: no control character in a header (report/escape.py)
    for line in difflib.unified_diff(
        diff_lines(old),
        diff_lines(new),
        fromfile=diff_path(f"a/{path}"),
        tofile=diff_path(f"b/{path}"),
    ):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
