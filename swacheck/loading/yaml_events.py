"""YAML -> the position-keeping tree, straight from libyaml's events.

Only safe loading: YAML is *composed* (never constructed) with libyaml's C parser when it is
present, and each scalar is turned into a plain value by its standard tag; any other tag
(``!!python/object/apply``, custom tags) is refused with a position. Aliases share the anchored
node, and merge keys (``<<: *base``) merge as ``yaml.safe_load`` merges them (SGLang's
``--config`` loader and Docker Compose read them so). The file's node count
(``limits.MAX_YAML_NODES``, merged keys included) and nesting (``MAX_DEPTH``) are checked while
it is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import Any

import yaml

from .. import limits
from ..model.records import InputProblem, Location
from ..model.text import one_line
from ..model.tree import MAX_DEPTH, Document, Duplicate, Mapping, Node, Pair, Scalar, Sequence
from .lines import Lines

try:  # libyaml's composer is several times faster; fall back to pure Python.
    _SafeLoader: type = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _SafeLoader = yaml.SafeLoader

_PLAIN_TAGS: dict[str, str] = {}  # plain scalar -> its implicit tag (int, bool, null, ... or str)
# plain scalar with no tag -> (its value,): an int, bool, null or float is built by PyYAML's
# constructor in Python, and the same few values (`tp-size: 8`, `true`) repeat across configs
_PLAIN_VALUES: dict[str, tuple[Any]] = {}
_MEMO_SIZE = 200_000  # entries per memo: a hostile file cannot grow them without bound


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
                if len(_PLAIN_TAGS) < _MEMO_SIZE:
                    _PLAIN_TAGS[value] = tag
            return tag
        return super().resolve(kind, value, implicit)


_TAG = "tag:yaml.org,2002:"
_STR_TAG = _TAG + "str"
_MAP_TAG = _TAG + "map"
_SEQ_TAG = _TAG + "seq"
_SAFE = yaml.constructor.SafeConstructor
_INT_TAG = _TAG + "int"
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
# on 22,000 mutated configs with CR, CRLF, tabs and astral characters, and by a property test;
# for collections too, on 22,000 more), except at the very end of a text without a final line
# break, where libyaml counts one: a collection that ends there is placed by its offset
_ODD_CHARS = ("\x85", "\u2028", "\u2029", "\ufeff")


_ScalarEvent = yaml.ScalarEvent
_SequenceStartEvent = yaml.SequenceStartEvent
_MappingStartEvent = yaml.MappingStartEvent
_AliasEvent = yaml.AliasEvent
_ScalarNodeType = yaml.ScalarNode
_CollectionEndEvents = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
_MappingEndEvent = yaml.MappingEndEvent


class _YamlConverter:
    """Builds the position-keeping tree straight from libyaml's events, as PyYAML's composer
    would compose it (the same tags, anchors and aliases, the same errors), without ever holding
    PyYAML's own node tree: a node costs only what swacheck keeps of it, and the file's node
    count (``limits.MAX_YAML_NODES``) and nesting (``MAX_DEPTH``) are checked while it is read,
    before anything is built for what lies beyond them."""

    def __init__(self, path: str, text: str, loader: Any):
        self.path = path
        self.text = text
        # where libyaml's line:column stop being ours: at the end of a text without a final line
        # break, libyaml counts one (a text that ends with one has no such place)
        self.unbroken_end = len(text) + (1 if text.endswith(("\n", "\r")) else 0)
        self.loader = loader
        self.constructor = _SAFE()
        self.anchors: dict[str, tuple[Node, Any]] = {}  # anchor -> (node, its start mark)
        self.duplicates: list[Duplicate] = []
        self.nodes = 0  # in the whole file (every document)
        # nodes that aliases stand for, each time one is used: ``*c`` of a 40,000-node anchor
        # adds 40,000 (the node budget holds nodes plus this, before any reader expands them)
        self.aliased = 0
        self.sizes: dict[str, int] = {}  # anchor -> nodes of its value, aliases in it expanded
        self.max_nodes = limits.MAX_YAML_NODES
        if not text.isascii() and any(c in text for c in _ODD_CHARS):  # isascii: O(1)
            self.loc = self._loc_from_offsets  # type: ignore[method-assign]

    def loc(self, s: Any, e: Any) -> Location:
        """A scalar's span from libyaml's own line and column."""
        return Location(self.path, s.line + 1, s.column + 1, e.line + 1, e.column + 1)

    def span(self, s: Any, e: Any) -> Location:
        """A collection's span: as :meth:`loc`, but from the offsets when it ends where a text
        without a final line break does (there libyaml counts a line break the text lacks)."""
        return self._loc_from_offsets(s, e) if e.index >= self.unbroken_end else self.loc(s, e)

    def _loc_from_offsets(self, s: Any, e: Any) -> Location:
        return self.lines.loc(self.path, s.index, e.index)

    @cached_property
    def lines(self) -> Lines:
        """The text's line starts, found the first time an offset is turned into a position."""
        return Lines(self.text)

    def count(self, mark: Any) -> None:
        """Called once the file has more nodes than its budget."""
        if self.nodes > limits.MAX_YAML_NODES:
            raise InputProblem(
                f"more than {limits.MAX_YAML_NODES} YAML nodes in this file (the limit per file)",
                self.loc(mark, mark),
            )
        if self.nodes + self.aliased > limits.MAX_YAML_NODES:
            raise InputProblem(
                f"more than {limits.MAX_YAML_NODES} YAML nodes in this file once its aliases are "
                "expanded (the limit per file; an alias counts each time it is used)",
                self.loc(mark, mark),
            )

    def alias(self, event: Any) -> Node:
        """The anchored node an alias names, shared, never copied; the nodes it stands for count
        against the file's node budget each time it is used, before any reader expands it (1,000
        aliases of a container whose args alias a 40,000-item list stand for 40 million nodes)."""
        hit = self.anchors.get(event.anchor)
        if hit is None:
            raise yaml.composer.ComposerError(
                None, None, f"found undefined alias {event.anchor!r}", event.start_mark
            )
        self.aliased += self.sizes.get(event.anchor, 1)  # 1: an alias inside its own anchor
        if self.nodes + self.aliased > self.max_nodes:
            self.count(event.start_mark)
        return hit[0]

    def document(self) -> Node:
        """The next document's root (the DOCUMENT-START event is next)."""
        loader = self.loader
        loader.get_event()  # DOCUMENT-START
        root = self.node(loader.get_event(), 0)
        loader.get_event()  # DOCUMENT-END
        self.anchors = {}
        self.sizes = {}
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
            return self.alias(event)
        if event.anchor is not None:  # the size an alias of it stands for
            before = self.nodes + self.aliased
            node = self._node(event, cls, depth)
            self.sizes[event.anchor] = self.nodes + self.aliased - before
            return node
        return self._node(event, cls, depth)

    def _node(self, event: Any, cls: type, depth: int) -> Node:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.count(event.start_mark)
        if depth > MAX_DEPTH:
            raise InputProblem(
                f"nested more than {MAX_DEPTH} levels deep",
                self.loc(event.start_mark, event.start_mark),
            )
        if cls is _ScalarEvent:
            if event.tag is None and event.implicit[0] and event.anchor is None:
                hit = _PLAIN_VALUES.get(event.value)
                if hit is not None:  # a plain scalar seen before: the same value
                    return Scalar(hit[0], self.loc(event.start_mark, event.end_mark))
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
        elif tag == _INT_TAG and limits.number_too_long(event.value):
            raise InputProblem(limits.NUMBER_TOO_LONG, self.loc(event.start_mark, event.end_mark))
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
        if type(value) is int and limits.integer_too_large(value):  # 0x + 84 hex digits
            raise InputProblem(limits.NUMBER_TOO_LONG, self.loc(event.start_mark, event.end_mark))
        if event.tag is None and event.implicit[0] and len(_PLAIN_VALUES) < _MEMO_SIZE:
            _PLAIN_VALUES[event.value] = (value,)  # the tag and value of plain text are its own
        return Scalar(value, self.loc(event.start_mark, event.end_mark), event.style in ("'", '"'))

    def sequence(self, start: Any, depth: int) -> Sequence:
        tag = self._tag(start, yaml.SequenceNode)
        if tag != _SEQ_TAG:
            raise InputProblem(
                f"unsupported YAML tag {tag!r} on a list: swacheck reads plain data only",
                self.loc(start.start_mark, start.end_mark),
            )
        seq = Sequence(self.span(start.start_mark, start.start_mark))
        self._anchor(start, seq)
        items = seq.items
        get = self.loader.get_event
        while True:
            event = get()
            if type(event) is yaml.SequenceEndEvent:
                break
            items.append(self.node(event, depth + 1))
        seq.loc = self.span(start.start_mark, event.end_mark)
        return seq

    def _is_merge(self, event: Any) -> bool:
        return type(event) is _ScalarEvent and self._tag(event, yaml.ScalarNode) == _TAG + "merge"

    def _merged(self, event: Any, depth: int) -> list[Mapping]:
        """The mappings a merge key (``<<: *base``, ``<<: [*a, *b]``) brings in, read with its
        value (what ``yaml.safe_load`` and Docker Compose merge)."""
        value = self.node(self.loader.get_event(), depth)
        sources = value.items if isinstance(value, Sequence) else [value]
        if not sources or not all(isinstance(m, Mapping) for m in sources):
            raise InputProblem(
                "a merge key (<<) takes a mapping or a list of mappings",
                self.loc(event.start_mark, event.end_mark),
            )
        return sources  # type: ignore[return-value]

    def _merge(self, mapping: Mapping, merges: list[list[Mapping]], mark: Any) -> None:
        """Give ``mapping`` the keys its merge keys bring in, as YAML's merge key and PyYAML's
        ``flatten_mapping`` do: a key written in the mapping wins over a merged one, a mapping
        earlier in a ``<<: [...]`` list over a later one; the merged keys come first, in the order
        they are merged. A merged entry is the anchored one, positions included; it counts against
        the file's node budget, so merging cannot multiply a file's size."""
        combined: dict[str, Pair] = {}
        where: dict[str, Mapping] = {}
        for sources in merges:
            for source in sources:
                for name, pair in source.pairs.items():
                    if name not in combined:
                        combined[name] = pair
                        where[name] = (source.merged or {}).get(name, source)
                self.nodes += len(source.pairs)
        if self.nodes > self.max_nodes:
            self.count(mark)
        for name in mapping.pairs:
            where.pop(name, None)
        combined.update(mapping.pairs)
        mapping.pairs = combined
        mapping.merged = where

    def _other_key(self, event: Any, depth: int) -> tuple[str, Location]:
        """A mapping key other than plain text (a number, an anchored or tagged scalar, a key
        past the depth limit; a collection is refused): its name, as text, and where it is."""
        key = self.node(event, depth)
        if not isinstance(key, Scalar) or isinstance(key.value, (list, dict)):
            raise InputProblem("a mapping key must be a plain scalar", key.loc)
        return (key.value if isinstance(key.value, str) else str(key.value)), key.loc

    def mapping(self, start: Any, depth: int) -> Mapping:
        tag = self._tag(start, yaml.MappingNode)
        if tag != _MAP_TAG:
            raise InputProblem(
                f"unsupported YAML tag {tag!r} on a mapping: swacheck reads plain data only",
                self.loc(start.start_mark, start.end_mark),
            )
        mapping = Mapping(
            self.span(start.start_mark, start.start_mark),
            flow=bool(start.flow_style),
        )
        self._anchor(start, mapping)
        pairs = mapping.pairs
        get = self.loader.get_event
        resolve = self.loader.resolve
        loc = self.loc
        inner = depth + 1
        merges: list[list[Mapping]] = []
        while True:
            event = get()
            if type(event) is _MappingEndEvent:
                break
            if (
                type(event) is _ScalarEvent
                and depth < MAX_DEPTH
                and event.anchor is None
                and (
                    event.tag
                    or (event.implicit[0] and _PLAIN_TAGS.get(event.value))
                    or resolve(_ScalarNodeType, event.value, event.implicit)
                )
                == _STR_TAG
            ):
                self.nodes += 1  # the usual key: plain text
                if self.nodes > self.max_nodes:
                    self.count(event.start_mark)
                name, key_loc = event.value, loc(event.start_mark, event.end_mark)
            elif self._is_merge(event):
                merges.append(self._merged(event, inner))
                continue
            else:
                name, key_loc = self._other_key(event, inner)
            value = self.node(get(), inner)
            old = pairs.pop(name, None)
            if old is not None:
                self.duplicates.append(Duplicate(name, old.key_loc, key_loc, old, mapping))
            pairs[name] = Pair(name, key_loc, value)
        if merges:
            self._merge(mapping, merges, event.end_mark)
        mapping.loc = self.span(start.start_mark, event.end_mark)
        return mapping


def parse_yaml(text: str, path: str, seen: list[int] | None = None) -> Iterator[Document]:
    """Yield the non-empty documents; ``seen[0]`` counts every document, empty ones included."""
    loader = _YamlLoader(text)
    conv = _YamlConverter(path, text, loader)
    try:
        loader.get_event()  # STREAM-START
        index = 0
        while not loader.check_event(yaml.StreamEndEvent):
            conv.duplicates = []
            tree = conv.document()
            if seen is not None:
                seen[0] = index + 1
            index += 1
            if isinstance(tree, Scalar) and tree.value is None and _empty_null(tree.loc):
                continue  # an empty document (e.g. a trailing `---`): nothing to check
            yield Document(tree, index - 1, conv.duplicates)
    except yaml.MarkedYAMLError as exc:
        raise _marked_problem(exc, text, path, conv.lines) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        loc = conv.lines.loc(path, exc.position, exc.position)
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


# what was opened and never closed, for libyaml's "found unexpected end of stream"
_UNCLOSED = {
    "while scanning a quoted scalar": "quote",
    "while parsing a flow sequence": "'['",
    "while parsing a flow mapping": "'{'",
}


def _marked_problem(exc: yaml.MarkedYAMLError, text: str, path: str, lines: Lines) -> InputProblem:
    """libyaml's error as an input error at its position, in words a config's author follows."""
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "invalid YAML"
    if exc.context and exc.problem:
        problem = f"{exc.problem} ({exc.context})"
    if (
        exc.context in _UNCLOSED
        and (exc.problem or "").startswith("found unexpected end of stream")
        and exc.context_mark is not None
    ):
        mark = exc.context_mark  # point at what was opened and never closed
        problem = f"this {_UNCLOSED[exc.context]} is never closed"
    loc = lines.mark(path, mark) if mark is not None else Location(path, 1, 1, 1, 1)
    line_text = text.splitlines()[loc.line - 1] if 0 < loc.line <= len(text.splitlines()) else ""
    if "\t" in line_text[: loc.column]:
        problem += "; YAML indentation must use spaces, not tabs"
    return InputProblem(f"invalid YAML: {problem}", loc)


def _empty_null(loc: Location) -> bool:
    """Whether a null document root is written as nothing at all (an empty document)."""
    return (loc.line, loc.column) == (loc.end_line, loc.end_column)
