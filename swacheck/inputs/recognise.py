"""Step 1 of reading a launch: recognise SGLang launches among shell commands.

``python[3[.N]] -m sglang.launch_server ...``, ``sglang serve [MODEL_PATH] ...`` and NVIDIA
Dynamo's SGLang worker, behind ``exec``, ``nohup``, ``time``, ``command``, ``env [A=B ...]``,
wrappers with options of their own (``numactl``, ``srun``, ``timeout`` ...), runners
(``uv run``, ``conda run`` ...), ``docker run IMAGE CMD`` (the container's ``-e`` environment
and the platform its image says), ``eval "..."`` and ``sh -c "..."`` (the string is parsed as a
script in turn). A launch only known when the script runs (``$CMD``, ``eval "$X"``) is kept as
one that cannot be read. The server's arguments are parsed by ``argv.py``; ``launch.py`` builds
the deployment.
"""

from __future__ import annotations

import os
import re

from .. import limits
from ..model.records import Location, Val
from ..model.recordtype import record
from .kinds import SHELLS
from .runners import (
    _ENV_ASSIGN,
    LaunchContext,
    _apptainer,
    _assigned,
    _base,
    _docker_run,
)
from .shell import (
    Chars,
    Env,
    ShellSyntaxError,
    Source,
    Walker,
    Word,
    join_spans,
    lex,
    span_location,
    syntax_problem,
)
from .shell.functions import reaches
from .shell.walker import MAX_CALLS

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


@record
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
    when: str = ""  # one of several ways its line can run: the conditions it was read for
    assumed: tuple[str, ...] = ()  # the undecided conditions the walk took to reach it
    limit: bool = False  # unread because a bound stopped reading (an error, not a note)


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


def launches(
    argv: list[Word], env: Env, ctx: LaunchContext, depth: int = 0, stdin: Word | None = None
) -> list[Launch]:
    """The SGLang launches one command runs (several when it is ``sh -c`` of a script, or a
    shell reading a here-string, ``bash -s <<< "..."``)."""
    argv = list(argv)
    env = dict(env)
    hint: Val | None = None
    while argv:
        if argv[0].unknown:
            if not _runs_launch_module(argv):
                return []
            argv = [Word("python3", argv[0].spans, argv[0].whole, [], argv[0].quoted)] + argv[
                1:
            ]  # "$PY" -m sglang.launch_server
            break
        head = _base(argv[0])
        if head == "eval":
            if depth > MAX_NESTING:
                return _too_deep(argv, env, "eval")
            return _eval(argv, env, ctx, depth)
        if run := _docker_run_at(head, argv):
            argv, env, hint = _docker_run(argv[run:], env, ctx)
            if not argv:
                return []  # no image, or an image without a command: its entrypoint is not in the files
            continue
        if head in ("apptainer", "singularity"):
            argv, hint = _apptainer(argv, env, ctx)
            if not argv:
                return []
            continue
        if head == "ssh" and depth <= 4:
            return _ssh(argv, ctx, depth, stdin)
        unwrapped = _unwrap(head, argv, env, ctx)
        if unwrapped is None:
            break
        argv = unwrapped
    if not argv:
        return []
    found = _launches(argv, env, ctx, depth, stdin)
    if hint is not None:
        for launch in found:
            launch.hint = launch.hint or hint
    return found


def _runs_launch_module(argv: list[Word]) -> bool:
    """``"$PY" -m sglang.launch_server``: a program only known at run time, running a launch."""
    return len(argv) > 2 and argv[1].text == "-m" and bool(_LAUNCH_MODULE.fullmatch(argv[2].text))


def _docker_run_at(head: str, argv: list[Word]) -> int:
    """Where the arguments of ``docker run`` / ``docker container run`` start; 0 for another command."""
    if head not in ("docker", "podman", "nerdctl"):
        return 0
    if len(argv) > 1 and argv[1].text == "run":
        return 2
    if len(argv) > 2 and argv[1].text == "container" and argv[2].text == "run":
        return 3
    return 0


def _unwrap(head: str, argv: list[Word], env: Env, ctx: LaunchContext) -> list[Word] | None:
    """The command a wrapper runs (``env`` applied to ``env``); None when ``head`` is no wrapper."""
    if head in WRAPPERS:
        argv = argv[1:]
        while argv and argv[0].text.startswith("-"):  # exec -a NAME, nohup --, time -p
            argv = argv[2:] if argv[0].text == "-a" else argv[1:]
        return argv
    if head == "env":
        return _strip_env(argv[1:], env, ctx)
    if head in SCANNED_WRAPPERS or (
        head in RUNNERS and len(argv) > 1 and argv[1].text in RUNNERS[head]
    ):
        # numactl/taskset/timeout/srun ... OPTIONS CMD, uv run / conda run OPTIONS CMD:
        # the command is the first word that starts one (their options never do)
        j = _program_at(argv, 2 if head in RUNNERS else 1)
        return [] if j is None else argv[j:]
    return None


def _eval(argv: list[Word], env: Env, ctx: LaunchContext, depth: int) -> list[Launch]:
    """``eval WORDS``: the words joined are read as a script."""
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
                    "launch assembled at runtime; not evaluated (eval of text only known when "
                    "the script runs)",
                )
            ]
        return []
    try:
        commands = lex(Chars(text, spans))
    except ShellSyntaxError:
        return []
    return _walk_launches(commands, dict(env), ctx, depth)


def _walk_launches(commands: list, env: Env, ctx: LaunchContext, depth: int) -> list[Launch]:
    """The launches of a nested script (``eval``, ``sh -c``) run with ``env``."""
    walker = Walker(
        env,
        ctx.label,
        ctx.fallback,
        ctx.base_dir,
        read_file=None,
        opaque_reasons=ctx.opaque_reasons,
        unset_reason=ctx.unset_reason,
    )
    out: list[Launch] = []
    for cmd in walker.walk(commands):
        if cmd.dropped:
            _dropped_call(out, walker, cmd)
        else:
            out.extend(launches(cmd.argv, cmd.env, ctx, depth + 1, cmd.stdin))
    return out


MAX_NESTING = 4  # eval / sh -c inside one another: deeper ones are not read (a finding says so)


def _too_deep(argv: list[Word], env: Env, what: str) -> list[Launch]:
    """A launch nested past ``MAX_NESTING``: not read, and said so (never a silent pass)."""
    if not _MENTIONS_LAUNCH.search(" ".join(w.text for w in argv)):
        return []
    return [
        _unread(
            argv,
            env,
            f"launch not read: {what} nested more than {MAX_NESTING + 1} deep in eval / sh -c "
            "(the limit); what it runs is not checked",
            limit=True,
        )
    ]


def _dropped_call(out: list[Launch], walker: Walker, cmd) -> None:  # type: ignore[no-untyped-def]
    """A call of the script's function past ``MAX_CALLS``: one finding for the first such call
    of a function that (itself or through the functions it calls) holds a launch."""
    if any(launch.limit for launch in out) or not reaches(
        walker.functions, cmd.dropped, _MENTIONS_LAUNCH
    ):
        return
    out.append(
        _unread(
            cmd.argv,
            cmd.env,
            f"launch not read: this call of {cmd.dropped} is past the {MAX_CALLS} calls of the "
            "script's own functions swacheck follows (the limit); it and the later calls are "
            "not checked",
            limit=True,
        )
    )


def _followed(walker: Walker, commands: list, out: list[Launch]):  # type: ignore[no-untyped-def]
    """The commands of a walk, but a call past ``MAX_CALLS``: that one goes to ``out`` as a
    finding (``_dropped_call``)."""
    for cmd in walker.walk(commands):
        if cmd.dropped:
            _dropped_call(out, walker, cmd)
        else:
            yield cmd


def _unread(argv: list[Word], env: Env, reason: str, limit: bool = False) -> Launch:
    return Launch(
        "", [], False, env, argv[0].location, _command_location(argv), unread=reason, limit=limit
    )


def _launches(
    argv: list[Word], env: Env, ctx: LaunchContext, depth: int, stdin: Word | None = None
) -> list[Launch]:
    head = _base(argv[0])
    if head in SHELLS:
        return _shell_c(argv, env, ctx, depth, stdin)
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


def _shell_c(
    argv: list[Word], env: Env, ctx: LaunchContext, depth: int, stdin: Word | None = None
) -> list[Launch]:
    """``sh [-opts] -c SCRIPT``: the launches inside SCRIPT, run with the exported environment;
    ``bash -s`` (or a shell with no script) reading a here-string: the launches inside it."""
    if depth > MAX_NESTING:
        return _too_deep(argv, env, "sh -c")
    exported = {k: v for k, v in env.items() if v.exported}
    i = 1
    while i <= len(argv):
        if i == len(argv) or _reads_stdin(argv[i].text):
            if stdin is None or stdin.unknown and not _MENTIONS_LAUNCH.search(stdin.text):
                return []
            return _script_text(stdin, exported, ctx, depth)
        t = argv[i].text
        if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
            if i + 1 < len(argv) and argv[i + 1].text == "--":  # `bash -lc -- SCRIPT`
                i += 1
            if i + 1 >= len(argv):
                return []
            return _script_text(argv[i + 1], exported, ctx, depth)
        if t in ("-o", "+o"):
            i += 2
        elif t.startswith(("-", "+")):
            i += 1
        else:
            return []  # `bash script.sh`: a script inside the image
    return []


def _reads_stdin(option: str) -> bool:
    """``-s`` (or ``--`` ending the options with no ``-c``): the shell reads its script from stdin."""
    return option == "--" or (
        option.startswith("-") and not option.startswith("--") and "s" in option[1:]
    )


def _script_text(script: Word, env: Env, ctx: LaunchContext, depth: int) -> list[Launch]:
    """The launches of a script given as one word (``sh -c``, a here-string, ``ssh host CMD``)."""
    try:
        commands = lex(Chars.of_word(script))
    except ShellSyntaxError as err:
        raise syntax_problem(err, ctx.label) from None
    return _walk_launches(commands, env, ctx, depth)


# ssh options that take a value (ssh(1)); every other option is a flag
_SSH_VALUED = set("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -W -w".split())


def _ssh(argv: list[Word], ctx: LaunchContext, depth: int, stdin: Word | None) -> list[Launch]:
    """``ssh [OPTIONS] HOST [COMMAND ...]``: the remote shell runs COMMAND (its words joined by
    spaces, as ssh joins them) with the remote environment, which the files do not give."""
    i = 1
    while i < len(argv) and argv[i].text.startswith("-"):
        t = argv[i].text
        i += 2 if t in _SSH_VALUED else 1
    rest = argv[i + 1 :]
    if not rest:
        return []  # a login shell: a heredoc it reads is read where it is written
    if len(rest) > 1 and _base(rest[0]) in SHELLS:
        return launches(rest, {}, ctx, depth + 1, stdin)
    if any(w.unknown for w in rest):
        text = " ".join(w.text for w in rest)
        if _MENTIONS_LAUNCH.search(text):
            return [
                _unread(
                    rest,
                    {},
                    "launch assembled at runtime; not evaluated (ssh of text only known when the script runs)",
                )
            ]
        return []
    joined = rest[0] if len(rest) == 1 else _joined(rest)
    return _script_text(joined, {}, ctx, depth)


def _joined(words: list[Word]) -> Word:
    text = " ".join(w.text for w in words)
    spans: list = []
    for k, w in enumerate(words):
        if k:
            spans.append(w.whole)
        spans.extend(s if s is not None else w.whole for s in w.spans)
    return Word(text, spans, words[0].whole)


def _command_location(argv: list[Word]) -> Location | None:
    first, last = argv[0].whole, argv[-1].whole
    joined = join_spans([first, last]) if first and last else None
    return span_location(joined) if joined else argv[0].location


def _say_conditions(
    out: list[Launch], by_line: dict[object, list[Launch]], merged: list[str]
) -> None:
    """A line that runs differently depending on conditions the files do not decide gives one
    launch per way; each says which (a SWA307 note, so two launches of one line are explained).
    Ways merged past the limits are said on every launch of the script."""
    for found in by_line.values():
        if len(found) < 2:
            continue
        for launch in found:
            launch.when = (
                "read for one way the script can go, which the files do not decide: "
                + "; ".join(launch.assumed)
                + "; give the values with --env NAME=VALUE to check the one that runs"
            )
    if merged:
        said = "; ".join(merged[:2])
        for launch in out:
            launch.when = (launch.when + ". " if launch.when else "") + (
                f"Not followed one by one: {said}; the variables the ways disagree on are "
                f"taken as unknown"
            )


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
    by_line: dict[object, list[Launch]] = {}
    for cmd in _followed(walker, commands, out):
        found = launches(cmd.argv, cmd.env, ctx, stdin=cmd.stdin)
        if found:
            out.extend(found)
            for launch in found:
                launch.assumed = cmd.assumed
            if cmd.assumed:
                by_line.setdefault(id(cmd.span) if cmd.span is None else cmd.span[1:], []).extend(
                    found
                )
        elif cmd.argv and (cmd.argv[0].unknown or _base(cmd.argv[0]) == "eval"):
            if _MENTIONS_LAUNCH.search(" ".join(w.text for w in cmd.argv)):
                out.append(_unread(cmd.argv, cmd.env, "launch assembled at runtime; not evaluated"))
            elif dynamic is None:
                dynamic = cmd
    _say_conditions(out, by_line, walker.merged)
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
