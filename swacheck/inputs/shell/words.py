"""Shell words: expanded :class:`Word` s, and the raw (unexpanded) parts the lexer makes.

Every character of a word keeps its origin (``spans``), also through a variable, so a finding
lands on the text to edit; what cannot be known from the files is an :class:`Unknown`.
"""

from __future__ import annotations

import re
from dataclasses import field

from ...model.records import Location
from ...model.recordtype import record
from .spans import Source, Span, SpanChain, SpanRun, join_spans, span_location


@record
class Chars:
    """Text to tokenise, with the origin of each character."""

    text: str
    spans: list[Span | None]

    @classmethod
    def of_source(cls, src: Source, start: int = 0, end: int | None = None) -> Chars:
        end = len(src.text) if end is None else end
        return cls(src.text[start:end], SpanRun(src, start, end))  # type: ignore[arg-type]

    @classmethod
    def of_word(cls, word: Word) -> Chars:
        """A word's text to tokenise again (``sh -c``); characters from nowhere point at the word."""
        spans = word.spans
        if (
            isinstance(spans, SpanRun)
            or isinstance(spans, SpanChain)
            and all(isinstance(p, SpanRun) for p in spans.parts)
        ):
            return cls(word.text, spans)  # positions of characters of the file: none is missing
        return cls(word.text, [s if s is not None else word.whole for s in word.spans])


# --------------------------------------------------------------------------- words


@record(frozen=True)
class Unknown:
    """An expansion whose value cannot be known from the files: it is reported, never guessed."""

    shown: str  # as written: "$MODEL", "${MODEL}", "$(hostname)", "\"$@\""
    name: str  # the variable ("MODEL"), or the text itself for substitutions
    reason: str
    span: Span | None

    @property
    def location(self) -> Location | None:
        return span_location(self.span)


@record
class Word:
    """One expanded word: its text, the origin of every character, what could not be known."""

    text: str
    spans: list[Span | None]
    whole: Span | None  # the token as written, quotes included
    unknown: list[Unknown] = field(default_factory=list)
    quoted: bool = False

    @classmethod
    def plain(cls, text: str, span: Span | None = None) -> Word:
        return cls(text, [span] * len(text), span)

    @property
    def resolved(self) -> bool:
        return not self.unknown

    @property
    def location(self) -> Location | None:
        return span_location(self.whole)

    def loc(self, start: int = 0, end: int | None = None) -> Location | None:
        """Where characters ``start:end`` were written; the whole token when they are not contiguous."""
        end = len(self.text) if end is None else end
        if start >= end:
            return self.location
        joined = join_spans(self.spans[start:end])
        return span_location(joined) if joined is not None else self.location

    def sub(self, start: int, end: int | None = None) -> Word:
        end = len(self.text) if end is None else end
        return Word(
            self.text[start:end], self.spans[start:end], self.whole, list(self.unknown), self.quoted
        )

    def __str__(self) -> str:
        return self.text


# --------------------------------------------------------------------------- raw (unexpanded) words


@record
class Lit:
    """Literal text of a shell word, with the source span of each character."""

    text: str
    spans: list[Span | None]
    quoted: bool


@record
class Param:
    """``$NAME`` or ``${NAME<op><word>}``; ``op`` is "" for a plain reference."""

    name: str
    op: str
    arg: list[Part] | None
    quoted: bool
    span: Span | None
    raw: str


@record
class Opaque:
    """Something the shell would compute at run time: ``$(...)``, backquotes, ``$((...))``, ``${#X}``."""

    raw: str
    reason: str
    quoted: bool
    span: Span | None


@record
class ArrayLit:
    """A bash array literal ``NAME=(a "b c" $D)`` (or ``NAME+=(...)``): its unexpanded items."""

    items: list[RawWord]
    span: Span | None


Part = Lit | Param | Opaque | ArrayLit


@record
class RawWord:
    """A shell word before expansion: its literal and expansion parts, and its span."""

    parts: list[Part]
    span: Span | None

    def literal(self) -> str | None:
        """The text when the word has no expansion at all."""
        if all(isinstance(p, Lit) for p in self.parts):
            return "".join(p.text for p in self.parts)  # type: ignore[union-attr]
        return None

    def assignment(self) -> tuple[str, RawWord, Span | None] | None:
        """``NAME=value`` (NAME unquoted): the name, the value word and the name's span."""
        first = self.parts[0] if self.parts else None
        if not isinstance(first, Lit) or first.quoted:
            return None
        m = _ASSIGN.match(first.text)
        if m is None:
            return None  # `NAME+=value` is returned as name "NAME+": an append (Walker.assign)
        n = m.end()
        rest: list[Part] = []
        if n < len(first.text):
            rest.append(Lit(first.text[n:], first.spans[n:], False))
        rest.extend(self.parts[1:])
        name_span = join_spans(first.spans[: m.end(1)])
        value_spans = [s for p in rest for s in _part_spans(p)]
        return (
            m.group(1) + m.group(2),
            RawWord(rest, join_spans([value_spans[0], value_spans[-1]]) if value_spans else None),
            name_span,
        )


def _part_spans(p: Part) -> list[Span | None]:
    if isinstance(p, Lit):
        return p.spans
    return [p.span]


_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_ARRAY_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@record
class RawCommand:
    """One simple command: its words in order (redirections removed)."""

    words: list[RawWord]
    span: Span | None  # from its first to its last word
    defines: bool = False  # ``NAME ()``: the head of a function definition (its body follows)
    # the operators written after it, up to the next command: ``;`` ``&&`` ``||`` ``|`` ``&``
    # ``;;`` ``(`` ``)`` or ``\n`` (``control`` reads if/case/&&/|| structure from them)
    ops: list[str] = field(default_factory=list)
    stdin: RawWord | None = None  # a here-string (``bash -s <<< "..."``): the shell reads it
