"""What identifies a finding across runs: its file (relative to the repository), its rule and its
logical location, never its line. SARIF's ``partialFingerprints``, GitLab's ``fingerprint`` and
``--baseline`` / ``--write-baseline`` (applied by the engine to each unit) share these; they live
below the engine so that the engine does not import a renderer (docs/architecture.md, "Layers").
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from .results import RunResult

NO_FILE = {"-", "<stdin>", "<input>", "", "swacheck"}  # "swacheck": the run as a whole


def base_dir(settings: Any) -> str:
    """The folder that the ``github`` and ``sarif`` paths are relative to: ``GITHUB_WORKSPACE``
    (where ``actions/checkout`` puts the repository, whatever the step's ``working-directory``),
    else the run's root (``--root``, else the git top-level of the first path, else the working
    directory). GitHub resolves annotation and code-scanning paths against the repository root."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace and os.path.isdir(workspace):
        return os.path.realpath(workspace)
    root = getattr(settings, "root", None)
    return root or os.getcwd()


def _relative(file: str, base: str) -> str | None:
    """``file`` relative to ``base``, or None when it lies outside."""
    for path, folder in (
        (os.path.abspath(file), os.path.abspath(base)),
        (os.path.realpath(file), os.path.realpath(base)),
    ):
        try:
            rel = os.path.relpath(path, folder)
        except ValueError:  # another drive on Windows
            continue
        if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
            return rel
    return None


def repo_path(file: str, base: str | None = None) -> str:
    """A path relative to ``base`` (default: the working directory), with forward slashes and no
    leading ./. Paths outside ``base`` stay as they are (absolute, or with ``..``)."""
    if file in NO_FILE:
        return file
    rel = _relative(file, base or os.getcwd())
    if rel is None:
        return file.replace(os.sep, "/") if not os.path.isabs(file) else file
    return PurePosixPath(*Path(rel).parts).as_posix()


def fingerprint(file: str, code: str, logical: str) -> str:
    """What identifies an alert across runs: the file it is in (relative to the repository root),
    the rule and the finding's logical location (:func:`logical_location`); no line number, and
    nothing that depends on the other files in the run or their order."""
    # surrogateescape: a path or deployment name that is not UTF-8 hashes its bytes
    return hashlib.sha256(
        f"{file}\0{code}\0{logical}".encode("utf-8", "surrogateescape")
    ).hexdigest()


def with_severity(key: str, severity: str) -> str:
    """A ``--baseline`` fingerprint: the finding's (:func:`fingerprinted`) and its severity, so a
    baselined note that becomes an error (SWA101 once PD is added) is reported again."""
    return hashlib.sha256(f"{key}\0{severity}".encode("ascii")).hexdigest()


def logical_location(deployment_file: str, deployment: str, field: str) -> str:
    """The key a finding is about, by name: its deployment (file and name, since several
    deployments can share one file) and the geometry field or server argument."""
    return f"{deployment_file}#{deployment}/{field or '-'}"


def fingerprinted(result: RunResult, base: str) -> Iterator[tuple[Any, Any, str, str]]:
    """(deployment result, finding, logical location, fingerprint) for every finding, in report
    order. Repeats of one (file, rule, logical location) are numbered in that order. SARIF,
    GitLab and ``--baseline`` share these fingerprints."""
    seen: dict[str, int] = {}
    for r in result.results:
        deployment_file = repo_path(r.deployment.file, base)
        for f in r.findings:
            logical = logical_location(deployment_file, r.deployment.name, f.field)
            key = fingerprint(
                repo_path(f.location.file if f.location else r.deployment.file, base),
                f.code,
                logical,
            )
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:
                key = hashlib.sha256(f"{key}:{seen[key]}".encode("ascii")).hexdigest()
            yield r, f, logical, key


INPUT_ERROR = "input-error"  # the rule id SARIF and GitLab give an input error


def input_error_fingerprint(path: str, message: str) -> str:
    """An input error's identity across runs: its file (relative to the repository root) and its
    message, without its line (the message is what a fix changes)."""
    return fingerprint(path, INPUT_ERROR, message)
