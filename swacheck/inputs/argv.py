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
from dataclasses import dataclass, field

from ..loading import Pair, Scalar, Sequence
from ..records import InputProblem, Location
from ..sglang import flags
from ..sglang.version import DEFAULT, SGLangProfile
from .recognise import Launch
from .shell import Word, join_spans, span_location
from .types import Arg


@dataclass(frozen=True, slots=True)
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


@dataclass(slots=True)
class Parsed:
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
    out = Parsed()
    words = launch.args
    expect_model = launch.serve
    nowhere = (
        launch.whole or launch.location or Location("<--env>", 1, 1, 1, 1)
    )  # text that only --env gave
    i = 0
    while i < len(words):
        w = words[i]
        t = w.text
        if not _is_option(w):
            if _escaped_blank(w):  # `--flag x \ ` at a line's end: reported by SWA306 (pitfalls.py)
                out.escaped_blank = w
                i += 1
                continue
            if w.unknown:  # "$@", $EXTRA_ARGS: could hold any arguments
                out.unresolved.append(unresolved_word("arguments", "", w))
            elif expect_model:
                loc = w.loc() or nowhere
                out.entries.append(
                    Arg(
                        "model-path",
                        "model-path",
                        Pair("model-path", loc, Scalar(t, loc, w.quoted)),
                        "exact",
                        "store",
                        cli=True,
                    )
                )  # type: ignore[arg-type]
            else:
                raise InputProblem(
                    f"unrecognized argument {t!r}: {launch.program} takes no positional arguments",
                    w.loc(),
                    w.location.file if w.location else "",
                )
            expect_model = False
            i += 1
            continue
        expect_model = False
        if t == "--":
            raise InputProblem(
                "'--' ends the options: argparse rejects the arguments after it", w.loc()
            )
        dashes = 2 if t.startswith("--") else 1
        name, eq, _ = t[dashes:].partition("=")
        key_loc = (w.loc(dashes, dashes + len(name)) if name else w.loc()) or nowhere
        if (
            dashes == 1
            and len(name) > 1
            and not w.unknown
            and flags.match(name, profile).option is not None
        ):
            # `-tp-size 8`: argparse exits on it (unrecognized arguments); SWA306 says so, with
            # the right fix, and the words are not taken for the option they resemble
            i += 1
            while not eq and i < len(words) and not _is_option(words[i]):
                i += 1
            continue
        if any(
            u.shown in t[: dashes + len(name)] for u in w.unknown
        ):  # `--$FLAG ...`: which option is unknown
            out.unresolved.append(unresolved_word("arguments", "", w))
            i += 1
            while i < len(words) and not _is_option(words[i]):  # and so are the values it may take
                i += 1
            continue
        m = flags.match(name, profile) if dashes == 2 else flags.KeyMatch("unknown")
        option = m.option
        kind = flags.cli_kind(option) if option else "unknown"
        arity = kind if option else _arity(m.candidates, profile)
        canonical = option.canonical if option else name.replace("_", "-")
        value_start = dashes + len(name) + 1
        if option is not None and option.canonical == "config" and m.how == "exact":
            if eq:
                raise InputProblem(
                    f"{t}: SGLang's --config merger looks for the word '--config' followed by the file; "
                    "with '=' it never reads the file (write --config FILE)",
                    w.loc(),
                )
            if out.config is not None:
                raise InputProblem(
                    "ValueError: Multiple config files specified! Only one allowed.", key_loc
                )
            if i + 1 >= len(words):
                raise InputProblem(
                    "ValueError: No config file specified after --config flag!", key_loc
                )
            out.config = (words[i + 1], key_loc)
            i += 2
            continue
        node: Scalar | Sequence
        if arity == "store_true":
            if eq and option is not None:
                raise InputProblem(
                    f"argument --{option.name}: ignored explicit argument {t[value_start:]!r}",
                    _value_loc(w, value_start),
                )
            node = Scalar(option is None or option.name != f"no-{option.canonical}", key_loc)  # type: ignore[arg-type]
            i += 1
        elif arity in ("store-list", "any"):
            values: list[tuple[Word, int]] = [(w, value_start)] if eq else []
            j = i + 1
            while j < len(words) and not _is_option(words[j]):
                values.append((words[j], 0))
                j += 1
            i = j
            bad = [v for v, _ in values if v.unknown]
            if bad:
                out.unresolved.append(unresolved_word("argument", canonical, bad[0]))
                continue
            items = [
                Scalar(v.text[s:], (_value_loc(v, s) if s else v.loc()) or nowhere, v.quoted)
                for v, s in values
            ]
            if (
                arity == "any" and len(items) <= 1
            ):  # an option argparse does not know: SWA303 reports it
                node = items[0] if items else Scalar(True, key_loc)  # type: ignore[arg-type]
                out.entries.append(
                    Arg(canonical, name, Pair(name, key_loc, node), m.how, kind, cli=True)
                )  # type: ignore[arg-type]
                continue
            first = items[0].loc if items else key_loc
            last = items[-1].loc if items else key_loc
            span = (
                Location(first.file, first.line, first.column, last.end_line, last.end_column)
                if first and last
                else key_loc
            )  # type: ignore[union-attr]
            node = Sequence(span, items)  # type: ignore[arg-type]
        else:  # store
            if eq:
                value, value_loc = w.sub(value_start), _value_loc(w, value_start) or nowhere
                i += 1
            elif i + 1 < len(words) and not _is_option(words[i + 1]):
                value = words[i + 1]
                value_loc = value.loc() or nowhere
                i += 2
            else:
                raise InputProblem(
                    f"argument --{option.name if option else name}: expected one argument (argparse stops here)",
                    key_loc,
                )
            if value.unknown:
                out.unresolved.append(unresolved_word("argument", canonical, value))
                continue
            node = Scalar(value.text, value_loc, value.quoted)  # type: ignore[arg-type]
        out.entries.append(Arg(canonical, name, Pair(name, key_loc, node), m.how, kind, cli=True))  # type: ignore[arg-type]
    return out
