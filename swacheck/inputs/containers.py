"""Containers anywhere in a Kubernetes object: custom resources that wrap SGLang servers.

Operators put pod templates and container specs in places of their own:

- OME ``ClusterServingRuntime`` / ``ServingRuntime`` / ``InferenceService``:
  ``spec.engineConfig`` / ``spec.decoderConfig`` (and their ``leader`` / ``worker``) with a
  ``runner`` container and ``containers`` lists;
- RBG ``RoleBasedGroup``: ``spec.roles[].template.spec.containers`` (also under
  ``leaderWorkerPattern`` / ``standalonePattern`` templates);
- AIBrix ``StormService``: ``spec.template.spec.roles[].template.spec.containers``;
- NVIDIA Dynamo ``DynamoGraphDeployment``: ``spec.services.<NAME>.extraPodSpec.mainContainer``
  (``envs`` of the service are the container's environment too); ``python3 -m dynamo.sglang``
  takes SGLang's server flags (``recognise.py``);
- KServe ``LLMInferenceService``, ``LeaderWorkerSet`` variants, and any other object.

A container is an item of a ``containers`` list, or a mapping under ``mainContainer``,
``runner`` or ``container`` that has an ``image``, ``command`` or ``args``. Each is read as a
Kubernetes container (``kubernetes.read_container``); its deployment is named after the object
and the keys on the way (``RoleBasedGroup/NAME/prefill/CONTAINER``), so a role named
``prefill``/``decode`` pairs by name (``pairing.py``) as well as by ``--disaggregation-mode``.
GPU resources on an enclosing mapping (``resources.limits``) give the platform when the
container has none.

An object with containers of which none runs SGLang in a form swacheck can read, but that
mentions SGLang (an SGLang image, a wrapper script), is a deployment that is not checked, with
a note naming the object (SWA307): never a silent "0 deployments". An object without
containers, or that never mentions SGLang, is not ours.

``load_manifest`` is the reader of the ``kubernetes`` input kind (``kinds.py``): a manifest of a
built-in workload kind (``kubernetes.POD_SPECS``) is read by ``kubernetes.load_workload``, any
other here.
"""

from __future__ import annotations

from ..loading import FileCache
from ..model.deployment import unread
from ..model.records import Val
from ..model.tree import Document, Mapping, Scalar, Sequence
from .kinds import mentions_sglang
from .kubernetes import (
    POD_SPECS,
    gpu_of_pod,
    gpu_platform,
    load_workload,
    manifest_kind,
    read_container,
)
from .launch import Found
from .shell import Source

CONTAINER_KEYS = ("mainContainer", "runner", "container")
SKIP_KEYS = {
    "initContainers",
    "ephemeralContainers",
    "status",
    "metadata",
    "readinessProbe",
    "livenessProbe",
    "startupProbe",
    "lifecycle",
}
# keys that say nothing about the role of what they hold
STRUCTURAL = {
    "spec",
    "template",
    "containers",
    "extraPodSpec",
    "mainContainer",
    "runner",
    "container",
    "podSpec",
    "podTemplate",
    "leaderWorkerTemplate",
    "services",
    "roles",
    "components",
    "workload",
    "pattern",
    "leaderWorkerPattern",
    "standalonePattern",
    "leaderWorkerSet",
}
_MAX_DEPTH = 40
_MAX_NODES = 200_000


def _label(key: str) -> str:
    return {
        "leaderTemplate": "leader",
        "workerTemplate": "worker",
        "patchLeaderTemplate": "leader",
        "patchWorkerTemplate": "worker",
    }.get(key, key)


def _name_of(node: object) -> str:
    if (
        isinstance(node, Mapping)
        and (p := node.get("name")) is not None
        and isinstance(p.value, Scalar)
        and p.value.value is not None
    ):
        return str(p.value.value)
    return ""


def _is_container(node: object) -> bool:
    return isinstance(node, Mapping) and any(k in node.pairs for k in ("image", "command", "args"))


def load_manifest(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    """The SGLang containers of one manifest document, of any kind: a built-in workload
    (``kubernetes.load_workload``) or a custom resource (``load_custom``)."""
    assert isinstance(doc.root, Mapping)
    if manifest_kind(doc.root) in POD_SPECS:
        return load_workload(doc, path, files, platform, env)
    return load_custom(doc, path, files, platform, env)


_Container = tuple[Mapping, list[str], Sequence | None, Val | None, Val | None]


class _ContainerWalk:
    """The containers of a custom resource, each with its labels, the env of its service
    (Dynamo's ``envs``), the platform its resources hint at and its pod's GPU."""

    def __init__(self) -> None:
        self.containers: list[_Container] = []
        self.budget = _MAX_NODES
        self.cut: tuple[str, object] | None = None  # why the search stopped, and where

    def walk(
        self, node: object, labels: list[str], envs: Sequence | None, hint: Val | None, depth: int
    ) -> None:
        if depth > _MAX_DEPTH or self.budget <= 0:
            if self.cut is None:
                self.cut = (
                    f"nested more than {_MAX_DEPTH} deep"
                    if depth > _MAX_DEPTH
                    else f"past the {_MAX_NODES:,} nodes it reads",
                    getattr(node, "loc", None),
                )
            return
        self.budget -= 1
        if isinstance(node, Mapping):
            self._mapping(node, labels, envs, hint, depth)
        elif isinstance(node, Sequence):
            for i, item in enumerate(node.items):
                self.walk(item, labels + [_name_of(item) or str(i)], envs, hint, depth + 1)

    def _mapping(
        self, node: Mapping, labels: list[str], envs: Sequence | None, hint: Val | None, depth: int
    ) -> None:
        if (e := node.get("envs")) is not None and isinstance(e.value, Sequence):
            envs = e.value  # Dynamo: a service's env for its containers
        if (r := node.get("resources")) is not None and isinstance(r.value, Mapping):
            hint = gpu_platform(node) or hint
        for key, pair in node.pairs.items():
            if key in SKIP_KEYS:
                continue
            child = pair.value
            here = labels if key in STRUCTURAL else labels + [_label(key)]
            if key == "containers" and isinstance(child, Sequence):
                gpu = gpu_of_pod(node)  # the pod spec that holds them
                for item in child.items:
                    if isinstance(item, Mapping):
                        self.containers.append((item, here, envs, hint, gpu))
            elif key in CONTAINER_KEYS and _is_container(child):
                self.containers.append((child, here, envs, hint, gpu_of_pod(node)))  # type: ignore[arg-type]
            else:
                self.walk(child, here, envs, hint, depth + 1)


def load_custom(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    kind = str(root.pairs["kind"].value.value)  # type: ignore[union-attr]
    name = ""
    meta = root.get("metadata")
    if meta is not None:
        name = _name_of(meta.value)
    name = name or "unnamed"
    walker = _ContainerWalk()
    walker.walk(root.pairs.get("spec").value if root.get("spec") else root, [], None, None, 0)  # type: ignore[union-attr]
    containers = walker.containers
    if walker.cut is not None:
        why, at = walker.cut
        found.deployments.append(
            unread(
                f"{kind}/{name}",
                path,
                at or root.loc,  # type: ignore[arg-type]
                platform,
                env,
                f"{kind} {name!r}: the search for its containers stopped here, {why} (the limit); "
                "containers beyond are not read, so launches there are not checked",
                limit=True,
            )
        )
    if not containers:
        return found
    src = Source(path, files.load(path).text)
    launched = 0
    for container, labels, envs, hint, gpu in containers:
        stem = "/".join([kind, name, *labels])
        launched += read_container(
            found, container, stem, kind, doc, path, src, files, platform, env, envs, hint, gpu
        )
    if launched == 0 and not found.errors and mentions_sglang(root, [_MAX_NODES]):
        n = len(containers)
        found.deployments.append(
            unread(
                f"{kind}/{name}",
                path,
                root.loc,
                platform,
                env,
                f"{kind} {name!r}: {n} container{'s' if n != 1 else ''} found, none runs "
                f"python -m sglang.launch_server, "
                "sglang serve or python -m dynamo.sglang in a form swacheck reads (a "
                "script inside the image, or a command the operator builds); not checked",
            )
        )
    return found
