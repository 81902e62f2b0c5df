"""Variables and expansion: what a raw word becomes, given the variables known then.

``$VAR``, ``${VAR}``, ``${VAR:-default}`` (and ``-``, ``=``, ``:=``, ``+``, ``:+``, ``?``,
``:?``), bash arrays (``${A[@]}``, ``${A[*]}``, ``${A[N]}``) and field splitting of unquoted
expansions (POSIX 2.6.5). A variable nobody set, or set to something only known at run time,
stays as written and is listed in ``Word.unknown``: never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ... import limits
from ...model.records import Location
from ...model.recordtype import record
from .arithmetic import evaluate, integer
from .lexer import lex
from .spans import Span, SpanRun, span_location
from .words import ArrayLit, Chars, Lit, Opaque, Param, RawWord, Unknown, Word


@record
class Var:
    """A variable as far as the files tell: its value (None: set, but only known at run time)."""

    value: Word | None
    exported: bool = False
    origin: str = ""  # "export in decode.sh", "Dockerfile ENV", "--env"
    reason: str = ""  # why the value is unknown
    where: Location | None = None  # for an unknown value: what makes it unknown
    items: list[Word] | None = None  # a bash array's elements (``value`` is the first)
    # a value only partly known (``FLAGS="--tp 8 --port $((BASE + RANK))"``): the known text with
    # its unknowns marked, which ``$FLAGS`` gives (split around the unknowns when unquoted)
    partial: Word | None = None

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
        """An unquoted expansion: split its value on blanks into fields. What cannot be known in
        it (``$((RANK * 4))`` in ``FLAGS="--tp 8 --port $((RANK * 4))"``) stays whole in one
        field, which holds its unknown; the known text around it is split as the shell splits it."""
        text = value.text
        whole, first = _unknown_places(value)
        i = 0
        n = len(text)
        while i < n:
            if text[i] in " \t\n" and i not in whole:
                self.end()
                while i < n and text[i] in " \t\n" and i not in whole:
                    i += 1
                continue
            j = i
            while j < n and (text[j] not in " \t\n" or j in whole):
                j += 1
            self.add(text[i:j], value.spans[i:j], False)
            self.unknown.extend(u for u in value.unknown if i <= first.get(u.span, -1) < j)
            i = j
        self.unknown.extend(u for u in value.unknown if u.span not in first)  # the last field's

    def add_item(self, item: Word, quoted: bool) -> None:
        """An element of an array or an argument: one quoted piece, or split when unquoted."""
        if quoted:
            self.add(item.text, item.spans, True)
            self.started = True
            self.unknown.extend(item.unknown)
        else:
            self.add_split(item)

    def add_items(self, items: list[Word], quoted: bool) -> None:
        """``"${A[@]}"`` / ``"$@"``: each item starts a field of its own (charged to the file's
        budget: ``limits.MAX_ITEMS``, ``limits.MAX_EXPANSION``)."""
        limits.current().elements(items, span_location(self.raw.span))
        for k, item in enumerate(items):
            if k:
                self.end()
            self.add_item(item, quoted)

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


def partly_known(word: Word) -> bool:
    """Whether ``word`` holds known text besides what cannot be known (``--tp 8 $((RANK))``, not
    ``$(cat /etc/rank)`` alone): only then is it worth keeping beside its unknowns."""
    whole, _ = _unknown_places(word)
    return any(k not in whole and not c.isspace() for k, c in enumerate(word.text))


def _unknown_places(value: Word) -> tuple[set[int], dict[Span, int]]:
    """The characters of ``value`` that stand for something unknown (they carry its span), and
    where each unknown starts."""
    if not value.unknown:
        return set(), {}
    targets = {u.span for u in value.unknown if u.span is not None}
    whole: set[int] = set()
    first: dict[Span, int] = {}
    for k, span in enumerate(value.spans):
        if span in targets:
            whole.add(k)
            first.setdefault(span, k)
    return whole, first


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
            _add_opaque(f, part, env)
        elif isinstance(part, ArrayLit):
            f.add("(...)", [part.span] * 5, False)
            f.unknown.append(
                Unknown("(...)", "(...)", "an array where a word is expected", part.span)
            )
        elif part.op.startswith("[") and (items := _elements(part, env, unset_reason)) is not None:
            f.add_items(items, part.quoted)  # "${A[@]}": one field per element
        else:
            _add_param(f, part, env, unset_reason, split)
    f.end()
    return f.out


_POSITIONAL = re.compile(r"\$(?:([@*#])|\{([@*#])\}|([1-9])|\{([1-9][0-9]{0,2})\})")


def _positional(f: _Fields, part: Opaque, env: Env) -> bool:
    """``$@``, ``$*``, ``$#``, ``$1``... inside a function the script calls (``Walker.call``
    binds the call's arguments as ``@``); False when there is none to give."""
    args = env.get("@")
    m = _POSITIONAL.fullmatch(part.raw)
    if args is None or args.items is None or m is None:
        return False
    which = m.group(1) or m.group(2)
    items = args.items
    if which == "@" or (which == "*" and not part.quoted):
        f.add_items(items, part.quoted)  # one field per argument, each split when unquoted
    elif which == "*":
        limits.current().elements(items, span_location(part.span))
        joined = " ".join(item.text for item in items)
        f.add(joined, [part.span] * len(joined), True)
        f.started = True
        f.unknown.extend(u for item in items for u in item.unknown)
    elif which == "#":
        f.add(str(len(items)), [part.span] * len(str(len(items))), part.quoted)
    else:
        k = int(m.group(3) or m.group(4))
        if k <= len(items):
            limits.current().elements(items[k - 1 : k], span_location(part.span))
        f.add_item(items[k - 1] if k <= len(items) else Word("", [], part.span), part.quoted)
    return True


def _add_opaque(f: _Fields, part: Opaque, env: Env) -> None:
    """``$(...)``, backquotes, ``$((...))``, positional parameters: arithmetic the file says every
    number of is worked out, and the arguments of a call of the script's own function given;
    anything else is kept as written, unknown."""
    if _positional(f, part, env):
        return
    value = _arithmetic(part.raw, env) if part.raw.startswith("$((") else None
    if value is not None:  # a number: nothing to split
        f.add(value, [part.span] * len(value), part.quoted)
        return
    f.add(part.raw, [part.span] * len(part.raw), part.quoted)
    f.unknown.append(Unknown(part.raw, part.raw, part.reason, part.span))


def _add_param(f: _Fields, part: Param, env: Env, unset_reason: str, split: bool) -> None:
    limits.current().reference(span_location(part.span))  # limits.MAX_REFERENCES
    var = env.get(part.name)
    partial = part.op == "" and var is not None and var.partial is not None
    if partial:
        value = _copy(var.partial)  # type: ignore[union-attr, arg-type]  # the known text, unknowns marked
    else:
        value = _param(part, env, unset_reason)
    if value.text and (partial or not value.unknown):  # what it costs: limits.MAX_EXPANSION
        limits.current().expand(len(value.text), span_location(part.span))
    if part.quoted or not split:
        f.add(value.text, value.spans, True if part.quoted else False)
        if part.quoted:
            f.started = True
        elif value.text:
            f.started = True
        f.unknown.extend(value.unknown)
    else:
        f.add_split(value)


def _arithmetic(raw: str, env: Env) -> str | None:
    """``$(( ... ))`` worked out, as text, when the file says every number in it (arithmetic.py)."""

    def lookup(name: str) -> int | None:
        var = env.get(name)
        if var is None or var.value is None or var.value.unknown:
            return None
        return integer(var.value.text)

    value = evaluate(raw[3:-2], lookup)
    return None if value is None else str(value)


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


def split_words(chars: Chars) -> list[Word]:
    """Split a string into words by quotes and whitespace, without any expansion (Compose's rule)."""
    out: list[Word] = []
    for cmd in lex(chars, expand=False):
        for raw in cmd.words:
            out.extend(expand(raw, {}))
    return out
