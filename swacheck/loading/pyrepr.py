"""A Python value's ``repr`` -> the position-keeping tree, as SGLang prints its arguments.

SGLang logs the server's arguments at start-up as the ``repr`` of a value: 0.5.19 and later
``server_args={'model_path': ..., ...}`` (``srt/entrypoints/engine.py``
``_server_args_for_logging``, the resolved dict), earlier releases ``server_args=ServerArgs(
model_path=..., ...)`` (the dataclass ``repr``). This reads that text without evaluating it:
string, number, ``True``/``False``/``None`` literals, lists, tuples, sets, dicts and calls
``Name(key=value, ...)`` (a record's ``repr``, read as a mapping of its keywords). Anything else
(``<Enum.X: 1>``, ``inf``, a name) is kept as its text, and ``...`` (a line shortened by hand) as
``Ellipsis``. Every value keeps its line:col span, and
the node count, nesting and integer size are bounded as in YAML and JSON (``limits``).
"""

from __future__ import annotations

import re
from typing import Any

from .. import limits
from ..model.records import InputProblem, Location
from ..model.tree import MAX_DEPTH, Mapping, Node, Pair, Scalar, Sequence

MAX_DIGITS = 4_000  # below Python's int-from-text limit (4,300); no SGLang number has 20

_WS = re.compile(r"[ \t]*")
_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][-+]?\d+)?j?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_STRING_PREFIX = re.compile(r"(?:[rRbBuU]|[rR][bB]|[bB][rR])?(['\"])")
_CONSTANTS = {"True": True, "False": False, "None": None}
_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
_HEX = {"x": 2, "u": 4, "U": 8}
_OPEN = {"[": "]", "(": ")", "{": "}"}


class ReprParser:
    """One ``repr`` written on one line of ``text`` (offsets into the whole text)."""

    def __init__(self, text: str, path: str, line: int, line_start: int, end: int):
        self.text, self.path, self.line, self.line_start, self.end = (
            text,
            path,
            line,
            line_start,
            end,
        )
        self.nodes = 0

    def loc(self, start: int, end: int) -> Location:
        return Location(
            self.path, self.line, start - self.line_start + 1, self.line, end - self.line_start + 1
        )

    def fail(self, message: str, at: int) -> InputProblem:
        return InputProblem(f"cannot read the server arguments: {message}", self.loc(at, at))

    def skip(self, i: int) -> int:
        return _WS.match(self.text, i, self.end).end()  # type: ignore[union-attr]

    def value(self, i: int, depth: int = 0) -> tuple[Node, int]:
        """The value starting at ``i`` and the offset after it."""
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep", i)
        self.nodes += 1
        if self.nodes > limits.MAX_YAML_NODES:
            raise self.fail(f"more than {limits.MAX_YAML_NODES} values on one line", i)
        i = self.skip(i)
        if i >= self.end:
            raise self.fail("the line ends where a value should be", i)
        c = self.text[i]
        if c in _OPEN:
            return self._collection(i, depth)
        if c == "<":  # <Enum.MEMBER: 1>, <object at 0x...>: kept as written
            close = self.text.find(">", i, self.end)
            if close < 0:
                raise self.fail("'<' without '>'", i)
            return Scalar(self.text[i : close + 1], self.loc(i, close + 1)), close + 1
        if (m := _STRING_PREFIX.match(self.text, i, self.end)) is not None:
            return self._string(i, m.end() - 1, "r" in m.group(0).lower())
        if self.text.startswith(
            "...", i
        ):  # a hand-shortened line: server_args=ServerArgs(a=1, ...)
            return Scalar(Ellipsis, self.loc(i, i + 3)), i + 3
        if c.isdigit() or (c in "-+." and i + 1 < self.end and self.text[i + 1].isdigit()):
            return self._number(i)
        m = _NAME.match(self.text, i, self.end)
        if m is None:
            raise self.fail(f"unexpected {c!r}", i)
        name, j = m.group(0), m.end()
        if self.text.startswith("(", j):  # a record's repr: Name(key=value, ...)
            return self._call(i, j, depth)
        value: Any = _CONSTANTS.get(name, name)
        return Scalar(value, self.loc(i, j), quoted=name not in _CONSTANTS), j

    def _string(self, start: int, quote_at: int, raw: bool) -> tuple[Node, int]:
        text, q = self.text, self.text[quote_at]
        out: list[str] = []
        i = quote_at + 1
        while True:
            j = i
            while j < self.end and text[j] not in (q, "\\"):
                j += 1
            out.append(text[i:j])
            if j >= self.end:
                raise self.fail("a string that does not end on its line", start)
            if text[j] == q:
                return Scalar("".join(out), self.loc(start, j + 1), quoted=True), j + 1
            esc = text[j + 1 : j + 2]
            if raw:
                out.append(text[j : j + 2])
                i = j + 2
            elif esc in _HEX:
                digits = text[j + 2 : j + 2 + _HEX[esc]]
                if len(digits) != _HEX[esc] or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                    raise self.fail(f"a bad \\{esc} escape", j)
                code = int(digits, 16)
                if code > 0x10FFFF:
                    raise self.fail(f"a bad \\{esc} escape", j)
                out.append(chr(code))
                i = j + 2 + _HEX[esc]
            else:
                out.append(_ESCAPES.get(esc, "\\" + esc))
                i = j + 2

    def _number(self, i: int) -> tuple[Node, int]:
        m = _NUMBER.match(self.text, i, self.end)
        raw = m.group(0) if m else ""
        j = i + len(raw)
        if not raw or raw in "+-.":
            raise self.fail("a bad number", i)
        digits = sum(ch.isdigit() for ch in raw)
        if digits > MAX_DIGITS:
            raise self.fail(f"a number of {digits} digits (at most {MAX_DIGITS})", i)
        try:
            value: Any = int(raw.replace("_", ""))
        except ValueError:
            try:
                value = float(raw.replace("_", ""))
            except ValueError:
                value = raw  # a complex number: kept as written
        return Scalar(value, self.loc(i, j)), j

    def _collection(self, start: int, depth: int) -> tuple[Node, int]:
        """``[...]``, ``(...)``, ``{...}`` (a dict, or a set when its items have no ``:``)."""
        close = _OPEN[self.text[start]]
        items: list[Node] = []
        pairs: dict[str, Pair] = {}
        i = self.skip(start + 1)
        while not self.text.startswith(close, i):
            node, i = self.value(i, depth + 1)
            i = self.skip(i)
            if close == "}" and self.text.startswith(":", i):
                value, i = self.value(i + 1, depth + 1)
                key = node.value if isinstance(node, Scalar) else None
                if not isinstance(key, str | int | float | bool) and key is not None:
                    raise self.fail("a key that is not a plain value", i)
                pairs.pop(str(key), None)
                pairs[str(key)] = Pair(str(key), node.loc, value)
                i = self.skip(i)
            else:
                items.append(node)
            i = self._separator(i, close)
        end = i + 1
        if close == "}" and (pairs or not items):
            return Mapping(self.loc(start, end), pairs, flow=True), end
        return Sequence(self.loc(start, end), items), end

    def _call(self, start: int, paren: int, depth: int) -> tuple[Node, int]:
        """``Name(key=value, ...)``: a mapping of the keywords (positional values are left out)."""
        pairs: dict[str, Pair] = {}
        i = self.skip(paren + 1)
        while not self.text.startswith(")", i):
            m = _NAME.match(self.text, i, self.end)
            after = self.skip(m.end()) if m else i
            if m is not None and self.text.startswith("=", after):
                value, i = self.value(after + 1, depth + 1)
                key = m.group(0)
                pairs.pop(key, None)
                pairs[key] = Pair(key, self.loc(m.start(), m.end()), value)
            else:
                _, i = self.value(i, depth + 1)
            i = self._separator(self.skip(i), ")")
        return Mapping(self.loc(start, i + 1), pairs, flow=True), i + 1

    def _separator(self, i: int, close: str) -> int:
        if self.text.startswith(",", i):
            return self.skip(i + 1)
        if self.text.startswith(close, i):
            return i
        if i >= self.end:
            raise self.fail(f"the line ends before {close!r}", i)
        raise self.fail(f"expected ',' or {close!r}, found {self.text[i]!r}", i)


def parse_repr(text: str, path: str, line: int, line_start: int, start: int, end: int) -> Node:
    """The value written at ``text[start:end]`` (on line ``line``, which starts at ``line_start``);
    :class:`InputProblem` with its position when it is not a value's repr."""
    parser = ReprParser(text, path, line, line_start, end)
    node, i = parser.value(start)
    i = parser.skip(i)
    if i < end and not text[i:end].isspace():
        raise parser.fail("more text after the arguments", i)
    return node
