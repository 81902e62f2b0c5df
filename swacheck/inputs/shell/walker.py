"""Walking a script: its commands in order, with the variables they set.

Assignments, ``export`` / ``declare`` / ``readonly`` / ``local``, ``unset``, ``set -a`` and
``. FILE`` / ``source FILE`` are followed, and so are calls of the script's own functions (their
body is walked with the call's arguments as ``$@``, ``$1``...; a function never called is walked
once as written); every other simple command is handed on as a :class:`Command` with the
environment it runs with. Conditionals and loops are not evaluated.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import field

from ... import limits
from ...records import InputProblem
from ...recordtype import record
from ...report.escape import one_line
from .expansion import Env, Var, expand, expand_one, partly_known
from .functions import split_functions
from .lexer import ShellSyntaxError, lex
from .spans import Source, Span, span_location
from .words import _NAME, ArrayLit, Chars, RawCommand, RawWord, Unknown, Word


@record
class Command:
    """A simple command as the shell would run it."""

    argv: list[Word]  # expanded
    env: Env  # the environment the command runs with: exported variables and its prefix assignments
    prefix: dict[str, Var]  # `A=B cmd`: assignments written before the command
    span: Span | None


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

    def __post_init__(self) -> None:
        if not self.unset_reason:
            self.unset_reason = f"not set in {self.file_label} nor given with --env"
        for name, var in self.fallback.items():
            self.env.setdefault(name, var)

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
        yield from self._walk(commands)
        for name, body in defined.items():  # never called: its commands count as written
            if name not in self.called:
                self.called.add(name)
                yield from self.walk(body)

    def call(self, name: str, args: list[Word]) -> Iterable[Command]:
        """A call of the script's function ``name``: its body, with ``args`` as ``$@``."""
        self.called.add(name)
        self.calls += 1
        saved = self.env.get("@")
        self.env["@"] = Var(args[0] if args else Word("", [], None), items=args)
        try:
            yield from self.walk(self.functions[name])
        finally:
            if saved is None:
                self.env.pop("@", None)
            else:
                self.env["@"] = saved

    def _walk(self, commands: list[RawCommand]) -> Iterable[Command]:
        for cmd in commands:
            words = list(cmd.words)
            while words and words[0].literal() in _RESERVED:
                words = words[1:]
            if not words or words[0].literal() in ("for", "case", "select", "function"):
                continue
            prefix: dict[str, Var] = {}
            while words and (a := words[0].assignment()) is not None:
                name, value, _ = a
                prefix[name] = self.value_var(value, f"{name}=... in {self.file_label}")
                words = words[1:]
            if not words:
                for name, var in prefix.items():
                    self.assign(name, var)
                continue
            head = words[0].literal()
            if head in (".", "source") and len(words) > 1:
                yield from self.source(words[1])
                continue
            if self.builtin(head, words[1:]):
                continue
            if head in self.functions and self.calls < MAX_CALLS:
                yield from self.call(head, [w for raw in words[1:] for w in self.expand(raw)])
                continue
            argv = [w for raw in words for w in self.expand(raw)]
            if argv:
                yield Command(argv, self.child_env(prefix), prefix, cmd.span)

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
                self.assign(name, var)
                if exported:
                    self.env[name].exported = True
            elif lit is not None and _NAME.fullmatch(lit) and exported:
                if lit in self.env:
                    self.env[lit].exported = True
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
        )
        yield from inner.walk(commands)
        self.allexport = inner.allexport


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
