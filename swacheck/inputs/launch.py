"""SGLang launch commands -> :class:`Deployment` s: step 3, build, and the readers' shared kit.

A launch command is read in three steps, each in its own module:

1. **recognise** a launch among shell commands (``recognise.py``): behind wrappers,
   ``docker run``, ``eval`` and ``sh -c "..."``;
2. **parse** the server's arguments as argparse does (``argv.py``);
3. **build** the deployment (here): ``--config FILE`` is merged the way SGLang's merger does it
   (the file's arguments first, so the command line wins); the arguments become a flow
   ``Mapping`` (so fixes replace values but never delete lines of a shell script); the
   environment is the command's (``export`` s, ``A=B`` prefixes, Dockerfile ``ENV``); the
   platform is inferred where the files say it (``platforms.py``), else ``--platform``.

What cannot be resolved is recorded as :class:`Unresolved` for rule SWA305 and the argument is
left unset; an unresolvable ``model-path`` is an input error. The readers of each input kind
(``script.py``, ``dockerfile.py``, ``kubernetes.py``, ``compose.py``, ...) find launches and
hand them to :func:`collect` (or :func:`build`), which returns a :class:`Found`.
"""

from __future__ import annotations

import os
import re
from dataclasses import field

from ..loading import FileCache, read_text
from ..model.deployment import Arg, Deployment, ServerArgs, unread
from ..model.records import InputError, InputProblem, Location, Val
from ..model.recordtype import record
from ..model.tree import Mapping, SourceFile
from ..sglang import flags
from ..sglang.version import DEFAULT, SGLangProfile
from .argv import SINGLE_DASH, Parsed, Unresolved, parse_args, unresolved_word
from .platforms import infer_platform
from .recognise import DYNAMO_MODULES, Launch
from .server_config import load_server_args
from .shell import Env, Source, Var, Word


@record
class LaunchDeployment(Deployment):
    """A deployment read from a launch command, with what could not be resolved in it."""

    unresolved: list[Unresolved] = field(default_factory=list)
    command: str = ""  # "python3 -m sglang.launch_server" | "sglang serve"


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


class UnresolvedModel(InputProblem):
    """The model path is a variable the files do not give (``variable``; "" for a command)."""

    variable = ""


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
    problem = UnresolvedModel(
        f"model-path cannot be resolved: {what or u.shown + ': ' + u.reason}; {hint}", u.location
    )
    problem.variable = var if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var) else ""
    return problem


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
        return unread(  # type: ignore[return-value]
            name,
            file,
            launch.whole or location,
            platform,
            default_env,
            launch.unread,
            launch.limit,
        )
    hint = hint or launch.hint
    parsed = parse_args(launch, profile)
    if launch.program.endswith(DYNAMO_MODULES):  # Dynamo's own flags are not SGLang's to refuse
        parsed.entries = [a for a in parsed.entries if a.how != "unknown"]
    unresolved = list(parsed.unresolved)
    dups = list(duplicates or [])
    entries = _config_entries(parsed, base_dir, files, unresolved, dups) + parsed.entries
    args = {a.name: a for a in entries}
    notes = _pitfall_notes(launch, parsed, profile)
    if launch.when:  # one of several ways its line runs (recognise._say_conditions)
        notes.append(("note", launch.when, launch.whole))
    _require_model(launch, unresolved, args)
    mapping = Mapping(
        launch.whole or launch.location or Location(file, 1, 1, 1, 1),
        {a.written: a.pair for a in parsed.entries},
        flow=True,
    )
    server = ServerArgs(args, mapping, file, base_dir, entries)
    return LaunchDeployment(
        name=name,
        file=file,
        location=location or launch.whole,
        platform=infer_platform(platform, launch.env, hint or launch.hint),
        env=_launch_env(launch, default_env, unresolved),
        server=server,
        duplicates=dups,
        unresolved=unresolved,
        command=launch.program,
        notes=notes,
    )


def _config_entries(
    parsed: Parsed, base_dir: str, files: FileCache, unresolved: list[Unresolved], dups: list
) -> list[Arg]:
    """The arguments of ``--config FILE`` that the command line does not override."""
    if parsed.config is None:
        return []
    cli_names = {a.name for a in parsed.entries}
    word, _ = parsed.config
    if word.unknown:
        u = unresolved_word("argument", "config", word)
        if "model-path" not in cli_names:
            raise _model_path_problem(
                u,
                f"it would come from the --config file {word.text}, and {u.shown}: {u.reason}",
            )
        unresolved.append(u)
        return []
    server, config_dups = _config_args(word, base_dir, files)
    dups.extend(config_dups)
    # argparse keeps the last value: the command line wins over the file (documented by
    # SGLang), so an overridden key is dropped -- unless SGLang refuses it anyway (SWA303).
    return [
        a
        for a in server.entries
        if not (
            a.name in cli_names
            and a.how in ("exact", "prefix")
            and not a.kind.startswith("refused")
        )
    ]


def _pitfall_notes(launch: Launch, parsed: Parsed, profile: SGLangProfile) -> list:
    """Notes for words argparse reads otherwise than their author meant (SWA306)."""
    notes: list = []
    for w in launch.args:  # `-tp-size 8`: argparse reads a single-dash word as short options
        m = SINGLE_DASH.fullmatch(w.text)
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
    return notes


def _require_model(launch: Launch, unresolved: list[Unresolved], args: dict[str, Arg]) -> None:
    """Raise when the model path is not known: SGLang needs it, and so does every rule."""
    for u in unresolved:
        if u.kind == "argument" and u.name == "model-path":
            raise _model_path_problem(u)
    if "model-path" in args:
        return
    extra = next((u for u in unresolved if u.kind == "arguments"), None)
    if extra is None:
        raise InputProblem(
            f"{launch.program} without --model-path: SGLang needs the model", launch.location
        )
    raise _model_path_problem(
        extra,
        f"no --model-path is written, so it would come from {extra.shown}: {extra.reason}",
    )


def _launch_env(
    launch: Launch, default_env: dict[str, Val], unresolved: list[Unresolved]
) -> dict[str, Val]:
    """The server's environment: swacheck's ``--env`` under the command's own variables."""
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
    return env


@record
class Found:
    """The deployments found in one launch file, and the errors met reading them."""

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


def collect(
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
    for launch, name in zip(items, names_for(stem, len(items))):
        try:
            found.deployments.append(
                build(launch, name, file, base_dir, files, platform, env, hint)
            )
        except InputProblem as problem:
            found.errors.append(problem.to_error())
