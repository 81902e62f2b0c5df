"""srt-slurm recipes (``srtctl``): one deployment per worker mode, command-line semantics.

A recipe holds::

    model: {path: /models/DeepSeek-V4-Flash, container: ..., precision: fp8}
    resources: {gpu_type: gb200, prefill_workers: 1, decode_workers: 2, ...}
    backend:
      type: sglang
      prefill_environment: {SGLANG_...: "1"}
      decode_environment: {...}
      sglang_config:
        prefill: {flag: value, ...}
        decode: {...}
        aggregated: {...}

srt-slurm (``src/srtctl/backends/sglang.py``, ``build_worker_command`` and
``_config_to_cli_args``) starts each worker as ``python3 -m sglang.launch_server`` (or
``python3 -m dynamo.sglang``, which takes the same server flags) with ``--model-path`` (the
recipe's model), ``--disaggregation-mode prefill|decode`` for the PD modes, then every key of
the mode's mapping, sorted, as a command-line flag: underscores become dashes, ``true`` is the
bare flag, ``false`` and ``null`` are left out, a list is the flag followed by its items. So the
keys have command-line semantics (``kv_cache_dtype`` is ``--kv-cache-dtype``; SGLang's
``--config`` merger is never involved) and the mode's ``*_environment`` is the environment.

``model.path`` may be an alias that the cluster's ``srtslurm.yaml`` maps to a path; swacheck
uses it as written (point it at a checkpoint with ``--model-config ALIAS=PATH``). ``hf:ORG/NAME``
is srt-slurm's handle for a model it pulls from the Hugging Face Hub: the model id is
``ORG/NAME``, looked up as any model id is (``--model-config``, the Hub cache). The platform
comes from ``resources.gpu_type`` (``mi300x``/``mi355x``: ROCm; NVIDIA names: CUDA), else ROCm
variables in the environment, else ``--platform``.
"""

from __future__ import annotations

import os
import re

from ..loading import FileCache
from ..model.deployment import Arg, Deployment, ServerArgs
from ..model.records import InputProblem, Location, Val
from ..model.tree import Document, Mapping, Pair, Scalar, Sequence
from ..sglang import flags
from ..sglang.version import DEFAULT
from .launch import Found
from .platforms import ROCM_ENV

MODES = ("prefill", "decode", "aggregated")
_ENV_KEY = {
    "prefill": "prefill_environment",
    "decode": "decode_environment",
    "aggregated": "aggregated_environment",
}


def _get(node: object, *keys: str) -> Pair | None:
    pair = None
    for key in keys:
        if not isinstance(node, Mapping) or (pair := node.get(key)) is None:
            return None
        node = pair.value
    return pair


def _platform(root: Mapping, env: dict[str, Val], given: Val) -> Val:
    gpu = _get(root, "resources", "gpu_type") or _get(root, "backend", "gpu_type")
    if gpu is not None and isinstance(gpu.value, Scalar) and isinstance(gpu.value.value, str):
        name = gpu.value.value.lower()
        if re.search(r"mi\d{3}", name):
            return Val("rocm", f"gpu_type {gpu.value.value}", gpu.value.loc)
        if re.search(r"[abhlg]\d{2,3}|gb\d{3}|rtx|nvidia", name):
            return Val("cuda", f"gpu_type {gpu.value.value}", gpu.value.loc)
    for name in ROCM_ENV:
        if name in env and not env[name].origin.startswith("--env"):
            return Val("rocm", f"{name} is set, a ROCm variable", env[name].location)
    return given


def _synthetic(name: str, value: str, loc: Location) -> Arg:
    return Arg(name, name, Pair(name, loc, Scalar(value, loc)), "exact", "store", cli=True)


def load_recipe(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    backend = root.pairs["backend"].value
    assert isinstance(backend, Mapping)
    config = backend.pairs["sglang_config"].value
    recipe = _get(root, "name")
    stem = (
        str(recipe.value.value)
        if recipe is not None and isinstance(recipe.value, Scalar) and recipe.value.value
        else os.path.splitext(os.path.basename(path))[0]
    )
    model = _get(root, "model", "path")
    base_dir = os.path.dirname(path) or "."
    if not isinstance(config, Mapping):
        if not (isinstance(config, Scalar) and config.value is None):
            found.errors.append(
                InputProblem(
                    "backend.sglang_config must be a mapping of prefill/decode/aggregated flags",
                    config.loc,
                ).to_error()
            )
        return found
    for mode in MODES:
        pair = config.get(mode)
        if pair is None or (isinstance(pair.value, Scalar) and pair.value.value is None):
            continue
        try:
            found.deployments.append(
                _deployment(root, backend, pair, mode, model, stem, path, base_dir, platform, env)
            )
        except InputProblem as problem:
            found.errors.append(problem.to_error())
    return found


HUB_HANDLE = "hf:"


def _deployment(
    root: Mapping,
    backend: Mapping,
    pair: Pair,
    mode: str,
    model: Pair | None,
    stem: str,
    path: str,
    base_dir: str,
    platform: Val,
    env: dict[str, Val],
) -> Deployment:
    flags_map = pair.value
    if not isinstance(flags_map, Mapping):
        raise InputProblem(
            f"backend.sglang_config.{mode} must be a mapping of SGLang flags", flags_map.loc
        )
    if (
        model is None
        or not isinstance(model.value, Scalar)
        or not isinstance(model.value.value, str)
        or not model.value.value
    ):
        where = _get(root, "model")
        raise InputProblem(
            "an srt-slurm recipe needs model.path: srt-slurm passes it as --model-path",
            where.key_loc if where else root.loc,
        )
    value = model.value
    if value.value.startswith(HUB_HANDLE):  # the model on the Hugging Face Hub, by its id
        value = Scalar(value.value[len(HUB_HANDLE) :], value.loc, value.quoted)
    entries: list[Arg] = [
        Arg(
            "model-path",
            "model.path",
            Pair("model-path", model.key_loc, value),
            "exact",
            "store",
            cli=True,
        )
    ]
    if mode != "aggregated":
        entries.append(_synthetic("disaggregation-mode", mode, pair.key_loc))
    for key in sorted(flags_map.pairs):
        arg = _flag(mode, key, flags_map.pairs[key])
        if arg is not None:
            entries.append(arg)
    args = {a.name: a for a in entries}
    server = ServerArgs(args, flags_map, path, base_dir, entries)
    dep_env = _mode_env(backend, mode, env)
    return Deployment(
        f"srt-slurm/{stem}/{mode}",
        path,
        pair.key_loc,
        _platform(root, dep_env, platform),
        dep_env,
        server,
    )


def _flag(mode: str, key: str, item: Pair) -> Arg | None:
    """One ``sglang_config.MODE`` key as the command-line flag srt-slurm passes; None when left out."""
    value = item.value
    if isinstance(value, Scalar) and (value.value is None or value.value is False):
        return None  # srt-slurm leaves the flag out
    dashed = key.replace("_", "-")
    m = flags.match(dashed, DEFAULT)
    option = m.option
    kind = flags.cli_kind(option) if option else "unknown"  # command-line semantics
    canonical = option.canonical if option else dashed
    if isinstance(value, Mapping):
        raise InputProblem(
            f"backend.sglang_config.{mode}.{key}: srt-slurm passes a mapping as its "
            f"Python text; write the JSON string",
            value.loc,
        )
    node: Scalar | Sequence = (
        value if isinstance(value, (Scalar, Sequence)) else Scalar(str(value), item.key_loc)
    )  # type: ignore[assignment]
    if isinstance(node, Scalar) and node.value is not True and not isinstance(node.value, str):
        node = Scalar(str(node.value), node.loc, node.quoted)  # srt-slurm passes str(value)
    return Arg(
        canonical,
        key,
        Pair(key, item.key_loc, node),
        m.how if m.how != "underscore" else "exact",
        kind,
        cli=True,
    )


def _mode_env(backend: Mapping, mode: str, env: dict[str, Val]) -> dict[str, Val]:
    """swacheck's ``--env`` under the recipe's ``MODE_environment``."""
    dep_env = dict(env)
    env_pair = _get(backend, _ENV_KEY[mode])
    if env_pair is not None and isinstance(env_pair.value, Mapping):
        for name, p in env_pair.value.pairs.items():
            if isinstance(p.value, Scalar) and p.value.value is not None:
                v = p.value.value
                text = ("true" if v else "false") if isinstance(v, bool) else str(v)
                dep_env[name] = Val(text, f"backend.{_ENV_KEY[mode]}.{name}", p.value.loc)
    return dep_env
