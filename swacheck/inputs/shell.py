"""POSIX shell words with positions: tokenise, expand variables, walk a script's commands.

Only what launch commands need, but exactly as ``sh`` does it: single and double quotes,
backslash escapes, ``\\``-newline continuations, comments, ``;`` ``&&`` ``||`` ``|`` ``&``
and newlines between commands, redirections (dropped, heredoc bodies skipped), ``$VAR``,
``${VAR}``, ``${VAR:-default}`` (and ``-``, ``=``, ``:=``, ``+``, ``:+``, ``?``, ``:?``),
field splitting of unquoted expansions. Nothing is executed: command substitutions
(``$(...)``, backquotes), arithmetic, positional parameters (``$1``, ``"$@"``) and variables
that nobody set are *unknown*, never guessed.

Every character of a word remembers where it came from (a file and an offset), also through
a variable: ``--page-size $PS`` after ``PS=64`` points at the ``64`` of the assignment, so a
finding (and a fix) lands on the text to edit.

Three layers, used in this order:

- :func:`lex` turns characters into :class:`RawCommand` s of :class:`RawWord` s (unexpanded);
- :func:`expand` turns a raw word into :class:`Word` s, given the variables known then;
- :func:`walk` runs through a script's commands in order, keeps assignments and ``export`` s,
  and hands every other simple command to a callback.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field

from .. import limits
from ..records import InputProblem, Location
from ..report.escape import one_line

# --------------------------------------------------------------------------- positions


@dataclass(eq=False, slots=True)
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


@dataclass(slots=True)
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


@dataclass(frozen=True, slots=True)
class Unknown:
    """An expansion whose value cannot be known from the files: it is reported, never guessed."""

    shown: str  # as written: "$MODEL", "${MODEL}", "$(hostname)", "\"$@\""
    name: str  # the variable ("MODEL"), or the text itself for substitutions
    reason: str
    span: Span | None

    @property
    def location(self) -> Location | None:
        return span_location(self.span)


@dataclass(slots=True)
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


@dataclass(slots=True)
class Lit:
    text: str
    spans: list[Span | None]
    quoted: bool


@dataclass(slots=True)
class Param:
    """``$NAME`` or ``${NAME<op><word>}``; ``op`` is "" for a plain reference."""

    name: str
    op: str
    arg: list[Part] | None
    quoted: bool
    span: Span | None
    raw: str


@dataclass(slots=True)
class Opaque:
    """Something the shell would compute at run time: ``$(...)``, backquotes, ``$((...))``, ``${#X}``."""

    raw: str
    reason: str
    quoted: bool
    span: Span | None


@dataclass(slots=True)
class ArrayLit:
    """A bash array literal ``NAME=(a "b c" $D)`` (or ``NAME+=(...)``): its unexpanded items."""

    items: list[RawWord]
    span: Span | None


Part = Lit | Param | Opaque | ArrayLit


@dataclass(slots=True)
class RawWord:
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


@dataclass(slots=True)
class RawCommand:
    """One simple command: its words in order (redirections removed)."""

    words: list[RawWord]
    span: Span | None  # from its first to its last word


# --------------------------------------------------------------------------- lexer

_MAX_NESTING = 50
_HEREDOC_LAUNCH = re.compile(r"sglang\.launch_server|sglang\s+serve|dynamo\.sglang")
# characters the lexer takes as they are in any context, a run at a time (a character-at-a-time
# loop made a 5 MB script take seconds): none that quotes, escapes, expands, ends a word or a
# ${...}, or starts a `\` continuation
_PLAIN_RUN = re.compile(r"""[^ \t\r\n;&|()<>\\'"$`}]+""")
_PLAIN_RUN_UNEXPANDED = re.compile(
    r"""[^ \t\r\n;&|()<>\\'"}]+"""
)  # `$` and backquotes are plain too
_DQUOTE_RUN = re.compile(r"""[^"\\$`]+""")
_OPERATORS = (
    "&&",
    "||",
    ";;",
    "&>>",
    "&>",
    ">>",
    "<<<",
    "<<-",
    "<<",
    "<&",
    ">&",
    "<>",
    ">|",
    ";",
    "&",
    "|",
    "(",
    ")",
    "<",
    ">",
)
_OPERATOR_START = frozenset(o[0] for o in _OPERATORS)
_REDIRECTS = {"&>>", "&>", ">>", "<<<", "<<-", "<<", "<&", ">&", "<>", ">|", "<", ">"}
_SEPARATORS = {"&&", "||", ";;", ";", "&", "|", "(", ")", "\n"}


class ShellSyntaxError(Exception):
    def __init__(self, message: str, span: Span | None):
        super().__init__(message)
        self.message = message
        self.span = span


class _Lexer:
    def __init__(self, chars: Chars, expand: bool = True):
        self.t = chars.text
        self.s = chars.spans
        self.i = 0
        self.n = len(self.t)
        self.expand = (
            expand  # False: `$` and backquotes are plain characters (Compose command strings)
        )
        self.depth = 0  # ${X:-${Y:-...}} nesting
        self.depth_heredoc = 0
        self.heredoc_commands: list[
            RawCommand
        ] = []  # from heredoc bodies, added after their command
        self.word_start = 0  # where the word being lexed starts (limits.MAX_WORD)

    # -- helpers

    def span(self, start: int, end: int) -> Span | None:
        """The span of characters ``start:end`` (at least one character)."""
        if not self.n:
            return None
        start = min(start, self.n - 1)
        end = min(max(end, start + 1), self.n)
        first, last = self.s[start], self.s[end - 1]
        if first is None or last is None or first[0] is not last[0] or last[2] < first[1]:
            return first
        return (first[0], first[1], last[2])

    def fail(self, message: str, at: int) -> ShellSyntaxError:
        return ShellSyntaxError(message, self.span(at, at + 1))

    def continuation(self) -> bool:
        """Skip a backslash-newline; True when one was skipped."""
        if self.t.startswith("\\\n", self.i):
            self.i += 2
            return True
        if self.t.startswith("\\\r\n", self.i):
            self.i += 3
            return True
        return False

    # -- commands

    def commands(self) -> list[RawCommand]:
        out: list[RawCommand] = []
        words: list[RawWord] = []
        heredocs: list[tuple[str, bool]] = []
        redirect_target = False
        last_end = -1
        budget = limits.current()
        lexed = 0

        def finish() -> None:
            nonlocal words
            if words:
                spans = [w.span for w in words]
                first, last = spans[0], spans[-1]
                span = (
                    (first[0], first[1], last[2])
                    if first and last and first[0] is last[0]
                    else first
                )
                out.append(RawCommand(words, span))
            words = []

        while self.i < self.n:
            c = self.t[self.i]
            if self.continuation():
                continue
            if c in " \t\r":
                self.i += 1
                continue
            if c == "\n":
                self.i += 1
                finish()
                if heredocs:
                    self.skip_heredocs(heredocs)
                    heredocs = []
                    out.extend(self.heredoc_commands)
                    self.heredoc_commands = []
                continue
            if c == "#":
                end = self.t.find("\n", self.i)
                self.i = self.n if end < 0 else end
                continue
            op = (
                next((o for o in _OPERATORS if self.t.startswith(o, self.i)), None)
                if c in _OPERATOR_START
                else None
            )
            if op is not None:
                start = self.i
                self.i += len(op)
                if op in _REDIRECTS:
                    # an IO number written right before (`2>&1`) belongs to the redirection
                    if words and last_end == start and (words[-1].literal() or "x").isdigit():
                        words.pop()
                    if op in ("<<", "<<-"):
                        delim = self.heredoc_delimiter()
                        if delim is not None:
                            heredocs.append((delim, op == "<<-"))
                        continue
                    redirect_target = True
                    continue
                finish()
                continue
            word = self.word()
            if (
                self.t.startswith("(", self.i)
                and _ARRAY_START.fullmatch(word.literal() or "")
                and (
                    all(w.assignment() for w in words)
                    or (words[0].literal() or "")
                    in ("declare", "typeset", "local", "readonly", "export")
                )
            ):
                word = self.array(word)  # NAME=( ... ), NAME+=( ... )
            last_end = self.i
            lexed += 1
            if lexed == 1000:  # limits.MAX_WORDS, counted a thousand at a time
                budget.words(lexed, span_location(word.span))
                lexed = 0
            if redirect_target:
                redirect_target = False
                continue
            words.append(word)
        finish()
        if lexed:
            budget.words(lexed, self.span_location_of_last(out))
        return out

    def array(self, name: RawWord) -> RawWord:
        """``NAME=( ... )``: the items up to the matching ``)`` (newlines and comments allowed)."""
        open_at = self.i
        self.i += 1
        items: list[RawWord] = []
        while True:
            if self.i >= self.n:
                raise self.fail("unterminated array (...)", open_at)
            if self.continuation():
                continue
            c = self.t[self.i]
            if c in " \t\r\n":
                self.i += 1
                continue
            if c == "#":
                while self.i < self.n and self.t[self.i] != "\n":
                    self.i += 1
                continue
            if c == ")":
                self.i += 1
                break
            if c in ";&|(<>":
                raise self.fail(f"unexpected {c!r} in an array (...)", self.i)
            items.append(self.word())
        end = self.s[self.i - 1]
        whole = (
            (name.span[0], name.span[1], end[2])
            if name.span is not None and end is not None and name.span[0] is end[0]
            else name.span
        )
        return RawWord(name.parts + [ArrayLit(items, self.span(open_at, self.i))], whole)

    @staticmethod
    def span_location_of_last(commands: list[RawCommand]) -> Location | None:
        return (
            span_location(commands[-1].words[-1].span) if commands and commands[-1].words else None
        )

    def heredoc_delimiter(self) -> str | None:
        while self.i < self.n and self.t[self.i] in " \t":
            self.i += 1
        if self.i >= self.n or self.t[self.i] == "\n":
            return None
        saved = self.expand
        self.expand = False
        word = self.word()
        self.expand = saved
        return "".join(p.text if isinstance(p, Lit) else p.raw for p in word.parts)

    def skip_heredocs(self, heredocs: list[tuple[str, bool]]) -> None:
        for delim, strip_tabs in heredocs:
            body_start = self.i
            body_end = self.n
            while self.i < self.n:
                end = self.t.find("\n", self.i)
                end = self.n if end < 0 else end
                line = self.t[self.i : end]
                line_start = self.i
                self.i = min(end + 1, self.n)
                if (line.lstrip("\t") if strip_tabs else line).rstrip("\r") == delim:
                    body_end = line_start
                    break
            if _HEREDOC_LAUNCH.search(self.t, body_start, body_end) and self.depth_heredoc < 4:
                # a script written by a heredoc (`cat > run.sh <<EOF`): its launch lines count
                sub = _Lexer(
                    Chars(self.t[body_start:body_end], self.s[body_start:body_end]), self.expand
                )
                sub.depth_heredoc = self.depth_heredoc + 1
                try:
                    self.heredoc_commands.extend(sub.commands())
                except ShellSyntaxError:
                    pass

    # -- words

    def too_long(self) -> None:
        """A single word longer than a word may become by expansion (limits.MAX_WORD): said
        before its characters cost more (an escape or a ``$'...'`` character is an object each)."""
        raise InputProblem(
            f"a word is more than {limits.MAX_WORD} characters long here (the limit on one word)",
            span_location(self.span(self.word_start, self.word_start + 1)),
        )

    def word(self) -> RawWord:
        start = self.word_start = self.i
        parts = self.parts(stop=lambda c: c in " \t\r\n;&|()<>")
        return RawWord(parts, self.span(start, self.i))

    def parts(self, stop: Callable[[str], bool]) -> list[Part]:
        parts: list[Part] = []
        lit: list[str] = []
        lit_spans = _SpanBuilder(self.s)

        def flush() -> None:
            if lit:
                parts.append(Lit("".join(lit), lit_spans.take(), False))  # type: ignore[arg-type]
                lit.clear()

        while self.i < self.n:
            if self.i - self.word_start > limits.MAX_WORD:
                self.too_long()
            if self.continuation():
                continue
            c = self.t[self.i]
            if stop(c):
                break
            if c == "\\":
                if self.i + 1 < self.n:  # an escaped character is quoted
                    flush()
                    parts.append(Lit(self.t[self.i + 1], [self.span(self.i, self.i + 2)], True))
                    self.i += 2
                else:
                    lit.append(c)
                    lit_spans.add(self.i)
                    self.i += 1
                continue
            if c == "'":
                flush()
                end = self.t.find("'", self.i + 1)
                if end < 0:
                    raise self.fail("unterminated single quote", self.i)
                parts.append(Lit(self.t[self.i + 1 : end], self.s[self.i + 1 : end], True))
                self.i = end + 1
                continue
            if c == '"':
                flush()
                parts.extend(self.dquote())
                continue
            if self.expand and c == "$" and self.t.startswith("$'", self.i):
                flush()
                parts.append(self.ansi_c())
                continue
            if self.expand and c == "$" and self.t.startswith('$"', self.i):
                flush()
                self.i += 1
                parts.extend(self.dquote())
                continue
            if self.expand and c in "$`":
                part = self.dollar(quoted=False) if c == "$" else self.backquote(quoted=False)
                if part is not None:
                    flush()
                    parts.append(part)
                    continue
            m = (_PLAIN_RUN if self.expand else _PLAIN_RUN_UNEXPANDED).match(
                self.t, self.i
            )  # plain characters, a run at a time
            end = m.end() if m else self.i + 1
            lit.append(self.t[self.i : end])
            lit_spans.add_range(self.i, end)
            self.i = end
        flush()
        return parts

    def dquote(self) -> list[Part]:
        open_at = self.i
        self.i += 1
        parts: list[Part] = []
        lit: list[str] = []
        lit_spans = _SpanBuilder(self.s)

        def flush() -> None:
            if lit:
                parts.append(Lit("".join(lit), lit_spans.take(), True))  # type: ignore[arg-type]
                lit.clear()

        while True:
            if self.i - self.word_start > limits.MAX_WORD:
                self.too_long()
            if self.i >= self.n:
                raise self.fail("unterminated double quote", open_at)
            if self.continuation():
                continue
            c = self.t[self.i]
            if c == '"':
                self.i += 1
                break
            if c == "\\" and self.i + 1 < self.n and self.t[self.i + 1] in '$`"\\':
                lit.append(self.t[self.i + 1])
                lit_spans.add_span(self.span(self.i, self.i + 2))
                self.i += 2
                continue
            if self.expand and c in "$`":
                part = self.dollar(quoted=True) if c == "$" else self.backquote(quoted=True)
                if part is not None:
                    flush()
                    parts.append(part)
                    continue
            m = _DQUOTE_RUN.match(self.t, self.i)
            end = m.end() if m else self.i + 1
            lit.append(self.t[self.i : end])
            lit_spans.add_range(self.i, end)
            self.i = end
        flush()
        if not parts:  # "" is an empty word, not no word
            parts.append(Lit("", [], True))
        return parts

    def ansi_c(self) -> Lit:
        start = self.i
        self.i += 2
        out: list[str] = []
        spans: list[Span | None] = []
        escapes = {
            "n": "\n",
            "t": "\t",
            "r": "\r",
            "\\": "\\",
            "'": "'",
            '"': '"',
            "a": "\a",
            "b": "\b",
            "e": "\x1b",
            "f": "\f",
            "v": "\v",
        }
        while True:
            if self.i - self.word_start > limits.MAX_WORD:
                self.too_long()
            if self.i >= self.n:
                raise self.fail("unterminated $'...' string", start)
            c = self.t[self.i]
            if c == "'":
                self.i += 1
                break
            if c == "\\" and self.i + 1 < self.n and self.t[self.i + 1] in escapes:
                out.append(escapes[self.t[self.i + 1]])
                spans.append(self.span(self.i, self.i + 2))
                self.i += 2
                continue
            out.append(c)
            spans.append(self.s[self.i])
            self.i += 1
        return Lit("".join(out), spans, True)

    def matching(self, start: int, open_: str, close: str) -> int:
        """Index just after the ``close`` that balances the ``open_`` before ``start`` (quotes skipped)."""
        depth = 1
        i = start
        while i < self.n:
            c = self.t[i]
            if c == "\\":
                i += 2
                continue
            if c == "'":
                j = self.t.find("'", i + 1)
                i = (j if j >= 0 else self.n - 1) + 1
                continue
            if c == '"':
                j = i + 1
                while j < self.n and self.t[j] != '"':
                    j += 2 if self.t[j] == "\\" else 1
                i = j + 1
                continue
            if self.t.startswith(open_, i):
                depth += 1
                i += len(open_)
                continue
            if self.t.startswith(close, i):
                depth -= 1
                i += len(close)
                if depth == 0:
                    return i
                continue
            i += 1
        raise self.fail(f"unterminated {open_}...{close}", start - len(open_))

    def backquote(self, quoted: bool) -> Part:
        start = self.i
        j = self.i + 1
        while j < self.n and self.t[j] != "`":
            j += 2 if self.t[j] == "\\" else 1
        if j >= self.n:
            raise self.fail("unterminated backquote", start)
        self.i = j + 1
        raw = self.t[start : self.i]
        return Opaque(
            raw,
            "a command substitution: its output is only known when the script runs",
            quoted,
            self.span(start, self.i),
        )

    def dollar(self, quoted: bool) -> Part | None:
        start = self.i
        t = self.t
        nxt = t[self.i + 1 : self.i + 2]
        if t.startswith("$((", self.i):
            self.i = self.matching(self.i + 3, "((", "))")
            return Opaque(
                t[start : self.i],
                "arithmetic: only known when the script runs",
                quoted,
                self.span(start, self.i),
            )
        if nxt == "(":
            self.i = self.matching(self.i + 2, "(", ")")
            return Opaque(
                t[start : self.i],
                "a command substitution: its output is only known when the script runs",
                quoted,
                self.span(start, self.i),
            )
        if nxt == "{":
            return self.braced(quoted)
        m = _NAME.match(t, self.i + 1)
        if m:
            self.i = m.end()
            return Param(m.group(0), "", None, quoted, self.span(start, self.i), t[start : self.i])
        if nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
            self.i += 2
            return Opaque(t[start : self.i], _special_reason(nxt), quoted, self.span(start, self.i))
        return None  # a lone `$` is a plain character

    def braced(self, quoted: bool) -> Part:
        start = self.i
        t = self.t
        self.i += 2
        if t.startswith("#", self.i) and not t.startswith("#}", self.i):
            self.i = self.matching(self.i, "{", "}")
            return Opaque(
                t[start : self.i],
                "a string length: only known when the script runs",
                quoted,
                self.span(start, self.i),
            )
        m = _NAME.match(t, self.i)
        if m is None:
            special = t[self.i : self.i + 1]
            self.i = self.matching(self.i, "{", "}")
            return Opaque(
                t[start : self.i], _special_reason(special), quoted, self.span(start, self.i)
            )
        name = m.group(0)
        self.i = m.end()
        if t.startswith("}", self.i):
            self.i += 1
            return Param(name, "", None, quoted, self.span(start, self.i), t[start : self.i])
        sub = re.match(r"\[(@|\*|\d+)\]\}", t[self.i : self.i + 24])
        if sub is not None:  # ${ARR[@]}, ${ARR[*]}, ${ARR[0]}
            self.i += sub.end()
            return Param(
                name, f"[{sub.group(1)}]", None, quoted, self.span(start, self.i), t[start : self.i]
            )
        op = next(
            (o for o in (":-", ":=", ":+", ":?", "-", "=", "+", "?") if t.startswith(o, self.i)),
            None,
        )
        if op is None:  # ${X%suffix}, ${X/a/b}, ${X:1:2}, ...: computed at run time
            self.i = self.matching(self.i, "{", "}")
            return Opaque(
                t[start : self.i],
                "a pattern or substring expansion: only known when the script runs",
                quoted,
                self.span(start, self.i),
            )
        self.i += len(op)
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise self.fail(f"${{...}} nested more than {_MAX_NESTING} levels deep", start)
        arg = self.parts(stop=lambda c: c == "}")
        self.depth -= 1
        if self.i >= self.n or t[self.i] != "}":
            raise self.fail("unterminated ${...}", start)
        self.i += 1
        if quoted:
            for p in arg:
                if isinstance(p, Lit):
                    p.quoted = True
        return Param(name, op, arg, quoted, self.span(start, self.i), t[start : self.i])


def _special_reason(ch: str) -> str:
    if ch.isdigit() or ch in "@*#":
        return "the script's own arguments: only known when it is run"
    return "a special parameter: only known when the script runs"


def lex(chars: Chars, expand: bool = True) -> list[RawCommand]:
    """Split text into simple commands of raw words. Raises :class:`ShellSyntaxError`."""
    return _Lexer(chars, expand).commands()


def split_words(chars: Chars) -> list[Word]:
    """Split a string into words by quotes and whitespace, without any expansion (Compose's rule)."""
    out: list[Word] = []
    for cmd in lex(chars, expand=False):
        for raw in cmd.words:
            out.extend(expand(raw, {}))
    return out


# --------------------------------------------------------------------------- variables


@dataclass(slots=True)
class Var:
    """A variable as far as the files tell: its value (None: set, but only known at run time)."""

    value: Word | None
    exported: bool = False
    origin: str = ""  # "export in decode.sh", "Dockerfile ENV", "--env"
    reason: str = ""  # why the value is unknown
    where: Location | None = None  # for an unknown value: what makes it unknown
    items: list[Word] | None = None  # a bash array's elements (``value`` is the first)

    @property
    def location(self) -> Location | None:
        if self.value is None:
            return self.where
        return self.value.loc() if self.value.text else self.value.location


Env = dict[str, Var]


def _unknown_var(
    name: str, shown: str, var: Var | None, span: Span | None, unset_reason: str
) -> Unknown:
    if var is None:
        return Unknown(
            shown,
            name,
            f"{name} is {unset_reason or 'not set in the file or its environment'}",
            span,
        )
    return Unknown(shown, name, var.reason or f"{name} is only known at run time", span)


class _Fields:
    """Builds the fields of one word during expansion (POSIX 2.6.5 field splitting)."""

    def __init__(self, raw: RawWord):
        self.raw = raw
        self.out: list[Word] = []
        self.text: list[str] = []
        self.spans: list[Sequence[Span | None]] = []  # one chunk per part: a lone run stays a run
        self.unknown: list[Unknown] = []
        self.quoted = False
        self.started = False  # a quoted part, even empty, makes a field
        self.size = 0  # characters in the current field (limits.MAX_WORD)

    def add(self, text: str, spans: list[Span | None], quoted: bool) -> None:
        self.size += len(text)
        if self.size > limits.MAX_WORD:
            limits.current().word(self.size, span_location(self.raw.span))
        self.text.append(text)
        if text:
            self.spans.append(
                spans if len(spans) == len(text) else [spans[0] if spans else None] * len(text)
            )
        if quoted:
            self.quoted = self.started = True
        elif text:
            self.started = True

    def add_split(self, value: Word) -> None:
        """An unquoted expansion: split its value on blanks into fields."""
        text = value.text
        i = 0
        n = len(text)
        while i < n:
            if text[i] in " \t\n":
                self.end()
                while i < n and text[i] in " \t\n":
                    i += 1
                continue
            j = i
            while j < n and text[j] not in " \t\n":
                j += 1
            self.add(text[i:j], value.spans[i:j], False)
            i = j
        self.unknown.extend(value.unknown)

    def end(self) -> None:
        if self.started or self.unknown:
            chunks = self.spans
            spans = chunks[0] if len(chunks) == 1 else [sp for chunk in chunks for sp in chunk]
            self.out.append(
                Word("".join(self.text), spans, self.raw.span, self.unknown, self.quoted)
            )  # type: ignore[arg-type]
        self.text, self.spans, self.unknown, self.quoted, self.started, self.size = (
            [],
            [],
            [],
            False,
            False,
            0,
        )


def expand(raw: RawWord, env: Env, unset_reason: str = "", split: bool = True) -> list[Word]:
    """The words a raw word becomes: parameters expanded, unquoted expansions split.

    ``split=False`` is for assignment values (``A=$B`` is never split). An expansion that
    cannot be known keeps its text as written and is listed in ``Word.unknown``.
    """
    f = _Fields(raw)
    for part in raw.parts:
        if isinstance(part, Lit):
            f.add(part.text, part.spans, part.quoted)
        elif isinstance(part, Opaque):
            f.add(part.raw, [part.span] * len(part.raw), part.quoted)
            f.unknown.append(Unknown(part.raw, part.raw, part.reason, part.span))
        elif isinstance(part, ArrayLit):
            f.add("(...)", [part.span] * 5, False)
            f.unknown.append(
                Unknown("(...)", "(...)", "an array where a word is expected", part.span)
            )
        elif part.op.startswith("[") and (items := _elements(part, env, unset_reason)) is not None:
            for k, item in enumerate(items):  # "${A[@]}": one field per element
                if k:
                    f.end()
                if part.quoted:
                    f.add(item.text, item.spans, True)
                    f.started = True
                    f.unknown.extend(item.unknown)
                else:
                    f.add_split(item)
        else:
            limits.current().reference(span_location(part.span))  # limits.MAX_REFERENCES
            value = _param(part, env, unset_reason)
            if value.text and not value.unknown:  # what substitution costs: limits.MAX_EXPANSION
                limits.current().expand(len(value.text), span_location(part.span))
            if part.quoted or not split or value.unknown:  # an unknown value is kept as one word
                f.add(value.text, value.spans, True if part.quoted else False)
                if part.quoted:
                    f.started = True
                elif value.text:
                    f.started = True
                f.unknown.extend(value.unknown)
            else:
                f.add_split(value)
    f.end()
    return f.out


def expand_one(raw: RawWord, env: Env, unset_reason: str = "") -> Word:
    """An assignment value or other single word: expanded, never split."""
    words = expand(raw, env, unset_reason, split=False)
    return words[0] if words else Word("", [], raw.span)


def _elements(p: Param, env: Env, unset_reason: str) -> list[Word] | None:
    """The words ``${A[@]}`` / ``${A[*]}`` / ``${A[N]}`` give; None: not an array reference."""
    var = env.get(p.name)
    index = p.op[1:-1]
    if var is None:
        return []  # an unset array is empty (arrays are never exported)
    if var.value is None and var.items is None:
        return [
            Word(
                p.raw,
                [p.span] * len(p.raw),
                p.span,
                [_unknown_var(p.name, p.raw, var, p.span, unset_reason)],
            )
        ]
    items = var.items if var.items is not None else [var.value]  # type: ignore[list-item]
    if index == "@":
        return [_copy(w) for w in items]
    if index == "*":
        if not items:
            return []
        text, spans, unknown = [], [], []
        for k, w in enumerate(items):
            if k:
                text.append(" ")
                spans.append(None)
            text.append(w.text)
            spans.extend(w.spans)
            unknown.extend(w.unknown)
        return [Word("".join(text), spans, p.span, unknown, True)]
    k = int(index)
    return [_copy(items[k])] if k < len(items) else []


def _param(p: Param, env: Env, unset_reason: str) -> Word:
    var = env.get(p.name)
    is_set = var is not None
    known = var is not None and var.value is not None
    value = var.value if known else None  # type: ignore[union-attr]
    empty = known and value.text == ""  # type: ignore[union-attr]

    def arg_word() -> Word:
        return expand_one(RawWord(p.arg or [], p.span), env, unset_reason)

    def unknown() -> Word:
        return Word(
            p.raw,
            [p.span] * len(p.raw),
            p.span,
            [_unknown_var(p.name, p.raw, var, p.span, unset_reason)],
        )

    op = p.op
    if op == "":
        return _copy(value) if known else unknown()
    if is_set and not known:  # set to something only known at run time
        return unknown()
    use_alt = (not is_set or empty) if op.startswith(":") else not is_set
    if op in (":-", "-"):
        return arg_word() if use_alt else _copy(value)  # type: ignore[arg-type]
    if op in (":=", "="):
        if use_alt:
            w = arg_word()
            env[p.name] = Var(w, var.exported if var else False, f"{p.raw}")
            return w
        return _copy(value)  # type: ignore[arg-type]
    if op in (":+", "+"):
        return Word("", [], p.span) if use_alt else arg_word()
    # :? and ?: the shell stops with an error when the variable is unset
    if use_alt:
        return Word(
            p.raw,
            [p.span] * len(p.raw),
            p.span,
            [
                Unknown(
                    p.raw, p.name, f"{p.name} must be set when the script runs ({p.raw})", p.span
                )
            ],
        )
    return _copy(value)  # type: ignore[arg-type]


def _copy(w: Word) -> Word:
    return Word(
        w.text,
        w.spans if isinstance(w.spans, SpanRun) else list(w.spans),
        w.whole,
        list(w.unknown),
        w.quoted,
    )


# --------------------------------------------------------------------------- walking a script


@dataclass(slots=True)
class Command:
    """A simple command as the shell would run it."""

    argv: list[Word]  # expanded
    env: Env  # the environment the command runs with: exported variables and its prefix assignments
    prefix: dict[str, Var]  # `A=B cmd`: assignments written before the command
    span: Span | None


_DECLARE = {"export", "declare", "typeset", "readonly", "local"}
_RESERVED = {
    "!",
    "{",
    "}",
    "then",
    "else",
    "elif",
    "do",
    "if",
    "while",
    "until",
    "fi",
    "done",
    "esac",
}


@dataclass(slots=True)
class Walker:
    """Runs through a script in order, keeping variables, and yields every other simple command.

    Conditionals and loops are not evaluated: assignments count in the order they are written.
    ``fallback`` answers variables the script leaves unknown (swacheck's ``--env``).
    """

    env: Env
    file_label: str = "the script"
    fallback: Env = field(default_factory=dict)
    base_dir: str = "."
    allexport: bool = False
    read_file: Callable[[str], Source] | None = (
        None  # for `. FILE` / `source FILE`; raises InputProblem outside the root
    )
    depth: int = 0
    opaque_reasons: dict[str, str] = field(default_factory=dict)  # "$(POD_IP)" -> why it is unknown
    unset_reason: str = ""  # how to say that a variable is set nowhere: "not set in decode.sh ..."

    exported_names: set[str] = field(default_factory=set)  # `export NAME` before NAME is set
    sourcing: tuple[str, ...] = ()  # real paths of the files being read, outermost first (cycles)

    def __post_init__(self) -> None:
        if not self.unset_reason:
            self.unset_reason = f"not set in {self.file_label} nor given with --env"
        for name, var in self.fallback.items():
            self.env.setdefault(name, var)

    def assign(self, name: str, var: Var) -> None:
        if name.endswith("+"):  # NAME+=value / NAME+=(items): append to what NAME holds
            name = name[:-1]
            old = self.env.get(name)
            if (
                old is not None
                and (old.value is not None or old.items is not None)
                and (var.value is not None or var.items is not None)
            ):
                if var.items is not None or old.items is not None:
                    items = list(old.items if old.items is not None else [old.value]) + list(
                        var.items if var.items is not None else [var.value]
                    )  # type: ignore[list-item]
                    var = Var(
                        items[0] if items else Word("", [], None),
                        old.exported,
                        var.origin,
                        items=items,
                    )
                else:
                    a, b = old.value, var.value
                    var = Var(
                        Word(
                            a.text + b.text,
                            a.spans + b.spans,
                            a.whole,
                            a.unknown + b.unknown,
                            a.quoted or b.quoted,
                        ),
                        old.exported,
                        var.origin,
                    )  # type: ignore[union-attr]
            elif old is not None and old.value is None and old.items is None:
                var = Var(None, old.exported, var.origin, old.reason, old.where)
        if var.value is None and var.items is None and name in self.fallback:
            var = self.fallback[name]
        old = self.env.get(name)
        if old is not None and old.exported or self.allexport or name in self.exported_names:
            var.exported = True
        self.env[name] = var

    def expand(self, raw: RawWord, split: bool = True) -> list[Word]:
        words = expand(raw, self.env, self.unset_reason, split=split)
        self._explain(words)
        return words

    def _explain(self, words: list[Word]) -> None:
        if not self.opaque_reasons:
            return
        for w in words:
            w.unknown = [
                Unknown(u.shown, u.name, self.opaque_reasons.get(u.shown, u.reason), u.span)
                for u in w.unknown
            ]

    def value_var(self, raw: RawWord, origin: str) -> Var:
        if raw.parts and isinstance(raw.parts[-1], ArrayLit):  # NAME=(a b c)
            items = [w for item in raw.parts[-1].items for w in self.expand(item)]
            return Var(items[0] if items else Word("", [], raw.span), origin=origin, items=items)
        word = expand_one(raw, self.env, self.unset_reason)
        self._explain([word])
        if word.unknown:
            reason = "; ".join(f"{u.shown}: {u.reason}" for u in word.unknown)
            return Var(None, origin=origin, reason=reason, where=word.unknown[0].location)
        return Var(word, origin=origin)

    def walk(self, commands: list[RawCommand]) -> Iterable[Command]:
        for cmd in commands:
            words = list(cmd.words)
            while words and words[0].literal() in _RESERVED:
                words = words[1:]
            if not words:
                continue
            if words[0].literal() in ("for", "case", "select", "function"):
                continue
            prefix: dict[str, Var] = {}
            while words and (a := words[0].assignment()) is not None:
                name, value, _ = a
                prefix[name] = self.value_var(value, f"{name}=... in {self.file_label}")
                words = words[1:]
            if not words:
                for name, var in prefix.items():
                    self.assign(name, var)
                continue
            head = words[0].literal()
            if head in _DECLARE:
                self.declare(head, words[1:])
                continue
            if head == "unset":
                for w in words[1:]:
                    if (lit := w.literal()) and not lit.startswith("-"):
                        self.env.pop(lit, None)
                continue
            if head == "set":
                for w in words[1:]:
                    lit = w.literal() or ""
                    if lit.startswith("-") and "a" in lit[1:]:
                        self.allexport = True
                    elif lit.startswith("+") and "a" in lit[1:]:
                        self.allexport = False
                continue
            if head in (".", "source") and len(words) > 1:
                yield from self.source(words[1])
                continue
            argv = [w for raw in words for w in self.expand(raw)]
            if not argv:
                continue
            child = {k: v for k, v in self.env.items() if v.exported}
            for name, var in prefix.items():
                if var.value is None and name in self.fallback:
                    var = self.fallback[name]
                child[name] = Var(var.value, True, var.origin, var.reason, var.where)
            yield Command(argv, child, prefix, cmd.span)

    def declare(self, head: str, args: list[RawWord]) -> None:
        exported = head == "export"
        for raw in args:
            lit = raw.literal()
            if lit is not None and lit.startswith("-"):
                exported = exported or "x" in lit
                continue
            a = raw.assignment()
            if a is not None:
                name, value, _ = a
                var = self.value_var(value, f"{head} {name}=... in {self.file_label}")
                self.assign(name, var)
                if exported:
                    self.env[name].exported = True
            elif lit is not None and _NAME.fullmatch(lit) and exported:
                if lit in self.env:
                    self.env[lit].exported = True
                else:
                    self.exported_names.add(lit)

    def source(self, raw: RawWord) -> Iterable[Command]:
        """`. FILE`: read FILE (relative to the script's folder) when it exists; else nothing is known.

        A file that sources itself (directly or through others) would never finish in a shell,
        and a chain deeper than ``limits.MAX_SOURCE_DEPTH`` or more than ``limits.MAX_SOURCES``
        files sourced for one input are input errors: sourcing is where a few hundred bytes
        could otherwise become an exponential number of commands.
        """
        if self.read_file is None:
            return
        word = expand_one(raw, self.env)
        if word.unknown or not word.text:
            return
        path = (
            word.text
            if os.path.isabs(word.text)
            else os.path.normpath(os.path.join(self.base_dir, word.text))
        )
        if not os.path.isfile(path):
            return
        at = span_location(raw.span)
        key = os.path.realpath(path)
        if key in self.sourcing:
            chain = [os.path.basename(p) for p in self.sourcing[self.sourcing.index(key) :]] + [
                os.path.basename(key)
            ]
            raise InputProblem(
                f"{one_line(chain[0])} sources itself ({one_line(' -> '.join(chain))}): the shell would never finish",
                at,
            )
        if self.depth >= limits.MAX_SOURCE_DEPTH:
            raise InputProblem(
                f"sourced files nested more than {limits.MAX_SOURCE_DEPTH} deep (the limit)", at
            )
        limits.current().source(at)
        try:
            src = self.read_file(path)
            commands = lex(Chars.of_source(src))
        except (InputProblem, ShellSyntaxError):
            return
        inner = Walker(
            self.env,
            os.path.basename(path),
            self.fallback,
            os.path.dirname(path) or ".",
            self.allexport,
            self.read_file,
            self.depth + 1,
            self.opaque_reasons,
            self.unset_reason,
            sourcing=(*self.sourcing, key),
        )
        yield from inner.walk(commands)
        self.allexport = inner.allexport


def syntax_problem(err: ShellSyntaxError, path: str) -> InputProblem:
    return InputProblem(f"shell syntax: {err.message}", span_location(err.span), path)
