"""Shell arithmetic, ``$(( ... ))``, worked out when the file says every number in it.

Launch scripts compute flags this way (``--speculative-num-draft-tokens $((STEPS + 1))``,
``--max-running-requests $((DP * 32))``). The value is known when every operand is an integer
written in the expression or held by a variable the file sets to one; otherwise it stays unknown
(an unset variable would be 0 in bash, but it may be set where the script runs: never guessed).

Bash's rules for what is supported: 64-bit signed integers that wrap around; ``/`` and ``%``
truncate toward zero; unary ``-``/``+`` bind tightest, then ``**`` (from the right); literals
in decimal, ``0x`` hex and leading-zero octal. Anything else (comparisons, bit operators, ``?:``,
assignments, ``base#n``) leaves the value unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# a literal longer than a 64-bit number needs is not worked out (and int() of thousands of digits
# would raise): at most 22 octal, 20 decimal or 16 hex digits
_LITERAL = r"0[xX]([0-9a-fA-F]{1,16})|(0[0-7]{0,22}|[1-9][0-9]{0,19})"
_TOKEN = re.compile(
    r"\s*(?:(\*\*|[-+*/%()])|(?:" + _LITERAL + r")(?![\w#])"
    r"|\$\{([A-Za-z_]\w*)\}|\$?([A-Za-z_]\w*))"
)
_INTEGER = re.compile(r"\s*(-?)(?:" + _LITERAL + r")\s*")
_BITS = 1 << 64
MAX_TOKENS = 200  # a script's arithmetic is short; anything longer is not worked out
MAX_NESTING = 20


def _wrap(n: int) -> int:
    """``n`` as bash holds it: a 64-bit signed integer."""
    n %= _BITS
    return n - _BITS if n >= 1 << 63 else n


def _literal(hexa: str | None, other: str) -> int:
    if hexa:
        return int(hexa, 16)
    return int(other, 8) if other.startswith("0") else int(other)


def integer(text: str) -> int | None:
    """A variable's value as arithmetic reads it, when it is an integer literal."""
    m = _INTEGER.fullmatch(text)
    if m is None:
        return None
    value = _literal(m.group(2), m.group(3) or "")
    return _wrap(-value if m.group(1) else value)


def evaluate(expression: str, lookup: Callable[[str], int | None]) -> int | None:
    """The value of ``expression`` (what is inside ``$(( ))``), or None when it is not known.
    ``lookup(name)`` gives a variable's integer value, or None when the file does not say it."""
    tokens: list[tuple[str, str | int]] = []
    i = 0
    text = expression.rstrip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None or m.end() == i or len(tokens) >= MAX_TOKENS:
            return None
        op, hexa, number, braced, name = m.groups()
        if op:
            tokens.append(("op", op))
        elif hexa or number:
            tokens.append(("int", _wrap(_literal(hexa, number or ""))))
        else:
            value = lookup(braced or name)
            if value is None:
                return None
            tokens.append(("int", value))
        i = m.end()
    parser = _Parser(tokens)
    try:
        value = parser.sum()
    except _Unknown:
        return None
    return value if parser.at == len(tokens) else None


class _Unknown(Exception):
    """The expression is not one this module works out (or bash would refuse it)."""


class _Parser:
    def __init__(self, tokens: list[tuple[str, str | int]]):
        self.tokens = tokens
        self.at = 0
        self.depth = 0

    def _peek(self) -> str | int | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def _take(self) -> tuple[str, str | int]:
        if self.at >= len(self.tokens):
            raise _Unknown
        self.at += 1
        return self.tokens[self.at - 1]

    def sum(self) -> int:
        value = self.product()
        while self._peek() in ("+", "-"):
            op = self._take()[1]
            right = self.product()
            value = _wrap(value + right if op == "+" else value - right)
        return value

    def product(self) -> int:
        value = self.power()
        while self._peek() in ("*", "/", "%"):
            op = self._take()[1]
            right = self.power()
            if op == "*":
                value = _wrap(value * right)
            elif right == 0:
                raise _Unknown  # bash: division by 0
            else:
                quotient = abs(value) // abs(right) * (1 if (value < 0) == (right < 0) else -1)
                value = _wrap(quotient if op == "/" else value - quotient * right)
        return value

    def power(self) -> int:
        base = self.unary()
        if self._peek() != "**":
            return base
        self._take()
        exponent = self.power()  # right-associative
        if exponent < 0:
            raise _Unknown  # bash: exponent less than 0
        return _wrap(pow(base, exponent, _BITS))

    def unary(self) -> int:
        if self._peek() in ("+", "-"):
            sign = self._take()[1]
            value = self.unary()
            return _wrap(-value) if sign == "-" else value
        return self.atom()

    def atom(self) -> int:
        kind, value = self._take()
        if kind == "int":
            return value  # type: ignore[return-value]
        if value != "(":
            raise _Unknown
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Unknown
        inner = self.sum()
        if self._take()[1] != ")":
            raise _Unknown
        self.depth -= 1
        return inner
