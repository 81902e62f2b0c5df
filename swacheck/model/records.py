"""Plain data shared by every stage: positions, provenance, findings.

Nothing here does I/O or knows about SGLang; the stages import these types and pass them
along one way: load -> normalise -> resolve -> check -> report.

The value records (``Location``, ``Val``, ``Edit``, ...) are hashable and treated as immutable,
but not declared ``frozen``: a frozen dataclass's ``__init__`` sets each field through
``object.__setattr__`` (4x slower, and these are built per YAML node) and its class costs
more to create at start-up. Containers that are never compared (a run's results, a
resolution) are declared with ``eq=False, repr=False`` for the same start-up reason.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .recordtype import record

SEVERITIES = ("error", "warning", "note")
SEVERITY_RANK = {"note": 0, "warning": 1, "error": 2}


@record(unsafe_hash=True)
class Location:
    """A span in a file. Lines and columns are 1-based; ``end_column`` is exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }


@record(unsafe_hash=True)
class Val:
    """A value together with where it came from.

    ``location`` is the key or value in a file that set it; ``origin`` says in words how it
    was obtained (``"SGLang default: ..."``, ``"derived: ..."``); ``inputs`` are the values
    a derived number was computed from, named, so that ``explain`` can print the trace.
    """

    value: Any
    origin: str
    location: Location | None = None
    inputs: tuple[tuple[str, Val], ...] = ()

    def describe(self) -> str:
        """Where the value came from, in a few words, for tables."""
        if self.location is not None:
            return str(self.location)
        return self.origin


@record(unsafe_hash=True)
class Edit:
    """Replace the text between two positions (an insertion when start == end)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "replacement": self.replacement,
        }


@record(unsafe_hash=True)
class Fix:
    """What to do about a finding, and the edits that do it (none: a hint to act on by hand).

    ``safe`` (ruff's model): a safe fix keeps what the deployment runs and the resources it uses
    (it writes what SGLang would do anyway, or corrects a spelling); an unsafe one changes them
    (drops the draft path, changes parallelism, a dtype or a memory setting) and is applied only
    with ``--unsafe-fixes``.
    """

    description: str
    edits: tuple[Edit, ...] = ()
    safe: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "safe": self.safe,
            "edits": [e.to_json() for e in self.edits],
        }


@record(unsafe_hash=True)
class Related:
    """A second location a finding refers to (the other side of a mismatch)."""

    location: Location
    message: str

    def to_json(self) -> dict[str, Any]:
        return {**self.location.to_json(), "message": self.message}


@record
class Finding:
    """What a rule found: code, severity, message, where, its fix and related locations."""

    code: str
    severity: str
    message: str
    location: Location | None
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    field: str = ""  # the geometry field or argument the finding is about (stable id)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "location": self.location.to_json() if self.location else None,
            "related": [r.to_json() for r in self.related],
            "fix": self.fix.to_json() if self.fix else None,
        }


def position_key(f: Finding) -> tuple[int, str, int, int, str]:
    """Findings in reading order: by file, line and column (then rule); those without a
    location after the others."""
    loc = f.location
    if loc is None:
        return (1, "", 0, 0, f.code)
    return (0, loc.file, loc.line, loc.column, f.code)


@record(unsafe_hash=True)
class InputError:
    """A file or value swacheck cannot use: reported as ``file:line:col: message``, exit 2."""

    file: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        """``file:line:col: message``, through the terminal escaping (report/escape.py): this
        is the line printed on stderr."""
        from .text import terminal

        pos = self.file
        if self.line is not None:
            pos += f":{self.line}:{self.column or 1}"
        return terminal(f"{pos}: {self.message}")

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }


class InputProblem(Exception):
    """Raised inside loading/normalising; turned into an :class:`InputError` by the runner."""

    def __init__(self, message: str, location: Location | None = None, file: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.file = file if file is not None else (location.file if location else "")

    def to_error(self) -> InputError:
        if self.location is not None:
            return InputError(
                self.location.file, self.location.line, self.location.column, self.message
            )
        return InputError(self.file or "<input>", None, None, self.message)


@record
class Summary:
    """The counts of a run: files, deployments, findings by severity, errors, left-out findings."""

    files: int = 0
    deployments: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SEVERITIES, 0))
    input_errors: int = 0
    suppressed: int = 0
    baselined: int = 0  # findings left out because the --baseline file holds them
    skipped_files: int = 0  # files that hold no deployment (named or walked)
    skipped_deployments: int = (
        0  # deployments not checked: no draft pool, or not a DeepSeek-V4 target
    )
    failing: bool = False  # a finding at or above --fail-on
    by_code: dict[str, int] = field(default_factory=dict)  # findings per rule (--statistics)
    severity_of: dict[str, str] = field(default_factory=dict)  # each rule's severity as reported
    # "SGLang 0.5.19, from image tag ..." -> deployments checked with a release their file names
    releases: dict[str, int] = field(default_factory=dict)
    fixable: int = 0  # findings with a safe fix that has edits (--fix applies it)
    unsafe_fixable: int = 0  # findings with an unsafe fix that has edits (--unsafe-fixes)
