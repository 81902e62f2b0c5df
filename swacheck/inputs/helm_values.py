"""Helm values files of SGLang charts: the launch a chart's template builds from its values.

A chart's template is not YAML until rendered (``templates.py``), but its ``values.yaml`` is, and
SGLang charts keep the server's flags there: ``extraArgs`` (or ``args``, ``extra_args``,
``serverArgs``) as a list of argv items (``- "--tp"`` / ``- "8"``, each one word, as the
template's ``range`` passes them) or as one string of flags (split into words as a shell
splits them, nothing expanded), next to the model (``modelPath``, ``modelName``, ``model``,
``model.path``/``name``/``id``). The template runs ``python3 -m sglang.launch_server
--model-path MODEL`` followed by those flags; each mapping that holds them is one server
(``prefill:`` and ``decode:`` sections are two, paired as PD servers of one folder are). A
values file counts when it mentions SGLang (an ``lmsysorg/sglang`` image, a launch in its args).
The platform comes from ``resources`` (``amd.com/gpu`` -> ROCm, ``nvidia.com/gpu`` -> CUDA) or
the image name. Rendering the chart (``helm template CHART | swacheck -``) checks the real
command; this reads what the values say.
"""

from __future__ import annotations

import os

from ..loading import FileCache
from ..model.records import InputProblem, Val
from ..model.tree import Document, Mapping, Scalar, Sequence
from .kinds import server_mappings
from .launch import Found, build, seed_env
from .platforms import platform_of_image
from .recognise import Launch, LaunchContext, launches
from .shell import (
    Chars,
    ShellSyntaxError,
    Source,
    Var,
    Word,
    join_spans,
    span_location,
    split_words,
)
from .yaml_words import yaml_word

_MODEL_KEYS = (
    "modelPath",
    "model_path",
    "model-path",
    "modelName",
    "model_name",
    "modelId",
    "model",
)
_MODEL_SUBKEYS = ("path", "name", "id", "repo", "repository")


def load_values(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    src = Source(path, files.load(path).text)
    base_dir = os.path.dirname(path) or "."
    label = os.path.basename(path)
    ctx = LaunchContext(label, base_dir, seed_env(env))
    hint = _platform(root)
    servers = server_mappings(root)
    for where, mapping, key in servers:
        name = f"helm/{where}" if where else f"helm/{os.path.splitext(label)[0]}"
        try:
            launch = _launch(mapping, key, root, src, env, ctx)
            if launch is None:
                continue
            found.deployments.append(
                build(
                    launch, name, path, base_dir, files, platform, env, _platform(mapping) or hint
                )
            )
        except InputProblem as problem:
            found.errors.append(problem.to_error())
    return found


def _launch(
    mapping: Mapping, key: str, root: Mapping, src: Source, env: dict[str, Val], ctx: LaunchContext
) -> Launch | None:
    pair = mapping.pairs[key]
    node = pair.value
    if isinstance(node, Scalar):
        word = yaml_word(node, src)
        try:
            args = split_words(Chars.of_word(word))
        except ShellSyntaxError as exc:
            raise InputProblem(f"{key}: {exc.message}", node.loc) from None
    else:
        args = [yaml_word(i, src) for i in node.items]  # type: ignore[union-attr]
    if any(
        w.text in ("sglang.launch_server", "serve") for w in args
    ):  # the whole launch is written
        found = launches(args, _env(mapping, src), ctx)
        return found[0] if found else None
    texts = {w.text.split("=", 1)[0] for w in args}
    head: list[Word] = []
    if not texts & {"--model-path", "--model"}:
        model = _model(mapping) or _model(root)
        if model is not None:
            w = yaml_word(model, src)
            head = [Word.plain("--model-path", w.whole), w]
    at = pair.key_loc
    whole_span = (
        join_spans([args[0].whole, args[-1].whole])
        if args and args[0].whole and args[-1].whole
        else None
    )
    return Launch(
        "python3 -m sglang.launch_server",
        head + args,
        False,
        _env(mapping, src),
        at,
        span_location(whole_span) if whole_span is not None else at,
    )


def _model(mapping: Mapping) -> Scalar | None:
    for k in _MODEL_KEYS:
        p = mapping.pairs.get(k)
        if p is None:
            continue
        if isinstance(p.value, Scalar) and isinstance(p.value.value, str) and p.value.value:
            return p.value
        if isinstance(p.value, Mapping):
            for sub in _MODEL_SUBKEYS:
                q = p.value.pairs.get(sub)
                if (
                    q is not None
                    and isinstance(q.value, Scalar)
                    and isinstance(q.value.value, str)
                    and q.value.value
                ):
                    return q.value
    return None


def _env(mapping: Mapping, src: Source) -> dict[str, Var]:
    """``env:`` as Kubernetes writes it (``- name: X`` / ``value: Y``) or as a mapping."""
    out: dict[str, Var] = {}
    p = mapping.pairs.get("env")
    if p is None:
        return out
    if isinstance(p.value, Mapping):
        items = [(k, q.value) for k, q in p.value.pairs.items()]
    elif isinstance(p.value, Sequence):
        items = []
        for item in p.value.items:
            if (
                isinstance(item, Mapping)
                and "name" in item.pairs
                and isinstance(item.pairs["name"].value, Scalar)
            ):
                v = item.pairs.get("value")
                items.append(
                    (str(item.pairs["name"].value.value), v.value if v is not None else None)
                )
    else:
        return out
    for name, value in items:
        if isinstance(value, Scalar) and value.value is not None:
            out[name] = Var(yaml_word(value, src), True, f"env {name} in the values")
        else:
            out[name] = Var(
                None,
                True,
                f"env {name} in the values",
                f"{name} is set by the cluster (valueFrom)",
                None,
            )
    return out


def _platform(mapping: Mapping) -> Val | None:
    todo: list[object] = [mapping]
    budget = 2000
    while todo and budget > 0:
        budget -= 1
        n = todo.pop()
        if isinstance(n, Mapping):
            for k, p in n.pairs.items():
                if k in ("amd.com/gpu", "nvidia.com/gpu"):
                    return Val(
                        "rocm" if k.startswith("amd") else "cuda", f"resources {k}", p.key_loc
                    )
                if (
                    k in ("repository", "image")
                    and isinstance(p.value, Scalar)
                    and isinstance(p.value.value, str)
                ):
                    plat = platform_of_image(p.value.value)
                    if plat is not None:
                        return Val(plat, f"image {p.value.value}", p.value.loc)
                todo.append(p.value)
        elif isinstance(n, Sequence):
            todo.extend(n.items)
    return None
