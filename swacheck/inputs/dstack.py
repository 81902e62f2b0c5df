"""dstack run configurations (``type: service`` / ``type: task``): ``commands`` are a shell script.

dstack runs a configuration's ``commands`` one after another in one shell inside its ``image``,
with ``env`` set (``- NAME=VALUE``, or ``- NAME``: taken from the environment ``dstack apply``
runs in, so known only then; a mapping works too). A service may define replica groups
(``replicas:`` a list of groups, each with its own ``commands`` and ``resources``), which is how
dstack expresses Prefill-Decode disaggregation (``router: {pd_disaggregation: true}``): each
group's launches are deployments of their own (``dstack/NAME/replicas[N]``, or the group's
``name``), paired as PD servers of one folder and model are. The platform comes from
``resources.gpu`` (``MI300X:8`` -> ROCm, ``H200`` -> CUDA), else the image, else ``--platform``;
``DSTACK_*`` variables (node rank, master IP, GPU counts) are set by dstack at run time.
"""

from __future__ import annotations

import os

from ..loading import FileCache
from ..model.records import InputProblem, Val
from ..model.tree import Document, Mapping, Scalar, Sequence
from .launch import Found, build, names_for, seed_env
from .pitfalls import attach
from .platforms import platform_of_image
from .recognise import LaunchContext, script_launches
from .shell import Chars, Env, Source, Var
from .skypilot import _accelerators
from .yaml_words import yaml_word

MAX_GROUPS = 64  # replica groups read in one configuration
_UNSET = (
    "not in the configuration's env (dstack sets DSTACK_* variables at run time; a bare "
    "`- NAME` is taken from the environment of dstack apply)"
)


def load_run(
    doc: Document, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    found = Found()
    root = doc.root
    assert isinstance(root, Mapping)
    src = Source(path, files.load(path).text)
    label = os.path.basename(path)
    name = root.get("name")
    stem = (
        str(name.value.value)
        if name is not None and isinstance(name.value, Scalar) and name.value.value
        else os.path.splitext(label.removesuffix(".yml").removesuffix(".yaml"))[0].removesuffix(
            ".dstack"
        )
    )
    start = _run_env(root, src, label, env)
    image = _image_hint(root)
    parts: list[tuple[str, Mapping]] = (
        [(f"dstack/{stem}", root)] if "commands" in root.pairs else []
    )
    groups = root.get("replicas")
    if groups is not None and isinstance(groups.value, Sequence):
        for k, group in enumerate(groups.value.items[:MAX_GROUPS]):
            if isinstance(group, Mapping) and "commands" in group.pairs:
                gname = group.get("name")
                tag = (
                    str(gname.value.value)
                    if gname is not None and isinstance(gname.value, Scalar) and gname.value.value
                    else f"replicas[{k}]"
                )
                parts.append((f"dstack/{stem}/{tag}", group))
    for dep_name, part in parts:
        hint = _accelerators(part, "gpu") or _accelerators(root, "gpu") or image
        _read_commands(found, part, dep_name, src, path, files, platform, env, dict(start), hint)
    return found


def _image_hint(root: Mapping) -> Val | None:
    image = root.get("image")
    if (
        image is None
        or not isinstance(image.value, Scalar)
        or not isinstance(image.value.value, str)
    ):
        return None
    p = platform_of_image(image.value.value)
    return None if p is None else Val(p, f"image {image.value.value}", image.value.loc)


def _read_commands(
    found: Found,
    part: Mapping,
    stem: str,
    src: Source,
    path: str,
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
    start: Env,
    hint: Val | None,
) -> None:
    """One ``commands`` list, read as one script (each item a line of it)."""
    commands = part.get("commands")
    if commands is None:
        return
    items = commands.value.items if isinstance(commands.value, Sequence) else [commands.value]
    text: list[str] = []
    spans: list = []
    for node in items:
        if not isinstance(node, Scalar) or not isinstance(node.value, str):
            continue
        word = yaml_word(node, src)
        if text:
            text.append("\n")
            spans.append(word.whole)
        text.append(word.text)
        spans.extend(s if s is not None else word.whole for s in word.spans)
    if not text:
        return
    chars = Chars("".join(text), spans)
    base_dir = os.path.dirname(path) or "."
    ctx = LaunchContext(os.path.basename(path), base_dir, seed_env(env), unset_reason=_UNSET)
    try:
        launches = script_launches(src, start, ctx, chars)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return
    block = []
    for launch, dep_name in zip(launches, names_for(stem, len(launches))):
        try:
            block.append(build(launch, dep_name, path, base_dir, files, platform, env, hint))
        except InputProblem as problem:
            found.errors.append(problem.to_error())
    attach(block, chars)
    found.deployments.extend(block)


def _run_env(root: Mapping, src: Source, label: str, env: dict[str, Val]) -> Env:
    """What the commands start with: swacheck's ``--env``, then the configuration's ``env``."""
    start = seed_env(env)
    node = root.get("env")
    if node is None:
        return start
    entries: list[tuple[str, object, object]] = []  # (name, value word or None, where)
    if isinstance(node.value, Mapping):
        for key, p in node.value.pairs.items():
            known = isinstance(p.value, Scalar) and p.value.value is not None
            entries.append((key, yaml_word(p.value, src) if known else None, p.key_loc))  # type: ignore[arg-type]
    elif isinstance(node.value, Sequence):
        for item in node.value.items:
            if isinstance(item, Scalar) and isinstance(item.value, str):
                key, eq, _ = item.value.partition("=")
                word = yaml_word(item, src)
                entries.append(
                    (key.strip(), word.sub(word.text.index("=") + 1) if eq else None, item.loc)
                )
    for key, word, where in entries:
        if not key:
            continue
        if word is not None:
            start[key] = Var(word, True, f"env {key} in {label}")  # type: ignore[arg-type]
        elif key not in start:
            start[key] = Var(
                None,
                True,
                f"env {key} in {label}",
                f"{key} is taken from the environment dstack apply runs in",
                where,  # type: ignore[arg-type]
            )
    return start
