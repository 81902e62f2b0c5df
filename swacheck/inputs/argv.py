"""Step 2 of reading a launch: the server's arguments, parsed as SGLang's argparse parser does.

With SGLang's option table (``swacheck/sglang/flags.py``): ``--flag value`` and ``--flag=value``,
store_true flags take no value, list options take values up to the next option, ``sglang serve``
takes the model path as its first positional argument; ``--config FILE`` is kept for
``launch.py`` to merge the way SGLang's merger does (the file's arguments first, so the command
line wins). Each argument becomes an :class:`Arg` whose synthetic ``Pair`` points at the flag's
name and value in the script. What cannot be resolved (an unset variable, ``$(...)``,
``"$@"``) is recorded as :class:`Unresolved` for rule SWA305 and the argument is left unset.
"""

from __future__ import annotations

import re
from dataclasses import field

from ..model.deployment import Arg
from ..model.records import InputProblem, Location
from ..model.recordtype import record
from ..model.tree import Pair, Scalar, Sequence
from ..sglang import flags
from ..sglang.version import DEFAULT, SGLangProfile
from .recognise import Launch
from .shell import Word, join_spans, span_location


@record(frozen=True)
class Unresolved:
    """Something a launch uses whose value the files do not give (reported by SWA305)."""

    kind: str  # "argument" | "arguments" | "env"
    name: str  # the canonical option ("speculative-draft-model-path") or the variable's name
    shown: str  # as written: "$DRAFT", "$(hostname)", "\"$@\""
    reason: str
    location: Location | None
    variable: str = ""  # the variable it comes from ("DRAFT"), or the text of a substitution


_NEGATIVE = re.compile(r"-\d+(\.\d*)?([eE][-+]?\d+)?")


def _is_option(word: Word) -> bool:
    t = word.text
    return (
        t.startswith("-")
        and len(t) > 1
        and not _NEGATIVE.fullmatch(t)
        and not (word.unknown and t.startswith("$"))
    )


def _value_loc(word: Word, start: int) -> Location | None:
    """The span of a value inside a word (``--flag=VALUE``), never the flag itself."""
    if start >= len(word.text):
        return word.loc(start - 1, start) if start > 0 else word.location
    joined = join_spans(word.spans[start:])
    if joined is not None:
        return span_location(joined)
    eq, whole = word.spans[start - 1] if start > 0 else None, word.whole
    if eq is not None and whole is not None and eq[0] is whole[0] and eq[2] <= whole[2]:
        return eq[0].location(eq[2], whole[2])
    return word.location


def unresolved_word(kind: str, name: str, word: Word) -> Unresolved:
    first = word.unknown[0]
    shown = ", ".join(dict.fromkeys(u.shown for u in word.unknown))
    return Unresolved(kind, name, shown, first.reason, first.location or word.location, first.name)


def _arity(candidates: tuple[str, ...], profile: SGLangProfile) -> str:
    """How many values an option argparse refuses takes: the same as all its candidates, else any."""
    table = flags.options(profile)
    kinds = {flags.cli_kind(table[c]) for c in candidates if c in table}
    return kinds.pop() if len(kinds) == 1 else "any"


@record
class Parsed:
    """A launch command's arguments as SGLang's argparse would see them, and what could not be read."""

    entries: list[Arg] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    config: tuple[Word, Location | None] | None = None  # `--config FILE`: the file word, the flag
    escaped_blank: Word | None = None  # a `\ ` word: argparse gets ' ' and SGLang exits


def _escaped_blank(w: Word) -> bool:
    """A word that is only a backslash-escaped space or tab, as a backslash + trailing spaces leave."""
    if w.text.strip() or not w.text or w.whole is None:
        return False
    src, a, b = w.whole
    return src.text[a:b].startswith("\\")


SINGLE_DASH = re.compile(r"-([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(=.*)?")


def parse_args(launch: Launch, profile: SGLangProfile = DEFAULT) -> Parsed:
    """The server arguments of one launch, as argparse reads them."""
    return _Parser(launch, profile).run()


@record
class _Option:
    """One option word, split into what the reader of each arity needs."""

    word: Word
    name: str  # as written, without dashes and value: "tp_size"
    eq: str  # "=" when the value is in the word (`--tp=8`)
    key_loc: Location
    match: flags.KeyMatch
    kind: str  # flags.cli_kind of the option, "unknown" when argparse does not know it
    arity: str  # kind, or for an unknown option the kind all its candidates share, else "any"
    canonical: str
    value_start: int  # where the value starts in the word (`--tp=8`: 5)


class _Parser:
    """argparse over one launch's words: ``run`` reads them left to right."""

    def __init__(self, launch: Launch, profile: SGLangProfile) -> None:
        self.launch = launch
        self.profile = profile
        self.words = launch.args
        self.out = Parsed()
        self.expect_model = launch.serve
        self.nowhere = (
            launch.whole or launch.location or Location("<--env>", 1, 1, 1, 1)
        )  # text that only --env gave
        self.i = 0

    def run(self) -> Parsed:
        while self.i < len(self.words):
            w = self.words[self.i]
            if not _is_option(w):
                self._positional(w)
                continue
            self.expect_model = False
            self._option(w)
        return self.out

    def _skip_values(self) -> None:
        while self.i < len(self.words) and not _is_option(self.words[self.i]):
            self.i += 1

    def _positional(self, w: Word) -> None:
        self.i += 1
        if _escaped_blank(w):  # `--flag x \ ` at a line's end: reported by SWA306 (pitfalls.py)
            self.out.escaped_blank = w
            return
        if w.unknown:  # "$@", $EXTRA_ARGS: could hold any arguments
            self.out.unresolved.append(unresolved_word("arguments", "", w))
        elif self.expect_model:
            loc = w.loc() or self.nowhere
            self.out.entries.append(
                Arg(
                    "model-path",
                    "model-path",
                    Pair("model-path", loc, Scalar(w.text, loc, w.quoted)),
                    "exact",
                    "store",
                    cli=True,
                )
            )  # type: ignore[arg-type]
        else:
            raise InputProblem(
                f"unrecognized argument {w.text!r}: {self.launch.program} takes no positional "
                f"arguments",
                w.loc(),
                w.location.file if w.location else "",
            )
        self.expect_model = False

    def _option(self, w: Word) -> None:
        t = w.text
        if t == "--":
            raise InputProblem(
                "'--' ends the options: argparse rejects the arguments after it", w.loc()
            )
        dashes = 2 if t.startswith("--") else 1
        name, eq, _ = t[dashes:].partition("=")
        key_loc = (w.loc(dashes, dashes + len(name)) if name else w.loc()) or self.nowhere
        if self._skipped(w, dashes, name, eq):
            return
        m = flags.match(name, self.profile) if dashes == 2 else flags.KeyMatch("unknown")
        option = m.option
        kind = flags.cli_kind(option) if option else "unknown"
        opt = _Option(
            w,
            name,
            eq,
            key_loc,
            m,
            kind,
            kind if option else _arity(m.candidates, self.profile),
            option.canonical if option else name.replace("_", "-"),
            dashes + len(name) + 1,
        )
        if option is not None and option.canonical == "config" and m.how == "exact":
            self._config(opt)
            return
        if opt.arity == "store_true":
            node: Scalar | Sequence | None = self._store_true(opt)
        elif opt.arity in ("store-list", "any"):
            node = self._list(opt)
        else:
            node = self._store(opt)
        if node is not None:
            self.out.entries.append(
                Arg(opt.canonical, name, Pair(name, key_loc, node), m.how, kind, cli=True)
            )  # type: ignore[arg-type]

    def _skipped(self, w: Word, dashes: int, name: str, eq: str) -> bool:
        """Skip an option word that is not read as one, and the values it may take."""
        if (
            dashes == 1
            and len(name) > 1
            and not w.unknown
            and flags.match(name, self.profile).option is not None
        ):
            # `-tp-size 8`: argparse exits on it (unrecognized arguments); SWA306 says so, with
            # the right fix, and the words are not taken for the option they resemble
            self.i += 1
            if not eq:
                self._skip_values()
            return True
        if any(
            u.shown in w.text[: dashes + len(name)] for u in w.unknown
        ):  # `--$FLAG ...`: which option is unknown
            self.out.unresolved.append(unresolved_word("arguments", "", w))
            self.i += 1
            self._skip_values()  # and so are the values it may take
            return True
        return False

    def _config(self, opt: _Option) -> None:
        """``--config FILE``: kept for ``launch.build`` to merge."""
        if opt.eq:
            raise InputProblem(
                f"{opt.word.text}: SGLang's --config merger looks for the word '--config' "
                "followed by the file; with '=' it never reads the file (write --config FILE)",
                opt.word.loc(),
            )
        if self.out.config is not None:
            raise InputProblem(
                "ValueError: Multiple config files specified! Only one allowed.", opt.key_loc
            )
        if self.i + 1 >= len(self.words):
            raise InputProblem(
                "ValueError: No config file specified after --config flag!", opt.key_loc
            )
        self.out.config = (self.words[self.i + 1], opt.key_loc)
        self.i += 2

    def _store_true(self, opt: _Option) -> Scalar:
        option = opt.match.option
        if opt.eq and option is not None:
            raise InputProblem(
                f"argument --{option.name}: ignored explicit argument "
                f"{opt.word.text[opt.value_start :]!r}",
                _value_loc(opt.word, opt.value_start),
            )
        self.i += 1
        return Scalar(option is None or option.name != f"no-{option.canonical}", opt.key_loc)  # type: ignore[arg-type]

    def _list(self, opt: _Option) -> Scalar | Sequence | None:
        values: list[tuple[Word, int]] = [(opt.word, opt.value_start)] if opt.eq else []
        self.i += 1
        while self.i < len(self.words) and not _is_option(self.words[self.i]):
            values.append((self.words[self.i], 0))
            self.i += 1
        bad = [v for v, _ in values if v.unknown]
        if bad:
            self.out.unresolved.append(unresolved_word("argument", opt.canonical, bad[0]))
            return None
        items = [
            Scalar(v.text[s:], (_value_loc(v, s) if s else v.loc()) or self.nowhere, v.quoted)
            for v, s in values
        ]
        if opt.arity == "any" and len(items) <= 1:  # an option argparse does not know: SWA303
            return items[0] if items else Scalar(True, opt.key_loc)  # type: ignore[arg-type]
        first = items[0].loc if items else opt.key_loc
        last = items[-1].loc if items else opt.key_loc
        span = (
            Location(first.file, first.line, first.column, last.end_line, last.end_column)
            if first and last
            else opt.key_loc
        )  # type: ignore[union-attr]
        return Sequence(span, items)  # type: ignore[arg-type]

    def _store(self, opt: _Option) -> Scalar | None:
        w, words, i = opt.word, self.words, self.i
        if opt.eq:
            value, value_loc = w.sub(opt.value_start), _value_loc(w, opt.value_start)
            self.i += 1
        elif i + 1 < len(words) and not _is_option(words[i + 1]):
            value = words[i + 1]
            value_loc = value.loc()
            self.i += 2
        else:
            option = opt.match.option
            raise InputProblem(
                f"argument --{option.name if option else opt.name}: expected one argument "
                f"(argparse stops here)",
                opt.key_loc,
            )
        if value.unknown:
            self.out.unresolved.append(unresolved_word("argument", opt.canonical, value))
            return None
        return Scalar(value.text, value_loc or self.nowhere, value.quoted)  # type: ignore[arg-type]
