"""Reading DSV4 target/draft errors out of text, a log or a traceback (pure, streaming).

Text or log lines -> one :class:`ParsedError` per distinct error (with how many times it
appeared, its first line and the releases a traceback frame in ``utils.py`` points at) and a
:class:`Malformed` for each DSV4 message whose tuples cannot be read. The messages and their
releases are in :mod:`swacheck.why.messages`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from dataclasses import field

from ..model.recordtype import record
from .messages import CHECK_ORDER, MESSAGE_LINES, VERSIONS, WORDINGS, Wording


def _pattern(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in text.split())


_MESSAGE = re.compile("|".join(f"(?P<w{i}>{_pattern(w.text)})" for i, w in enumerate(WORDINGS)))
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_FRAME = re.compile(
    r'File "[^"]*disaggregation[/\\]utils\.py", line (?P<line>\d+), in setup_state_kv_args'
)
_TARGET = re.compile(r"\s*target\s*=\s*\(")
_DRAFT = re.compile(r"\s*,\s*draft\s*=\s*\(")
_LITERAL_START = re.compile(r"\s*[rfRF]{0,2}[\"']")  # a string literal opening a source line
_INT = re.compile(r"[+-]?\d{1,30}")
FRAME_REACH = 12  # a traceback frame this many lines above the message belongs to it

# ---------------------------------------------------------------------------------------------
# Parsing (pure)
# ---------------------------------------------------------------------------------------------


class TupleError(ValueError):
    """The tuples after a geometry message cannot be read; the text says what is wrong."""


@record
class ParsedError:
    """One distinct DSV4 target/draft error, however many times the text repeats it."""

    wording: Wording
    message: str  # the message on one line, tuples as SGLang prints them
    target: tuple | None
    draft: tuple | None
    first_line: int
    count: int = 1
    frame_versions: tuple[str, ...] = ()  # releases whose utils.py line matches a traceback frame

    @property
    def kind(self) -> str:
        return self.wording.kind

    @property
    def fields(self) -> tuple[str, ...]:
        return self.wording.fields


@record
class Malformed:
    """A DSV4 message whose tuples cannot be read (reported once, however often repeated)."""

    line: int
    problem: str
    count: int = 1


@record
class Parse:
    """The DSV4 geometry errors found in a text, and the lines that look like one but do not parse."""

    errors: list[ParsedError] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)


def clean_line(raw: str) -> str:
    """A log line without its line ending and ANSI escape sequences."""
    line = raw.rstrip("\r\n")
    return _ANSI.sub("", line) if "\x1b" in line else line


def parse_text(text: str) -> Parse:
    return parse_lines(text.splitlines())


def parse_lines(lines: Iterable[str]) -> Parse:
    """Find every DSV4 target/draft message in log lines (numbered from 1); streams, for big logs."""
    scanner = _Scanner()
    for number, raw in enumerate(lines, 1):
        scanner.feed(number, raw)
    return scanner.finish()


class _Scanner:
    """Line by line: remembers the last traceback frame in ``utils.py`` and a message broken
    right after "geometry:", whose tuples are then read from the next line."""

    def __init__(self) -> None:
        self.out = Parse()
        self.errors: dict[str, ParsedError] = {}
        self.malformed: dict[str, Malformed] = {}
        self.frame: tuple[int, int] | None = None  # (log line, utils.py line)
        self.pending: tuple[int, Wording, tuple[int, int] | None] | None = None

    def feed(self, number: int, raw: str) -> None:
        if self.pending is None and "DSV4" not in raw and "setup_state_kv_args" not in raw:
            return  # the fast path: almost every line of a log
        line = clean_line(raw)
        match = _MESSAGE.search(line)
        if match is not None and _is_source(line, match.start()):
            match = None  # a traceback's source line, e.g. `"DSV4 ... geometry: "`
        if self.pending is not None:
            start, wording, frame = self.pending
            self.pending = None
            if match is None:
                cont = re.search(r"target\s*=", line)
                self.record(
                    wording, line[cont.start() :] if cont else line, start, frame, continued=True
                )
                return
            self.bad(start, _cut_short(wording))
        if match is None:
            if (fm := _FRAME.search(line)) is not None:
                self.frame = (number, int(fm["line"]))
            return
        wording = WORDINGS[int(match.lastgroup[1:])]  # type: ignore[index]
        frame = (
            self.frame if self.frame is not None and number - self.frame[0] <= FRAME_REACH else None
        )
        self.frame = None
        tail = line[match.end() :]
        if wording.fields and not tail.strip():
            self.pending = (number, wording, frame)
        else:
            self.record(wording, tail, number, frame)

    def finish(self) -> Parse:
        if self.pending is not None:
            self.bad(self.pending[0], _cut_short(self.pending[1]))
            self.pending = None
        return self.out

    def bad(self, number: int, problem: str) -> None:
        if problem in self.malformed:
            self.malformed[problem].count += 1
        else:
            self.malformed[problem] = Malformed(number, problem)
            self.out.malformed.append(self.malformed[problem])

    def record(
        self,
        wording: Wording,
        tail: str,
        number: int,
        frame: tuple[int, int] | None,
        continued: bool = False,
    ) -> None:
        target = draft = None
        message = wording.text
        if wording.fields:
            try:
                target, draft = parse_tuples(tail, wording)
            except TupleError as exc:
                self.bad(number, f"{exc}{' (on the next line)' if continued else ''}")
                return
            message = f"{wording.text} target={format_tuple(target)}, draft={format_tuple(draft)}"
        versions = frame_versions(wording, frame[1]) if frame else ()
        err = self.errors.get(message)
        if err is None:
            err = self.errors[message] = ParsedError(
                wording, message, target, draft, number, frame_versions=versions
            )
            self.out.errors.append(err)
        else:
            err.count += 1
            err.frame_versions = tuple(
                v for v in VERSIONS if v in err.frame_versions or v in versions
            )


def _cut_short(wording: Wording) -> str:
    return f"the message ends after {wording.text!r}: expected target=(...), draft=(...) on the same or the next line"


def _is_source(line: str, start: int) -> bool:
    """A Python source line a traceback prints (``raise RuntimeError(...`` or a string literal
    alone on its line, as Python 3.13 shows a multi-line raise), not the message itself."""
    before = line[:start]
    return (
        line.lstrip().startswith("raise ")
        or "RuntimeError(" in before
        or _LITERAL_START.fullmatch(before) is not None
    )


def frame_versions(wording: Wording, utils_line: int) -> tuple[str, ...]:
    """Releases whose message sits at (or just after) this ``utils.py`` traceback line."""
    index = CHECK_ORDER.index(wording.kind)
    return tuple(
        v for v in wording.versions if utils_line - 1 <= MESSAGE_LINES[v][index] <= utils_line + 4
    )


def format_tuple(values: tuple | None) -> str:
    return "None" if values is None else repr(tuple(values))


def parse_tuples(tail: str, wording: Wording) -> tuple[tuple, tuple]:
    """``target=(...), draft=(...)``: integers and None only, the shape this wording prints."""
    m = _TARGET.match(tail)
    if m is None:
        raise TupleError(f"expected target=(...) after {wording.text!r}, found {_snippet(tail)}")
    close = tail.find(")", m.end())
    if close < 0:
        raise TupleError(f"the target tuple has no closing ')': {_snippet(tail)}")
    target = _elements(tail[m.end() : close], "target", wording)
    m = _DRAFT.match(tail, close + 1)
    if m is None:
        raise TupleError(
            f"expected ', draft=(...)' after target={format_tuple(target)}, found {_snippet(tail[close + 1 :])}"
        )
    close = tail.find(")", m.end())
    if close < 0:
        raise TupleError(f"the draft tuple has no closing ')': {_snippet(tail[m.start() :])}")
    draft = _elements(tail[m.end() : close], "draft", wording)
    return target, draft


def _snippet(text: str) -> str:
    text = text.strip()
    return "nothing" if not text else repr(text if len(text) <= 40 else text[:40] + "...")


def _elements(text: str, side: str, wording: Wording) -> tuple:
    fields = wording.fields
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # Python's repr of a one-element tuple: (5,)
    if parts == [""]:
        parts = []
    values: list[int | None] = []
    for i, part in enumerate(parts, 1):
        name = f" ({fields[i - 1]})" if i <= len(fields) else ""
        if _INT.fullmatch(part):
            values.append(int(part))
        elif part == "None":
            values.append(None)
        elif not part:
            raise TupleError(f"{side} element {i}{name} is empty in {side}=({text.strip()})")
        else:
            raise TupleError(
                f"{side} element {i}{name} {part!r} is not an integer or None in {side}=({text.strip()})"
            )
    if len(values) != len(fields):
        raise TupleError(
            f"{side}=({text.strip()}) has {len(values)} element{'s' if len(values) != 1 else ''}; "
            f"this message prints {len(fields)}: ({', '.join(fields)})"
        )
    for name, value in zip(fields, values):
        if value is None and name != "ring_capacity":
            raise TupleError(
                f"{side} {name} is None in {side}=({text.strip()}); SGLang prints an integer there"
            )
        if value is not None and value < 0:
            raise TupleError(f"{side} {name} {value} is negative in {side}=({text.strip()})")
    return tuple(values)


def read_log(path: str) -> tuple[Parse | None, str]:
    """Parse a log file (or stdin for ``-``) line by line; (None, error) when it cannot be read."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else (sys.stdin.read() if sys.stdin else "")
        text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
        return parse_text(text), ""
    try:
        from ..loading import special_kind

        kind = special_kind(os.stat(path).st_mode)
        if (
            kind is not None and kind != "a directory"
        ):  # a FIFO or a device would block or never end
            return (
                None,
                f"{path}: is {kind}, not a regular file: swacheck reads only regular files (use - for standard input)",
            )
        with open(path, encoding="utf-8", errors="replace") as fh:
            return parse_lines(fh), ""
    except FileNotFoundError:
        return None, f"{path}: no such file"
    except IsADirectoryError:
        return None, f"{path}: is a directory, not a log file"
    except PermissionError:
        return None, f"{path}: permission denied"
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
