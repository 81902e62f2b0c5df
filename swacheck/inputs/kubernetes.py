"""Kubernetes manifests -> one deployment per container that launches SGLang.

A YAML document with ``apiVersion`` and ``kind`` is a manifest. The pod templates read are:

- ``Pod``: ``spec``; ``Deployment``, ``StatefulSet``, ``DaemonSet``, ``ReplicaSet``, ``Job``:
  ``spec.template.spec``; ``CronJob``: ``spec.jobTemplate.spec.template.spec``;
- ``LeaderWorkerSet``: ``spec.leaderWorkerTemplate.leaderTemplate.spec`` and ``.workerTemplate.spec``.

Each container's ``command`` + ``args`` is the process Kubernetes starts (no shell). ``$(VAR)``
in them and in ``env`` values expands as Kubernetes does: from the container's ``env`` (earlier
entries, for ``env`` values), ``$$`` escapes a ``$``, and a variable Kubernetes does not know
stays literal -- swacheck reports it as unresolved. ``sh -c "..."`` strings are parsed as shell
scripts. ``env`` entries with ``value`` are the server's environment; ``valueFrom`` values are
only known in the cluster. The platform comes from the GPU resource the container requests
(``amd.com/gpu`` -> rocm, ``nvidia.com/gpu`` -> cuda, ``huawei.com/ascend*`` -> npu, in
``limits`` or ``requests``), else from a ROCm image name, else ``--platform``.

Deployments are named ``KIND/NAME/CONTAINER`` (``LeaderWorkerSet/NAME/leader/CONTAINER``).
"""

from __future__ import annotations

import os
import re

from .. import limits
from ..loading import FileCache
from ..model.deployment import unread
from ..model.records import InputProblem, Location, Val
from ..model.tree import Document, Mapping, Scalar, Sequence, kind_name
from .launch import Found, UnresolvedModel, build, names_for, seed_env
from .platforms import platform_of_image
from .recognise import LaunchContext, launches
from .shell import Env, Source, SpanChain, Unknown, Var, Word
from .yaml_words import yaml_word

POD_SPECS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "Pod": (("", ("spec",)),),
    "Deployment": (("", ("spec", "template", "spec")),),
    "StatefulSet": (("", ("spec", "template", "spec")),),
    "DaemonSet": (("", ("spec", "template", "spec")),),
    "ReplicaSet": (("", ("spec", "template", "spec")),),
    "Job": (("", ("spec", "template", "spec")),),
    "CronJob": (("", ("spec", "jobTemplate", "spec", "template", "spec")),),
    "LeaderWorkerSet": (
        ("leader", ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec")),
        ("worker", ("spec", "leaderWorkerTemplate", "workerTemplate", "spec")),
    ),
}
GPU_RESOURCES = (("amd.com/gpu", "rocm"), ("nvidia.com/gpu", "cuda"), ("huawei.com/ascend", "npu"))
_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
# What the LeaderWorkerSet controller adds to every container of a group (values known in the cluster only).
LWS_ENV = ("LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX", "LWS_NAME")


def _at(node: object, path: tuple[str, ...]) -> object:
    for key in path:
        if not isinstance(node, Mapping) or (pair := node.get(key)) is None:
            return None
        node = pair.value
    return node


def _str(node: object) -> str:
    return str(node.value) if isinstance(node, Scalar) and node.value is not None else ""


# --------------------------------------------------------------------------- $(VAR)


def expand_refs(word: Word, env: Env) -> Word:
    """Kubernetes' ``$(VAR)`` expansion: ``$$`` is ``$``, an unknown reference stays as written.
    Text between references keeps its spans as they are (never a tuple per character)."""
    t = word.text
    if "$" not in t:
        return word
    text: list[str] = []
    chunks: list = []
    unknown = list(word.unknown)
    size = len(t)  # at least: the word as written, then every value substituted
    lit = 0  # where the literal text not yet taken starts

    def flush(upto: int) -> None:
        if upto > lit:
            text.append(t[lit:upto])
            chunks.append(word.spans[lit:upto])

    i = 0
    while True:
        i = t.find("$", i)
        if i < 0:
            break
        if t.startswith("$$", i):
            flush(i)
            text.append("$")
            chunks.append(word.spans[i : i + 1])
            i = lit = i + 2
            continue
        m = _REF.match(t, i) if t.startswith("$(", i) else None
        if m is None:
            i += 1
            continue
        name, raw = m.group(1), m.group(0)
        limits.current().reference(word.loc(i, m.end()))  # limits.MAX_REFERENCES
        var = env.get(name)
        flush(i)
        if var is not None and var.value is not None:
            size += len(var.value.text)
            limits.current().expand(
                len(var.value.text), word.loc(i, m.end())
            )  # limits.MAX_EXPANSION
            limits.current().word(size, word.loc(i, m.end()))
            text.append(var.value.text)
            chunks.append(var.value.spans)
            unknown.extend(var.value.unknown)
        else:
            text.append(raw)
            ref_spans = word.spans[i : m.end()]
            chunks.append(ref_spans)
            first, last = (ref_spans[0], ref_spans[-1]) if len(ref_spans) else (None, None)
            where = first if first == last else None
            if first is not None and last is not None and first[0] is last[0]:
                where = (first[0], first[1], last[2])
            reason = (
                var.reason
                if var is not None
                else f"{name} is not in the container's env (Kubernetes leaves {raw} as written)"
            )
            unknown.append(Unknown(raw, name, reason, where))
        i = lit = m.end()
    flush(len(t))
    spans = chunks[0] if len(chunks) == 1 else SpanChain(chunks)
    return Word("".join(text), spans, word.whole, unknown, word.quoted)


# --------------------------------------------------------------------------- containers


def _container_env(
    container: Mapping, src: Source, fallback: Env, label: str, kind: str
) -> tuple[Env, str]:
    """The container's ``env`` as variables, and how to say that a variable is in none of them."""
    env: Env = {}
    if kind == "LeaderWorkerSet":
        for name in LWS_ENV:
            env[name] = fallback.get(name) or Var(
                None,
                True,
                "LeaderWorkerSet",
                f"{name} is set by the LeaderWorkerSet controller: only known in the cluster",
            )
    node = _at(container, ("env",))
    if isinstance(node, Sequence):
        for item in node.items:
            if not isinstance(item, Mapping) or (name := _str(_at(item, ("name",)))) == "":
                continue
            value = _at(item, ("value",))
            origin = f"env {name} of container {_str(_at(container, ('name',)))} in {label}"
            if (vf := item.get("valueFrom")) is not None:
                source = ", ".join(vf.value.pairs) if isinstance(vf.value, Mapping) else "valueFrom"
                var = Var(
                    None,
                    True,
                    origin,
                    f"{name} comes from valueFrom ({source}): only known in the cluster",
                    vf.key_loc,
                )
            elif isinstance(value, Scalar):
                if value.value is not None and not isinstance(value.value, str):
                    raise InputProblem(
                        f"env {name}: Kubernetes requires a string value, got {kind_name(value)} (quote it)",
                        value.loc,
                    )
                word = expand_refs(yaml_word(value, src), env)
                var = (
                    Var(word, True, origin)
                    if not word.unknown
                    else Var(None, True, origin, word.unknown[0].reason, word.unknown[0].location)
                )
            else:
                var = Var(Word("", [], None), True, origin)
            if var.value is None and name in fallback:
                var = fallback[name]
            env[name] = var
    env_from = _at(container, ("envFrom",))
    unset = "not in the container's env"
    if isinstance(env_from, Sequence) and env_from.items:
        unset += " (envFrom may set it: its values are only known in the cluster)"
    return env, unset


def _gpu_platform(container: Mapping) -> Val | None:
    for section in ("limits", "requests"):
        node = _at(container, ("resources", section))
        if not isinstance(node, Mapping):
            continue
        for key, pair in node.pairs.items():
            for prefix, platform in GPU_RESOURCES:
                if key.lower().startswith(prefix):
                    return Val(platform, f"resources.{section}.{key}", pair.key_loc)
    image = _at(container, ("image",))
    if (
        isinstance(image, Scalar)
        and isinstance(image.value, str)
        and (p := platform_of_image(image.value)) is not None
    ):
        return Val(p, f"image {image.value}", image.loc)
    return None


# Node labels that name the GPU model a pod is scheduled on (the value is a GPU name, sglang/gpus.py):
# NVIDIA GPU feature discovery, GKE accelerators, AMD's GPU labeller, Karpenter on AWS.
GPU_LABELS = (
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    "amd.com/gpu.product-name",
    "karpenter.k8s.aws/instance-gpu-name",
)


def gpu_of_pod(spec: object) -> Val | None:
    """The GPU a pod spec's ``nodeSelector`` or required node affinity names (one value only)."""
    selector = _at(spec, ("nodeSelector",))
    if isinstance(selector, Mapping):
        for label in GPU_LABELS:
            pair = selector.get(label)
            if (
                pair is not None
                and isinstance(pair.value, Scalar)
                and isinstance(pair.value.value, str)
                and pair.value.value.strip()
            ):
                return Val(pair.value.value.strip(), f"nodeSelector {label}", pair.value.loc)
    terms = _at(
        spec,
        (
            "affinity",
            "nodeAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
            "nodeSelectorTerms",
        ),
    )
    if (
        isinstance(terms, Sequence) and len(terms.items) == 1
    ):  # several terms are alternatives: no one GPU
        exprs = _at(terms.items[0], ("matchExpressions",))
        for expr in exprs.items if isinstance(exprs, Sequence) else []:
            key = _str(_at(expr, ("key",)))
            values = _at(expr, ("values",))
            if (
                key in GPU_LABELS
                and _str(_at(expr, ("operator",))) == "In"
                and isinstance(values, Sequence)
                and len(values.items) == 1
            ):
                value = values.items[0]
                if (
                    isinstance(value, Scalar)
                    and isinstance(value.value, str)
                    and value.value.strip()
                ):
                    return Val(value.value.strip(), f"node affinity {key} In", value.loc)
    return None


def _argv(container: Mapping, src: Source, env: Env) -> list[Word]:
    words: list[Word] = []
    for key in ("command", "args"):
        node = _at(container, (key,))
        if node is None:
            continue
        if not isinstance(node, Sequence):
            raise InputProblem(f"{key} must be a list of strings, got {kind_name(node)}", node.loc)  # type: ignore[union-attr]
        for item in node.items:
            if not isinstance(item, Scalar) or not isinstance(item.value, str):
                raise InputProblem(
                    f"{key}: Kubernetes requires strings, got {kind_name(item)} (quote it)",
                    item.loc,
                )
            words.append(expand_refs(yaml_word(item, src), env))
    return words


def _within(dup, loc: Location) -> bool:  # type: ignore[no-untyped-def]
    return (
        (loc.line, loc.column)
        <= (dup.again.line, dup.again.column)
        <= (loc.end_line, loc.end_column)
    )


def manifest_kind(root: Mapping) -> str:
    """A manifest's ``kind``: one of ``POD_SPECS`` is read here, any other by ``containers.py``."""
    return _str(_at(root, ("kind",)))


def load_workload(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    """The SGLang containers of one manifest document whose kind is one of ``POD_SPECS``."""
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    kind = _str(_at(root, ("kind",)))
    name = _str(_at(root, ("metadata", "name"))) or "unnamed"
    src = Source(path, files.load(path).text)
    for role, spec_path in POD_SPECS[kind]:
        containers = _at(root, spec_path + ("containers",))
        if not isinstance(containers, Sequence):
            continue
        for container in containers.items:
            if isinstance(container, Mapping):
                stem = f"{kind}/{name}/{role}" if role else f"{kind}/{name}"
                read_container(
                    found,
                    container,
                    stem,
                    kind,
                    doc,
                    path,
                    src,
                    files,
                    platform,
                    env,
                    gpu=gpu_of_pod(_at(root, spec_path)),
                )
    return found


def read_container(
    found: Found,
    container: Mapping,
    stem: str,
    kind: str,
    doc: Document,
    path: str,
    src: Source,
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
    outer_env: Sequence | None = None,
    outer_hint: Val | None = None,
    gpu: Val | None = None,
) -> int:
    """The SGLang launches of one container spec, added to ``found``; returns how many.
    ``outer_env``: an ``env``-style list an operator adds to the container (Dynamo's ``envs``);
    ``outer_hint``: the platform the resources around the container say; ``gpu``: the GPU the
    pod's node selector names (``gpu_of_pod``)."""
    base_dir = os.path.dirname(path) or "."
    fallback = seed_env(env)
    label = os.path.basename(path)
    cname = _str(_at(container, ("name",))) or "container"
    try:
        cenv: Env = {}
        if outer_env is not None:
            cenv, _ = _container_env(
                Mapping(outer_env.loc, {"env": _pair("env", outer_env)}), src, fallback, label, kind
            )
        own, unset = _container_env(container, src, {**fallback, **cenv}, label, kind)
        cenv.update(own)
        argv = _argv(container, src, _answered(cenv, fallback))
        # a $(VAR) Kubernetes leaves as written reaches `sh -c` as a command substitution
        reasons = {
            u.shown: f"{u.reason}; the shell would then run it as a command"
            for w in argv
            for u in w.unknown
        }
        reasons.update({f"$({n})": v.reason for n, v in cenv.items() if v.value is None})
        ctx = LaunchContext(label, base_dir, fallback, opaque_reasons=reasons, unset_reason=unset)
        items = launches(argv, {**fallback, **cenv}, ctx) if argv else []
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return 1
    hint = _gpu_platform(container) or outer_hint
    dups = [d for d in doc.duplicates if _within(d, container.loc)]
    for launch, dep_name in zip(items, names_for(f"{stem}/{cname}", len(items))):
        try:
            dep = build(
                launch, dep_name, path, base_dir, files, platform, env, hint, container.loc, dups
            )
            dep.gpu = gpu
            found.deployments.append(dep)
        except UnresolvedModel as problem:
            if not problem.variable:  # a command's output: swacheck does not run commands
                found.errors.append(problem.to_error())
            else:
                at = problem.location or container.loc
                found.deployments.append(
                    _from_the_cluster(problem.variable, dep_name, path, at, platform, env)
                )
        except InputProblem as problem:
            found.errors.append(problem.to_error())
    return len(items)


def _answered(cenv: Env, fallback: Env) -> Env:
    """The container's env, with --env answering what it leaves unknown (set nowhere, or
    valueFrom): what ``$(VAR)`` references read."""
    refs = dict(cenv)
    refs.update((k, v) for k, v in fallback.items() if k not in cenv or cenv[k].value is None)
    return refs


def _from_the_cluster(
    var: str, name: str, path: str, at: Location, platform: Val, env: dict[str, Val]
):  # type: ignore[no-untyped-def]
    """A launch whose model path the cluster gives (an operator such as OME injects MODEL_PATH
    into a runtime that serves many models; envFrom, valueFrom): a launch to check with a model,
    not an error of the manifest (SWA307)."""
    reason = (
        f"the model path comes from {var}, which the cluster gives (an operator, envFrom "
        f"or valueFrom): check the launch with --env {var}=VALUE --model-config VALUE=PATH"
    )
    return unread(name, path, at, platform, env, reason)


def _pair(key: str, node: Sequence):  # type: ignore[no-untyped-def]
    from ..model.tree import Pair

    return Pair(key, node.loc, node)


def gpu_platform(node: Mapping) -> Val | None:
    """The platform the GPU resources (or the image) of a container-like mapping say."""
    return _gpu_platform(node)
