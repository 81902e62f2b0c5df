"""The Python API: ``swacheck.check(paths, **options)`` and ``swacheck.check_text(text, filename,
**options)``, each returning a :class:`Report`.

Stability promise (docs/api.md): the two functions, their options and the fields of
:class:`Report`, :class:`Finding`, :class:`Location`, :class:`Deployment` and :class:`InputError`
keep their names and meaning across every 0.x and 1.x release; fields may be added (always
with a default). Nothing else in the ``swacheck`` package is API: modules are reorganised freely.

The options are the configuration file's settings with ``_`` for ``-`` (``fail_on="warning"``,
``model_config={...}``), plus ``config`` (a configuration file, or False for none), ``root``
and ``allow_empty``. As on the command line, the nearest ``swacheck.toml`` / ``pyproject.toml
[tool.swacheck]`` above the working directory applies unless ``config`` says otherwise, and
an option given here wins over the file. An invalid option or configuration file raises
``ValueError`` (``TypeError`` for an unknown option name); a file that cannot be read or parsed
is never an exception but an :class:`InputError` in the report (exit code 2), as on the
command line. Nothing is printed and no file is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from .model.recordtype import record

__all__ = ["check", "check_text", "Report", "Finding", "Location", "Deployment", "InputError"]


@record(frozen=True)
class Location:
    """A span in a file: 1-based lines and columns, ``end_column`` exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@record(frozen=True)
class Finding:
    """One finding of :func:`check`: a rule, its severity and message, where, and its fix in words."""

    code: str  # the rule, e.g. "SWA101"
    severity: str  # "error", "warning" or "note"
    message: str
    location: Location | None  # the key to edit; None when no file position applies
    deployment: str = ""  # the name of the deployment it was found in
    fix: str | None = None  # what the fix does, in words (``--fix`` applies it)

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.code} {self.severity}: {self.message}"


@record(frozen=True)
class Deployment:
    """One deployment :func:`check` read: its file and name, pool mode, geometry tuples and findings."""

    file: str
    name: str
    mode: str  # "unified", "paged", or "skipped" (no draft pool, or not a DeepSeek-V4 target)
    target: tuple[Any, ...] | None  # the geometry tuple SGLang compares, None when not derived
    draft: tuple[Any, ...] | None
    findings: tuple[Finding, ...] = ()


@record(frozen=True)
class InputError:
    """A file or value swacheck cannot use (the command line's exit 2)."""

    file: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        where = (
            f"{self.file}:{self.line}:{self.column or 1}" if self.line is not None else self.file
        )
        return f"{where}: {self.message}"


@record(frozen=True)
class Report:
    """What :func:`check` returns: the exit code the command line would give, and everything found."""

    exit_code: int  # what the command line would exit with: 0 clean, 1 findings, 2 input errors
    findings: tuple[Finding, ...]  # every finding, sorted by file and position
    deployments: tuple[Deployment, ...]
    errors: tuple[InputError, ...] = ()
    skipped: tuple[str, ...] = ()  # files that hold no deployment

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


# the configuration file's settings that shape only printed output or fixes, which the API has not
_OUTPUT_ONLY = ("format", "color", "unsafe-fixes")


def _file_options() -> dict[str, str]:
    """option -> the configuration file's key (``fail_on`` -> ``fail-on``), validated as the file's
    values are: every setting of ``config.KEYS`` but those of :data:`_OUTPUT_ONLY`."""
    from .config import KEYS

    return {key.replace("-", "_"): key for key in KEYS if key not in _OUTPUT_ONLY}


_OTHER_OPTIONS = ("config", "root", "allow_empty")


def check(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], **options: Any
) -> Report:
    """Check files and directories, as ``swacheck check PATH...`` does."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _run([os.fspath(p) for p in paths], None, None, options)


def check_text(text: str, filename: str, **options: Any) -> Report:
    """Check ``text`` as if it were the file ``filename`` (which need not exist): its name decides
    how it is read (``.yaml``, ``.json``, ``.sh``, ``Dockerfile``) and its folder is where the
    files it refers to are looked up, as with ``--stdin-filename``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return _run(["-"], text, os.fspath(filename), options)


def _run(
    paths: list[str], text: str | None, filename: str | None, options: dict[str, Any]
) -> Report:
    from .config import KEYS, ConfigError, build_settings, convert
    from .engine import run, without_cyclic_gc

    file_options = _file_options()
    unknown = [k for k in options if k not in file_options and k not in _OTHER_OPTIONS]
    if unknown:
        import difflib

        near = difflib.get_close_matches(unknown[0], [*file_options, *_OTHER_OPTIONS], n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise TypeError(f"unknown option {unknown[0]!r}{hint}")
    given: dict[str, Any] = {}
    for option, value in options.items():
        if option in file_options and value is not None:
            key = file_options[option]
            given[KEYS[key]] = convert(key, value, f"swacheck option {option}", os.getcwd())
    config = options.get("config")
    settings = build_settings(
        given,
        use_config=config is not False,
        config_file=os.fspath(config) if config not in (None, True, False) else None,
    )
    root = options.get("root")
    if root is not None:
        if not os.path.isdir(root):
            raise ConfigError(f"root {os.fspath(root)!r} is not a directory")
        settings.root = os.path.realpath(root)
    settings.paths = paths
    settings.allow_empty = bool(options.get("allow_empty", False))
    settings.stdin_text, settings.stdin_filename = text, filename
    with without_cyclic_gc():
        result = run(settings)
    return _report(result)


def _location(loc: Any) -> Location | None:
    if loc is None:
        return None
    return Location(loc.file, loc.line, loc.column, loc.end_line, loc.end_column)


def _report(result: Any) -> Report:
    from .model.records import position_key

    deployments = []
    findings: list[tuple[Any, Finding]] = []
    for r in result.results:
        res = r.resolution
        own = []
        for f in r.findings:
            finding = Finding(
                f.code,
                f.severity,
                f.message,
                _location(f.location),
                r.deployment.name,
                f.fix.description if f.fix else None,
            )
            own.append(finding)
            findings.append((f, finding))
        tuples = []
        for pool in (res.target, res.draft):
            mode = (
                res.mode
                if res.mode != "skipped" or pool is None
                else ("unified" if pool.unified.value else "paged")
            )
            tuples.append(tuple(pool.tuple(mode, res.profile)) if pool is not None else None)
        deployments.append(
            Deployment(
                r.deployment.file, r.deployment.name, res.mode, tuples[0], tuples[1], tuple(own)
            )
        )
    findings.sort(key=lambda pair: position_key(pair[0]))
    errors = tuple(InputError(e.file, e.line, e.column, e.message) for e in result.errors)
    return Report(
        result.exit_code,
        tuple(f for _, f in findings),
        tuple(deployments),
        errors,
        tuple(result.skipped),
    )
