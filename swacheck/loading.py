"""Bytes -> a position-keeping tree, for YAML (also multi-document) and JSON.

Only safe loading: YAML is *composed* (never constructed) with libyaml's C composer when it
is present, and each scalar is turned into a plain value by its standard tag; any other tag
(``!!python/object/apply``, custom tags) is refused with a position. JSON is read by a small
exact parser of our own because the standard library keeps no positions.

Every key and value keeps its 1-based ``line:col`` span, and duplicate keys are recorded
(the later one wins, as PyYAML and ``json`` do, since that is what SGLang reads).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from . import limits
from .paths import real
from .records import InputProblem, Location
from .report.escape import one_line

try:  # libyaml's composer is several times faster; fall back to pure Python.
    _SafeLoader: type = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _SafeLoader = yaml.SafeLoader

_PLAIN_TAGS: dict[str, str] = {}  # plain scalar -> its implicit tag (int, bool, null, ... or str)


class _YamlLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader, with the implicit tag of each plain scalar looked up once per run.

    The composer asks for it per scalar, in Python, by trying the resolvers' regular
    expressions; keys and most values repeat across thousands of configs. The answer depends
    on the text alone (the safe loader has no path resolvers), so it is memoised.
    """

    def resolve(self, kind, value, implicit):  # type: ignore[no-untyped-def]
        if kind is yaml.ScalarNode and implicit[0]:
            tag = _PLAIN_TAGS.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(_PLAIN_TAGS) < 200_000:
                    _PLAIN_TAGS[value] = tag
            return tag
        return super().resolve(kind, value, implicit)


DEFAULT_MAX_FILE_SIZE = limits.MAX_FILE_SIZE  # bytes; a config file is a few KiB
MAX_DEPTH = limits.MAX_NESTING  # nesting levels; real configs use fewer than 10


# --------------------------------------------------------------------------- tree


@dataclass(slots=True)
class Scalar:
    value: Any
    loc: Location
    quoted: bool = False

    def plain(self) -> Any:
        return self.value


@dataclass(slots=True)
class Pair:
    key: str
    key_loc: Location
    value: Node


@dataclass(slots=True)
class Mapping:
    loc: Location
    pairs: dict[str, Pair] = field(default_factory=dict)  # last occurrence of each key
    flow: bool = False

    def get(self, key: str) -> Pair | None:
        return self.pairs.get(key)

    def plain(self) -> dict[str, Any]:
        return _plain(self)  # type: ignore[return-value]


@dataclass(slots=True)
class Sequence:
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
    budget = [MAX_PLAIN_NODES]

    def walk(n: Node, depth: int) -> Any:
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
            return {k: walk(p.value, depth + 1) for k, p in n.pairs.items()}
        return [walk(i, depth + 1) for i in n.items]

    return walk(node, 0)


@dataclass(slots=True)
class Duplicate:
    key: str
    first: Location
    again: Location
    first_pair: Pair  # the entry that is silently ignored
    mapping: Mapping


@dataclass(slots=True, repr=False, eq=False)
class Document:
    root: Node
    index: int  # 0-based position in a multi-document file
    duplicates: list[Duplicate] = field(default_factory=list)


@dataclass(slots=True, repr=False, eq=False)
class SourceFile:
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


# --------------------------------------------------------------------------- entry points


# --fix and --diff only (``fixer.py``): the digest of the exact bytes read of each file (real path
# -> sha256), so a fix is written only over the bytes that were checked; and proposed texts that
# stand in for files while the fixes are re-checked (real path -> bytes), so nothing is written
# before it has been verified.
CHECKED: dict[str, str] | None = None
OVERLAY: dict[str, bytes] = {}


def special_kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in a few words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(path: str, kind: str) -> InputProblem:
    if kind == "a directory":
        return InputProblem("is a directory, expected a file", file=path)
    return InputProblem(
        f"is {kind}, not a regular file: swacheck reads only regular files (use - for standard input)",
        file=path,
    )


def read_text(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> str:
    """Read a regular file as UTF-8 text (a BOM is accepted), refusing binary and oversized files.

    Only regular files are opened: a FIFO, a device or a socket (``/dev/zero``, ``/dev/stdin``,
    a named pipe in a walked folder) is refused after a ``stat``, and the file is then opened
    with ``O_NONBLOCK`` and checked again with ``fstat`` (it may have been swapped in between),
    so no open or read can block. Every byte counts against the run's budget (``limits``).
    """
    if OVERLAY and path != "-" and real(path) in OVERLAY:
        return decode(OVERLAY[real(path)], path)
    max_size = min(max_size, limits.MAX_FILE_SIZE)
    if "\0" in path:
        raise InputProblem(
            "no such file: the name holds a NUL byte, which no file name can", file=path
        )
    try:
        kind = special_kind(os.stat(path).st_mode)
        if kind is not None:
            raise not_regular(path, kind)
        fd = os.open(
            path,
            os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0),
        )
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            kind = special_kind(st.st_mode)
            if kind is not None:
                raise not_regular(path, kind)
            size = st.st_size
            if size > max_size:
                raise InputProblem(
                    f"file is {size} bytes, above the {max_size}-byte limit (--max-file-size)",
                    file=path,
                )
            limits.charge_read(size, path)
            data = fh.read(size + 1)  # a regular file's size is known: never allocate more
    except InputProblem:
        raise
    except IsADirectoryError:
        raise InputProblem("is a directory, expected a file", file=path) from None
    except FileNotFoundError:
        raise InputProblem("no such file", file=path) from None
    except PermissionError:
        raise InputProblem("permission denied", file=path) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputProblem(f"cannot read: {reason}", file=path) from None
    if len(data) > max_size:  # a file that grew while it was read
        raise InputProblem(
            f"file is more than {max_size} bytes, above the limit (--max-file-size)", file=path
        )
    if CHECKED is not None and path != "-":
        import hashlib

        CHECKED.setdefault(real(path), hashlib.sha256(data).hexdigest())
    return decode(data, path)


def read_stdin(stream, max_size: int = DEFAULT_MAX_FILE_SIZE) -> str:  # type: ignore[no-untyped-def]
    """Standard input (``-``), read up to the size limit: the one input that is not a regular file."""
    max_size = min(max_size, limits.MAX_FILE_SIZE)
    if stream is None or stream.closed:
        return ""
    raw = getattr(stream, "buffer", None)
    data = raw.read(max_size + 1) if raw is not None else stream.read(max_size + 1)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > max_size:
        raise InputProblem(
            f"standard input is more than {max_size} bytes, above the limit (--max-file-size)",
            file="-",
        )
    limits.charge_read(len(data), "-")
    return decode(data, "-")


def decode(data: bytes, path: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputProblem("file is UTF-16 encoded; save it as UTF-8", file=path)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputProblem(
            "NUL byte: this is a binary file, not YAML or JSON", Location(path, line, 1, line, 1)
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1  # in characters
        raise InputProblem(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            Location(path, line, col, line, col + 1),
        ) from None
    return text


def is_json_path(path: str) -> bool:
    return path.lower().endswith(".json")


def load_file(
    path: str, max_size: int = DEFAULT_MAX_FILE_SIZE, text: str | None = None
) -> SourceFile:
    """Load one file into position-keeping documents. Raises :class:`InputProblem`."""
    if text is None:
        text = read_text(path, max_size)
    if is_json_path(path):
        return SourceFile(path, text, [parse_json(text, path)], "json")
    seen = [0]
    documents = list(parse_yaml(text, path, seen))
    return SourceFile(path, text, documents, "yaml", seen[0])


# --------------------------------------------------------------------------- YAML


_BREAKS = re.compile(r"\r\n|\r|\n")


class Lines:
    """Character offset -> 1-based line:column, breaking lines at CR, LF and CRLF only.

    libyaml also breaks lines at U+0085, U+2028 and U+2029; editors, CI annotations and
    ``--fix`` do not, so positions are recomputed from the mark's character index.
    """

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _BREAKS.finditer(text)]

    def pos(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def loc(self, path: str, start: int, end: int) -> Location:
        (l1, c1), (l2, c2) = self.pos(start), self.pos(end)
        return Location(path, l1, c1, l2, c2)

    def mark(self, path: str, mark) -> Location:  # type: ignore[no-untyped-def]
        return self.loc(path, mark.index, mark.index)


_TAG = "tag:yaml.org,2002:"
_STR_TAG = _TAG + "str"
_MAP_TAG = _TAG + "map"
_SEQ_TAG = _TAG + "seq"
_SAFE = yaml.constructor.SafeConstructor
# the standard scalar tags and how each becomes a value; any other tag is refused
_SCALARS: dict[str, Any] = {
    _TAG + "null": _SAFE.construct_yaml_null,
    _TAG + "bool": _SAFE.construct_yaml_bool,
    _TAG + "int": _SAFE.construct_yaml_int,
    _TAG + "float": _SAFE.construct_yaml_float,
    _STR_TAG: None,  # the text itself
    _TAG + "timestamp": None,  # kept as its text: no config value swacheck reads is a date
}
# libyaml also breaks lines at U+0085/2028/2029 and does not count a byte-order mark in its
# columns; where a text has none of these, libyaml's own line:column are exactly ours (checked
# on 22,000 mutated configs with CR, CRLF, tabs and astral characters, and by a property test)
_ODD_CHARS = ("\x85", "\u2028", "\u2029", "\ufeff")


_ScalarEvent = yaml.ScalarEvent
_SequenceStartEvent = yaml.SequenceStartEvent
_MappingStartEvent = yaml.MappingStartEvent
_AliasEvent = yaml.AliasEvent
_ScalarNodeType = yaml.ScalarNode
_CollectionEndEvents = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class _YamlConverter:
    """Builds the position-keeping tree straight from libyaml's events, as PyYAML's composer
    would compose it (the same tags, anchors and aliases, the same errors), without ever holding
    PyYAML's own node tree: a node costs only what swacheck keeps of it, and the file's node
    count (``limits.MAX_YAML_NODES``) and nesting (``MAX_DEPTH``) are checked while it is read,
    before anything is built for what lies beyond them."""

    def __init__(self, path: str, lines: Lines, text: str, loader: Any):
        self.path = path
        self.lines = lines
        self.loader = loader
        self.constructor = _SAFE()
        self.anchors: dict[str, tuple[Node, Any]] = {}  # anchor -> (node, its start mark)
        self.duplicates: list[Duplicate] = []
        self.nodes = 0  # in the whole file (every document)
        self.max_nodes = limits.MAX_YAML_NODES
        if any(c in text for c in _ODD_CHARS):
            self.loc = self._loc_from_offsets  # type: ignore[method-assign]

    def loc(self, s: Any, e: Any) -> Location:
        """A scalar's span from libyaml's own line and column (a collection's end can differ at the
        end of a stream without a final line break, so collections use :meth:`_loc_from_offsets`)."""
        return Location(self.path, s.line + 1, s.column + 1, e.line + 1, e.column + 1)

    def _loc_from_offsets(self, s: Any, e: Any) -> Location:
        return self.lines.loc(self.path, s.index, e.index)

    def count(self, mark: Any) -> None:
        """Called once the file has more nodes than its budget."""
        if self.nodes > limits.MAX_YAML_NODES:
            raise InputProblem(
                f"more than {limits.MAX_YAML_NODES} YAML nodes in this file (the limit per file)",
                self.loc(mark, mark),
            )

    def document(self) -> Node:
        """The next document's root (the DOCUMENT-START event is next)."""
        loader = self.loader
        loader.get_event()  # DOCUMENT-START
        root = self.node(loader.get_event(), 0)
        loader.get_event()  # DOCUMENT-END
        self.anchors = {}
        return root

    def _tag(self, event: Any, kind: Any) -> str:
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(
                kind, event.value if kind is yaml.ScalarNode else None, event.implicit
            )
        return tag

    def _anchor(self, event: Any, node: Node) -> None:
        anchor = event.anchor
        if anchor is not None:
            if anchor in self.anchors:
                first = self.anchors[anchor][1]
                raise InputProblem(
                    f"invalid YAML: the anchor &{one_line(anchor)} is defined twice (first on "
                    f"line {self.loc(first, first).line})",
                    self.loc(event.start_mark, event.start_mark),
                )
            self.anchors[anchor] = (node, event.start_mark)

    def node(self, event: Any, depth: int) -> Node:
        cls = type(event)
        if cls is _AliasEvent:  # share the anchored node, never expand it
            hit = self.anchors.get(event.anchor)
            if hit is None:
                raise yaml.composer.ComposerError(
                    None, None, f"found undefined alias {event.anchor!r}", event.start_mark
                )
            return hit[0]
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.count(event.start_mark)
        if depth > MAX_DEPTH:
            raise InputProblem(
                f"nested more than {MAX_DEPTH} levels deep",
                self.loc(event.start_mark, event.start_mark),
            )
        if cls is _ScalarEvent:
            out: Node = self.scalar(event, self._tag(event, yaml.ScalarNode))
            self._anchor(event, out)
            return out
        if cls is _SequenceStartEvent:
            return self.sequence(event, depth)
        return self.mapping(event, depth)

    def scalar(self, event: Any, tag: str) -> Scalar:
        if tag not in _SCALARS:
            raise InputProblem(
                f"unsupported YAML tag {tag!r}: swacheck reads plain data only",
                self.loc(event.start_mark, event.end_mark),
            )
        construct = _SCALARS[tag]
        if construct is None:
            value: Any = event.value
        else:
            node = yaml.ScalarNode(
                tag, event.value, event.start_mark, event.end_mark, style=event.style
            )
            try:
                value = construct(self.constructor, node)
            except (
                yaml.YAMLError,
                ValueError,
                OverflowError,
                KeyError,
                IndexError,
                TypeError,
            ) as exc:
                # PyYAML's constructors assume the implicit resolver chose the tag: an explicit
                # `!!bool maybe` is a KeyError, `!!int ""` an IndexError
                kind = tag.rsplit(":", 1)[-1]
                why = (
                    f": {exc}" if isinstance(exc, (yaml.YAMLError, ValueError)) and str(exc) else ""
                )
                raise InputProblem(
                    f"bad {kind} value {one_line(repr(event.value))}{why}",
                    self.loc(event.start_mark, event.end_mark),
                ) from None
        return Scalar(value, self.loc(event.start_mark, event.end_mark), event.style in ("'", '"'))

    def sequence(self, start: Any, depth: int) -> Sequence:
        tag = self._tag(start, yaml.SequenceNode)
        if tag != _SEQ_TAG:
            raise InputProblem(
                f"unsupported YAML tag {tag!r} on a list: swacheck reads plain data only",
                self.loc(start.start_mark, start.end_mark),
            )
        seq = Sequence(self.lines.loc(self.path, start.start_mark.index, start.start_mark.index))
        self._anchor(start, seq)
        items = seq.items
        get = self.loader.get_event
        while True:
            event = get()
            if type(event) is yaml.SequenceEndEvent:
                break
            items.append(self.node(event, depth + 1))
        seq.loc = self._loc_from_offsets(start.start_mark, event.end_mark)
        return seq

    def mapping(self, start: Any, depth: int) -> Mapping:
        tag = self._tag(start, yaml.MappingNode)
        if tag != _MAP_TAG:
            raise InputProblem(
                f"unsupported YAML tag {tag!r} on a mapping: swacheck reads plain data only",
                self.loc(start.start_mark, start.end_mark),
            )
        mapping = Mapping(
            self.lines.loc(self.path, start.start_mark.index, start.start_mark.index),
            flow=bool(start.flow_style),
        )
        self._anchor(start, mapping)
        pairs = mapping.pairs
        get = self.loader.get_event
        resolve = self.loader.resolve
        while True:
            event = get()
            if type(event) is yaml.MappingEndEvent:
                break
            if (
                type(event) is _ScalarEvent
                and depth < MAX_DEPTH
                and event.anchor is None
                and (event.tag or resolve(_ScalarNodeType, event.value, event.implicit)) == _STR_TAG
            ):
                self.nodes += 1  # the usual key: plain text
                if self.nodes > self.max_nodes:
                    self.count(event.start_mark)
                name, key_loc = event.value, self.loc(event.start_mark, event.end_mark)
            else:
                if (
                    type(event) is _ScalarEvent
                    and self._tag(event, yaml.ScalarNode) == _TAG + "merge"
                ):
                    raise InputProblem(
                        "YAML merge keys (<<) are not supported",
                        self.loc(event.start_mark, event.end_mark),
                    )
                key = self.node(event, depth + 1)
                if not isinstance(key, Scalar) or isinstance(key.value, (list, dict)):
                    raise InputProblem("a mapping key must be a plain scalar", key.loc)
                name = key.value if isinstance(key.value, str) else str(key.value)
                key_loc = key.loc
            value = self.node(get(), depth + 1)
            old = pairs.pop(name, None)
            if old is not None:
                self.duplicates.append(Duplicate(name, old.key_loc, key_loc, old, mapping))
            pairs[name] = Pair(name, key_loc, value)
        mapping.loc = self._loc_from_offsets(start.start_mark, event.end_mark)
        return mapping


def parse_yaml(text: str, path: str, seen: list[int] | None = None) -> Iterator[Document]:
    """Yield the non-empty documents; ``seen[0]`` counts every document, empty ones included."""
    lines = Lines(text)
    loader = _YamlLoader(text)
    conv = _YamlConverter(path, lines, text, loader)
    try:
        loader.get_event()  # STREAM-START
        index = 0
        while not loader.check_event(yaml.StreamEndEvent):
            conv.duplicates = []
            tree = conv.document()
            if seen is not None:
                seen[0] = index + 1
            index += 1
            if (
                isinstance(tree, Scalar)
                and tree.value is None
                and _empty_null(text, tree.loc, lines)
            ):
                continue  # an empty document (e.g. a trailing `---`): nothing to check
            yield Document(tree, index - 1, conv.duplicates)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        if (
            exc.context
            in (
                "while scanning a quoted scalar",
                "while parsing a flow sequence",
                "while parsing a flow mapping",
            )
            and (exc.problem or "").startswith("found unexpected end of stream")
            and exc.context_mark is not None
        ):
            mark = exc.context_mark  # point at what was opened and never closed
            what = {
                "while scanning a quoted scalar": "quote",
                "while parsing a flow sequence": "'['",
                "while parsing a flow mapping": "'{'",
            }[exc.context]
            problem = f"this {what} is never closed"
        loc = lines.mark(path, mark) if mark is not None else Location(path, 1, 1, 1, 1)
        line_text = (
            text.splitlines()[loc.line - 1] if 0 < loc.line <= len(text.splitlines()) else ""
        )
        if "\t" in line_text[: loc.column]:
            problem += "; YAML indentation must use spaces, not tabs"
        raise InputProblem(f"invalid YAML: {problem}", loc) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        loc = lines.loc(path, exc.position, exc.position)
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise InputProblem(
            f"invalid YAML: the control character U+{ord(char):04X} is not allowed", loc
        ) from None
    except yaml.YAMLError as exc:
        raise InputProblem(f"invalid YAML: {exc}", file=path) from None
    except RecursionError:
        raise InputProblem(f"nested more than {MAX_DEPTH} levels deep", file=path) from None
    finally:
        loader.dispose()


def _empty_null(text: str, loc: Location, lines: Lines) -> bool:
    """Whether a null document root is written as nothing at all (an empty document)."""
    return (loc.line, loc.column) == (loc.end_line, loc.end_column)


# --------------------------------------------------------------------------- JSON

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_CONSTANTS = {"true": True, "false": False, "null": None}


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
            num: Any = float(raw) if (m.group(1) or m.group(2)) else int(raw)
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


def _attempt(make: Callable[[], Any]) -> Any:
    """``make()``, or the :class:`InputProblem` it raised: the cache keeps either, so a file that
    cannot be read or parsed is tried once and reported wherever it is asked for."""
    try:
        return make()
    except InputProblem as problem:
        return problem


def _unwrap(hit: Any) -> Any:
    if isinstance(hit, InputProblem):
        raise hit
    return hit


class FileCache:
    """Loads each file once per run, however many deployments share it (model configs).

    A run checked in units (``engine``) reads files ahead with :meth:`read` and drops a unit's
    files with :meth:`evict` once the unit is reported; a file that is still wanted is kept
    with :meth:`keep` (model configs, shared by every unit).
    """

    def __init__(self, max_size: int = DEFAULT_MAX_FILE_SIZE, root: str | None = None):
        self.max_size = max_size
        self.root = root  # the run's root (a real path): referenced files are read only inside it
        self._files: dict[str, SourceFile | InputProblem] = {}
        self._ahead: dict[
            str, str | SourceFile | InputProblem
        ] = {}  # read (or parsed) ahead of its unit
        self._kept: set[str] = set()
        self._given: dict[str, str] = {}  # path -> text given in memory (provide)

    def read(self, path: str) -> str:
        """A file's text, read now and kept until :meth:`load` parses it. Raises :class:`InputProblem`."""
        key = real(path)
        hit = self._ahead.get(key)
        if hit is None:
            loaded = self._files.get(key)
            if isinstance(loaded, SourceFile):
                return loaded.text
            hit = self._ahead[key] = _attempt(lambda: read_text(path, self.max_size))
        hit = _unwrap(hit)
        return hit if isinstance(hit, str) else hit.text

    def parse_ahead(self, path: str) -> SourceFile:
        """Parse a file read with :meth:`read` now; :meth:`load` hands this parse to its unit."""
        key = real(path)
        hit = self._ahead.get(key)
        if not isinstance(hit, SourceFile):
            hit = self._ahead[key] = _attempt(
                lambda: load_file(path, self.max_size, self.read(path))
            )
        return _unwrap(hit)  # type: ignore[return-value]

    def load(self, path: str, text: str | None = None) -> SourceFile:
        key = real(path)
        hit = self._files.get(key)
        if hit is None:
            ahead = self._ahead.pop(key, None)
            if isinstance(ahead, (InputProblem, SourceFile)):
                hit = ahead
            else:
                hit = _attempt(
                    lambda: load_file(path, self.max_size, text if text is not None else ahead)
                )
            self._files[key] = hit
        return _unwrap(hit)  # type: ignore[return-value]

    def provide(self, path: str, text: str) -> None:
        """Use ``text`` as the contents of ``path`` for this run (``--stdin-filename``,
        ``swacheck.check_text``): read, parsed and suppressed as that file, never read from disk."""
        self._given[real(path)] = text
        self._ahead[real(path)] = text
        self.keep(path)

    def provided(self, path: str) -> str | None:
        """The text given for ``path`` with :meth:`provide`, if any."""
        return self._given.get(real(path)) if self._given else None

    def check_reference(self, path: str, at: Location | None, what: str = "file") -> None:
        """Refuse a file that an input refers to (``server:``, ``env_file``, a sourced script,
        ``--config``, ``pairs:``) when it lies outside the run's root or inside version-control
        metadata. The message names the path only: nothing of the file is read."""
        from .paths import in_vcs_metadata, inside

        shown = one_line(path)
        if in_vcs_metadata(path):
            raise InputProblem(
                f"{what} {shown!r} is inside version-control metadata; swacheck never reads it",
                at,
                file=path,
            )
        if self.root is not None and path != "-" and not inside(path, self.root):
            raise InputProblem(
                f"{what} {shown!r} is outside the root {one_line(self.root)!r}; swacheck "
                f"reads files that inputs refer to only inside it (--root)",
                at,
                file=path,
            )

    def is_readable_reference(self, path: str) -> bool:
        """Whether :meth:`check_reference` lets ``path`` be read (for files read only when present)."""
        try:
            self.check_reference(path, None)
        except InputProblem:
            return False
        return True

    def remember(self, path: str, source: SourceFile) -> SourceFile:
        """Keep a file read another way (a shell script, a Dockerfile), so suppressions and fixes see it."""
        return self._files.setdefault(real(path), source)  # type: ignore[return-value]

    def keep(self, path: str) -> None:
        """Never evict this file (a model config: every unit may need it)."""
        self._kept.add(real(path))

    def evict(self) -> None:
        """Forget every file parsed so far except the kept ones: their unit has been reported.
        Files read ahead stay (they belong to later units)."""
        self._files = {k: v for k, v in self._files.items() if k in self._kept}

    def __len__(self) -> int:
        return len(self._files)
