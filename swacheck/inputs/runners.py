"""Container runners and wrappers on a command line: ``docker``/``podman run`` and
``apptainer``/``singularity exec|run`` (their options, the image, the container's environment and
the platform the image says), and the context recognising a launch carries (``LaunchContext``).
``recognise`` uses them to find the command a container runs."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import field

from ..model.records import Val
from ..model.recordtype import record
from .platforms import platform_of_image
from .shell import Env, Source, Var, Word

_ENV_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def _base(word: Word) -> str:
    """A program's name without its folder (``/usr/bin/python3`` -> ``python3``)."""
    return os.path.basename(word.text)


@record
class LaunchContext:
    """What recognising nested commands (``sh -c``) needs to know."""

    label: str  # file name for messages
    base_dir: str
    fallback: Env = field(default_factory=dict)  # --env: answers what the files leave unknown
    read_file: Callable[[str], Source] | None = None  # for `. FILE`
    opaque_reasons: dict[str, str] = field(default_factory=dict)
    unset_reason: str = ""


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
        option = _docker_option(argv, i)
        if option is None:
            break
        name, value, i = option
        if name == "--":
            break
        if value is None:
            continue
        if name in ("-e", "--env"):
            _docker_env(value, env, cenv, ctx)
        elif name == "--entrypoint":
            entrypoint = [value]
        elif name == "--device" and "/dev/kfd" in value.text:
            hint = Val("rocm", "docker run --device /dev/kfd", value.location)
    if i >= len(argv):
        return [], cenv, None  # no image, or an option without its value
    image = argv[i]
    if hint is None and not image.unknown and (p := platform_of_image(image.text)) is not None:
        hint = Val(p, f"docker run image {image.text}", image.location)
    return entrypoint + argv[i + 1 :], cenv, hint


def _docker_option(argv: list[Word], i: int) -> tuple[str, Word | None, int] | None:
    """The ``docker run`` option at ``argv[i]``: its name, its value (None for a flag, or when
    the words end before it) and where the next word is; None when ``argv[i]`` is the image."""
    word = argv[i]
    t = word.text
    if word.unknown or not t.startswith("-") or t == "-":
        return None
    if t == "--":
        return t, None, i + 1
    if t.startswith("--") and "=" in t:
        name = t.split("=", 1)[0]
        return name, word.sub(len(name) + 1), i + 1
    if t.startswith("-e") and len(t) > 2 and not t.startswith("--"):
        return "-e", word.sub(2), i + 1  # -eKEY=VALUE
    if t in _DOCKER_FLAGS:
        return t, None, i + 1
    return t, (argv[i + 1] if i + 1 < len(argv) else None), i + 2


def _docker_env(value: Word, env: Env, cenv: Env, ctx: LaunchContext) -> None:
    """``-e NAME=VALUE``, or ``-e NAME``: copied from the environment docker runs in."""
    m = _ENV_ASSIGN.match(value.text)
    if m is not None:
        key = m.group(1)
        cenv[key] = _assigned(
            key, value.sub(m.end()), ctx, f"docker run -e {key}=... in {ctx.label}"
        )
        return
    if not value.text or value.unknown:
        return
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


# apptainer/singularity exec|run options that take a value; every other option is a flag
_APPTAINER_VALUED = set(
    "-B --bind --mount -H --home --env --env-file --app --overlay -o --pwd -W --workdir "
    "--security --network --network-args --hostname --dns -S --scratch --fusemount "
    "--cpus --memory --memory-swap --cpuset-cpus --cpu-shares --blkio-weight --apply-cgroups "
    "--nvccli --sif-fuse --oci --authfile --docker-login --passphrase --pem-path "
    "--keep-privs --add-caps --drop-caps".split()
) - {"--nvccli", "--oci", "--sif-fuse", "--keep-privs", "--docker-login"}


def _apptainer(argv: list[Word], env: Env, ctx: LaunchContext) -> tuple[list[Word], Val | None]:
    """``apptainer|singularity exec|run [OPTIONS] IMAGE COMMAND ...``: the command run in the
    image (``run`` passes it to the image's runscript, which runs it in SGLang's images);
    ``--env K=V`` sets the container's environment, ``--rocm`` or the image name the platform."""
    if len(argv) < 2 or argv[1].text not in ("exec", "run"):
        return [], None
    hint: Val | None = None
    i = 2
    while i < len(argv) and argv[i].text.startswith("-") and not argv[i].unknown:
        t = argv[i].text
        name, _, inline = t.partition("=")
        value = (
            argv[i].sub(len(name) + 1) if inline else (argv[i + 1] if i + 1 < len(argv) else None)
        )
        if t == "--rocm":
            hint = Val("rocm", f"{_base(argv[0])} --rocm", argv[i].location)
        if name == "--env" and value is not None and (m := _ENV_ASSIGN.match(value.text)):
            key = m.group(1)
            env[key] = _assigned(
                key, value.sub(m.end()), ctx, f"{_base(argv[0])} --env {key}=... in {ctx.label}"
            )
        i += 1 if inline or name not in _APPTAINER_VALUED else 2
    if i >= len(argv):
        return [], None
    image = argv[i]
    if hint is None and not image.unknown and (p := platform_of_image(image.text)) is not None:
        hint = Val(p, f"{_base(argv[0])} image {image.text}", image.location)
    return argv[i + 1 :], hint


def unknown_reasons(word: Word) -> str:
    return "; ".join(f"{u.shown}: {u.reason}" for u in word.unknown)


def _assigned(name: str, value: Word, ctx: LaunchContext, origin: str) -> Var:
    """The variable a ``NAME=VALUE`` word of a wrapper (``env``, ``docker run -e``) sets: an
    unknown value falls back to swacheck's ``--env`` when it names the variable."""
    if value.unknown and name in ctx.fallback:
        return ctx.fallback[name]
    if value.unknown:
        return Var(None, True, origin, unknown_reasons(value), value.unknown[0].location)
    return Var(value, True, origin)
