"""The structure of a script: ``if``/``case``/loops/``{ }`` and ``&&``/``||`` lists.

The lexer gives simple commands in order, each with the operators written after it
(``RawCommand.ops``); :func:`parse` reads the compound commands out of them as bash's grammar
does, so the walker can run a condition before its branches. A reserved word counts only where
a command starts (``echo fi`` is a command); what does not close (``if`` without ``fi``) ends
where the script ends, as the commands written; nothing is dropped. Nesting deeper than
``MAX_NESTING`` is an input problem, said with its place.
"""

from __future__ import annotations

from dataclasses import field

from ...model.records import InputProblem
from ...model.recordtype import record
from .spans import span_location
from .words import RawCommand, RawWord

MAX_NESTING = 64  # compound commands inside one another


@record
class Simple:
    cmd: RawCommand


@record
class AndOr:
    """``a && b || c``: each item with the operator before it ("" for the first) and whether it
    is negated (``! cmd``)."""

    items: list[tuple[str, bool, Node]]


@record
class Pipe:
    parts: list[Node]


@record
class If:
    branches: list[tuple[list[Node], list[Node]]]  # (condition, body) for `if` and each `elif`
    orelse: list[Node] | None


@record
class Case:
    word: RawWord
    arms: list[tuple[list[RawWord], list[Node]]]
    span: object = None


@record
class Loop:
    """``while``/``until``/``for``/``select``: the body is walked once, as written."""

    cond: list[Node]
    body: list[Node]


@record
class Group:
    body: list[Node]


Node = Simple | AndOr | Pipe | If | Case | Loop | Group

_CLOSERS = {"fi", "done", "esac", "}", "then", "do", "elif", "else"}


@record
class _Cursor:
    cmds: list[RawCommand]
    i: int = 0
    off: int = 0  # words of cmds[i] already read (reserved words)
    last_ops: list[str] = field(default_factory=list)  # of the last command read to its end
    depth: int = 0

    def word(self) -> RawWord | None:
        if self.i >= len(self.cmds):
            return None
        return self.cmds[self.i].words[self.off]

    def peek(self) -> str | None:
        w = self.word()
        return None if w is None else w.literal()

    def take(self) -> RawWord:
        """The next word; moves past its command when it was the last."""
        cmd = self.cmds[self.i]
        w = cmd.words[self.off]
        self.off += 1
        if self.off >= len(cmd.words):
            self.last_ops = cmd.ops
            self.i += 1
            self.off = 0
        else:
            self.last_ops = []
        return w

    def rest(self) -> RawCommand:
        """The rest of the current command, as a simple command."""
        cmd = self.cmds[self.i]
        out = cmd
        if self.off:
            words = cmd.words[self.off :]
            first, last = words[0].span, words[-1].span
            span = (
                first
                if not first or not last or first[0] is not last[0]
                else (first[0], first[1], last[2])
            )
            out = RawCommand(words, span, cmd.defines, cmd.ops, cmd.stdin)
        self.last_ops = cmd.ops
        self.i += 1
        self.off = 0
        return out

    @property
    def sep(self) -> str:
        return self.last_ops[0] if self.last_ops else ""


def parse(commands: list[RawCommand]) -> list[Node]:
    cur = _Cursor(commands)
    out: list[Node] = []
    while cur.i < len(commands):
        out.extend(_list(cur, set()))
        if cur.i < len(commands):  # a closing word with nothing open: kept as a command
            out.append(Simple(cur.rest()))
    return out


def _list(cur: _Cursor, stops: set[str], arm: bool = False) -> list[Node]:
    """Commands up to one whose first word is in ``stops`` (not read), or after ``;;`` in a
    ``case`` arm."""
    out: list[Node] = []
    while cur.i < len(cur.cmds):
        head = cur.peek()
        if head in stops or head in _CLOSERS:
            break
        out.append(_and_or(cur))
        if arm and ";;" in cur.last_ops:
            break
    return out


def _and_or(cur: _Cursor) -> Node:
    items: list[tuple[str, bool, Node]] = []
    op = ""
    while True:
        negated = False
        while cur.peek() == "!":
            cur.take()
            negated = not negated
        if cur.i >= len(cur.cmds):
            break
        items.append((op, negated, _pipeline(cur)))
        if cur.sep in ("&&", "||") and cur.i < len(cur.cmds) and cur.peek() not in _CLOSERS:
            op = cur.sep
            continue
        break
    if not items:
        return Group([])
    if len(items) == 1 and not items[0][1]:
        return items[0][2]
    return AndOr(items)


def _pipeline(cur: _Cursor) -> Node:
    parts = [_command(cur)]
    while cur.sep == "|" and cur.i < len(cur.cmds) and cur.peek() not in _CLOSERS:
        parts.append(_command(cur))
    return parts[0] if len(parts) == 1 else Pipe(parts)


def _command(cur: _Cursor) -> Node:
    head = cur.peek()
    if head not in ("if", "case", "while", "until", "for", "select", "{"):
        return Simple(cur.rest())
    cur.depth += 1
    if cur.depth > MAX_NESTING:
        w = cur.word()
        raise InputProblem(
            f"if/case/loops nested more than {MAX_NESTING} deep (the limit)",
            span_location(w.span if w is not None else None),
        )
    try:
        if head == "if":
            return _if(cur)
        if head == "case":
            return _case(cur)
        if head == "{":
            cur.take()
            body = _list(cur, {"}"})
            _expect(cur, "}")
            return Group(body)
        return _loop(cur, head)  # type: ignore[arg-type]
    finally:
        cur.depth -= 1


def _expect(cur: _Cursor, word: str) -> None:
    if cur.peek() == word:
        cur.take()


def _if(cur: _Cursor) -> If:
    branches: list[tuple[list[Node], list[Node]]] = []
    orelse = None
    cur.take()  # if
    while True:
        cond = _list(cur, {"then"})
        _expect(cur, "then")
        body = _list(cur, {"elif", "else", "fi"})
        branches.append((cond, body))
        if cur.peek() == "elif":
            cur.take()
            continue
        break
    if cur.peek() == "else":
        cur.take()
        orelse = _list(cur, {"fi"})
    _expect(cur, "fi")
    return If(branches, orelse)


def _loop(cur: _Cursor, head: str) -> Loop:
    cur.take()
    if head in ("for", "select"):  # `for NAME [in WORDS]`: the head itself is no command
        while cur.i < len(cur.cmds) and cur.peek() != "do":
            cur.take()
        cond: list[Node] = []
    else:
        cond = _list(cur, {"do"})
    _expect(cur, "do")
    body = _list(cur, {"done"})
    _expect(cur, "done")
    return Loop(cond, body)


def _case(cur: _Cursor) -> Case:
    start = cur.take()  # case
    if cur.word() is None or cur.off == 0:  # `case` alone
        return Case(start, [], start.span)
    word = cur.take()
    if cur.off and cur.peek() == "in":
        cur.take()
    arms: list[tuple[list[RawWord], list[Node]]] = []
    while cur.i < len(cur.cmds) and cur.peek() != "esac":
        patterns: list[RawWord] = []
        while cur.i < len(cur.cmds):  # `a|b)`: words up to the `)` that ends them
            if not patterns and cur.peek() == "esac":
                break
            patterns.append(cur.take())
            if cur.off == 0 and cur.sep != "|":
                break
        ended = cur.sep == ")" and ";;" in cur.last_ops  # `a) ;;`: an empty body
        body = [] if ended else _list(cur, {"esac"}, arm=True)
        arms.append((patterns, body))
    _expect(cur, "esac")
    return Case(word, arms, word.span)


def raws(nodes: list[Node]) -> list[RawCommand]:
    """The simple commands of ``nodes``, first and last (what a message shows of them)."""
    out: list[RawCommand] = []
    for node in nodes[:1] + nodes[1:][-1:]:
        if isinstance(node, Simple):
            out.append(node.cmd)
        elif isinstance(node, AndOr):
            out.extend(raws([node.items[0][2], node.items[-1][2]]))
        elif isinstance(node, Pipe):
            out.extend(raws(node.parts))
        elif isinstance(node, If):
            out.extend(raws(node.branches[0][0]))
        elif isinstance(node, (Loop, Group)):
            out.extend(raws(node.body))
    return out
