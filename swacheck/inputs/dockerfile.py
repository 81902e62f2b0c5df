"""Dockerfiles: the launches of the final stage and the platform its base image says.

Instructions are read as Docker does (comment lines dropped, ``\\`` continuations joined);
``ARG`` and ``ENV`` are expanded in order (``ARG`` before the first ``FROM`` only in ``FROM``);
a stage ``FROM`` an earlier one inherits its ``ENV``, ``CMD`` and ``ENTRYPOINT``. The final
stage's process is ``ENTRYPOINT`` + ``CMD`` (exec form ``["a", "b"]`` or shell form, run with
``/bin/sh -c``), with the stage's ``ENV`` as its environment.
"""

from __future__ import annotations

import json
import os
import re
from collections import ChainMap
from dataclasses import field

from .. import limits
from ..loading import FileCache
from ..model.records import InputProblem, Location, Val
from ..model.recordtype import record
from ..model.text import one_line
from .launch import Found, collect, load_text, seed_env
from .platforms import platform_of_image
from .recognise import Launch, LaunchContext, launches, script_launches
from .runners import unknown_reasons
from .shell import (
    Chars,
    Env,
    ShellSyntaxError,
    Source,
    SpanChain,
    SpanRun,
    Var,
    Word,
    expand_one,
    join_spans,
    lex,
    span_location,
    syntax_problem,
)


@record
class _Instruction:
    """One Dockerfile instruction: its keyword, its text (continuations joined) and line."""

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


@record
class _Stage:
    """One build stage: its image and the ENV, ARG, CMD and ENTRYPOINT that reach the container."""

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
    if raws and raws[0].assignment() is None and ins.keyword == "ENV":
        return [_legacy_env(raws, build_env, label)]
    out: list[tuple[str, Var | None, Location | None]] = []
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
            else Var(None, True, origin, unknown_reasons(value), value.unknown[0].location)
        )
        out.append((name, var, span_location(name_span)))
    return out


def _legacy_env(raws: list, build_env: Env, label: str) -> tuple[str, Var, Location | None]:
    """``ENV NAME the rest of the line``: one variable, its value the other words joined."""
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
    var = Var(
        value if not unknown else None,
        True,
        f"ENV {name} in {label}",
        unknown_reasons(value),
        unknown[0].location if unknown else None,
    )
    return name, var, span_location(raws[0].span)


def dockerfile_launches(
    src: Source, fallback: Env, base_dir: str
) -> tuple[list[Launch], Val | None]:
    """The launches of a Dockerfile's final stage, and the platform its base image says."""
    stage = _final_stage(src)
    if stage is None:
        return [], None
    return _stage_launches(src, stage, fallback, base_dir), stage.image_hint


def _final_stage(src: Source) -> _Stage | None:
    """The last stage, its ``ENV``, ``CMD`` and ``ENTRYPOINT`` read in order."""
    label = os.path.basename(src.path)
    global_args: Env = {}
    stages: dict[str, _Stage] = {}
    stage: _Stage | None = None
    stage_count = 0
    for ins in _instructions(src):
        kw = ins.keyword
        if kw == "FROM":
            stage_count += 1
            stage = _from(ins, src, global_args, stages, stage_count)
        elif kw == "ARG":
            _arg(ins, stage, global_args, label)
        elif stage is not None:
            _stage_instruction(ins, stage, label)
    return stage


def _from(
    ins: _Instruction, src: Source, global_args: Env, stages: dict[str, _Stage], count: int
) -> _Stage:
    """``FROM [--platform=...] IMAGE [AS NAME]``: a new stage (``count`` th), inheriting from an
    earlier stage it names."""
    try:
        raws = [w for c in lex(ins.args) for w in c.words]
    except ShellSyntaxError as err:
        raise syntax_problem(err, src.path) from None
    raws = [r for r in raws if not (r.literal() or "").startswith("--")]
    image = expand_one(raws[0], global_args, "not declared with ARG before FROM") if raws else None
    parent = stages.get(image.text.lower()) if image is not None and not image.unknown else None
    if count > limits.MAX_STAGES:
        raise InputProblem(
            f"more than {limits.MAX_STAGES} FROM stages in "
            f"{one_line(os.path.basename(src.path))} (the limit per Dockerfile)",
            Location(src.path, ins.line, 1, ins.line, 1),
        )
    stage = _Stage(image)
    if parent is not None:
        _inherit(stage, parent)
    elif (
        image is not None and not image.unknown and (p := platform_of_image(image.text)) is not None
    ):
        stage.image_hint = Val(p, f"base image {image.text}", image.loc())
    if len(raws) >= 3 and (raws[1].literal() or "").lower() == "as":
        stages[(raws[2].literal() or "").lower()] = stage
    return stage


def _inherit(stage: _Stage, parent: _Stage) -> None:
    """A stage ``FROM`` an earlier one: the parent's ENV under the stage's own (no copy per
    stage), its CMD, ENTRYPOINT and platform."""
    stage.env, stage.cmd, stage.entrypoint, stage.image_hint = (
        ChainMap({}, *parent.env.maps)
        if isinstance(parent.env, ChainMap)
        else ChainMap({}, parent.env),
        parent.cmd,
        parent.entrypoint,
        parent.image_hint,
    )  # type: ignore[assignment]


def _arg(ins: _Instruction, stage: _Stage | None, global_args: Env, label: str) -> None:
    """``ARG NAME[=DEFAULT]``: a build-time variable of the stage (before any FROM: global)."""
    target = stage.args if stage is not None else global_args
    build_env = ChainMap(
        {}, *([stage.env, stage.args] if stage else []), global_args
    )  # no copy per ARG line
    for name, var, _ in _assignments(ins, build_env, label, allow_bare=True):
        if var is None:  # `ARG X` without a default: the global default, else given at build time
            var = global_args.get(name) or Var(
                None,
                False,
                f"ARG {name} in {label}",
                f"ARG {name} has no default: its value is given at build time (--build-arg)",
            )
        target[name] = Var(var.value, False, var.origin, var.reason)


def _stage_instruction(ins: _Instruction, stage: _Stage, label: str) -> None:
    """``ENV``, ``CMD`` and ``ENTRYPOINT`` of a stage; other instructions change no launch."""
    kw = ins.keyword
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


def _stage_launches(src: Source, stage: _Stage, fallback: Env, base_dir: str) -> list[Launch]:
    """The launches the stage's ``ENTRYPOINT`` + ``CMD`` run, with its ``ENV``."""
    runtime = {**fallback, **stage.env}
    reason = (
        "not set by an ENV line of the Dockerfile (the base image or `docker run -e` may set it)"
    )
    ctx = LaunchContext(src.path, base_dir, fallback, unset_reason=reason)
    entry, cmd = stage.entrypoint, stage.cmd
    if entry is not None and entry[0] == "shell":
        return script_launches(src, runtime, ctx, entry[1])  # type: ignore[arg-type]
    if entry is None and cmd is not None and cmd[0] == "shell":
        return script_launches(src, runtime, ctx, cmd[1])  # type: ignore[arg-type]
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
    return launches(argv, runtime, ctx) if argv else []


def read_dockerfile(path: str, files: FileCache, platform: Val, env: dict[str, Val]) -> Found:
    found = Found()
    base_dir = os.path.dirname(path) or "."
    try:
        src = load_text(files, path)
        items, hint = dockerfile_launches(src, seed_env(env), base_dir)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    collect(found, items, os.path.basename(path), path, base_dir, files, platform, env, hint)
    return found
