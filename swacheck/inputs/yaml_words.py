"""Words from YAML scalars (Kubernetes, Compose, SkyPilot): each character pointing into the file.

A scalar written as it reads (plain, quoted without escapes, block scalars) keeps a position per
character, so a finding or a fix points at the exact value in the YAML file; any other (a
scalar with escapes, folded lines that do not line up) points at the whole scalar.
"""

from __future__ import annotations

from ..loading import Scalar
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
    start, end = src.offset(loc.line, loc.column), src.offset(loc.end_line, loc.end_column)
    whole = (src, start, max(start, end))
    spans = _align(text, src, start)
    return Word(
        text, spans if spans is not None else [whole] * len(text), whole, quoted=node.quoted
    )  # type: ignore[arg-type]


def _align(text: str, src: Source, start: int) -> list | SpanRun | None:
    s = src.text
    head = s[start : start + 1]
    j = start + 1 if head in ("'", '"') else start
    if (
        head not in ("|", ">")
        and "\n" not in text
        and s.startswith(text, j)
        and not (head == "'" and "'" in text)
        and not (head == '"' and "\\" in text)
    ):
        return SpanRun(src, j, j + len(text))  # written as it reads, on one line: a run of the file
    indent: int | None = None
    if head and head in "|>":
        j = s.find("\n", start)
        if j < 0:
            return None
        j += 1
        k = j
        while k < len(s) and s[k] in "\r\n":
            k += 1
        indent = len(s[k:]) - len(s[k:].lstrip(" "))
        j += min(indent, len(s[j:]) - len(s[j:].lstrip(" ")))
    elif head in ("'", '"'):
        j = start + 1
    else:
        j = start
    out: list = []
    i = 0
    while i < len(text):
        if j >= len(s):
            return None
        c, d = text[i], s[j]
        if d == "\r":
            j += 1
            continue
        if d == "\n":
            if c in " \n":
                out.append((src, j, j + 1))
                i += 1
            j += 1
            k = 0
            while j < len(s) and s[j] in " \t" and (indent is None or k < indent):
                j += 1
                k += 1
            continue
        if c != d:
            return None
        if head == "'" and d == "'":  # '' inside a single-quoted scalar
            if s[j + 1 : j + 2] != "'":
                return None
            out.append((src, j, j + 2))
            i += 1
            j += 2
            continue
        if head == '"' and d == "\\":
            return None
        out.append((src, j, j + 1))
        i += 1
        j += 1
    return out
