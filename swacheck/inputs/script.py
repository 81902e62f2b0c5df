"""Shell scripts and ``--command`` text: the launches they run, as deployments."""

from __future__ import annotations

import os

from .. import limits
from ..loading import FileCache
from ..model.deployment import Deployment
from ..model.records import InputError, InputProblem, Val
from .launch import Found, collect, load_text, seed_env
from .recognise import LaunchContext, script_launches
from .shell import Chars, Source


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
            src.path,
            base_dir,
            seed_env(env),
            read_file=lambda p: load_text(files, p, reference=True),
        )
        items = script_launches(src, seed_env(env), ctx)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    stem = label if label is not None else os.path.splitext(os.path.basename(path))[0]
    collect(found, items, stem, src.path, base_dir, files, platform, env)
    from .pitfalls import attach

    attach(found.deployments, Chars.of_source(src))
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
