"""Words from YAML scalars (Kubernetes, Compose, SkyPilot): each character pointing into the file.

A scalar written as it reads (plain, quoted without escapes, block scalars) keeps a position per
character, so a finding or a fix points at the exact value in the YAML file; any other (a
scalar with escapes, folded lines that do not line up) points at the whole scalar.
"""

from __future__ import annotations

from .. import limits
from ..model.tree import Scalar
from .shell import Source, SpanRun, Word


def yaml_text(node: Scalar) -> str:
    v = node.value
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def yaml_word(node: Scalar, src: Source) -> Word:
    """A YAML scalar as a word whose characters point into the file where that can be worked out
    (plain, quoted without escapes, block scalars); otherwise every character points at the scalar."""
    text = yaml_text(node)
    loc = node.loc
    limits.current().yaml_word(len(text), loc)  # an alias counts each time it is used
    start, end = src.offset(loc.line, loc.column), src.offset(loc.end_line, loc.end_column)
    whole = (src, start, max(start, end))
    spans = _align(text, src, start)
    return Word(
        text, spans if spans is not None else [whole] * len(text), whole, quoted=node.quoted
    )  # type: ignore[arg-type]


def _align(text: str, src: Source, start: int) -> list | SpanRun | None:
    """A position in ``src`` for each character of ``text``, the scalar's value written at
    ``start``; None when the value cannot be lined up with what is written."""
    s = src.text
    head = s[start : start + 1]
    j = start + 1 if head in ("'", '"') else start
    if _verbatim(text, s, head, j):
        return SpanRun(src, j, j + len(text))  # written as it reads, on one line: a run of the file
    body = _body(s, head, start)
    if body is None:
        return None
    j, indent = body
    out: list = []
    i = 0
    while i < len(text):
        if j >= len(s):
            return None
        c, d = text[i], s[j]
        if d in "\r\n":
            if d == "\n" and c in " \n":  # a line break folded into a space, or kept
                out.append((src, j, j + 1))
                i += 1
            j = j + 1 if d == "\r" else _next_line(s, j + 1, indent)
            continue
        taken = _taken(c, d, s, j, head)
        if not taken:
            return None
        out.append((src, j, j + taken))
        i += 1
        j += taken
    return out


def _verbatim(text: str, s: str, head: str, j: int) -> bool:
    """``text`` is written as it reads at ``s[j]``, on one line (no block scalar, no escapes)."""
    return (
        head not in ("|", ">")
        and "\n" not in text
        and s.startswith(text, j)
        and not (head == "'" and "'" in text)
        and not (head == '"' and "\\" in text)
    )


def _body(s: str, head: str, start: int) -> tuple[int, int | None] | None:
    """Where the value of a scalar written at ``start`` begins, and a block scalar's indent."""
    if head and head in "|>":
        j = s.find("\n", start)
        if j < 0:
            return None
        j += 1
        k = j
        while k < len(s) and s[k] in "\r\n":
            k += 1
        indent = len(s[k:]) - len(s[k:].lstrip(" "))
        return j + min(indent, len(s[j:]) - len(s[j:].lstrip(" "))), indent
    if head in ("'", '"'):
        return start + 1, None
    return start, None


def _next_line(s: str, j: int, indent: int | None) -> int:
    """Past the indent of the line starting at ``j`` (a block scalar's own indent at most)."""
    k = 0
    while j < len(s) and s[j] in " \t" and (indent is None or k < indent):
        j += 1
        k += 1
    return j


def _taken(c: str, d: str, s: str, j: int, head: str) -> int:
    """How many characters of the file the value's character ``c`` takes at ``s[j] == d``;
    0 when they do not line up."""
    if c != d:
        return 0
    if head == "'" and d == "'":  # '' inside a single-quoted scalar
        return 2 if s[j + 1 : j + 2] == "'" else 0
    if head == '"' and d == "\\":
        return 0
    return 1
