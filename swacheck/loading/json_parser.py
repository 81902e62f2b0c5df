"""JSON -> the position-keeping tree: RFC 8259, with positions (the standard library keeps none).

Refuses NaN/Infinity, trailing commas and comments; the node count and nesting budgets are
YAML's (JSON is YAML).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .. import limits
from ..model.records import InputProblem, Location
from ..model.tree import MAX_DEPTH, Document, Duplicate, Mapping, Node, Pair, Scalar, Sequence
from .lines import Lines

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_CONSTANTS = {"true": True, "false": False, "null": None}
_INF = float("inf")


class _JsonParser:
    """RFC 8259 JSON with positions. Refuses NaN/Infinity, trailing commas and comments."""

    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.lines = Lines(text)
        self.duplicates: list[Duplicate] = []
        self.nodes = 0

    def loc(self, start: int, end: int) -> Location:
        return self.lines.loc(self.path, start, end)

    def fail(self, message: str, offset: int) -> InputProblem:
        return InputProblem(f"invalid JSON: {message}", self.loc(offset, offset))

    def skip(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def parse(self) -> Document:
        i = self.skip(0)
        if i == len(self.text):
            raise self.fail("the file is empty", i)
        node, i = self.value(i, 0)
        i = self.skip(i)
        if i != len(self.text):
            raise self.fail("extra data after the JSON value", i)
        return Document(node, 0, self.duplicates)

    def value(self, i: int, depth: int) -> tuple[Node, int]:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep", i)
        self.nodes += 1
        if self.nodes > limits.MAX_YAML_NODES:  # the same budget as YAML's: JSON is YAML
            raise InputProblem(
                f"more than {limits.MAX_YAML_NODES} JSON values in this file (the limit per file)",
                self.loc(i, i),
            )
        text = self.text
        ch = text[i : i + 1]
        if ch == "{":
            return self.obj(i, depth)
        if ch == "[":
            return self.arr(i, depth)
        if ch == '"':
            s, end = self.string(i)
            return Scalar(s, self.loc(i, end), quoted=True), end
        for word, const in _CONSTANTS.items():
            if text.startswith(word, i):
                return Scalar(const, self.loc(i, i + len(word))), i + len(word)
        m = _NUMBER.match(text, i)
        if m and m.end() > i:
            raw = m.group(0)
            if m.group(1) or m.group(2):
                num: Any = float(raw)
                if num in (_INF, -_INF):
                    raise InputProblem(
                        "a number too large for any setting (past a double's range)",
                        self.loc(i, m.end()),
                    )
            elif len(raw) > limits.MAX_NUMBER_DIGITS + raw.startswith("-"):
                raise InputProblem(limits.NUMBER_TOO_LONG, self.loc(i, m.end()))
            else:
                num = int(raw)
            return Scalar(num, self.loc(i, m.end())), m.end()
        if text.startswith(("NaN", "Infinity", "-Infinity"), i):
            raise self.fail("NaN and Infinity are not JSON numbers", i)
        if not ch:
            raise self.fail("unexpected end of file, expected a value", i)
        raise self.fail(f"unexpected character {ch!r}, expected a value", i)

    def string(self, i: int) -> tuple[str, int]:
        try:
            return json.decoder.scanstring(self.text, i + 1, True)  # type: ignore[attr-defined]
        except json.JSONDecodeError as exc:  # msg expects a position after it: "... starting at"
            msg = exc.msg.removesuffix(" at").removesuffix(" starting")
            raise self.fail(msg[:1].lower() + msg[1:], exc.pos) from None

    def obj(self, start: int, depth: int) -> tuple[Node, int]:
        mapping = Mapping(self.loc(start, start + 1), flow=True)
        i = self.skip(start + 1)
        comma: int | None = None
        if self.text[i : i + 1] == "}":
            mapping.loc = self.loc(start, i + 1)
            return mapping, i + 1
        while True:
            if self.text[i : i + 1] != '"':
                if self.text[i : i + 1] == "}" and comma is not None:
                    raise self.fail("a trailing comma is not allowed", comma)
                raise self.fail("expected a quoted key", i)
            key, end = self.string(i)
            key_loc = self.loc(i, end)
            i = self.skip(end)
            if self.text[i : i + 1] != ":":
                raise self.fail("expected ':' after the key", i)
            value, i = self.value(self.skip(i + 1), depth + 1)
            old = mapping.pairs.pop(key, None)
            if old is not None:
                self.duplicates.append(Duplicate(key, old.key_loc, key_loc, old, mapping))
            mapping.pairs[key] = Pair(key, key_loc, value)
            i = self.skip(i)
            ch = self.text[i : i + 1]
            if ch == "}":
                mapping.loc = self.loc(start, i + 1)
                return mapping, i + 1
            if ch != ",":
                raise self.fail("expected ',' or '}'", i)
            comma = i
            i = self.skip(i + 1)

    def arr(self, start: int, depth: int) -> tuple[Node, int]:
        seq = Sequence(self.loc(start, start + 1))
        i = self.skip(start + 1)
        comma: int | None = None
        if self.text[i : i + 1] == "]":
            seq.loc = self.loc(start, i + 1)
            return seq, i + 1
        while True:
            if self.text[i : i + 1] == "]" and comma is not None:
                raise self.fail("a trailing comma is not allowed", comma)
            item, i = self.value(i, depth + 1)
            seq.items.append(item)
            i = self.skip(i)
            ch = self.text[i : i + 1]
            if ch == "]":
                seq.loc = self.loc(start, i + 1)
                return seq, i + 1
            if ch != ",":
                raise self.fail("expected ',' or ']'", i)
            comma = i
            i = self.skip(i + 1)


def parse_json(text: str, path: str) -> Document:
    return _JsonParser(text, path).parse()
