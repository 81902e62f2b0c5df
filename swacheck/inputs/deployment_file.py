"""A swacheck deployment document (top-level ``swacheck: 1``) -> :class:`Deployment`.

```yaml
swacheck: 1
name: dsv4-flash-decode          # optional label
platform: rocm                   # cuda | rocm | npu
gpu: MI355X                      # optional: the GPU model (sglang/gpus.py), for the SWA5xx rules
env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}
server: sglang/decode.yaml       # a server config path, or an inline mapping of server args
target: {model_config: models/DeepSeek-V4-Flash, geometry: {...}}
draft:  {model_config: models/DeepSeek-V4-Flash-MTP, geometry: {...}}
```
"""

from __future__ import annotations

import os

from ..loading import FileCache
from ..model.deployment import Deployment, ExplicitGeometry, ModelRef, ServerArgs
from ..model.records import InputProblem, Val
from ..model.tree import Mapping, Node, Scalar, Sequence, kind_name
from ..paths import real
from .server_config import load_server_args, server_args_from_mapping

PLATFORMS = ("cuda", "rocm", "npu")
TOP_KEYS = ("swacheck", "name", "platform", "gpu", "env", "server", "target", "draft")
POOL_KEYS = ("model_config", "geometry")
GEOMETRY_KEYS = {
    "window": int,
    "ring_size": int,
    "pages": int,
    "page_size": int,
    "sliding_window": int,
    "ring_capacity": int,
    "unified": bool,
    "compression_ratios": list,
}


def is_deployment_file(root: object) -> bool:
    return isinstance(root, Mapping) and "swacheck" in root.pairs


def _unknown(
    key: str, allowed: tuple[str, ...] | list[str], where: str, node: Node
) -> InputProblem:
    import difflib  # only for a misspelt key

    near = difflib.get_close_matches(key, allowed, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else f"; expected one of: {', '.join(allowed)}"
    return InputProblem(f"unknown key {key!r} in {where}{hint}", node.loc)


def _expect_mapping(node: Node, what: str) -> Mapping:
    if not isinstance(node, Mapping):
        raise InputProblem(f"{what} must be a mapping, got {kind_name(node)}", node.loc)
    return node


def _expect_str(node: Node, what: str) -> str:
    if not isinstance(node, Scalar) or not isinstance(node.value, str) or not node.value:
        raise InputProblem(f"{what} must be a non-empty string, got {kind_name(node)}", node.loc)
    return node.value


def _model_ref(node: Node, base_dir: str, what: str) -> ModelRef:
    if isinstance(node, Mapping):
        return ModelRef(inline=node, location=node.loc, base_dir=base_dir)
    return ModelRef(path=_expect_str(node, what), location=node.loc, base_dir=base_dir)


def _geometry(node: Node, what: str) -> ExplicitGeometry:
    mapping = _expect_mapping(node, what)
    out = ExplicitGeometry()
    for key, pair in mapping.pairs.items():
        kind = GEOMETRY_KEYS.get(key)
        if kind is None:
            raise _unknown(key, list(GEOMETRY_KEYS), what, pair.value)
        value = pair.value.plain()
        ok = (
            isinstance(value, bool)
            if kind is bool
            else (
                isinstance(value, list)
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            )
            if kind is list
            else (isinstance(value, int) and not isinstance(value, bool) and value > 0)
        )
        if not ok:
            expected = {
                bool: "true or false",
                list: "a list of integers",
                int: "a positive integer",
            }[kind]
            raise InputProblem(
                f"{what}.{key} must be {expected}, got {kind_name(pair.value)}", pair.value.loc
            )
        out.values[key] = Val(value, f"{what}.{key}", pair.value.loc)
    return out


def load_pairs(root: Mapping, file: str, files: FileCache | None = None) -> list[tuple[str, str]]:
    """A ``pairs:`` document: ``[{prefill: PATH, decode: PATH}, ...]``, paths relative to the file;
    given the run's ``files``, each path must lie inside the run's root."""
    for key, pair in root.pairs.items():
        if key not in ("swacheck", "pairs"):
            raise InputProblem(
                f"a document with 'pairs' holds only 'swacheck' and 'pairs'; found {key!r} "
                f"(put deployments in their own documents)",
                pair.key_loc,
            )
    node = root.pairs["pairs"].value
    if not isinstance(node, Sequence) or not node.items:
        raise InputProblem(
            f"pairs must be a non-empty list of {{prefill: PATH, decode: PATH}}, got {kind_name(node)}",
            node.loc,
        )
    base = os.path.dirname(file) or "."
    out = []
    for item in node.items:
        entry = _expect_mapping(item, "each pairs entry")
        if set(entry.pairs) != {"prefill", "decode"}:
            raise InputProblem(
                "each pairs entry has exactly the keys prefill and decode", entry.loc
            )
        both = []
        for role in ("prefill", "decode"):
            node = entry.pairs[role].value
            path = os.path.normpath(os.path.join(base, _expect_str(node, f"pairs[].{role}")))
            if files is not None:
                files.check_reference(path, node.loc, f"pairs[].{role}")
            both.append(path)
        out.append((both[0], both[1]))
    return out


def load_deployment(
    root: Mapping,
    file: str,
    doc_index: int,
    files: FileCache,
    default_platform: Val,
    default_env: dict[str, Val],
) -> Deployment:
    """A swacheck deployment document -> a :class:`Deployment`; each key checked in turn."""
    base_dir = os.path.dirname(file) or "."
    _check_version(root)
    for key, pair in root.pairs.items():
        if key not in TOP_KEYS:
            raise _unknown(key, TOP_KEYS, "a swacheck deployment file", pair.value)
    name = _name(root, file, doc_index)
    platform = _platform(root, default_platform)
    gpu = _gpu(root)
    env = _env(root, default_env)
    server, duplicates, assume_pd = _server(root, file, base_dir, files)
    refs, geometry = _pools(root, base_dir)
    return Deployment(
        name=name,
        file=file,
        location=root.loc,
        platform=platform,
        env=env,
        server=server,
        target_model=refs["target"],
        draft_model=refs["draft"],
        target_geometry=geometry["target"],
        draft_geometry=geometry["draft"],
        duplicates=duplicates,
        assume_pd=assume_pd,
        gpu=gpu,
    )


def _check_version(root: Mapping) -> None:
    version = root.pairs["swacheck"].value
    if not isinstance(version, Scalar) or version.value != 1 or isinstance(version.value, bool):
        shown = (
            kind_name(version)
            if isinstance(version, Scalar) and isinstance(version.value, bool)
            else repr(version.plain())
        )
        raise InputProblem(
            f"unsupported deployment file version {shown}: swacheck reads version 1", version.loc
        )


def _name(root: Mapping, file: str, doc_index: int) -> str:
    """``name:``, else the file's stem (``stem[N]`` for the N-th document of a file)."""
    name_pair = root.get("name")
    stem = os.path.splitext(os.path.basename(file))[0]
    return (
        _expect_str(name_pair.value, "name")
        if name_pair
        else (stem if doc_index == 0 else f"{stem}[{doc_index}]")
    )


def _platform(root: Mapping, default_platform: Val) -> Val:
    if (p := root.get("platform")) is None:
        return default_platform
    value = _expect_str(p.value, "platform")
    if value not in PLATFORMS:
        raise InputProblem(
            f"platform must be one of {', '.join(PLATFORMS)}, got {value!r}", p.value.loc
        )
    return Val(value, "deployment file", p.value.loc)


def _gpu(root: Mapping) -> Val | None:
    if (g := root.get("gpu")) is None:
        return None
    if (
        not isinstance(g.value, Scalar)
        or isinstance(g.value.value, bool)
        or g.value.value is None
        or not str(g.value.value).strip()
    ):
        raise InputProblem(
            f"gpu must be a GPU name such as H100 or MI355X, got {kind_name(g.value)}",
            g.value.loc,
        )
    return Val(str(g.value.value).strip(), "deployment file gpu", g.value.loc)


def _env(root: Mapping, default_env: dict[str, Val]) -> dict[str, Val]:
    """swacheck's ``--env`` under the file's ``env:`` (a boolean is written as YAML shows it)."""
    env = dict(default_env)
    if (e := root.get("env")) is None:
        return env
    for key, pair in _expect_mapping(e.value, "env").pairs.items():
        node = pair.value
        if not isinstance(node, Scalar) or isinstance(node.value, (list, dict)):
            raise InputProblem(f"env.{key} must be a string, got {kind_name(node)}", node.loc)
        value = (
            ""
            if node.value is None
            else (str(node.value).lower() if isinstance(node.value, bool) else str(node.value))
        )
        env[key] = Val(value, "deployment file env", node.loc)
    return env


def _server(
    root: Mapping, file: str, base_dir: str, files: FileCache
) -> tuple[ServerArgs, list, bool]:
    """``server:`` inline or a server config's path: (its arguments, the duplicate keys of the
    file read, whether the server is left out so a PD pair is assumed)."""
    if (s := root.get("server")) is None:
        return ServerArgs({}, None, None, base_dir), [], True
    if isinstance(s.value, Mapping):
        return server_args_from_mapping(s.value, file, base_dir), [], False
    rel = _expect_str(s.value, "server")
    path = os.path.normpath(os.path.join(base_dir, rel))
    if real(path) == real(file):  # the same file, links followed (memoised: the cache asks too)
        raise InputProblem(
            "server: names this deployment file itself; give the SGLang server config's path",
            s.value.loc,
        )
    files.check_reference(path, s.value.loc, "server config")
    try:
        source = files.load(path)
    except InputProblem as problem:
        raise InputProblem(f"server config {rel!r}: {problem.message}", s.value.loc) from None
    if len(source.documents) != 1 or source.raw_documents != 1:
        raise InputProblem(
            f"server config {rel!r} must hold exactly one YAML document (SGLang reads it with "
            f"yaml.safe_load), it has {source.raw_documents}",
            s.value.loc,
        )
    doc = source.documents[0]
    return load_server_args(doc.root, path), list(doc.duplicates), False


def _pools(
    root: Mapping, base_dir: str
) -> tuple[dict[str, ModelRef | None], dict[str, ExplicitGeometry]]:
    """``target:`` and ``draft:``: each pool's model config and explicit geometry."""
    refs: dict[str, ModelRef | None] = {"target": None, "draft": None}
    geometry = {"target": ExplicitGeometry(), "draft": ExplicitGeometry()}
    for side in ("target", "draft"):
        if (pool := root.get(side)) is None:
            continue
        mapping = _expect_mapping(pool.value, side)
        for key, pair in mapping.pairs.items():
            if key not in POOL_KEYS:
                raise _unknown(key, POOL_KEYS, side, pair.value)
        if (mc := mapping.get("model_config")) is not None:
            refs[side] = _model_ref(mc.value, base_dir, f"{side}.model_config")
        if (g := mapping.get("geometry")) is not None:
            geometry[side] = _geometry(g.value, f"{side}.geometry")
    return refs, geometry
