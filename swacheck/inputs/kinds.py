"""What kind of input a file or document is, decided without importing the readers.

The launch-command readers (``script``, ``dockerfile``, ``compose``, ``kubernetes``, ... and
the ``recognise``/``argv``/``launch``/``shell`` modules they share) are large; ``inputs``
imports them only when a file of their kind is found, so a run over plain server configs never
pays for them.

A new input kind is one reader module (a function returning a ``launch.Found``) plus one
:class:`Kind` line in ``FILE_KINDS`` or ``DOCUMENT_KINDS`` below (the predicate may be a
lambda in that line); discovery, grouping and ``--fix`` read these tables.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from ..model.recordtype import record
from ..model.tree import Mapping, Scalar, Sequence

SHELLS = {"sh", "bash", "dash", "ash", "ksh", "zsh"}
# what makes a Compose service (`extends`: it inherits another's)
SERVICE_KEYS = ("image", "command", "build", "entrypoint", "extends")


SCRIPT_SUFFIXES = (".sh", ".bash", ".sbatch", ".slurm")  # shell, and Slurm batch scripts
MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown", ".rst")  # documents with launch commands


def is_script_path(path: str) -> bool:
    return path.lower().endswith(SCRIPT_SUFFIXES)


def is_dockerfile_path(path: str) -> bool:
    name = os.path.basename(path).lower()
    return (
        name == "dockerfile"
        or name.endswith(".dockerfile")
        or (name.startswith("dockerfile.") and not name.endswith(".dockerignore"))
    )


def has_shell_shebang(text: str) -> bool:
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and any(re.search(rf"(^|[/ ]){s}\b", first[2:]) for s in SHELLS)


def is_manifest(root: object) -> bool:
    """A Kubernetes object: a mapping with scalar ``apiVersion`` and ``kind``."""
    return (
        isinstance(root, Mapping)
        and all(
            isinstance(root.pairs[k].value, Scalar)
            for k in ("apiVersion", "kind")
            if k in root.pairs
        )
        and "apiVersion" in root.pairs
        and "kind" in root.pairs
    )


def is_compose(root: object) -> bool:
    """A Compose file: ``services`` holding at least one service with an image, command or build."""
    if (
        not isinstance(root, Mapping)
        or (services := root.get("services")) is None
        or not isinstance(services.value, Mapping)
    ):
        return False
    return any(
        isinstance(p.value, Mapping) and any(k in p.value.pairs for k in SERVICE_KEYS)
        for p in services.value.pairs.values()
    )


# --------------------------------------------------------------------------- the input-kind registry


@record(frozen=True)
class Kind:
    """One kind of input that can hold SGLang launches.

    ``path``: recognises a file by its name (walked folders, units); ``document``: recognises a
    parsed YAML document. ``reader`` is ``"module:function"``, imported only when a file of the
    kind is found; file readers take ``(path, files, platform, env)``, document readers
    ``(doc, path, files, platform, env)``, and both return a ``launch.Found``. ``refers``: the
    kind may read other files (``--config``, ``. FILE``), so a run holding one is one unit.
    ``marks``: keys one of which a document of the kind must hold (the units' fast path looks
    for them written as keys).
    ``what``: how to name it in a message; ``absent``: why a file of the kind named explicitly
    holds no deployment.
    """

    name: str
    what: str
    reader: str
    path: Callable[[str], bool] | None = None
    document: Callable[[object], bool] | None = None
    refers: bool = True
    marks: tuple[str, ...] = ()
    absent: str = "no SGLang launch command (python -m sglang.launch_server or sglang serve)"

    def read(self, *args):  # type: ignore[no-untyped-def]
        import importlib

        module, _, func = self.reader.partition(":")
        return getattr(importlib.import_module(module, __package__), func)(*args)


def is_markdown_path(path: str) -> bool:
    return path.lower().endswith(MARKDOWN_SUFFIXES)


def is_srt_slurm(root: object) -> bool:
    """An srt-slurm recipe: ``backend: {sglang_config: {...}}`` (``type: sglang`` when given)."""
    if (
        not isinstance(root, Mapping)
        or (backend := root.get("backend")) is None
        or not isinstance(backend.value, Mapping)
    ):
        return False
    kind = backend.value.get("type")
    if kind is not None and not (
        isinstance(kind.value, Scalar) and str(kind.value.value).lower() == "sglang"
    ):
        return False
    return "sglang_config" in backend.value.pairs


def is_skypilot(root: object) -> bool:
    """A SkyPilot task: a ``run`` (or ``setup``) shell script next to SkyPilot's own keys."""
    if not isinstance(root, Mapping):
        return False
    scripts = [root.pairs[k] for k in ("run", "setup") if k in root.pairs]
    if not scripts or not all(isinstance(p.value, Scalar) for p in scripts):
        return False
    return any(
        k in root.pairs
        for k in (
            "resources",
            "num_nodes",
            "envs",
            "file_mounts",
            "workdir",
            "service",
            "secrets",
            "name",
        )
    )


def is_dstack(root: object) -> bool:
    """A dstack service or task: ``type: service|task`` with ``commands`` (or replica groups)."""
    if not isinstance(root, Mapping):
        return False
    kind = root.get("type")
    if (
        kind is None
        or not isinstance(kind.value, Scalar)
        or kind.value.value not in ("service", "task")
    ):
        return False
    groups = root.get("replicas")
    return "commands" in root.pairs or (groups is not None and isinstance(groups.value, Sequence))


# --------------------------------------------------------------------------- Helm values

HELM_ARG_KEYS = ("extraArgs", "args", "extra_args", "serverArgs", "server_args")
HELM_MAX_DEPTH = 4  # mappings looked into below the top
HELM_MAX_SERVERS = 64


def server_mappings(root: object) -> list[tuple[str, Mapping, str]]:
    """(key path, mapping, args key) of every mapping that holds a server's flags."""
    out: list[tuple[str, Mapping, str]] = []
    todo: list[tuple[str, object, int]] = [("", root, 0)]
    while todo and len(out) < HELM_MAX_SERVERS:
        where, node, depth = todo.pop(0)
        if not isinstance(node, Mapping):
            continue
        key = next(
            (k for k in HELM_ARG_KEYS if k in node.pairs and _flags(node.pairs[k].value)), None
        )
        if key is not None:
            out.append((where, node, key))
        if depth < HELM_MAX_DEPTH:
            for k, p in list(node.pairs.items())[:256]:
                if isinstance(p.value, Mapping):
                    todo.append((f"{where}.{k}" if where else k, p.value, depth + 1))
    return out


def _flags(node: object) -> bool:
    """Whether a value is argv: a string of flags, or a list of strings one of which is a flag."""
    if isinstance(node, Scalar):
        return isinstance(node.value, str) and node.value.lstrip().startswith("--")
    if isinstance(node, Sequence):
        items = node.items[:4096]
        return all(isinstance(i, Scalar) for i in items) and any(
            isinstance(i.value, str) and i.value.startswith("--")
            for i in items  # type: ignore[union-attr]
        )
    return False


def mentions_sglang(node: object, budget: list[int]) -> bool:
    """Whether a scalar under ``node`` says SGLang (an image, a launch), looking at no more than
    ``budget[0]`` nodes (the budget is shared by the calls given the same list)."""
    stack = [node]
    while stack and budget[0] > 0:
        n = stack.pop()
        budget[0] -= 1
        if isinstance(n, Scalar):
            if isinstance(n.value, str) and "sglang" in n.value.lower():
                return True
        elif isinstance(n, Mapping):
            stack.extend(p.value for p in n.pairs.values())
        elif isinstance(n, Sequence):
            stack.extend(n.items)
    return False


def is_helm_values(root: object) -> bool:
    """Helm values of an SGLang chart: a mapping holding server flags (``extraArgs``/``args``...)
    in a document that mentions SGLang (helm_values.py)."""
    return (
        isinstance(root, Mapping)
        and "apiVersion" not in root.pairs
        and bool(server_mappings(root))
        and mentions_sglang(root, [5000])
    )


# keys a /server_info answer holds beside the server's arguments (0.5.12-0.5.23)
SERVER_INFO_MARKS = ("launch_command", "internal_states", "startup_time")


def is_server_info(root: object) -> bool:
    """A saved ``/server_info`` answer: the server's arguments (a ``model_path``) beside the keys
    only the endpoint adds (``internal_states``, ``launch_command``, ``startup_time``, or a
    ``version`` among more than 40 keys)."""
    if not isinstance(root, Mapping) or "model_path" not in root.pairs:
        return False
    if any(k in root.pairs for k in SERVER_INFO_MARKS):
        return True
    return "version" in root.pairs and len(root.pairs) > 40


def is_log_path(path: str) -> bool:
    return path.lower().endswith(".log")


# File kinds, matched by name in this order. (SGLang server configs and swacheck deployment
# files are the two YAML/JSON kinds of ``inputs/__init__.py``; they come before the document
# kinds below.)
FILE_KINDS: tuple[Kind, ...] = (
    Kind("dockerfile", "a Dockerfile", ".dockerfile:read_dockerfile", path=is_dockerfile_path),
    Kind("script", "a shell script", ".script:read_script", path=is_script_path),
    Kind(
        "python",
        "a Python launch harness",
        ".python_argv:read_python",
        path=lambda p: p.lower().endswith(".py"),
    ),
    Kind(
        "markdown",
        "a document (Markdown/MDX/reStructuredText)",
        ".markdown:read_doc",
        path=is_markdown_path,
    ),
    Kind(
        "server-log",
        "an SGLang server log",
        ".server_output:read_server_log",
        path=is_log_path,
        refers=False,
        absent="no server_args= line (the arguments SGLang logs at start-up)",
    ),
)
# Document kinds, tried in this order on every YAML document that is neither a deployment file
# nor an SGLang server config.
DOCUMENT_KINDS: tuple[Kind, ...] = (
    Kind(
        "server-info",
        "a saved /server_info answer",
        ".server_output:load_server_info",
        document=is_server_info,
        refers=False,
        marks=("model_path",),
    ),
    Kind(
        "srt-slurm",
        "an srt-slurm recipe",
        ".srt_slurm:load_recipe",
        document=is_srt_slurm,
        refers=False,
        marks=("sglang_config",),
    ),
    Kind(
        "skypilot",
        "a SkyPilot task",
        ".skypilot:load_task",
        document=is_skypilot,
        marks=("run", "setup"),
    ),
    Kind(
        "dstack",
        "a dstack service or task",
        ".dstack:load_run",
        document=is_dstack,
        marks=("commands", "replicas"),
    ),
    Kind(
        "kubernetes",
        "a Kubernetes manifest",
        ".containers:load_manifest",
        document=is_manifest,
        marks=("apiVersion",),
    ),
    Kind(
        "compose",
        "a Compose file",
        ".compose:load_compose",
        document=is_compose,
        marks=("services",),
    ),
    Kind(
        "helm-values",
        "Helm values of an SGLang chart",
        ".helm_values:load_values",
        document=is_helm_values,
        refers=False,
        marks=HELM_ARG_KEYS,
    ),
)


_DATA_SUFFIXES = (".yaml", ".yml", ".json")


def file_kind(path: str) -> Kind | None:
    low = path.lower()
    if low.endswith(_DATA_SUFFIXES) and not os.path.basename(low).startswith("dockerfile"):
        # no file kind ends so (a Dockerfile may: Dockerfile.yaml): asked twice for every
        # YAML/JSON file of a run (tests/test_input_kinds.py holds each kind to it)
        return None
    return next((k for k in FILE_KINDS if k.path is not None and k.path(path)), None)


def document_kind(root: object) -> Kind | None:
    return next((k for k in DOCUMENT_KINDS if k.document is not None and k.document(root)), None)


def kind_named(name: str) -> Kind:
    return next(k for k in FILE_KINDS + DOCUMENT_KINDS if k.name == name)
