"""Docker Compose files -> one deployment per service that launches SGLang.

A YAML document with a top-level ``services`` mapping whose services have ``image``,
``command`` or ``build`` is a Compose file. Each service's process is ``entrypoint`` +
``command`` (a string is split into words with quotes, as Compose does; no shell runs it);
``sh -c "..."`` strings are parsed as shell scripts.

Compose *interpolates* ``${VAR}``, ``$VAR``, ``${VAR:-default}`` (and ``-``, ``:+``, ``+``,
``:?``, ``?``) everywhere in the file while loading it, from the shell that runs
``docker compose`` and the project's ``.env`` file -- not from the service's ``environment``.
swacheck reads the ``.env`` next to the Compose file; any other variable is unknown (``--env``
answers it). ``$$`` is a literal ``$``, left for the container's shell.

The server's environment is ``env_file`` (relative to the Compose file; ``KEY=VALUE`` lines)
then ``environment`` (``- A=B`` list or ``A: B`` map; ``- A`` alone passes the host's value).
The platform comes from the GPUs the service reserves (``deploy.resources.reservations.devices``
with ``driver: nvidia`` -> cuda, ``driver: amd`` -> rocm; ``devices: [/dev/kfd, /dev/dri]`` ->
rocm; ``runtime: nvidia`` or ``gpus`` -> cuda), else from a ROCm image name, else ``--platform``.

Deployments are named ``compose/SERVICE``. A service that ``extends`` another inherits its launch
(``compose_extends.py``).
"""

from __future__ import annotations

import os
import re
from collections import ChainMap

from .. import limits
from ..loading import FileCache
from ..model.records import InputProblem, Val
from ..model.tree import Document, Mapping, Pair, Scalar, Sequence, kind_name
from .compose_extends import Chain, chain
from .launch import Found, build, load_text, names_for, seed_env
from .platforms import platform_of_image
from .recognise import LaunchContext, launches
from .shell import (
    Chars,
    Env,
    ShellSyntaxError,
    Source,
    SpanChain,
    SpanRun,
    Unknown,
    Var,
    Word,
    split_words,
)
from .yaml_words import yaml_word

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------- interpolation


_MAX_NESTING = 50  # ${A:-${B:-...}} levels, as in shell/lexer_words.py


def interpolate(
    word: Word, variables: Env, unset: str, marks: dict[int, Unknown] | None = None, depth: int = 0
) -> Word:
    """Compose's interpolation of one string, keeping each character's origin.

    ``marks`` receives, for each character of an unknown expansion, the id of its span: the
    words the string is split into afterwards find their unknowns by it. Text between
    expansions keeps its spans as they are (a run of the file), never a tuple per character.
    """
    t = word.text
    if "$" not in t:
        return word
    closing: dict[int, int] | None = None  # computed when a ${NAME...} needs it
    text: list[str] = []
    chunks: list = []
    unknown: list[Unknown] = list(word.unknown)
    size = [len(t)]
    lit = 0  # where the literal text not yet taken starts

    def flush(upto: int) -> None:
        if upto > lit:
            text.append(t[lit:upto])
            chunks.append(word.spans[lit:upto])

    def emit(w: Word) -> None:
        if w.text:  # limits.MAX_EXPANSION / MAX_WORD
            size[0] += len(w.text)
            limits.current().expand(len(w.text), w.location)
            limits.current().word(size[0], word.location)
        text.append(w.text)
        if w.unknown and marks is not None:
            fresh = [(s[0], s[1], s[2]) if s is not None else None for s in w.spans]
            for s in fresh:
                if s is not None:
                    marks[id(s)] = w.unknown[0]
            chunks.append(fresh)
        else:
            chunks.append(w.spans)
        unknown.extend(w.unknown)

    i = 0
    while True:
        found = _DOLLAR.search(t, i)  # `$$`, `${NAME` or `$NAME`: any other `$` is plain text
        if found is None:
            break
        i = found.start()
        if t.startswith("$$", i):
            flush(i)
            text.append("$")
            chunks.append(word.spans[i : i + 1])
            i += 2
            lit = i
            continue
        if t.startswith("${", i):
            if closing is None:
                closing = _closings(t)
            end = closing.get(i, -1)
            m = _NAME.match(t, i + 2)
            limits.current().reference(word.loc(i, i + 2))  # limits.MAX_REFERENCES, closed or not
            if end < 0 or m is None:
                i += 1  # a `$` that starts nothing: plain text
                continue
            name = m.group(0)
            rest = t[m.end() : end]
            op = next((o for o in (":-", ":+", ":?", "-", "+", "?") if rest.startswith(o)), "")
            if rest and not op:
                raise InputProblem(
                    f"invalid interpolation format {t[i : end + 1]!r}", word.loc(i, end + 1)
                )
            if op and depth >= _MAX_NESTING:
                raise InputProblem(
                    f"${{...}} nested more than {_MAX_NESTING} levels deep", word.loc(i, end + 1)
                )
            arg = (
                interpolate(word.sub(m.end() + len(op), end), variables, unset, marks, depth + 1)
                if op
                else None
            )
            flush(i)
            emit(_lookup(name, op, arg, variables, word.sub(i, end + 1), unset))
            i = lit = end + 1
            continue
        if m := _NAME.match(t, i + 1):
            limits.current().reference(word.loc(i, m.end()))
            flush(i)
            emit(_lookup(m.group(0), "", None, variables, word.sub(i, m.end()), unset))
            i = lit = m.end()
            continue
        i += 1
    flush(len(t))
    spans = chunks[0] if len(chunks) == 1 else SpanChain(chunks)
    return Word("".join(text), spans, word.whole, unknown, word.quoted)


def _closings(t: str) -> dict[int, int]:
    """For each ``${`` in ``t``, the index of the ``}`` that closes it (-1: none), in one pass
    (looking for each one's end separately took quadratic time on ``${${${...``)."""
    out: dict[int, int] = {}
    opened: list[int] = []
    for m in _BRACES.finditer(t):
        if m.group() == "${":
            opened.append(m.start())
        elif opened:
            out[opened.pop()] = m.start()
    for j in opened:
        out[j] = -1
    return out


_BRACES = re.compile(r"\$\{|\}")
_DOLLAR = re.compile(r"\$(?:\$|\{[A-Za-z_]|[A-Za-z_])")


def _lookup(name: str, op: str, arg: Word | None, variables: Env, raw: Word, unset: str) -> Word:
    var = variables.get(name)
    if var is not None and var.value is None:
        return Word(
            raw.text, raw.spans, raw.whole, [Unknown(raw.text, name, var.reason, _span(raw))]
        )
    value = var.value if var is not None else None
    use_alt = (value is None or value.text == "") if op.startswith(":") else value is None
    if op in (":-", "-") and use_alt or op in (":+", "+") and not use_alt:
        return arg  # type: ignore[return-value]
    if op in (":+", "+"):
        return Word("", [], raw.whole)
    if value is not None:
        return value
    why = f"{name} must be set ({raw.text})" if op in (":?", "?") else f"{name} is {unset}"
    return Word(raw.text, raw.spans, raw.whole, [Unknown(raw.text, name, why, _span(raw))])


def _span(w: Word):  # type: ignore[no-untyped-def]
    from .shell import join_spans

    return join_spans(w.spans) if w.spans else w.whole


# --------------------------------------------------------------------------- env files


# A statement of an env file as Compose reads it (compose-go dotenv/parser.go, locateKeyName):
# optional `export`, a name of letters, digits, `_` and `.`, then `=` or `:` (or the end of the
# line: a name alone is inherited from the shell that runs docker compose).
_ENV_LINE = re.compile(
    r"[ \t\v\f\r]*(?:export[ \t\v\f\r]+)?([\w.]+)[ \t\v\f\r]*(?:([=:])[ \t\v\f\r]*|$)"
)


def parse_env_file(src: Source, variables: Env, unset: str) -> Env:
    """``KEY=VALUE`` lines (``export`` allowed, ``#`` comments, quoted values), as Compose reads them.

    A line Compose would refuse (``unexpected character ... in variable name``) is an input
    error that names the line and never shows it: a file that is not an env file (a git
    config holding a token, say) yields no variable and no text of it reaches any output.
    """
    out: Env = {}
    for lineno, line in enumerate(src.text.split("\n")):
        start = src.starts[lineno]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _ENV_LINE.match(line)
        if m is None:
            raise InputProblem(
                "not an env file line: Compose reads NAME=VALUE (a name of letters, "
                "digits, '_' and '.') and refuses this file",
                src.location(start, start),
            )
        name = m.group(1)
        if m.group(2) is None:  # a name alone: inherited from the shell that runs docker compose
            out[name] = Var(
                None,
                True,
                f"{name} in {os.path.basename(src.path)}",
                unset,
                src.location(start, start + len(line)),
            )
            continue
        vstart = start + m.end()
        raw = line[m.end() :].rstrip("\r")
        quote = raw[:1] if raw[:1] in ("'", '"') else ""
        if quote and raw.find(quote, 1) > 0:
            close = raw.find(quote, 1)
            inner = raw[1:close]
            word = Word(
                inner,
                SpanRun(src, vstart + 1, vstart + 1 + len(inner)),
                (src, vstart, vstart + close + 1),
                quoted=True,
            )  # type: ignore[arg-type]
        else:
            value = re.split(r"\s+#", raw, maxsplit=1)[0].rstrip()
            word = Word(
                value, SpanRun(src, vstart, vstart + len(value)), (src, vstart, vstart + len(value))
            )  # type: ignore[arg-type]
        if quote != "'":
            word = interpolate(word, ChainMap(out, variables), unset)  # type: ignore[arg-type]  # no copy per line
        origin = f"{name} in {os.path.basename(src.path)}"
        out[name] = (
            Var(word, True, origin)
            if not word.unknown
            else Var(None, True, origin, word.unknown[0].reason, word.unknown[0].location)
        )
    return out


# --------------------------------------------------------------------------- services


def _words(node: object, src: Source, variables: Env, unset: str, key: str) -> list[Word]:
    if node is None:
        return []
    if isinstance(node, Scalar):
        if node.value is None:
            return []
        marks: dict[int, Unknown] = {}
        word = interpolate(yaml_word(node, src), variables, unset, marks)
        try:
            words = split_words(Chars.of_word(word)) if word.text.strip() else []
        except ShellSyntaxError as exc:
            raise InputProblem(f"{key}: {exc}", node.loc) from None
        for w in words:  # Compose interpolates first, then splits: give each word its unknowns back
            w.unknown = list(dict.fromkeys(marks[id(s)] for s in w.spans if id(s) in marks))
        return words
    if isinstance(node, Sequence):
        out = []
        for item in node.items:
            if not isinstance(item, Scalar) or isinstance(item.value, (list, dict)):
                raise InputProblem(f"{key} items must be strings, got {kind_name(item)}", item.loc)
            out.append(interpolate(yaml_word(item, src), variables, unset))
        return out
    raise InputProblem(
        f"{key} must be a string or a list of strings, got {kind_name(node)}", node.loc
    )  # type: ignore[union-attr]


def _service_env(
    service: Mapping, src: Source, base_dir: str, files: FileCache, variables: Env, unset: str
) -> Env:
    env: Env = {}
    if (ef := service.get("env_file")) is not None:
        _env_files(env, ef, src, base_dir, files, variables, unset)
    if (e := service.get("environment")) is not None:
        for name, word, where in _environment(e.value, src):
            origin = f"environment {name} of service in {os.path.basename(src.path)}"
            if word is None:  # `- A` / `A:`: the value of the shell that runs docker compose
                known = variables.get(name)
                env[name] = (
                    known
                    if known is not None
                    else Var(
                        None,
                        True,
                        origin,
                        f"{name} is passed from the shell that runs docker compose",
                        where,
                    )
                )  # type: ignore[arg-type]
                continue
            word = interpolate(word, variables, unset)
            env[name] = (
                Var(word, True, origin)
                if not word.unknown
                else Var(None, True, origin, word.unknown[0].reason, word.unknown[0].location)
            )
    return env


def _env_files(
    env: Env,
    ef: Pair,
    src: Source,
    base_dir: str,
    files: FileCache,
    variables: Env,
    unset: str,
) -> None:
    """``env_file``: a path, a list of paths or of ``{path, required}``, read in order."""
    entries = ef.value.items if isinstance(ef.value, Sequence) else [ef.value]
    for entry in entries:
        path_node, required = entry, True
        if isinstance(entry, Mapping):
            path_node = entry.get("path").value if entry.get("path") else None  # type: ignore[union-attr]
            req = entry.get("required")
            required = not (
                req is not None and isinstance(req.value, Scalar) and req.value.value is False
            )
        if not isinstance(path_node, Scalar) or not isinstance(path_node.value, str):
            raise InputProblem(
                f"env_file entries must be paths, got {kind_name(path_node)}",
                getattr(path_node, "loc", ef.key_loc),
            )  # type: ignore[arg-type]
        rel = interpolate(yaml_word(path_node, src), variables, unset).text
        path = rel if os.path.isabs(rel) else os.path.normpath(os.path.join(base_dir, rel))
        files.check_reference(path, path_node.loc, "env_file")
        if not os.path.isfile(path):
            if required:
                raise InputProblem(f"env_file {rel}: no such file ({path})", path_node.loc)
            continue
        env.update(parse_env_file(load_text(files, path), variables, unset))


def _environment(node: object, src: Source) -> list[tuple[str, Word | None, object]]:
    """``environment``: ``A: B`` map or ``- A=B`` list -> (name, value or None, where)."""
    items: list[tuple[str, Word | None, object]] = []
    if isinstance(node, Mapping):
        for name, pair in node.pairs.items():
            v = pair.value
            items.append(
                (
                    name,
                    yaml_word(v, src) if isinstance(v, Scalar) and v.value is not None else None,
                    pair.key_loc,
                )
            )
    elif isinstance(node, Sequence):
        for item in node.items:
            if not isinstance(item, Scalar):
                raise InputProblem(
                    f"environment entries must be strings, got {kind_name(item)}", item.loc
                )
            word = yaml_word(item, src)
            name, eq, _ = word.text.partition("=")
            items.append((name, word.sub(len(name) + 1) if eq else None, item.loc))
    else:
        raise InputProblem(
            f"environment must be a list or a mapping, got {kind_name(node)}", node.loc
        )  # type: ignore[union-attr]
    return items


def _gpu_platform(service: Mapping) -> Val | None:
    """The platform the GPUs a service asks for say, else its image name; None when neither."""
    found = _reserved_platform(service)
    if found is not None:
        return found
    dev = service.get("devices")
    if dev is not None and isinstance(dev.value, Sequence):
        for item in dev.value.items:
            if isinstance(item, Scalar) and str(item.value).split(":")[0] in ("/dev/kfd",):
                return Val("rocm", "devices: /dev/kfd (the ROCm kernel driver)", item.loc)
    runtime = service.get("runtime")
    if (
        runtime is not None
        and isinstance(runtime.value, Scalar)
        and runtime.value.value == "nvidia"
    ):
        return Val("cuda", "runtime: nvidia", runtime.value.loc)
    if (gpus := service.get("gpus")) is not None:
        return Val("cuda", "gpus (NVIDIA)", gpus.key_loc)
    image = service.get("image")
    if (
        image is not None
        and isinstance(image.value, Scalar)
        and isinstance(image.value.value, str)
        and (p := platform_of_image(image.value.value))
    ):
        return Val(p, f"image {image.value.value}", image.value.loc)
    return None


def _reserved_platform(service: Mapping) -> Val | None:
    """``deploy.resources.reservations.devices``: a device's ``driver``, or GPU ``capabilities``."""
    devices = service.get("deploy")
    node = devices.value if devices else None
    for key in ("resources", "reservations", "devices"):
        node = node.get(key).value if isinstance(node, Mapping) and node.get(key) else None  # type: ignore[union-attr]
    if not isinstance(node, Sequence):
        return None
    for item in node.items:
        if not isinstance(item, Mapping):
            continue
        driver = item.get("driver")
        caps = item.get("capabilities")
        d = str(driver.value.value).lower() if driver and isinstance(driver.value, Scalar) else ""
        if d in ("nvidia", "amd"):
            return Val(
                "cuda" if d == "nvidia" else "rocm",
                f"deploy.resources.reservations.devices driver: {d}",
                driver.value.loc,
            )  # type: ignore[union-attr]
        if caps is not None and "gpu" in str(caps.value.plain()):
            return Val(
                "cuda",
                "deploy.resources.reservations.devices capabilities: [gpu] (NVIDIA by default)",
                caps.key_loc,
            )
    return None


def _inherited(layers: Chain, key: str, variables: Env, unset: str) -> list[Word]:
    """The words of ``entrypoint`` / ``command`` of the nearest service of an ``extends`` chain
    that sets it (the extender's replace the base's, as Compose merges them)."""
    nearest = layers.nearest(key)
    if nearest is None:
        return []
    layer, node = nearest
    return _words(node, layer.src, variables, unset, key)


def load_compose(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    services = root.pairs["services"].value
    assert isinstance(services, Mapping)
    src = Source(path, files.load(path).text)
    base_dir = os.path.dirname(path) or "."
    fallback = seed_env(env)
    unset = (
        "not set in the project's .env file (Compose takes it from the shell that "
        "runs docker compose; give it with --env)"
    )
    variables: Env = dict(fallback)
    dotenv = os.path.normpath(os.path.join(base_dir, ".env"))
    label = os.path.basename(path)
    try:
        if os.path.isfile(dotenv) and files.is_readable_reference(dotenv):
            variables.update(parse_env_file(load_text(files, dotenv), fallback, unset))
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    for service_name, pair in services.pairs.items():
        service = pair.value
        if not isinstance(service, Mapping):
            continue
        try:
            layers = chain(
                service_name,
                service,
                src,
                base_dir,
                files,
                lambda node, at: interpolate(yaml_word(node, at), variables, unset).text,
            )
            senv: Env = {}
            for layer in reversed(layers.layers):  # the base's, then the extender's over it
                senv.update(
                    _service_env(layer.service, layer.src, layer.base_dir, files, variables, unset)
                )
            argv = _inherited(layers, "entrypoint", variables, unset)
            argv += _inherited(layers, "command", variables, unset)
            if len(layers.layers) > 1:  # inherited words count as if written in the file
                limits.current().words(len(argv), service.loc)
            ctx = LaunchContext(
                label, base_dir, fallback, unset_reason="not in the service's environment"
            )
            items = launches(argv, {**fallback, **senv}, ctx) if argv else []
        except InputProblem as problem:
            found.errors.append(problem.to_error())
            continue
        hint = _gpu_platform(layers.merged() if len(layers.layers) > 1 else service)
        dups = [
            d
            for d in doc.duplicates
            if (service.loc.line, service.loc.column)
            <= (d.again.line, d.again.column)
            <= (service.loc.end_line, service.loc.end_column)
        ]
        inherited = [(layer.name, layer.service.loc) for layer in layers.layers[1:]]
        for launch, dep_name in zip(items, names_for(f"compose/{service_name}", len(items))):
            try:
                dep = build(
                    launch, dep_name, path, base_dir, files, platform, env, hint, service.loc, dups
                )
            except InputProblem as problem:
                found.errors.append(problem.to_error())
                continue
            dep.inherited = inherited
            found.deployments.append(dep)
    return found
