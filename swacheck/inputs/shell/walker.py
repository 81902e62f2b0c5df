"""Walking a script: its commands in order, with the variables they set.

Assignments, ``export`` / ``declare`` / ``readonly`` / ``local``, ``unset``, ``set -a`` and
``. FILE`` / ``source FILE`` are followed, and so are calls of the script's own functions (their
body is walked with the call's arguments as ``$@``, ``$1``...; a function never called is walked
once as written); every other simple command is handed on as a :class:`Command` with the
environment it runs with. ``if``/``elif``/``else``, ``case`` and ``&&``/``||`` lists run as bash
runs them when their conditions are known (``conditions``); an undecided condition forks the
walk into worlds, one per branch (``worlds``), each with its own variables. Loops are walked
once, as written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import field, replace

from ... import limits
from ...model.records import InputProblem
from ...model.recordtype import record
from ...model.text import one_line
from .conditions import Tri, evaluate, matches
from .control import AndOr, Case, Group, If, Loop, Node, Pipe, Simple, parse, raws
from .expansion import Env, Var, expand, expand_one, partly_known
from .functions import split_functions
from .lexer import ShellSyntaxError, lex
from .spans import Source, Span, span_location
from .words import _NAME, ArrayLit, Chars, Lit, RawCommand, RawWord, Unknown, Word
from .worlds import Budget, World, fork, settle, shown_of


@record
class Command:
    """A simple command as the shell would run it."""

    argv: list[Word]  # expanded
    env: Env  # the environment the command runs with: exported variables and its prefix assignments
    prefix: dict[str, Var]  # `A=B cmd`: assignments written before the command
    span: Span | None
    assumed: tuple[str, ...] = ()  # the undecided conditions the walk took to reach it
    stdin: Word | None = None  # its here-string (`bash -s <<< "..."`), expanded
    dropped: str = ""  # a call of this script function not followed (past MAX_CALLS)


_DECLARE = {"export", "declare", "typeset", "readonly", "local"}
MAX_CALLS = 64  # function calls a script's walk follows (a function may call itself)
_RESERVED = {
    "!",
    "{",
    "}",
    "then",
    "else",
    "elif",
    "do",
    "if",
    "while",
    "until",
    "fi",
    "done",
    "esac",
}


@record
class Walker:
    """Runs through a script in order, keeping variables, and yields every other simple command.

    Conditionals and loops are not evaluated: assignments count in the order they are written.
    ``fallback`` answers variables the script leaves unknown (swacheck's ``--env``).
    """

    env: Env
    file_label: str = "the script"
    fallback: Env = field(default_factory=dict)
    base_dir: str = "."
    allexport: bool = False
    read_file: Callable[[str], Source] | None = (
        None  # for `. FILE` / `source FILE`; raises InputProblem outside the root
    )
    depth: int = 0
    opaque_reasons: dict[str, str] = field(default_factory=dict)  # "$(POD_IP)" -> why it is unknown
    unset_reason: str = ""  # how to say that a variable is set nowhere: "not set in decode.sh ..."

    exported_names: set[str] = field(default_factory=set)  # `export NAME` before NAME is set
    functions: dict[str, list[RawCommand]] = field(default_factory=dict)  # name -> its body
    called: set[str] = field(default_factory=set)
    calls: int = 0  # function calls walked (MAX_CALLS)
    sourcing: tuple[str, ...] = ()  # real paths of the files being read, outermost first (cycles)
    worlds: list[World] = field(default_factory=list)  # the ways the script can go, so far
    merged: list[str] = field(default_factory=list)  # worlds merged over worlds.MAX_WORLDS
    seen: set | None = None  # commands yielded by the worlds of one node (each only once)
    why: list = field(default_factory=list)  # the unknowns the last test depended on
    budget: Budget = field(default_factory=Budget)  # what comparing worlds may still cost

    def __post_init__(self) -> None:
        if not self.unset_reason:
            self.unset_reason = f"not set in {self.file_label} nor given with --env"
        for name, var in self.fallback.items():
            self.env.setdefault(name, var)
        self.worlds = [World(self.env)]

    def assign(self, name: str, var: Var) -> None:
        if name.endswith("+"):  # NAME+=value / NAME+=(items): append to what NAME holds
            name = name[:-1]
            var = _appended(self.env.get(name), var)
        if var.value is None and var.items is None and name in self.fallback:
            var = self.fallback[name]
        old = self.env.get(name)
        if old is not None and old.exported or self.allexport or name in self.exported_names:
            var.exported = True
        self.env[name] = var

    def expand(self, raw: RawWord, split: bool = True) -> list[Word]:
        words = expand(raw, self.env, self.unset_reason, split=split)
        self._explain(words)
        return words

    def _explain(self, words: list[Word]) -> None:
        if not self.opaque_reasons:
            return
        for w in words:
            w.unknown = [
                Unknown(u.shown, u.name, self.opaque_reasons.get(u.shown, u.reason), u.span)
                for u in w.unknown
            ]

    def value_var(self, raw: RawWord, origin: str) -> Var:
        if raw.parts and isinstance(raw.parts[-1], ArrayLit):  # NAME=(a b c)
            items = [w for item in raw.parts[-1].items for w in self.expand(item)]
            return Var(items[0] if items else Word("", [], raw.span), origin=origin, items=items)
        word = expand_one(raw, self.env, self.unset_reason)
        self._explain([word])
        if word.unknown:
            reason = "; ".join(f"{u.shown}: {u.reason}" for u in word.unknown)
            return Var(
                None,
                origin=origin,
                reason=reason,
                where=word.unknown[0].location,
                partial=word if partly_known(word) else None,
            )
        return Var(word, origin=origin)

    def walk(self, commands: list[RawCommand]) -> Iterable[Command]:
        commands, defined = split_functions(commands)
        self.functions.update(defined)
        yield from self.run_list(parse(commands))
        for name, body in defined.items():  # never called: its commands count as written
            if name not in self.called:
                self.called.add(name)
                exited = [w.exited for w in self.worlds]
                for w in self.worlds:
                    w.exited = False
                yield from self.walk(body)
                if len(exited) == len(self.worlds):
                    for w, was in zip(self.worlds, exited):
                        w.exited = was

    def call(self, name: str, args: list[Word]) -> Iterable[Command]:
        """A call of the script's function ``name``: its body, with ``args`` as ``$@``."""
        self.called.add(name)
        self.calls += 1
        saved = self.env.get("@")
        self.env["@"] = Var(args[0] if args else Word("", [], None), items=args)
        try:
            yield from self.walk(self.functions[name])
        finally:
            for w in self.worlds:  # each way the body went
                if saved is None:
                    w.env.pop("@", None)
                else:
                    w.env["@"] = saved
            if len(self.worlds) == 1:
                self.env = self.worlds[0].env

    # -- the ways a script can go (worlds.py)

    def run_list(self, nodes: list[Node]) -> Iterable[Command]:
        for node in nodes:
            worlds = self.worlds
            if all(w.exited for w in worlds):
                return
            if len(worlds) == 1:
                self.env = worlds[0].env
                yield from self.run(node)
                if len(self.worlds) > 1:
                    self.worlds = settle(self.worlds, self.merged, self.budget)
                continue
            out: list[World] = []
            saved_seen = self.seen
            self.seen = set() if saved_seen is None else saved_seen
            for w in worlds:
                if w.exited:
                    out.append(w)
                    continue
                self.worlds = [w]
                self.env = w.env
                yield from self.run(node)
                out.extend(self.worlds)
            self.seen = saved_seen
            self.worlds = settle(out, self.merged, self.budget)
        if len(self.worlds) == 1:
            self.env = self.worlds[0].env

    def run(self, node: Node) -> Iterable[Command]:
        """``node`` in the one current world (``self.worlds[0]``); it may leave several."""
        if isinstance(node, Simple):
            yield from self.run_simple(node.cmd)
        elif isinstance(node, AndOr):
            yield from self.run_and_or(node)
        elif isinstance(node, If):
            yield from self.run_if(node)
        elif isinstance(node, Case):
            yield from self.run_case(node)
        elif isinstance(node, Pipe):
            for part in node.parts:
                yield from self.run_list([part])
            self._status(None)
        elif isinstance(node, Loop):
            yield from self.run_list(node.cond)
            yield from self.run_list(node.body)
            self._status(None)
        elif isinstance(node, Group):
            yield from self.run_list(node.body)

    def _status(self, status: Tri) -> None:
        for w in self.worlds:
            if not w.exited:
                w.status = status

    def _split(self, shown: str, why: list) -> tuple[list[World], list[World], list[World]]:
        """The current worlds by the status of what just ran: (true, false, exited); an
        undecided one forks into both."""
        yes: list[World] = []
        no: list[World] = []
        gone: list[World] = []
        for w in self.worlds:
            if w.exited:
                gone.append(w)
            elif w.status is None:
                t, f = fork(w, shown, why, self.budget)
                yes.append(t)
                no.append(f)
            else:
                (yes if w.status else no).append(w)
        return _unique(yes), _unique(no), gone

    def run_if(self, node: If) -> Iterable[Command]:
        pending = self.worlds
        done: list[World] = []
        for cond, body in node.branches:
            self.worlds = pending
            self.why = []
            yield from self.run_list(cond)
            shown, _ = shown_of(raws(cond))
            yes, pending, gone = self._split(shown, self.why)
            done.extend(gone)
            if yes:
                self.worlds = yes
                yield from self.run_list(body)
                done.extend(self.worlds)
            if not pending:
                break
        if pending and node.orelse is not None:
            self.worlds = pending
            yield from self.run_list(node.orelse)
            done.extend(self.worlds)
        else:
            for w in pending:
                w.status = True  # no branch taken: `if` returns 0
            done.extend(pending)
        self.worlds = _unique(done)

    def run_and_or(self, node: AndOr) -> Iterable[Command]:
        shown = ""
        self.why = []
        for op, negated, item in node.items:
            skipped: list[World] = []
            if op:
                yes, no, gone = self._split(shown, self.why)
                run, skip = (yes, no) if op == "&&" else (no, yes)
                self.worlds = run
                skipped = skip + gone
            self.why = []
            if self.worlds:
                yield from self.run_list([item])
            if negated:
                for w in self.worlds:
                    if not w.exited and w.status is not None:
                        w.status = not w.status
            self.worlds = _unique(self.worlds + skipped)
            shown, _ = shown_of(raws([item]))

    def run_case(self, node: Case) -> Iterable[Command]:
        word = self.expand_one_raw(node.word)
        shown, _ = shown_of([RawCommand([node.word], node.word.span)])
        pending = list(self.worlds)
        done: list[World] = []
        for patterns, body in node.arms:
            yes: list[World] = []
            rest: list[World] = []
            for w in pending:
                self.env = w.env
                hit = self._case_match(word, patterns)
                if hit is None:
                    label = f"case {shown} in {'|'.join(p.literal() or '...' for p in patterns)})"
                    t, f = fork(w, label, word.unknown, self.budget)
                    yes.append(t)
                    rest.append(f)
                else:
                    (yes if hit else rest).append(w)
            if yes:
                self.worlds = yes
                yield from self.run_list(body)
                done.extend(self.worlds)
            pending = rest
            if not pending:
                break
        for w in pending:
            w.status = True
        self.worlds = _unique(done + pending)

    def _case_match(self, word: Word, patterns: list[RawWord]) -> Tri:
        undecided = False
        for raw in patterns:
            hit = matches(word, self.expand_one_raw(raw))
            if hit:
                return True
            undecided = undecided or hit is None
        return None if undecided else False

    def run_simple(self, cmd: RawCommand) -> Iterable[Command]:
        """One simple command in the current world; sets its status (None: not known)."""
        world = self.worlds[0]
        world.status = None
        words = list(cmd.words)
        while words and words[0].literal() in _RESERVED:
            words = words[1:]
        if not words or words[0].literal() in ("for", "case", "select", "function"):
            world.status = True
            return
        prefix: dict[str, Var] = {}
        while words and (a := words[0].assignment()) is not None:
            name, value, _ = a
            prefix[name] = self.value_var(value, f"{name}=... in {self.file_label}")
            words = words[1:]
        if not words:
            for name, var in prefix.items():
                self.assign(name, var)
            world.status = True
            return
        head = words[0].literal()
        if head in (".", "source") and len(words) > 1:
            yield from self.source(words[1])
        elif head in self.functions and self.calls < MAX_CALLS:
            yield from self.call(head, [w for raw in words[1:] for w in self.expand(raw)])
        elif not self.special(world, head, words[1:]):
            yield from self.simple(cmd, words, prefix, world)

    def special(self, world: World, head: str | None, args: list[RawWord]) -> bool:
        """A test, ``exit`` or a builtin that changes variables, run; False for another command."""
        if head in _TESTS:
            world.status = self.test(head, args)  # type: ignore[arg-type]
        elif head == "exit":
            world.exited = True
        elif self.builtin(head, args):
            world.status = True
        else:
            return False
        return True

    def simple(
        self, cmd: RawCommand, words: list[RawWord], prefix: dict[str, Var], world: World
    ) -> Iterable[Command]:
        argv = [w for raw in words for w in self.expand(raw)]
        stdin = self.expand_one_raw(cmd.stdin) if cmd.stdin is not None else None
        command = Command(argv, self.child_env(prefix), prefix, cmd.span, world.assumed, stdin)
        head = words[0].literal()
        if head in self.functions:  # past MAX_CALLS: the reader says it was not followed
            command.dropped = head
        if argv and self.new(cmd, command):
            yield command

    def new(self, cmd: RawCommand, command: Command) -> bool:
        """Whether ``command`` is not the same as one another world already gave for ``cmd``."""
        if self.seen is None:
            return True
        key = (
            id(cmd),
            tuple((w.text, tuple(u.shown for u in w.unknown)) for w in command.argv),
            tuple(
                sorted((k, v.value.text if v.value else v.reason) for k, v in command.env.items())
            ),
        )
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def test(self, head: str, args: list[RawWord]) -> Tri:
        """``true``/``false``/``:``, ``[[ ... ]]``, ``[ ... ]``, ``test ...``: the status when the
        files decide it; the unknowns it depends on go to ``self.why``."""
        if head in ("true", ":"):
            return True
        if head == "false":
            return False
        if head == "[[":
            args = args[:-1] if args and args[-1].literal() == "]]" else args
            tokens = [(self.expand_one_raw(raw), _unquoted(raw)) for raw in args]
        else:
            if head == "[" and args and args[-1].literal() == "]":
                args = args[:-1]
            tokens = [(w, _unquoted(raw)) for raw in args for w in self.expand(raw)]
        status, why = evaluate(tokens, head == "[[", self.is_set)
        self.why.extend(why)
        return status

    def expand_one_raw(self, raw: RawWord) -> Word:
        word = expand_one(raw, self.env, self.unset_reason)
        self._explain([word])
        return word

    def is_set(self, name: str) -> Tri:
        return True if name in self.env else False

    def builtin(self, head: str | None, args: list[RawWord]) -> bool:
        """Run a builtin that changes variables (``export``, ``unset``, ``set -a``...); False
        when ``head`` is none of them."""
        if head in _DECLARE:
            self.declare(head, args)  # type: ignore[arg-type]
        elif head == "unset":
            for w in args:
                if (lit := w.literal()) and not lit.startswith("-"):
                    self.env.pop(lit, None)
        elif head == "set":
            for w in args:
                lit = w.literal() or ""
                if lit.startswith("-") and "a" in lit[1:]:
                    self.allexport = True
                elif lit.startswith("+") and "a" in lit[1:]:
                    self.allexport = False
        else:
            return False
        return True

    def child_env(self, prefix: dict[str, Var]) -> Env:
        """The environment a command runs with: the exported variables and its prefix assignments."""
        child = {k: v for k, v in self.env.items() if v.exported}
        for name, var in prefix.items():
            if var.value is None and name in self.fallback:
                var = self.fallback[name]
            child[name] = Var(var.value, True, var.origin, var.reason, var.where)
        return child

    def declare(self, head: str, args: list[RawWord]) -> None:
        exported = head == "export"
        for raw in args:
            lit = raw.literal()
            if lit is not None and lit.startswith("-"):
                exported = exported or "x" in lit
                continue
            a = raw.assignment()
            if a is not None:
                name, value, _ = a
                var = self.value_var(value, f"{head} {name}=... in {self.file_label}")
                if exported:
                    var.exported = True
                self.assign(name, var)
            elif lit is not None and _NAME.fullmatch(lit) and exported:
                if lit in self.env:
                    self.env[lit] = replace(self.env[lit], exported=True)
                else:
                    self.exported_names.add(lit)

    def source(self, raw: RawWord) -> Iterable[Command]:
        """`. FILE`: read FILE (relative to the script's folder) when it exists; else nothing is known.

        A file that sources itself (directly or through others) would never finish in a shell,
        and a chain deeper than ``limits.MAX_SOURCE_DEPTH`` or more than ``limits.MAX_SOURCES``
        files sourced for one input are input errors: sourcing is where a few hundred bytes
        could otherwise become an exponential number of commands.
        """
        if self.read_file is None:
            return
        word = expand_one(raw, self.env)
        if word.unknown or not word.text:
            return
        path = (
            word.text
            if os.path.isabs(word.text)
            else os.path.normpath(os.path.join(self.base_dir, word.text))
        )
        if not os.path.isfile(path):
            return
        at = span_location(raw.span)
        key = os.path.realpath(path)
        if key in self.sourcing:
            chain = [os.path.basename(p) for p in self.sourcing[self.sourcing.index(key) :]] + [
                os.path.basename(key)
            ]
            raise InputProblem(
                f"{one_line(chain[0])} sources itself ({one_line(' -> '.join(chain))}): the shell would never finish",
                at,
            )
        if self.depth >= limits.MAX_SOURCE_DEPTH:
            raise InputProblem(
                f"sourced files nested more than {limits.MAX_SOURCE_DEPTH} deep (the limit)", at
            )
        limits.current().source(at)
        try:
            src = self.read_file(path)
            commands = lex(Chars.of_source(src))
        except (InputProblem, ShellSyntaxError):
            return
        inner = Walker(
            self.env,
            os.path.basename(path),
            self.fallback,
            os.path.dirname(path) or ".",
            self.allexport,
            self.read_file,
            self.depth + 1,
            self.opaque_reasons,
            self.unset_reason,
            sourcing=(*self.sourcing, key),
            budget=self.budget,
        )
        here = self.worlds[0]
        inner.worlds = [World(self.env, here.status, False, here.assumed)]
        yield from inner.walk(commands)
        self.allexport = inner.allexport
        self.merged.extend(inner.merged)
        self.worlds = inner.worlds
        self.env = self.worlds[0].env


_TESTS = {"[[", "[", "test", "true", "false", ":"}


def _unique(worlds: list[World]) -> list[World]:
    """Each world once (the one world stands for both ways once forking is over budget)."""
    return list({id(w): w for w in worlds}.values()) if len(worlds) > 1 else worlds


def _unquoted(raw: RawWord) -> bool:
    """Whether ``raw`` is written as plain unquoted text (an operator, or a pattern)."""
    return bool(raw.parts) and all(isinstance(p, Lit) and not p.quoted for p in raw.parts)


def _appended(old: Var | None, var: Var) -> Var:
    """What ``NAME+=value`` (or ``NAME+=(items)``) leaves in NAME, which held ``old``."""
    if old is None:
        return var
    if old.value is None and old.items is None:  # only known at run time: so is the result
        return Var(None, old.exported, var.origin, old.reason, old.where)
    if var.value is None and var.items is None:
        return var
    if var.items is not None or old.items is not None:
        items = list(old.items if old.items is not None else [old.value]) + list(
            var.items if var.items is not None else [var.value]
        )  # type: ignore[list-item]
        first = items[0] if items else Word("", [], None)
        return Var(first, old.exported, var.origin, items=items)  # type: ignore[arg-type]
    a, b = old.value, var.value
    joined = Word(
        a.text + b.text,  # type: ignore[union-attr]
        a.spans + b.spans,  # type: ignore[union-attr]
        a.whole,  # type: ignore[union-attr]
        a.unknown + b.unknown,  # type: ignore[union-attr]
        a.quoted or b.quoted,  # type: ignore[union-attr]
    )
    return Var(joined, old.exported, var.origin)


def syntax_problem(err: ShellSyntaxError, path: str) -> InputProblem:
    return InputProblem(f"shell syntax: {err.message}", span_location(err.span), path)
