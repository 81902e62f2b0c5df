"""SkyPilot task YAML: the ``setup`` and ``run`` scripts are shell scripts.

SkyPilot runs ``setup`` and then ``run`` with bash on every node, with the task's ``envs``
exported (and its ``secrets``, whose values are only known at launch). Both scripts are read
as one script in that order, so a variable set in ``setup`` is not known in ``run`` (they are
separate bash processes) -- only ``envs`` are shared. The platform comes from
``resources.accelerators`` (``MI300X:8`` -> ROCm, ``H100:8`` -> CUDA), else from what the
script exports, else ``--platform``. ``SKYPILOT_*`` variables (node rank, IPs) are set by
SkyPilot at run time.
"""

from __future__ import annotations

import os
import re

from ..loading import FileCache
from ..model.records import InputProblem, Val
from ..model.tree import Document, Mapping, Scalar, Sequence
from .launch import Found, build, names_for, seed_env
from .pitfalls import attach
from .recognise import LaunchContext, script_launches
from .shell import Chars, Env, Source, Var
from .yaml_words import yaml_word


def _accelerators(root: Mapping, key: str = "accelerators") -> Val | None:
    """The platform ``resources.<key>`` names (``MI300X:8`` -> ROCm, ``H100:8`` -> CUDA), when it
    names one (dstack's ``resources.gpu`` too)."""
    res = root.get("resources")
    if res is None or not isinstance(res.value, Mapping):
        return None
    acc = res.value.get(key)
    if acc is None:
        return None
    node = acc.value
    if isinstance(node, Mapping) and "name" in node.pairs:  # dstack: gpu: {name: [H100], count: 8}
        node = node.pairs["name"].value
    texts = (
        [node.value]
        if isinstance(node, Scalar)
        else [i.value for i in node.items if isinstance(i, Scalar)]
        if isinstance(node, Sequence)
        else list(node.pairs)
        if isinstance(node, Mapping)
        else []
    )
    for text in texts:
        name = str(text).lower()
        if re.search(r"\bmi\d{3}", name):
            return Val("rocm", f"resources.{key} {text}", acc.value.loc)
        if re.search(r"\b([abhlt]\d{2,3}|gb\d{3}|rtx|v100)", name):
            return Val("cuda", f"resources.{key} {text}", acc.value.loc)
    return None


def load_task(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    src = Source(path, files.load(path).text)
    label = os.path.basename(path)
    base_dir = os.path.dirname(path) or "."
    start = _task_env(root, src, label, env)
    hint = _accelerators(root)
    name = root.get("name")
    stem = (
        str(name.value.value)
        if name is not None and isinstance(name.value, Scalar) and name.value.value
        else os.path.splitext(label)[0]
    )
    unset = (
        "not in the task's envs (SkyPilot sets SKYPILOT_* variables at run time; others come "
        "from sky launch --env)"
    )
    for section in ("setup", "run"):
        pair = root.get(section)
        if (
            pair is None
            or not isinstance(pair.value, Scalar)
            or not isinstance(pair.value.value, str)
        ):
            continue
        word = yaml_word(pair.value, src)
        chars = Chars(word.text, [s if s is not None else word.whole for s in word.spans])
        ctx = LaunchContext(label, base_dir, seed_env(env), unset_reason=unset)
        try:
            items = script_launches(src, dict(start), ctx, chars)
        except InputProblem as problem:
            found.errors.append(problem.to_error())
            continue
        block = []
        for launch, dep_name in zip(items, names_for(f"sky/{stem}/{section}", len(items))):
            try:
                block.append(build(launch, dep_name, path, base_dir, files, platform, env, hint))
            except InputProblem as problem:
                found.errors.append(problem.to_error())
        attach(block, chars)
        found.deployments.extend(block)
    return found


def _task_env(root: Mapping, src: Source, label: str, env: dict[str, Val]) -> Env:
    """What the task's scripts start with: swacheck's ``--env``, then ``envs`` (``secrets`` and
    ``envs`` without a value are given when the task is launched)."""
    start = seed_env(env)
    for section in ("envs", "secrets"):
        node = root.get(section)
        if node is None or not isinstance(node.value, Mapping):
            continue
        for name, p in node.value.pairs.items():
            if section == "envs" and isinstance(p.value, Scalar) and p.value.value is not None:
                start[name] = Var(yaml_word(p.value, src), True, f"envs.{name} in {label}")
            elif name not in start:
                start[name] = Var(
                    None,
                    True,
                    f"{section}.{name} in {label}",
                    f"{name} is given when the task is launched (sky launch --{section[:-1]} "
                    f"{name}=...)",
                    p.key_loc,
                )
    return start
