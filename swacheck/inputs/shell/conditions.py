"""Test commands evaluated as bash does when their operands are known: ``[[ ]]``, ``[ ]``, ``test``.

String ``=`` ``==`` ``!=`` (a pattern on the right of ``[[ == ]]`` when unquoted), ``<`` ``>``,
``-z`` ``-n``, integer ``-eq`` ``-ne`` ``-lt`` ``-le`` ``-gt`` ``-ge``, ``-v NAME``, ``!``,
``( )`` and ``&&``/``||`` (``-a``/``-o`` in ``[ ]``). A file test, ``=~`` or an operand the
files do not give is undecided: :func:`evaluate` returns None and the unknowns it met, which
say what the answer depends on.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from .arithmetic import integer
from .expansion import _unknown_places
from .words import Unknown, Word

_STRING = {"=", "==", "!=", "<", ">"}
_INTEGER = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__}
_INTEGER |= {"-gt": int.__gt__, "-ge": int.__ge__}
_BINARY = _STRING | set(_INTEGER) | {"=~", "-nt", "-ot", "-ef"}
_UNARY = set("-z -n -v -e -f -d -r -w -x -s -L -h -b -c -p -S -g -u -k -t -O -G -N -o -a".split())

Tri = bool | None


class _Test:
    def __init__(self, tokens: list[tuple[Word, bool]], double: bool, is_set: Callable[[str], Tri]):
        self.toks = tokens  # (word, whether it is an unquoted operator/pattern)
        self.double = double
        self.is_set = is_set
        self.pos = 0
        self.unknown: list[Unknown] = []

    def op(self, k: int) -> str | None:
        """The operator at ``pos + k`` (an unquoted word), else None."""
        j = self.pos + k
        if j < len(self.toks) and self.toks[j][1]:
            return self.toks[j][0].text
        return None

    def expr(self) -> Tri:
        left = self.conj()
        while self.op(0) == ("||" if self.double else "-o") and self.pos + 1 < len(self.toks):
            self.pos += 1
            right = self.conj()
            left = (
                True
                if left is True or right is True
                else (None if None in (left, right) else False)
            )
        return left

    def conj(self) -> Tri:
        left = self.neg()
        while self.op(0) == ("&&" if self.double else "-a") and self.pos + 1 < len(self.toks):
            self.pos += 1
            right = self.neg()
            left = (
                False
                if left is False or right is False
                else (None if None in (left, right) else True)
            )
        return left

    def neg(self) -> Tri:
        if self.op(0) == "!" and self.pos + 1 < len(self.toks):
            self.pos += 1
            value = self.neg()
            return None if value is None else not value
        return self.primary()

    def primary(self) -> Tri:
        if self.pos >= len(self.toks):
            return False
        if self.op(0) == "(" and self.pos + 1 < len(self.toks):
            self.pos += 1
            value = self.expr()
            if self.op(0) == ")":
                self.pos += 1
            return value
        n = len(self.toks) - self.pos
        if n >= 3 and self.op(1) in _BINARY:
            a, b = self.toks[self.pos][0], self.toks[self.pos + 2]
            operator = self.op(1)
            self.pos += 3
            return self.binary(a, operator, b)  # type: ignore[arg-type]
        if n >= 2 and self.op(0) in _UNARY:
            operator = self.op(0)
            arg = self.toks[self.pos + 1][0]
            self.pos += 2
            return self.unary(operator, arg)  # type: ignore[arg-type]
        word = self.toks[self.pos][0]
        self.pos += 1
        return self.non_empty(word)

    def non_empty(self, word: Word) -> Tri:
        if not word.unknown:
            return word.text != ""
        whole, _ = _unknown_places(word)
        if any(k not in whole for k in range(len(word.text))):
            return True  # some of it is known text: not empty, whatever the rest is
        self.unknown.extend(word.unknown)
        return None

    def unary(self, operator: str, arg: Word) -> Tri:
        if operator in ("-z", "-n"):
            value = self.non_empty(arg)
            return None if value is None else value == (operator == "-n")
        if operator == "-v" and not arg.unknown:
            value = self.is_set(arg.text)
            if value is None:
                self.unknown.append(
                    Unknown(
                        arg.text, arg.text, f"{arg.text} may be set when the script runs", arg.whole
                    )
                )
            return value
        self.unknown.append(
            Unknown(
                f"{operator} {arg.text}",
                arg.text,
                f"a test of {operator} {arg.text}: only known when the script runs",
                arg.whole,
            )
        )
        return None

    def binary(self, a: Word, operator: str, b: tuple[Word, bool]) -> Tri:
        right, pattern = b
        if a.unknown or right.unknown:
            self.unknown.extend(a.unknown + right.unknown)
            return None
        if operator in _INTEGER:
            x, y = integer(a.text), integer(right.text)
            if x is None or y is None:
                self.unknown.append(
                    Unknown(
                        operator,
                        operator,
                        f"{a.text} {operator} {right.text} compares text that is no integer",
                        a.whole,
                    )
                )
                return None
            return _INTEGER[operator](x, y)
        if operator in ("=", "==", "!="):
            if self.double and pattern:
                same = fnmatch.fnmatchcase(a.text, right.text)
            else:
                same = a.text == right.text
            return same if operator != "!=" else not same
        if operator in ("<", ">"):
            return a.text < right.text if operator == "<" else a.text > right.text
        self.unknown.append(
            Unknown(operator, operator, f"{operator}: only known when the script runs", a.whole)
        )
        return None


def evaluate(
    tokens: list[tuple[Word, bool]], double: bool, is_set: Callable[[str], Tri]
) -> tuple[Tri, list[Unknown]]:
    """The status of a test over ``tokens`` (each an expanded word and whether it was written
    as an unquoted literal, which makes it an operator or, right of ``==``, a pattern):
    True/False, or None and the unknowns it depends on."""
    t = _Test(tokens, double, is_set)
    if not tokens:
        return False, []
    value = t.expr()
    if t.pos < len(tokens):  # words left over: bash says "syntax error"; not decided here
        return None, t.unknown
    return value, t.unknown


def matches(word: Word, pattern: Word) -> Tri:
    """A ``case`` pattern: True/False, None when either side is not known."""
    if not pattern.quoted and not pattern.unknown and pattern.text.strip("*") == "":
        return True  # `*)`: whatever the word is
    if word.unknown or pattern.unknown:
        return None
    return (
        fnmatch.fnmatchcase(word.text, pattern.text)
        if not pattern.quoted
        else word.text == pattern.text
    )
