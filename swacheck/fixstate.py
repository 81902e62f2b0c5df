"""What a ``--fix`` or ``--diff`` session keeps (``fixplan.Fixer``): each file a fix touches, the
fixes applied, and the outcome the commands report (``fixer.py``, ``fixworkers.py``)."""

from __future__ import annotations

from dataclasses import field

from .model.records import Fix
from .model.recordtype import record


@record(repr=False, eq=False)
class FileState:
    """A file a fix touches: the checked bytes (as text) and the text proposed for it."""

    path: str  # as the first finding named it
    real: str
    digest: bytes  # sha256 of the bytes that were checked
    bom: bool
    original: str  # the checked text, without its BOM
    text: str  # the proposed text
    fixes: list[tuple[str, Fix]] = field(
        default_factory=list
    )  # (code, fix) applied to it, for --diff
    round_text: str = ""  # the text before the current round, to take a round back
    round_fixes: int = 0  # len(fixes) before the current round
    seen: set[str] = field(default_factory=set)  # its texts at the start of each round (cycles)

    def data(self) -> bytes:
        return (("\ufeff" if self.bom else "") + self.text).encode("utf-8")


@record(repr=False, eq=False)
class Applied:
    """One fix applied in memory: the finding it targets, and the files it edits (real paths)."""

    ident: tuple
    code: str
    fix: Fix
    files: frozenset[str]
    names: frozenset[str] = frozenset()  # the arguments it may change (fixverify.names_of)


@record(repr=False, eq=False)
class Outcome:
    """What the rounds decided, for the summary and the exit code."""

    states: dict[str, FileState] = field(default_factory=dict)  # real path -> state
    applied: list[Applied] = field(default_factory=list)  # the fixes kept, round by round
    refused: dict[tuple, str] = field(
        default_factory=dict
    )  # identity -> why its fix was taken back
    messages: list[str] = field(default_factory=list)  # one line each, to stderr
    about: list[str] = field(default_factory=list)  # the real path each line is about
    held: set[str] = field(
        default_factory=set
    )  # model-config files not written without --fix-model-configs
    # standard input and --command texts that fixes would edit: checked, never written
    unwritable: set[str] = field(default_factory=set)
    result: object = None  # the last check's RunResult
    final: bool = False  # ``result`` is the check of the texts proposed (the rounds ended)

    def say(self, about: str, line: str) -> None:
        """One line to say, about the file of real path ``about``."""
        self.messages.append(line)
        self.about.append(about)

    def said(self) -> list[str]:
        """The lines, by file (in the order of their real paths), each file's as they came."""
        return [line for _, line in sorted(zip(self.about, self.messages), key=lambda m: m[0])]
