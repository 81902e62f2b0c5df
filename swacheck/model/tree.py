"""The position-keeping tree that YAML and JSON files load into.

Every key and value keeps its 1-based ``line:col`` span (a :class:`Location`); a mapping keeps
the last occurrence of each key, as PyYAML and ``json`` do (that is what SGLang reads), and the
earlier ones are recorded as :class:`Duplicate` s.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .. import limits
from .records import InputProblem, Location
from .recordtype import record

DEFAULT_MAX_FILE_SIZE = limits.MAX_FILE_SIZE  # bytes; a config file is a few KiB
MAX_DEPTH = limits.MAX_NESTING  # nesting levels; real configs use fewer than 10


# --------------------------------------------------------------------------- tree


@record
class Scalar:
    """A scalar value and where it is written."""

    value: Any
    loc: Location
    quoted: bool = False

    def plain(self) -> Any:
        return self.value


@record
class Pair:
    """A mapping entry: its key, where the key is written, and its value node."""

    key: str
    key_loc: Location
    value: Node


@record
class Mapping:
    """A mapping and where it starts; each key's last entry (what YAML loaders keep)."""

    loc: Location
    # each key's last occurrence, in file order: the readers insert each key as they read it, and
    # a duplicate is taken out and put back at its later place (tests/test_loading.py holds this);
    # keys a YAML merge key (<<) brings in come first, as yaml.safe_load orders them
    pairs: dict[str, Pair] = field(default_factory=dict)
    flow: bool = False
    # the keys a merge key (<<) brought in -> the mapping each is written in (None: no merge)
    merged: dict[str, Mapping] | None = None

    def get(self, key: str) -> Pair | None:
        return self.pairs.get(key)

    def plain(self) -> dict[str, Any]:
        return _plain(self)  # type: ignore[return-value]


@record
class Sequence:
    """A sequence and where it starts."""

    loc: Location
    items: list[Node] = field(default_factory=list)

    def plain(self) -> list[Any]:
        return _plain(self)  # type: ignore[return-value]


Node = Scalar | Mapping | Sequence

MAX_PLAIN_NODES = (
    limits.MAX_PLAIN_NODES
)  # a config value has a few dozen; aliases could make it 9**10


def _plain(node: Node) -> Any:
    """Plain Python data for a subtree, refusing alias bombs (aliases share nodes, this expands them)."""
    if isinstance(node, Scalar):
        return node.value
    # a module-level walk, not a closure: a closure that calls itself is a reference cycle,
    # which nothing frees while a check runs with the cyclic collector paused (engine.py)
    return _walk(node, 0, [MAX_PLAIN_NODES], node)


def _walk(n: Node, depth: int, budget: list[int], node: Node) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise InputProblem(
            f"this value expands to more than {MAX_PLAIN_NODES} items (YAML aliases?)", node.loc
        )
    if (
        depth > MAX_DEPTH
    ):  # only an alias inside its own anchor gets here: the tree is at most MAX_DEPTH deep
        raise InputProblem(
            "this value contains itself (a YAML alias inside its own anchor)", node.loc
        )
    if isinstance(n, Scalar):
        return n.value
    if isinstance(n, Mapping):
        return {k: _walk(p.value, depth + 1, budget, node) for k, p in n.pairs.items()}
    return [_walk(i, depth + 1, budget, node) for i in n.items]


@record
class Duplicate:
    """A key written twice in one mapping: the first entry is silently ignored by YAML loaders."""

    key: str
    first: Location
    again: Location
    first_pair: Pair  # the entry that is silently ignored
    mapping: Mapping


@record(repr=False, eq=False)
class Document:
    """One document of a file: its root node, position in the stream, and duplicate keys."""

    root: Node
    index: int  # 0-based position in a multi-document file
    duplicates: list[Duplicate] = field(default_factory=list)


@record(repr=False, eq=False)
class SourceFile:
    """A parsed input file: its path as named, text, documents and format."""

    path: str  # as the user named it (used in every report)
    text: str
    documents: list[Document]
    fmt: str  # "yaml" | "json"
    raw_documents: int = 1  # documents in the stream, empty ones included (yaml.safe_load wants 1)


def kind_name(node: Node | None) -> str:
    if node is None:
        return "nothing"
    if isinstance(node, Mapping):
        return "a mapping"
    if isinstance(node, Sequence):
        return "a list"
    v = node.value
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"the boolean {str(v).lower()}"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, float):
        return f"the number {v!r}"
    return f"the string {v!r}" if isinstance(v, str) else type(v).__name__
