"""Where each character of a shell word came from: a file and an offset, kept cheaply.

A :class:`Source` turns offsets into 1-based ``line:col``; a :data:`Span` is one character's
origin; :class:`SpanRun` and :class:`SpanChain` stand for many spans without a tuple each.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from collections.abc import Sequence as SequenceABC
from dataclasses import field

from ...model.records import Location
from ...model.recordtype import record


@record(eq=False)
class Source:
    """A text in a file: turns character offsets into 1-based line:col locations."""

    path: str
    text: str
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def offset(self, line: int, column: int) -> int:
        return self.starts[min(line, len(self.starts)) - 1] + column - 1

    def location(self, start: int, end: int) -> Location:
        (l1, c1), (l2, c2) = self.line_col(start), self.line_col(max(start, end))
        return Location(self.path, l1, c1, l2, c2)


# Where one character came from: (source, start offset, end offset). ``None``: nowhere (--env).
Span = tuple[Source, int, int]


class SpanRun(SequenceABC):
    """The spans of consecutive characters ``start:stop`` of one source, one per character, made
    only when asked for: a script's words cost their text, not a tuple per character (a 5 MB
    script once took a gigabyte). Behaves as the list ``[(src, i, i + 1) for i in range(start, stop)]``
    (slices of it are runs too); immutable, so it is shared, never copied."""

    __slots__ = ("src", "start", "stop")

    def __init__(self, src: Source, start: int, stop: int):
        self.src, self.start, self.stop = src, start, max(start, stop)

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        n = self.stop - self.start
        if isinstance(index, slice):
            a, b, step = index.indices(n)
            if step == 1:
                return SpanRun(self.src, self.start + a, self.start + max(a, b))
            return [(self.src, self.start + k, self.start + k + 1) for k in range(a, b, step)]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("span index out of range")
        k = self.start + index
        return (self.src, k, k + 1)

    def __iter__(self):  # type: ignore[no-untyped-def]
        src = self.src
        return ((src, k, k + 1) for k in range(self.start, self.stop))

    def __add__(self, other):  # type: ignore[no-untyped-def]
        return list(self) + list(other)

    def __radd__(self, other):  # type: ignore[no-untyped-def]
        return list(other) + list(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SpanRun):
            return (other.src, other.start, other.stop) == (self.src, self.start, self.stop) or (
                len(self) == 0 == len(other)
            )
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SpanRun({self.src.path!r}, {self.start}, {self.stop})"


class SpanChain(SequenceABC):
    """Sequences of spans one after another, as one (a Dockerfile instruction continued over
    lines: a :class:`SpanRun` per line). Indexing finds the part by bisection; a slice within one
    part is a slice of it, across parts a list."""

    __slots__ = ("parts", "offsets", "n")

    def __init__(self, parts: list[Sequence[Span | None]]):
        self.parts = [p for p in parts if len(p)]
        self.offsets: list[int] = []
        n = 0
        for p in self.parts:
            self.offsets.append(n)
            n += len(p)
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        if isinstance(index, slice):
            a, b, step = index.indices(self.n)
            if step == 1 and a < b:
                k = bisect.bisect_right(self.offsets, a) - 1
                if b <= self.offsets[k] + len(self.parts[k]):
                    return self.parts[k][a - self.offsets[k] : b - self.offsets[k]]
            return [self[i] for i in range(a, b, step)]
        if index < 0:
            index += self.n
        if not 0 <= index < self.n:
            raise IndexError("span index out of range")
        k = bisect.bisect_right(self.offsets, index) - 1
        return self.parts[k][index - self.offsets[k]]

    def __iter__(self):  # type: ignore[no-untyped-def]
        for p in self.parts:
            yield from p

    def __add__(self, other):  # type: ignore[no-untyped-def]
        return list(self) + list(other)

    def __radd__(self, other):  # type: ignore[no-untyped-def]
        return list(other) + list(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, SpanRun, SpanChain)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class _SpanBuilder:
    """The spans of a literal being lexed: a :class:`SpanRun` while its characters are consecutive
    characters of a run (the usual case), else a list."""

    __slots__ = ("s", "first", "n", "items")

    def __init__(self, s: Sequence[Span | None]):
        self.s = s
        self.first = 0
        self.n = 0
        self.items: list[Span | None] | None = None

    def add(self, i: int) -> None:
        """The character at lexer index ``i``."""
        if self.items is None:
            if self.n == 0:
                self.first, self.n = i, 1
                return
            if i == self.first + self.n:
                self.n += 1
                return
            self.items = list(self.s[self.first : self.first + self.n])
        self.items.append(self.s[i])

    def add_range(self, i: int, j: int) -> None:
        """The characters at lexer indexes ``i:j``."""
        if self.items is None:
            if self.n == 0:
                self.first, self.n = i, j - i
                return
            if i == self.first + self.n:
                self.n += j - i
                return
            self.items = list(self.s[self.first : self.first + self.n])
        self.items.extend(self.s[i:j])

    def add_span(self, span: Span | None) -> None:
        """A character whose span is not one lexer character (an escape)."""
        if self.items is None:
            self.items = list(self.s[self.first : self.first + self.n]) if self.n else []
        self.items.append(span)

    def take(self) -> Sequence[Span | None]:
        out = self.s[self.first : self.first + self.n] if self.items is None else self.items
        self.first, self.n, self.items = 0, 0, None
        return out


def span_location(span: Span | None) -> Location | None:
    return span[0].location(span[1], span[2]) if span is not None else None


def join_spans(spans: Iterable[Span | None]) -> Span | None:
    """The span from the first to the last character, when they are in order in one source."""
    if isinstance(spans, SpanRun):  # consecutive characters: no need to look at each
        return (spans.src, spans.start, spans.stop) if len(spans) else None
    items = list(spans)
    if not items or any(s is None for s in items):
        return None
    src = items[0][0]  # type: ignore[index]
    prev = -1
    for s in items:
        if s[0] is not src or s[1] < prev:  # type: ignore[index]
            return None
        prev = s[2]  # type: ignore[index]
    return (src, items[0][1], items[-1][2])  # type: ignore[index]
