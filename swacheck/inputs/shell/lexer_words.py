"""Lexing one shell word: quotes, escapes, ``$'...'`` and the expansions it holds.

:class:`WordLexer` reads the characters of one word into raw parts (:class:`Lit`,
:class:`Param`, :class:`Opaque`); the command lexer (``lexer``) builds on it. Nothing is
expanded here: ``$NAME`` and ``${NAME:-word}`` become :class:`Param` s, and what the shell
computes at run time (``$(...)``, backquotes, ``$((...))``, ``${#X}``, ``$1``) :class:`Opaque` s.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ... import limits
from ...model.records import InputProblem
from .spans import Span, _SpanBuilder, span_location
from .words import _NAME, Chars, Lit, Opaque, Param, Part, RawWord

_MAX_NESTING = 50
# characters the lexer takes as they are in any context, a run at a time (a character-at-a-time
# loop made a 5 MB script take seconds): none that quotes, escapes, expands, ends a word or a
# ${...}, or starts a `\` continuation
_PLAIN_RUN = re.compile(r"""[^ \t\r\n;&|()<>\\'"$`}]+""")
_PLAIN_RUN_UNEXPANDED = re.compile(r"""[^ \t\r\n;&|()<>\\'"}]+""")  # `$` and backquotes too
_DQUOTE_RUN = re.compile(r"""[^"\\$`]+""")
_ANSI_C_ESCAPES = {
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


class ShellSyntaxError(Exception):
    def __init__(self, message: str, span: Span | None):
        super().__init__(message)
        self.message = message
        self.span = span


class WordLexer:
    """The characters of a text and a position in it; reads one word at a time."""

    def __init__(self, chars: Chars, expand: bool = True):
        self.t = chars.text
        self.s = chars.spans
        self.i = 0
        self.n = len(self.t)
        self.expand = expand  # False: `$` and backquotes are plain characters (Compose strings)
        self.depth = 0  # ${X:-${Y:-...}} nesting
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
        plain = _PLAIN_RUN if self.expand else _PLAIN_RUN_UNEXPANDED
        while self.i < self.n:
            if self.i - self.word_start > limits.MAX_WORD:
                self.too_long()
            if self.continuation():
                continue
            c = self.t[self.i]
            if stop(c):
                break
            special = self.special(c) if c in "\\'\"$`" else None
            if special is not None:
                if lit:
                    parts.append(Lit("".join(lit), lit_spans.take(), False))  # type: ignore[arg-type]
                    lit.clear()
                parts.extend(special)
                continue
            m = plain.match(self.t, self.i)  # plain characters, a run at a time
            end = m.end() if m else self.i + 1
            lit.append(self.t[self.i : end])
            lit_spans.add_range(self.i, end)
            self.i = end
        if lit:
            parts.append(Lit("".join(lit), lit_spans.take(), False))  # type: ignore[arg-type]
        return parts

    def special(self, c: str) -> list[Part] | None:
        """The parts that the escape, quote or expansion starting with ``c`` at the position
        makes (the position moves past it); None when ``c`` is a plain character here."""
        t, i = self.t, self.i
        if c == "\\":
            if i + 1 >= self.n:
                return None  # a backslash at the very end stays as it is
            self.i += 2  # an escaped character is quoted
            return [Lit(t[i + 1], [self.span(i, i + 2)], True)]
        if c == "'":
            end = t.find("'", i + 1)
            if end < 0:
                raise self.fail("unterminated single quote", i)
            self.i = end + 1
            return [Lit(t[i + 1 : end], self.s[i + 1 : end], True)]
        if c == '"':
            return self.dquote()
        if not self.expand:
            return None
        if t.startswith("$'", i):
            return [self.ansi_c()]
        if t.startswith('$"', i):
            self.i += 1
            return self.dquote()
        part = self.dollar(quoted=False) if c == "$" else self.backquote(quoted=False)
        return None if part is None else [part]

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
        while True:
            if self.i - self.word_start > limits.MAX_WORD:
                self.too_long()
            if self.i >= self.n:
                raise self.fail("unterminated $'...' string", start)
            c = self.t[self.i]
            if c == "'":
                self.i += 1
                break
            if c == "\\" and self.i + 1 < self.n and self.t[self.i + 1] in _ANSI_C_ESCAPES:
                out.append(_ANSI_C_ESCAPES[self.t[self.i + 1]])
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
        if _only_comments(raw[1:-1]):  # `# a comment` in a continued line: it outputs nothing
            return Lit("", [], quoted)
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
            if _only_comments(t[start + 2 : self.i - 1]):
                return Lit("", [], quoted)
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


def _only_comments(script: str) -> bool:
    """Whether a command substitution holds nothing but comments (`` `# the model` ``)."""
    lines = [line.strip() for line in script.split("\n")]
    return any(lines) and all(not line or line.startswith("#") for line in lines)


def _special_reason(ch: str) -> str:
    if ch.isdigit() or ch in "@*#":
        return "the script's own arguments: only known when it is run"
    return "a special parameter: only known when the script runs"
