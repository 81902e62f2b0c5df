"""What kind of input a file or document is, decided without importing the readers.

The launch-command readers (``launch``, ``shell``, ``compose``, ``kubernetes``) are large;
``inputs`` imports them only when a file of their kind is found, so a run over plain server
configs never pays for them.
"""

from __future__ import annotations

import os
import re

from ..loading import Mapping, Scalar

SHELLS = {"sh", "bash", "dash", "ash", "ksh", "zsh"}
SERVICE_KEYS = ("image", "command", "build", "entrypoint")  # what makes a Compose service


def is_script_path(path: str) -> bool:
    return path.lower().endswith(".sh")


def is_dockerfile_path(path: str) -> bool:
    name = os.path.basename(path).lower()
    return name == "dockerfile" or name.endswith(".dockerfile") or (name.startswith("dockerfile.") and not name.endswith(".dockerignore"))


def has_shell_shebang(text: str) -> bool:
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and any(re.search(rf"(^|[/ ]){s}\b", first[2:]) for s in SHELLS)


def is_manifest(root: object) -> bool:
    """A Kubernetes object: a mapping with scalar ``apiVersion`` and ``kind``."""
    return (
        isinstance(root, Mapping)
        and all(isinstance(root.pairs[k].value, Scalar) for k in ("apiVersion", "kind") if k in root.pairs)
        and "apiVersion" in root.pairs
        and "kind" in root.pairs
    )


def is_compose(root: object) -> bool:
    """A Compose file: ``services`` holding at least one service with an image, command or build."""
    if not isinstance(root, Mapping) or (services := root.get("services")) is None or not isinstance(services.value, Mapping):
        return False
    return any(isinstance(p.value, Mapping) and any(k in p.value.pairs for k in SERVICE_KEYS) for p in services.value.pairs.values())
