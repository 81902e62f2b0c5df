"""Compose ``extends``: a service that inherits another's configuration.

``extends: decode`` and ``extends: {service: decode}`` name a service of the same file;
``extends: {file: base.yaml, service: decode}`` one of another Compose file (relative to the file
that says so, read only inside the run's root, through the file cache and its budgets). The base
may extend another in turn. What the service runs is then, as Compose merges it (the Compose
specification, "extends"): ``command`` and ``entrypoint`` of the nearest service in the chain that
sets them (the extender's replace the base's); ``environment`` the base's with the extender's
over it, ``env_file`` the base's then the extender's; any other key (``deploy``, ``devices``,
``runtime``, ``gpus``, ``image``) the extender's when it sets it, else the base's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field

from ..loading import FileCache
from ..model.records import InputProblem
from ..model.recordtype import record
from ..model.tree import Mapping, Scalar, kind_name
from .shell import Source

# a scalar of a Compose file as Compose reads it (interpolated): compose.py's, passed in
TextOf = Callable[[Scalar, Source], str]

MAX_EXTENDS = 16  # services in one extends chain: a longer one is an input error, never cut short


@record(repr=False, eq=False)
class Layer:
    """One service of an ``extends`` chain and the file it is written in."""

    name: str
    service: Mapping
    src: Source
    base_dir: str


@record(repr=False, eq=False)
class Chain:
    """A service with the services it extends, the extender first."""

    layers: list[Layer] = field(default_factory=list)

    def nearest(self, key: str) -> tuple[Layer, object] | None:
        """The first layer that sets ``key``, with its value node."""
        for layer in self.layers:
            pair = layer.service.get(key)
            if pair is not None:
                return layer, pair.value
        return None

    def merged(self) -> Mapping:
        """The service's keys as Compose merges them (the extender's over the base's), for what
        is read from the whole service (its GPUs, devices, image)."""
        pairs: dict = {}
        for layer in reversed(self.layers):
            pairs.update(layer.service.pairs)
        first = self.layers[0].service
        return Mapping(first.loc, pairs, first.flow)


def _target(
    layer: Layer, files: FileCache, text_of: TextOf
) -> tuple[str, str, Source, str, object] | None:
    """(service name, file path, its source, its folder, the services mapping) that ``layer``
    extends; None when it extends nothing."""

    pair = layer.service.get("extends")
    if pair is None:
        return None
    node = pair.value
    file_node = None
    if isinstance(node, Mapping):
        service_pair = node.get("service")
        file_pair = node.get("file")
        file_node = file_pair.value if file_pair is not None else None
        node = service_pair.value if service_pair is not None else None
    if not isinstance(node, Scalar) or not isinstance(node.value, str):
        raise InputProblem(
            f"extends must name a service (extends: NAME or extends: {{service: NAME}}), got "
            f"{kind_name(node)}",
            getattr(node, "loc", pair.key_loc),
        )
    name = node.value
    if file_node is None:
        src, base_dir = layer.src, layer.base_dir
        services = _services(files.load(src.path).documents, src.path, pair.key_loc)
        return name, src.path, src, base_dir, services
    if not isinstance(file_node, Scalar) or not isinstance(file_node.value, str):
        raise InputProblem(
            f"extends file must be a path, got {kind_name(file_node)}",
            getattr(file_node, "loc", pair.key_loc),
        )
    rel = text_of(file_node, layer.src)
    path = rel if os.path.isabs(rel) else os.path.normpath(os.path.join(layer.base_dir, rel))
    files.check_reference(path, file_node.loc, "extends file")
    if not os.path.isfile(path):
        raise InputProblem(f"extends file {rel}: no such file ({path})", file_node.loc)
    loaded = files.load(path)  # parsed through the cache: its size, node and run budgets
    services = _services(loaded.documents, path, file_node.loc)
    return name, path, Source(path, loaded.text), os.path.dirname(path) or ".", services


def _services(documents: list, path: str, at) -> Mapping:  # type: ignore[no-untyped-def]
    for doc in documents:
        root = doc.root
        if isinstance(root, Mapping) and (s := root.get("services")) is not None:
            if isinstance(s.value, Mapping):
                return s.value
    raise InputProblem(f"extends: {os.path.basename(path)} has no services", at)


def chain(
    name: str,
    service: Mapping,
    src: Source,
    base_dir: str,
    files: FileCache,
    text_of: TextOf,
) -> Chain:
    """``service`` and the services it extends, the extender first."""
    from ..paths import real

    out = Chain([Layer(name, service, src, base_dir)])
    seen = {(real(src.path), name)}
    while (found := _target(out.layers[-1], files, text_of)) is not None:
        base_name, path, base_src, base_base_dir, services = found
        at = out.layers[-1].service.get("extends")
        loc = at.key_loc if at is not None else None
        base = services.get(base_name)  # type: ignore[attr-defined]
        if base is None or not isinstance(base.value, Mapping):
            raise InputProblem(
                f"extends: no service {base_name!r} in {os.path.basename(path)}", loc
            )
        key = (real(path), base_name)
        if key in seen:
            raise InputProblem(
                f"extends: service {base_name!r} extends itself (through {out.layers[-1].name!r})",
                loc,
            )
        if len(out.layers) >= MAX_EXTENDS:
            raise InputProblem(
                f"extends: a chain of more than {MAX_EXTENDS} services (the limit); not read", loc
            )
        seen.add(key)
        out.layers.append(Layer(base_name, base.value, base_src, base_base_dir))
    return out
