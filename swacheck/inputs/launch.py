"""SGLang launch commands -> :class:`Deployment` s: scripts, Dockerfiles and ``--command``.

Three steps, each in its own section below:

1. **recognise** a launch among shell commands: ``python[3[.N]] -m sglang.launch_server ...``
   or ``sglang serve [MODEL_PATH] ...``, behind ``exec``, ``nohup``, ``time``, ``command``,
   ``env [A=B ...]`` and ``sh -c "..."`` (the string is parsed as a script in turn);
2. **parse** the server's arguments as argparse does, with SGLang's option table
   (``swacheck/sglang/flags.py``): ``--flag value`` and ``--flag=value``, store_true flags take
   no value, list options take values up to the next option; ``--config FILE`` is merged the
   way SGLang's merger does it (the file's arguments first, so the command line wins);
3. **build** the deployment: each argument becomes an :class:`Arg` whose synthetic ``Pair``
   points at the flag's name and value in the script (a flow ``Mapping``, so fixes replace
   values but never delete lines of a shell script); the environment is the command's
   (``export`` s, ``A=B`` prefixes, Dockerfile ``ENV``); the platform is inferred where the
   files say it (a ROCm base image, ROCm variables), else ``--platform``.

What cannot be resolved (an unset variable, ``$(...)``, ``"$@"``) is recorded as
:class:`Unresolved` for rule SWA305 and the argument is left unset; an unresolvable
``model-path`` is an input error.
"""

from __future__ import annotations

import json
import os
import re
from collections import ChainMap
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import limits
from ..loading import FileCache, Mapping, Pair, Scalar, Sequence, SourceFile, read_text
from ..records import InputError, InputProblem, Location, Val
from ..report.escape import one_line
from ..sglang import flags
from ..sglang.version import DEFAULT, SGLangProfile
from .kinds import SHELLS
from .server_config import load_server_args
from .shell import (
    Chars,
    Env,
    ShellSyntaxError,
    Source,
    SpanChain,
    SpanRun,
    Var,
    Walker,
    Word,
    expand_one,
    join_spans,
    lex,
    span_location,
    syntax_problem,
)
from .types import Arg, Deployment, ServerArgs, unread


@dataclass(frozen=True, slots=True)
class Unresolved:
    """Something a launch uses whose value the files do not give (reported by SWA305)."""

    kind: str  # "argument" | "arguments" | "env"
    name: str  # the canonical option ("speculative-draft-model-path") or the variable's name
    shown: str  # as written: "$DRAFT", "$(hostname)", "\"$@\""
    reason: str
    location: Location | None
    variable: str = ""  # the variable it comes from ("DRAFT"), or the text of a substitution


@dataclass(slots=True)
class LaunchDeployment(Deployment):
    """A deployment read from a launch command, with what could not be resolved in it."""

    unresolved: list[Unresolved] = field(default_factory=list)
    command: str = ""  # "python3 -m sglang.launch_server" | "sglang serve"


# --------------------------------------------------------------------------- 1. recognise

PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
# NVIDIA Dynamo's SGLang worker: SGLang's ServerArgs flags plus Dynamo's own (dynamo/sglang/args.py
# adds ServerArgs.add_cli_args to its parser); the older per-role modules took the same flags.
DYNAMO_MODULES = ("dynamo.sglang", "dynamo.sglang.worker", "dynamo.sglang.decode_worker")
WRAPPERS = {"exec", "nohup", "time", "command"}
# Wrappers with options of their own, followed by the command they run.
SCANNED_WRAPPERS = {
    "numactl",
    "taskset",
    "timeout",
    "setsid",
    "stdbuf",
    "srun",
    "nice",
    "ionice",
    "chrt",
    "sudo",
    "nsys",
    "apptainer",
    "singularity",
}
RUNNERS = {
    "uv": ("run",),
    "conda": ("run",),
    "mamba": ("run",),
    "micromamba": ("run",),
    "pixi": ("run",),
    "poetry": ("run",),
    "pipenv": ("run",),
}
_LAUNCH_MODULE = re.compile(r"sglang\.launch_server|dynamo\.sglang(\.worker|\.decode_worker)?")
_MENTIONS_LAUNCH = re.compile(r"sglang\.launch_server|sglang\s+serve|dynamo\.sglang")
_PY_FLAGS_WITH_VALUE = {"-X", "-W"}
_ENV_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


@dataclass(slots=True)
class Launch:
    """A recognised launch command: the server's own arguments and its environment."""

    program: str  # "python3 -m sglang.launch_server" | "sglang serve"
    args: list[Word]
    serve: bool  # `sglang serve`: a leading positional argument is the model path
    env: Env
    location: Location | None  # the program word
    whole: Location | None  # the whole command
    hint: Val | None = None  # the platform the command says (`docker run` of a ROCm image)
    unread: str = ""  # a launch found but not readable: why (a deployment that is not checked)


@dataclass(slots=True)
class LaunchContext:
    """What recognising nested commands (``sh -c``) needs to know."""

    label: str  # file name for messages
    base_dir: str
    fallback: Env = field(default_factory=dict)  # --env: answers what the files leave unknown
    read_file: Callable[[str], Source] | None = None  # for `. FILE`
    opaque_reasons: dict[str, str] = field(default_factory=dict)
    unset_reason: str = ""


def _base(word: Word) -> str:
    return os.path.basename(word.text)


def _program_at(argv: list[Word], start: int) -> int | None:
    """The index of the first word from ``start`` that starts a command swacheck follows."""
    for j in range(start, len(argv)):
        w = argv[j]
        if w.unknown:
            if (
                j + 2 < len(argv)
                and argv[j + 1].text == "-m"
                and _LAUNCH_MODULE.fullmatch(argv[j + 2].text)
            ):
                return j  # "$PY" -m sglang.launch_server
            continue
        b = _base(w)
        if b == "sglang":
            if j + 1 < len(argv) and argv[j + 1].text == "serve":
                return j
            continue  # `uv run --with sglang ...`
        if (
            PYTHON.fullmatch(b)
            or b in ("env", "docker", "podman", "eval")
            or b in SHELLS
            or b in WRAPPERS
            or b in SCANNED_WRAPPERS
            or b in RUNNERS
        ):
            return j
    return None


def launches(argv: list[Word], env: Env, ctx: LaunchContext, depth: int = 0) -> list[Launch]:
    """The SGLang launches one command runs (several when it is ``sh -c`` of a script)."""
    argv = list(argv)
    env = dict(env)
    hint: Val | None = None
    while argv:
        if argv[0].unknown:
            if len(argv) > 2 and argv[1].text == "-m" and _LAUNCH_MODULE.fullmatch(argv[2].text):
                argv = [Word("python3", argv[0].spans, argv[0].whole, [], argv[0].quoted)] + argv[
                    1:
                ]  # "$PY" -m sglang.launch_server
                break
            return []
        head = _base(argv[0])
        if head in WRAPPERS:
            argv = argv[1:]
            while argv and argv[0].text.startswith("-"):  # exec -a NAME, nohup --, time -p
                argv = argv[2:] if argv[0].text == "-a" else argv[1:]
            continue
        if head == "env":
            argv = _strip_env(argv[1:], env, ctx)
            continue
        if head in SCANNED_WRAPPERS or (
            head in RUNNERS and len(argv) > 1 and argv[1].text in RUNNERS[head]
        ):
            # numactl/taskset/timeout/srun ... OPTIONS CMD, uv run / conda run OPTIONS CMD:
            # the command is the first word that starts one (their options never do)
            j = _program_at(argv, 2 if head in RUNNERS else 1)
            if j is None:
                return []
            argv = argv[j:]
            continue
        if head in ("docker", "podman", "nerdctl") and (
            run := 2
            if len(argv) > 1 and argv[1].text == "run"
            else 3
            if len(argv) > 2 and argv[1].text == "container" and argv[2].text == "run"
            else 0
        ):
            argv, env, hint = _docker_run(argv[run:], env, ctx)
            if not argv:
                return []  # no image, or an image without a command: its entrypoint is not in the files
            continue
        if head == "eval" and depth <= 4:
            text = " ".join(w.text for w in argv[1:])
            spans: list = []
            for k, w in enumerate(argv[1:]):
                if k:
                    spans.append(w.whole)
                spans.extend(s if s is not None else w.whole for s in w.spans)
            if any(w.unknown for w in argv[1:]):
                if _MENTIONS_LAUNCH.search(text):
                    return [
                        _unread(
                            argv,
                            env,
                            "launch assembled at runtime; not evaluated (eval of text only known when the script runs)",
                        )
                    ]
                return []
            try:
                commands = lex(Chars(text, spans))
            except ShellSyntaxError:
                return []
            walker = Walker(
                dict(env),
                ctx.label,
                ctx.fallback,
                ctx.base_dir,
                read_file=None,
                opaque_reasons=ctx.opaque_reasons,
                unset_reason=ctx.unset_reason,
            )
            return [
                launch
                for cmd in walker.walk(commands)
                for launch in launches(cmd.argv, cmd.env, ctx, depth + 1)
            ]
        break
    if not argv:
        return []
    found = _launches(argv, env, ctx, depth)
    if hint is not None:
        for launch in found:
            launch.hint = launch.hint or hint
    return found


def _unread(argv: list[Word], env: Env, reason: str) -> Launch:
    return Launch("", [], False, env, argv[0].location, _command_location(argv), unread=reason)


# `docker run` options that take no value; every other option takes one (`-e K=V`, `-v A:B`, ...)
_DOCKER_FLAGS = {
    "-d",
    "--detach",
    "-i",
    "--interactive",
    "-t",
    "--tty",
    "-it",
    "-ti",
    "-itd",
    "-dit",
    "-id",
    "-td",
    "--rm",
    "--privileged",
    "--init",
    "-P",
    "--publish-all",
    "--read-only",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--sig-proxy",
    "-q",
    "--quiet",
}


def _docker_run(
    argv: list[Word], env: Env, ctx: LaunchContext
) -> tuple[list[Word], Env, Val | None]:
    """``docker run [OPTIONS] IMAGE [COMMAND ...]`` (after ``run``): the command, the container's
    environment and the platform the image name (or ``--device /dev/kfd``) says. The container's
    environment is only its ``-e``/``--env`` variables (``-e NAME`` copies NAME from the
    environment docker runs in: the script's exported variables); ``--entrypoint`` comes before
    the command."""
    cenv: Env = dict(ctx.fallback)
    entrypoint: list[Word] = []
    hint: Val | None = None
    i = 0
    while i < len(argv):
        word = argv[i]
        t = word.text
        if word.unknown or not t.startswith("-") or t == "-":
            break
        if t == "--":
            i += 1
            break
        name, has_value = (
            (t.split("=", 1)[0], True) if t.startswith("--") and "=" in t else (t, False)
        )
        value: Word | None = None
        if has_value:
            value = word.sub(len(name) + 1)
        elif t.startswith("-e") and len(t) > 2 and not t.startswith("--"):
            name, value = "-e", word.sub(2)  # -eKEY=VALUE
        elif name not in _DOCKER_FLAGS:
            if i + 1 >= len(argv):
                return [], cenv, None
            i += 1
            value = argv[i]
        i += 1
        if value is None:
            continue
        if name in ("-e", "--env"):
            m = _ENV_ASSIGN.match(value.text)
            if m is None:  # `-e NAME`: copied from the environment docker runs in
                if value.text and not value.unknown:
                    known = env.get(value.text)
                    cenv[value.text] = (
                        known
                        if known is not None and known.exported
                        else Var(
                            None,
                            True,
                            f"docker run -e {value.text} in {ctx.label}",
                            "set only at run time: copied from the environment docker runs in",
                            value.location,
                        )
                    )
                continue
            key = m.group(1)
            cenv[key] = _assigned(
                key, value.sub(m.end()), ctx, f"docker run -e {key}=... in {ctx.label}"
            )
        elif name == "--entrypoint":
            entrypoint = [value]
        elif name == "--device" and "/dev/kfd" in value.text:
            hint = Val("rocm", "docker run --device /dev/kfd", value.location)
    if i >= len(argv):
        return [], cenv, None
    image = argv[i]
    if hint is None and not image.unknown and (p := platform_of_image(image.text)) is not None:
        hint = Val(p, f"docker run image {image.text}", image.location)
    return entrypoint + argv[i + 1 :], cenv, hint


def _launches(argv: list[Word], env: Env, ctx: LaunchContext, depth: int) -> list[Launch]:
    head = _base(argv[0])
    if head in SHELLS:
        return _shell_c(argv, env, ctx, depth)
    whole = _command_location(argv)
    if PYTHON.fullmatch(head):
        i = 1
        while i < len(argv) and argv[i].text.startswith("-") and not argv[i].text.startswith("-m"):
            i += 2 if argv[i].text in _PY_FLAGS_WITH_VALUE else 1
        if i < len(argv) and argv[i].text.startswith("-m"):
            module, rest = (
                (argv[i].text[2:], i + 1)
                if argv[i].text != "-m"
                else ((argv[i + 1].text if i + 1 < len(argv) else ""), i + 2)
            )
            if module == "sglang.launch_server" or module in DYNAMO_MODULES:
                limits.current().deployment(argv[0].location)
                return [
                    Launch(f"{head} -m {module}", argv[rest:], False, env, argv[0].location, whole)
                ]
        return []
    if head == "sglang" and len(argv) > 1 and argv[1].text == "serve":
        limits.current().deployment(argv[0].location)
        return [Launch("sglang serve", argv[2:], True, env, argv[0].location, whole)]
    return []


def _strip_env(argv: list[Word], env: Env, ctx: LaunchContext) -> list[Word]:
    """``env [-i] [-u NAME] [A=B ...] CMD``: apply it to ``env`` and return CMD."""
    while argv:
        t = argv[0].text
        if t in ("-i", "-", "--ignore-environment"):
            env.clear()
            argv = argv[1:]
        elif t in ("-u", "--unset") and len(argv) > 1:
            env.pop(argv[1].text, None)
            argv = argv[2:]
        elif t.startswith("--unset=") or (t.startswith("-u") and len(t) > 2):
            env.pop(t.split("=", 1)[1] if t.startswith("--") else t[2:], None)
            argv = argv[1:]
        elif t == "--":
            return argv[1:]
        elif t.startswith("-"):
            argv = argv[2:] if t in ("-C", "--chdir", "-S", "--split-string") else argv[1:]
        elif (m := _ENV_ASSIGN.match(t)) is not None:
            name = m.group(1)
            env[name] = _assigned(name, argv[0].sub(m.end()), ctx, f"env {name}=... in {ctx.label}")
            argv = argv[1:]
        else:
            return argv
    return argv


def _shell_c(argv: list[Word], env: Env, ctx: LaunchContext, depth: int) -> list[Launch]:
    """``sh [-opts] -c SCRIPT``: the launches inside SCRIPT, run with the exported environment."""
    if depth > 4:
        return []
    i = 1
    while i < len(argv):
        t = argv[i].text
        if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
            if i + 1 < len(argv) and argv[i + 1].text == "--":  # `bash -lc -- SCRIPT`
                i += 1
            if i + 1 >= len(argv):
                return []
            script = argv[i + 1]
            try:
                commands = lex(Chars.of_word(script))
            except ShellSyntaxError as err:
                raise syntax_problem(err, ctx.label) from None
            walker = Walker(
                {k: v for k, v in env.items() if v.exported},
                ctx.label,
                ctx.fallback,
                ctx.base_dir,
                read_file=None,
                opaque_reasons=ctx.opaque_reasons,
                unset_reason=ctx.unset_reason,
            )
            return [
                launch
                for cmd in walker.walk(commands)
                for launch in launches(cmd.argv, cmd.env, ctx, depth + 1)
            ]
        if t in ("-o", "+o"):
            i += 2
        elif t.startswith(("-", "+")):
            i += 1
        else:
            return []  # `bash script.sh`: a script inside the image
    return []


def _reasons(word: Word) -> str:
    return "; ".join(f"{u.shown}: {u.reason}" for u in word.unknown)


def _assigned(name: str, value: Word, ctx: LaunchContext, origin: str) -> Var:
    """The variable a ``NAME=VALUE`` word of a wrapper (``env``, ``docker run -e``) sets: an
    unknown value falls back to swacheck's ``--env`` when it names the variable."""
    if value.unknown and name in ctx.fallback:
        return ctx.fallback[name]
    if value.unknown:
        return Var(None, True, origin, _reasons(value), value.unknown[0].location)
    return Var(value, True, origin)


def _command_location(argv: list[Word]) -> Location | None:
    first, last = argv[0].whole, argv[-1].whole
    joined = join_spans([first, last]) if first and last else None
    return span_location(joined) if joined else argv[0].location


# --------------------------------------------------------------------------- 2. parse arguments

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


def _unresolved(kind: str, name: str, word: Word) -> Unresolved:
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


_SINGLE_DASH = re.compile(r"-([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(=.*)?")


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
                out.unresolved.append(_unresolved("arguments", "", w))
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
            out.unresolved.append(_unresolved("arguments", "", w))
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
                out.unresolved.append(_unresolved("argument", canonical, bad[0]))
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
                out.unresolved.append(_unresolved("argument", canonical, value))
                continue
            node = Scalar(value.text, value_loc, value.quoted)  # type: ignore[arg-type]
        out.entries.append(Arg(canonical, name, Pair(name, key_loc, node), m.how, kind, cli=True))  # type: ignore[arg-type]
    return out


# --------------------------------------------------------------------------- 3. build


_PLATFORM_NAMES = {"rocm": "ROCm", "npu": "Ascend NPU"}
ROCM_ENV = (
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "SGLANG_USE_AITER",
    "HSA_NO_SCRATCH_RECLAIM",
)
NPU_ENV = ("ASCEND_RT_VISIBLE_DEVICES",)


def platform_of_image(image: str) -> str | None:
    """The platform an image name says: ``rocm/...``, ``lmsysorg/sglang:v0.5.23-rocm700-mi35x``."""
    low = image.lower()
    if "rocm" in low:
        return "rocm"
    if "ascend" in low or re.search(r"(^|[-_:/.])(npu|cann)", low):
        return "npu"
    if "cuda" in low or "nvidia" in low:
        return "cuda"
    return None


def infer_platform(given: Val, env: Env, hint: Val | None) -> Val:
    """What the files say (a GPU resource, a base image; then ROCm/NPU variables), else ``--platform``."""
    if hint is not None:
        return hint
    for names, platform in ((ROCM_ENV, "rocm"), (NPU_ENV, "npu")):
        for name in names:
            var = env.get(name)
            if var is not None and var.origin != "--env":
                return Val(
                    platform, f"{name} is set, a {_PLATFORM_NAMES[platform]} variable", var.location
                )
    return given


def _config_args(word: Word, base_dir: str, files: FileCache) -> tuple[ServerArgs, list]:
    """Load ``--config FILE``: relative to the launching file's folder first, then the working directory."""
    rel = word.text
    where = word.loc()
    if os.path.splitext(rel)[1].lower() not in (".yaml", ".yml"):
        raise InputProblem(
            f"--config {rel}: ValueError: Config file must be YAML format, got: "
            f"{os.path.splitext(rel)[1] or 'no extension'}",
            where,
        )
    candidates = (
        [rel]
        if os.path.isabs(rel)
        else [os.path.normpath(os.path.join(base_dir, rel)), os.path.normpath(rel)]
    )
    readable = [c for c in dict.fromkeys(candidates) if files.is_readable_reference(c)]
    if not readable:  # outside the root: refused before looking, so nothing says whether it exists
        files.check_reference(candidates[0], where, "--config")
    path = next((c for c in readable if os.path.isfile(c)), None)
    if path is None:
        raise InputProblem(f"--config {rel}: no such file; looked in: {', '.join(readable)}", where)
    try:
        source = files.load(path)
    except InputProblem as problem:
        if problem.location is not None:
            raise
        raise InputProblem(f"--config {rel}: {problem.message}", where) from None
    if source.raw_documents > 1:
        raise InputProblem(
            f"--config {rel} must hold one YAML document (SGLang reads it with "
            f"yaml.safe_load), it has {source.raw_documents}",
            where,
        )
    if not source.documents:
        return ServerArgs({}, None, path, base_dir), []
    doc = source.documents[0]
    if not isinstance(doc.root, Mapping):
        raise InputProblem(
            "ValueError: Config file must contain a dictionary at root level", doc.root.loc
        )
    return load_server_args(doc.root, path), list(doc.duplicates)


def _model_path_problem(u: Unresolved, what: str = "") -> InputProblem:
    """The deployment cannot be resolved without its model: name the variable and how to give it."""
    var = u.variable
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
        hint = (
            f"give it with --env {var}=VALUE and point swacheck at a local copy of the "
            f"checkpoint with --model-config VALUE=PATH"
        )
    else:
        hint = (
            "swacheck does not run commands: write the path, or check a local copy "
            "with --env/--model-config VALUE=PATH"
        )
    return InputProblem(
        f"model-path cannot be resolved: {what or u.shown + ': ' + u.reason}; {hint}", u.location
    )


def build(
    launch: Launch,
    name: str,
    file: str,
    base_dir: str,
    files: FileCache,
    platform: Val,
    default_env: dict[str, Val],
    hint: Val | None = None,
    location: Location | None = None,
    duplicates: list | None = None,
    profile: SGLangProfile = DEFAULT,
) -> LaunchDeployment:
    """One launch -> a deployment. Raises :class:`InputProblem` when it cannot be resolved."""
    if launch.unread:
        return unread(name, file, launch.whole or location, platform, default_env, launch.unread)  # type: ignore[return-value]
    hint = hint or launch.hint
    parsed = parse_args(launch, profile)
    if launch.program.endswith(DYNAMO_MODULES):  # Dynamo's own flags are not SGLang's to refuse
        parsed.entries = [a for a in parsed.entries if a.how != "unknown"]
    unresolved = list(parsed.unresolved)
    cli_names = {a.name for a in parsed.entries}
    dups = list(duplicates or [])
    file_entries: list[Arg] = []
    if parsed.config is not None:
        word, _ = parsed.config
        if word.unknown:
            u = _unresolved("argument", "config", word)
            if "model-path" not in cli_names:
                raise _model_path_problem(
                    u,
                    f"it would come from the --config file {word.text}, and {u.shown}: {u.reason}",
                )
            unresolved.append(u)
        else:
            server, config_dups = _config_args(word, base_dir, files)
            dups.extend(config_dups)
            # argparse keeps the last value: the command line wins over the file (documented by
            # SGLang), so an overridden key is dropped -- unless SGLang refuses it anyway (SWA303).
            file_entries = [
                a
                for a in server.entries
                if not (
                    a.name in cli_names
                    and a.how in ("exact", "prefix")
                    and not a.kind.startswith("refused")
                )
            ]
    entries = file_entries + parsed.entries
    args = {a.name: a for a in entries}
    notes: list = []
    for w in launch.args:  # `-tp-size 8`: argparse reads a single-dash word as short options
        m = _SINGLE_DASH.fullmatch(w.text)
        if (
            m
            and not w.unknown
            and len(m.group(1)) > 1
            and flags.match(m.group(1), profile).option is not None
        ):
            notes.append(
                (
                    "pitfall:single-dash",
                    f"{w.text.split('=')[0]} has a single dash: SGLang's options are spelt "
                    f"with two (--{m.group(1)}); argparse exits with 'unrecognized arguments'",
                    w.loc(0, len(m.group(1)) + 1),
                )
            )
    if parsed.escaped_blank is not None:
        notes.append(
            (
                "pitfall:trailing-space",
                "'\\' is followed by trailing spaces: argparse gets ' ' as an argument "
                "and SGLang exits (unrecognized arguments), and the command ends at this "
                "line",
                parsed.escaped_blank.location,
            )
        )
    for u in unresolved:
        if u.kind == "argument" and u.name == "model-path":
            raise _model_path_problem(u)
    if "model-path" not in args:
        extra = next((u for u in unresolved if u.kind == "arguments"), None)
        if extra is None:
            raise InputProblem(
                f"{launch.program} without --model-path: SGLang needs the model", launch.location
            )
        raise _model_path_problem(
            extra,
            f"no --model-path is written, so it would come from {extra.shown}: {extra.reason}",
        )
    mapping = Mapping(
        launch.whole or launch.location or Location(file, 1, 1, 1, 1),
        {a.written: a.pair for a in parsed.entries},
        flow=True,
    )
    server = ServerArgs(args, mapping, file, base_dir, entries)

    env = dict(default_env)
    for var_name, var in launch.env.items():
        if var.value is not None:
            env[var_name] = Val(var.value.text, var.origin or var_name, var.location)
        elif var_name not in default_env:
            unresolved.append(
                Unresolved(
                    "env",
                    var_name,
                    var_name,
                    var.reason or "only known at run time",
                    var.where,
                    var_name,
                )
            )
    return LaunchDeployment(
        name=name,
        file=file,
        location=location or launch.whole,
        platform=infer_platform(platform, launch.env, hint or launch.hint),
        env=env,
        server=server,
        duplicates=dups,
        unresolved=unresolved,
        command=launch.program,
        notes=notes,
    )


# --------------------------------------------------------------------------- inputs: scripts, Dockerfiles, --command


@dataclass(slots=True)
class Found:
    deployments: list[Deployment] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.deployments or self.errors)


def load_text(
    files: FileCache, path: str, text: str | None = None, reference: bool = False
) -> Source:
    """A script's text, kept in the run's file cache so inline suppressions in it are found.
    ``reference``: a file another input names (a sourced script), read only inside the run's root."""
    if reference:
        files.check_reference(path, None, "sourced file")
    if text is None:
        text = files.provided(path)  # --stdin-filename: the text given, not the file on disk
    if text is None:
        text = read_text(path, files.max_size)
    return Source(path, files.remember(path, SourceFile(path, text, [], "text")).text)


def names_for(stem: str, count: int) -> list[str]:
    """Deployment names for ``count`` launches of one place: ``stem``, ``stem[1]``, ..."""
    return [stem if i == 0 else f"{stem}[{i}]" for i in range(count)]


def seed_env(env: dict[str, Val]) -> Env:
    """swacheck's --env as exported variables a script starts with."""
    return {k: Var(Word.plain(str(v.value)), True, "--env") for k, v in env.items()}


_names, _seed = names_for, seed_env  # the names other modules once imported


def _collect(
    found: Found,
    items: list[Launch],
    stem: str,
    file: str,
    base_dir: str,
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
    hint: Val | None = None,
) -> None:
    for launch, name in zip(items, _names(stem, len(items))):
        try:
            found.deployments.append(
                build(launch, name, file, base_dir, files, platform, env, hint)
            )
        except InputProblem as problem:
            found.errors.append(problem.to_error())


def script_launches(
    src: Source, env: Env, ctx: LaunchContext, chars: Chars | None = None
) -> list[Launch]:
    """Every launch of a shell script, in order."""
    try:
        commands = lex(chars or Chars.of_source(src))
    except ShellSyntaxError as err:
        raise syntax_problem(err, src.path) from None
    sourcing = (
        (os.path.realpath(src.path),) if os.path.isfile(src.path) else ()
    )  # a script that sources itself
    walker = Walker(
        env,
        os.path.basename(src.path),
        ctx.fallback,
        ctx.base_dir,
        read_file=ctx.read_file,
        opaque_reasons=ctx.opaque_reasons,
        unset_reason=ctx.unset_reason,
        sourcing=sourcing,
    )  # type: ignore[arg-type]
    out: list[Launch] = []
    dynamic = None  # the first command run through a variable: where a launch may be assembled
    for cmd in walker.walk(commands):
        found = launches(cmd.argv, cmd.env, ctx)
        if found:
            out.extend(found)
        elif cmd.argv and (cmd.argv[0].unknown or _base(cmd.argv[0]) == "eval"):
            if _MENTIONS_LAUNCH.search(" ".join(w.text for w in cmd.argv)):
                out.append(_unread(cmd.argv, cmd.env, "launch assembled at runtime; not evaluated"))
            elif dynamic is None:
                dynamic = cmd
    text = chars.text if chars is not None else src.text
    if not out and dynamic is not None and _MENTIONS_LAUNCH.search(text):
        shown = (
            dynamic.argv[0].unknown[0].shown if dynamic.argv[0].unknown else dynamic.argv[0].text
        )
        out.append(
            _unread(
                dynamic.argv,
                dynamic.env,
                f"launch assembled at runtime; not evaluated ({shown} is only known when the script runs)",
            )
        )
    return out


def read_script(
    path: str,
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
    text: str | None = None,
    label: str | None = None,
) -> Found:
    """A shell script (or ``--command`` text when ``label`` is given)."""
    found = Found()
    try:
        src = Source(label, text) if label is not None else load_text(files, path, text)  # type: ignore[arg-type]
        base_dir = "." if label is not None else (os.path.dirname(path) or ".")
        ctx = LaunchContext(
            src.path, base_dir, _seed(env), read_file=lambda p: load_text(files, p, reference=True)
        )
        items = script_launches(src, _seed(env), ctx)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    stem = label if label is not None else os.path.splitext(os.path.basename(path))[0]
    _collect(found, items, stem, src.path, base_dir, files, platform, env)
    from .pitfalls import attach

    attach(found.deployments, Chars.of_source(src))
    return found


# -- Dockerfiles


@dataclass(slots=True)
class _Instruction:
    keyword: str
    args: Chars  # the text after the keyword, continuations joined
    line: int


def _instructions(src: Source) -> list[_Instruction]:
    """Logical Dockerfile instructions: comment lines dropped, ``\\`` continuations joined."""
    lines = src.text.split("\n")
    out: list[_Instruction] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        start = src.starts[i] + (len(line) - len(line.lstrip()))
        if len(out) >= limits.MAX_INSTRUCTIONS:
            raise InputProblem(
                f"more than {limits.MAX_INSTRUCTIONS} instructions in "
                f"{one_line(os.path.basename(src.path))} (the limit per Dockerfile)",
                Location(src.path, i + 1, 1, i + 1, 1),
            )
        m = re.match(r"([A-Za-z]+)\s*", src.text[start : src.starts[i] + len(line)])
        keyword = m.group(1).upper() if m else ""
        pieces: list[str] = []
        runs: list[SpanRun] = []  # a run of the file per line: never a tuple per character
        pos = start + (m.end() if m else 0)
        lineno = i
        while True:
            end = src.starts[i] + len(lines[i].rstrip("\r"))
            seg = src.text[pos:end]
            if seg.rstrip().endswith("\\"):
                cut = len(seg.rstrip()) - 1
                pieces.append(seg[:cut])
                runs.append(SpanRun(src, pos, pos + cut))
                i += 1
                while i < len(lines) and (not lines[i].strip() or lines[i].strip().startswith("#")):
                    i += 1
                if i >= len(lines):
                    break
                pos = src.starts[i]
                continue
            pieces.append(seg)
            runs.append(SpanRun(src, pos, end))
            i += 1
            break
        spans = runs[0] if len(runs) == 1 else SpanChain(runs)  # type: ignore[arg-type]
        out.append(_Instruction(keyword, Chars("".join(pieces), spans), lineno + 1))  # type: ignore[arg-type]
    return out


def _json_array(chars: Chars) -> list[Word] | None:
    """The exec form ``["a", "b"]`` with positions; None when it is not a JSON array of strings."""
    t = chars.text.strip()
    if not t.startswith("["):
        return None
    offset = len(chars.text) - len(chars.text.lstrip())
    try:
        values = json.loads(t)
    except json.JSONDecodeError:
        return None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    words: list[Word] = []
    i = offset + 1
    for value in values:
        a = chars.text.index('"', i)
        _, b = json.decoder.scanstring(chars.text, a + 1)  # type: ignore[attr-defined]
        inner = chars.text[a + 1 : b - 1]
        whole = join_spans(chars.spans[a:b])
        spans = chars.spans[a + 1 : b - 1] if inner == value else [whole] * len(value)
        words.append(Word(value, spans, whole, quoted=True))  # a slice: already its own sequence
        i = b
    return words


@dataclass(slots=True)
class _Stage:
    image: Word | None
    env: Env = field(default_factory=dict)  # ENV: set at build time and at run time
    args: Env = field(default_factory=dict)  # ARG: build time only
    cmd: tuple[str, object] | None = None  # ("exec", [Word]) | ("shell", Chars)
    entrypoint: tuple[str, object] | None = None
    image_hint: Val | None = None


def _assignments(
    ins: _Instruction, build_env: Env, label: str, allow_bare: bool
) -> list[tuple[str, Var | None, Location | None]]:
    """``ENV A=1 B="2 3"`` / ``ENV A 1`` / ``ARG A[=1]``: (name, value or None for no default, where)."""
    try:
        commands = lex(ins.args)
    except ShellSyntaxError as err:
        raise syntax_problem(err, label) from None
    raws = [w for c in commands for w in c.words]
    out: list[tuple[str, Var | None, Location | None]] = []
    if raws and raws[0].assignment() is None and ins.keyword == "ENV":
        name = raws[0].literal() or ""
        words = [expand_one(r, build_env) for r in raws[1:]]
        text = " ".join(w.text for w in words)
        unknown = [u for w in words for u in w.unknown]
        spans = [
            s
            for k, w in enumerate(words)
            for s in (w.spans + ([w.spans[-1] if w.spans else None] if k < len(words) - 1 else []))
        ]
        value = Word(
            text,
            spans[: len(text)] if len(spans) >= len(text) else [None] * len(text),
            words[0].whole if words else None,
            unknown,
        )
        out.append(
            (
                name,
                Var(
                    value if not unknown else None,
                    True,
                    f"ENV {name} in {label}",
                    _reasons(value),
                    unknown[0].location if unknown else None,
                ),
                span_location(raws[0].span),
            )
        )
        return out
    for raw in raws:
        a = raw.assignment()
        if a is None:
            if allow_bare and (lit := raw.literal()):
                out.append((lit, None, span_location(raw.span)))
            continue
        name, value_raw, name_span = a
        value = expand_one(value_raw, build_env)
        origin = f"{ins.keyword} {name} in {label}"
        var = (
            Var(value, True, origin)
            if not value.unknown
            else Var(None, True, origin, _reasons(value), value.unknown[0].location)
        )
        out.append((name, var, span_location(name_span)))
    return out


def dockerfile_launches(
    src: Source, fallback: Env, base_dir: str
) -> tuple[list[Launch], Val | None]:
    """The launches of a Dockerfile's final stage, and the platform its base image says."""
    label = os.path.basename(src.path)
    global_args: Env = {}
    stages: dict[str, _Stage] = {}
    stage: _Stage | None = None
    stage_count = 0
    for ins in _instructions(src):
        kw = ins.keyword
        if kw == "FROM":
            try:
                raws = [w for c in lex(ins.args) for w in c.words]
            except ShellSyntaxError as err:
                raise syntax_problem(err, src.path) from None
            raws = [r for r in raws if not (r.literal() or "").startswith("--")]
            image = (
                expand_one(raws[0], global_args, "not declared with ARG before FROM")
                if raws
                else None
            )
            parent = (
                stages.get(image.text.lower()) if image is not None and not image.unknown else None
            )
            stage_count += 1
            if stage_count > limits.MAX_STAGES:
                raise InputProblem(
                    f"more than {limits.MAX_STAGES} FROM stages in {one_line(label)} (the limit per Dockerfile)",
                    Location(src.path, ins.line, 1, ins.line, 1),
                )
            stage = _Stage(image)
            if parent is not None:  # the parent's ENV under the stage's own (no copy per stage)
                stage.env, stage.cmd, stage.entrypoint, stage.image_hint = (
                    ChainMap({}, *parent.env.maps)
                    if isinstance(parent.env, ChainMap)
                    else ChainMap({}, parent.env),
                    parent.cmd,
                    parent.entrypoint,
                    parent.image_hint,
                )  # type: ignore[assignment]
            elif (
                image is not None
                and not image.unknown
                and (p := platform_of_image(image.text)) is not None
            ):
                stage.image_hint = Val(p, f"base image {image.text}", image.loc())
            if len(raws) >= 3 and (raws[1].literal() or "").lower() == "as":
                stages[(raws[2].literal() or "").lower()] = stage
            continue
        if kw == "ARG":
            target = stage.args if stage is not None else global_args
            build_env = ChainMap(
                {}, *([stage.env, stage.args] if stage else []), global_args
            )  # no copy per ARG line
            for name, var, _ in _assignments(ins, build_env, label, allow_bare=True):
                if (
                    var is None
                ):  # `ARG X` without a default: the global default, else given at build time
                    var = global_args.get(name) or Var(
                        None,
                        False,
                        f"ARG {name} in {label}",
                        f"ARG {name} has no default: its value is given at build time (--build-arg)",
                    )
                target[name] = Var(var.value, False, var.origin, var.reason)
            continue
        if stage is None:
            continue
        if kw == "ENV":
            build_env = ChainMap({}, stage.env, stage.args)  # no copy per ENV line
            for name, var, _ in _assignments(ins, build_env, label, allow_bare=False):
                if var is not None:
                    stage.env[name] = var
        elif kw in ("CMD", "ENTRYPOINT"):
            words = _json_array(ins.args)
            form: tuple[str, object] = ("exec", words) if words is not None else ("shell", ins.args)
            if kw == "CMD":
                stage.cmd = form
            else:
                stage.entrypoint = form
                stage.cmd = None  # ENTRYPOINT resets a CMD inherited from the base
    if stage is None:
        return [], None
    runtime = {**fallback, **stage.env}
    reason = (
        "not set by an ENV line of the Dockerfile (the base image or `docker run -e` may set it)"
    )
    ctx = LaunchContext(src.path, base_dir, fallback, unset_reason=reason)
    entry, cmd = stage.entrypoint, stage.cmd
    if entry is not None and entry[0] == "shell":
        return script_launches(src, runtime, ctx, entry[1]), stage.image_hint  # type: ignore[arg-type]
    if entry is None and cmd is not None and cmd[0] == "shell":
        return script_launches(src, runtime, ctx, cmd[1]), stage.image_hint  # type: ignore[arg-type]
    argv: list[Word] = list(entry[1]) if entry is not None else []  # type: ignore[arg-type]
    if cmd is not None:
        if cmd[0] == "exec":
            argv += cmd[1]  # type: ignore[operator]
        else:
            chars: Chars = cmd[1]  # type: ignore[assignment]
            argv += [
                Word.plain("/bin/sh"),
                Word.plain("-c"),
                Word(
                    chars.text,
                    chars.spans,
                    join_spans([chars.spans[0], chars.spans[-1]]) if chars.spans else None,
                ),
            ]
    return (launches(argv, runtime, ctx) if argv else []), stage.image_hint


def read_dockerfile(path: str, files: FileCache, platform: Val, env: dict[str, Val]) -> Found:
    found = Found()
    base_dir = os.path.dirname(path) or "."
    try:
        src = load_text(files, path)
        items, hint = dockerfile_launches(src, _seed(env), base_dir)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    _collect(found, items, os.path.basename(path), path, base_dir, files, platform, env, hint)
    return found


def read_commands(
    commands: list[str], files: FileCache, platform: Val, env: dict[str, Val]
) -> tuple[list[Deployment], list[InputError]]:
    """``--command "..."``: shown as ``<command>``, or ``--command[N]`` (1-based) when there are several."""
    deployments: list[Deployment] = []
    errors: list[InputError] = []
    for n, text in enumerate(commands, 1):
        label = "<command>" if len(commands) == 1 else f"--command[{n}]"
        with limits.budget(label):
            found = read_script(label, files, platform, env, text=text, label=label)
        if not found.any:
            errors.append(
                InputError(
                    label,
                    None,
                    None,
                    f"no SGLang launch command found in {label} (expected python -m "
                    f"sglang.launch_server ... or sglang serve ...)",
                )
            )
        deployments.extend(found.deployments)
        errors.extend(found.errors)
    return deployments, errors


# ----------------------------------------------------- words from YAML scalars (Kubernetes, Compose)


def yaml_text(node: Scalar) -> str:
    v = node.value
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def yaml_word(node: Scalar, src: Source) -> Word:
    """A YAML scalar as a word whose characters point into the file where that can be worked out
    (plain, quoted without escapes, block scalars); otherwise every character points at the scalar."""
    text = yaml_text(node)
    loc = node.loc
    start, end = src.offset(loc.line, loc.column), src.offset(loc.end_line, loc.end_column)
    whole = (src, start, max(start, end))
    spans = _align(text, src, start)
    return Word(
        text, spans if spans is not None else [whole] * len(text), whole, quoted=node.quoted
    )  # type: ignore[arg-type]


def _align(text: str, src: Source, start: int) -> list | SpanRun | None:
    s = src.text
    head = s[start : start + 1]
    j = start + 1 if head in ("'", '"') else start
    if (
        head not in ("|", ">")
        and "\n" not in text
        and s.startswith(text, j)
        and not (head == "'" and "'" in text)
        and not (head == '"' and "\\" in text)
    ):
        return SpanRun(src, j, j + len(text))  # written as it reads, on one line: a run of the file
    indent: int | None = None
    if head and head in "|>":
        j = s.find("\n", start)
        if j < 0:
            return None
        j += 1
        k = j
        while k < len(s) and s[k] in "\r\n":
            k += 1
        indent = len(s[k:]) - len(s[k:].lstrip(" "))
        j += min(indent, len(s[j:]) - len(s[j:].lstrip(" ")))
    elif head in ("'", '"'):
        j = start + 1
    else:
        j = start
    out: list = []
    i = 0
    while i < len(text):
        if j >= len(s):
            return None
        c, d = text[i], s[j]
        if d == "\r":
            j += 1
            continue
        if d == "\n":
            if c in " \n":
                out.append((src, j, j + 1))
                i += 1
            j += 1
            k = 0
            while j < len(s) and s[j] in " \t" and (indent is None or k < indent):
                j += 1
                k += 1
            continue
        if c != d:
            return None
        if head == "'" and d == "'":  # '' inside a single-quoted scalar
            if s[j + 1 : j + 2] != "'":
                return None
            out.append((src, j, j + 2))
            i += 1
            j += 2
            continue
        if head == '"' and d == "\\":
            return None
        out.append((src, j, j + 1))
        i += 1
        j += 1
    return out
