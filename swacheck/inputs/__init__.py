"""Find input files, classify each document by its content, normalise into Deployments.

Kinds (design.md §2): a swacheck deployment document (top-level ``swacheck: 1``) or an
SGLang server config (a ``model-path`` key). In a walked directory other files are skipped;
a file named explicitly that is neither is an input error, so a typo in CI never passes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..loading import FileCache, Mapping, SourceFile, kind_name
from ..model import InputError, InputProblem, Val
from .deployment_file import is_deployment_file, load_deployment
from .server_config import is_server_config, load_server_args
from .types import Arg, Deployment, ExplicitGeometry, ModelRef, ServerArgs

__all__ = [
    "Arg",
    "Deployment",
    "ExplicitGeometry",
    "ModelRef",
    "ServerArgs",
    "Candidate",
    "Inputs",
    "discover",
    "read_inputs",
]

EXTENSIONS = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class Candidate:
    path: str
    explicit: bool  # named on the command line (vs found by walking a directory)


@dataclass(slots=True)
class Inputs:
    deployments: list[Deployment] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # files that held at least one deployment
    skipped: list[str] = field(default_factory=list)  # walked files that hold no deployment


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[Candidate], list[InputError]]:
    """Expand directories (sorted, hidden folders skipped, symlinked folders not followed)."""
    out: list[Candidate] = []
    errors: list[InputError] = []
    seen: set[str] = set()

    def add(path: str, explicit: bool) -> None:
        key = path if path == "-" else os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(Candidate(path, explicit))

    for raw in paths:
        if raw == "-":
            add(raw, True)
        elif os.path.isdir(raw):
            for dirpath, dirnames, filenames in os.walk(raw):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in exclude)
                for name in sorted(filenames):
                    if name.lower().endswith(EXTENSIONS) and name not in exclude:
                        add(os.path.normpath(os.path.join(dirpath, name)), False)
        elif os.path.exists(raw):
            add(raw, True)
        else:
            errors.append(InputError(raw, None, None, "no such file or directory"))
    return out, errors


def _what(source: SourceFile) -> str:
    """What a file that is not a deployment holds, in a few words."""
    if not source.documents:
        return "the file is empty" if not source.text.strip() else "the file holds only comments"
    root = source.documents[0].root
    if isinstance(root, Mapping):
        keys = ", ".join(list(root.pairs)[:3])
        return f"a mapping with keys {keys}" if keys else "an empty mapping"
    return f"{kind_name(root)} at the top level"


def read_inputs(
    candidates: list[Candidate],
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
    stdin_text: str | None = None,
) -> Inputs:
    result = Inputs()
    ordered: list[tuple[Deployment, bool]] = []  # (deployment, is a standalone server config)
    referenced_servers: set[str] = set()
    for cand in candidates:
        try:
            text = stdin_text if cand.path == "-" else None
            source = files.load(cand.path, text)
        except InputProblem as problem:
            result.errors.append(problem.to_error())
            continue
        found = 0
        for doc in source.documents:
            try:
                if is_deployment_file(doc.root):
                    dep = load_deployment(doc.root, cand.path, doc.index, files, platform, env)  # type: ignore[arg-type]
                    dep.duplicates[:0] = doc.duplicates
                    if dep.server.file and dep.server.file != cand.path:
                        referenced_servers.add(os.path.realpath(dep.server.file))
                    ordered.append((dep, False))
                    found += 1
                elif is_server_config(doc.root):
                    if source.raw_documents > 1:
                        raise InputProblem(
                            "an SGLang server config must be a single YAML document (SGLang reads it with yaml.safe_load)",
                            doc.root.loc,
                        )
                    stem = os.path.splitext(os.path.basename(cand.path))[0]
                    server = load_server_args(doc.root, cand.path)
                    dep = Deployment(stem, cand.path, doc.root.loc, platform, dict(env), server, duplicates=list(doc.duplicates))
                    ordered.append((dep, True))
                    found += 1
            except InputProblem as problem:
                result.errors.append(problem.to_error())
                found += 1
        if found:
            result.files.append(cand.path)
        elif cand.explicit:
            result.errors.append(
                InputError(
                    cand.path,
                    None,
                    None,
                    f"not a deployment ({_what(source)}): expected an SGLang server config (a 'model-path' key) "
                    "or a swacheck deployment file ('swacheck: 1')",
                )
            )
        else:
            result.skipped.append(cand.path)
    # A server config that a deployment file in this run points at is checked through that
    # deployment (with its platform and env), not a second time on its own.
    for dep, is_standalone in ordered:
        if is_standalone and os.path.realpath(dep.file) in referenced_servers:
            result.skipped.append(dep.file)
            result.files.remove(dep.file)
        else:
            result.deployments.append(dep)
    return result
