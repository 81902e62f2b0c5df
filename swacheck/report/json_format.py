"""``--format json``: the versioned, documented report (docs/api.md, "JSON output").

Every string written, keys included, goes through ``escape.json_text`` (report/escape.py):
strings keep their line breaks (edits need them) but lose any other control character, and
credentials are redacted. :func:`dump` applies it as it writes, so the report is built once
as plain data and never copied to be escaped."""

from __future__ import annotations

import json
from typing import Any, TextIO

from .. import __version__
from ..model.records import Val
from ..results import DeploymentResult, RunResult, ServerPair
from ..settings import Settings
from .common import deployment_head, pool_json
from .escape import json_text, json_text_at, keep
from .renderer import render_run

SCHEMA_VERSION = 1
PAIRS_IN_MEMORY = 4 * 1024 * 1024  # characters of pair text kept in memory before spilling to disk
# entries of each text memo below: most of a report's repeated strings repeat within a unit (its
# paths and places), and a memo that is full is emptied; at 16,384 entries both filled only in
# runs over about 2,000 deployments and held 4 MB more of peak RSS at 20,000 (44 -> 40 MB),
# for no gain in time
MEMO_SIZE = 1 << 12


def deployment_json(r: DeploymentResult) -> dict[str, Any]:
    res = r.resolution
    out = {
        **deployment_head(r),
        "platform": res.values["platform"].value,
        "target": pool_json(res, res.target),
        "draft": pool_json(res, res.draft),
        "findings": [f.to_json() for f in r.findings],
    }
    release = r.deployment.release
    if release is not None:  # the file chose the release (no --sglang-version): which, and where
        out["sglang_release"] = {
            "version": res.profile.version,
            "named": release.value or None,
            "source": release.origin,
            "location": release.location.to_json() if release.location else None,
        }
    return out


def pair_json(pair: ServerPair) -> dict[str, Any]:
    """A PD pair as data: both servers, every compared value and the pair's findings."""
    return {
        "prefill": {"file": pair.prefill.deployment.file, "name": pair.prefill.deployment.name},
        "decode": {"file": pair.decode.deployment.file, "name": pair.decode.deployment.name},
        "how": pair.how,
        "compared": Compared(pair.rows()),
        "findings": [f.to_json() for f in pair.findings],
    }


class Compared(list[tuple[str, Val, Val]]):
    """A pair's compared values, (name, prefill value, decode value) in order, written as the
    object ``{name: {"prefill": ..., "decode": ..., "differs": ..., "prefill_from": ...,
    "decode_from": ...}}`` (:meth:`data`) by :func:`dump`, which writes each member's text once:
    at 2,000 deployments 933 pairs compare 17,727 values, and those of the two servers come from
    SGLang's defaults or the same derivation far more often than not."""

    def data(self) -> dict[str, Any]:
        return {
            name: _compared(p.value, d.value, p.describe(), d.describe()) for name, p, d in self
        }

    def text(self) -> str:
        return "{" + ", ".join(_compared_member(name, p, d) for name, p, d in self) + "}"


def _compared(prefill: Any, decode: Any, prefill_from: str, decode_from: str) -> dict[str, Any]:
    return {
        "prefill": prefill,
        "decode": decode,
        "differs": prefill != decode,
        "prefill_from": prefill_from,
        "decode_from": decode_from,
    }


_MEMBERS: dict[
    tuple[Any, ...], str
] = {}  # (name, values and their types, origins) -> the member's text
_KEYED = (str, int, bool, type(None))  # the values a member's text is kept for (hashable, and
# with their type in the key: 1 and True are equal but written differently)


def _compared_member(name: str, p: Val, d: Val) -> str:
    """``"name": {...}`` as the C encoder writes it; kept for values from no file position (a
    default, a derivation), which repeat across servers, and never for more than a bound."""
    pv, dv = p.value, d.value
    if p.location is None and d.location is None and type(pv) in _KEYED and type(dv) in _KEYED:
        key = (name, type(pv), pv, p.origin, type(dv), dv, d.origin)
        text = _MEMBERS.get(key)
        if text is None:
            text = _string(name) + ": " + _compact(_compared(pv, dv, p.origin, d.origin))
            keep(_MEMBERS, key, text, MEMO_SIZE)
        return text
    # a value from a file: its text as the encoder writes the object, without building it
    return (
        f'{_string(name)}: {{"prefill": {_value(pv)}, "decode": {_value(dv)}, "differs": '
        f'{"true" if pv != dv else "false"}, "prefill_from": {_from(p)}, '
        f'"decode_from": {_from(d)}}}'
    )


def _from(v: Val) -> str:
    """``_string(v.describe())``: a value's location made from its file's text, which
    ``json_text_at`` escapes once (the tail ``:line:column`` needs no escaping, and a place it
    would not take goes the general way)."""
    loc = v.location
    if loc is None:
        return _string(v.origin)
    quoted = _PLACE_TEXTS.get(loc.file)
    if quoted is None:
        at = json_text_at(loc.file + ":1:1")
        quoted = _ascii(at[:-4])[:-1] if at is not None else ""  # without its closing quote
        keep(_PLACE_TEXTS, loc.file, quoted, MEMO_SIZE)
    if not quoted or loc.line < 0 or loc.column < 0:  # json_text_at takes digits only
        return _string(str(loc))
    return f'{quoted}:{loc.line}:{loc.column}"'


# a file -> the JSON text of its locations' place, without the closing quote ("": not taken)
_PLACE_TEXTS: dict[str, str] = {}


def _value(value: Any) -> str:
    """``value``'s JSON text, as the encoder writes it inside an object, and as :func:`dump`
    writes a value below the indented levels."""
    kind = type(value)
    if kind is str:
        return _string(value)
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        return scalar(value)
    return value.text() if kind is Compared else _compact(value)


def head(settings: Settings) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "tool": {
            "name": "swacheck",
            "version": __version__,
            "sglang_version": settings.sglang_version,
        },
    }


def tail(totals: RunResult) -> dict[str, Any]:
    s = totals.summary
    return {
        "errors": [e.to_json() for e in totals.errors],
        "notes": [{"file": n.file, "message": n.message} for n in totals.notes],
        "summary": {
            "files": s.files,
            "deployments": s.deployments,
            "skipped_files": s.skipped_files,
            "skipped_deployments": s.skipped_deployments,
            "errors": s.counts["error"],
            "warnings": s.counts["warning"],
            "notes": s.counts["note"],
            "input_errors": s.input_errors,
            "suppressed": s.suppressed,
            "baselined": s.baselined,
            "exit_code": totals.exit_code,
        },
    }


def as_data(result: RunResult) -> dict[str, Any]:
    """The whole report as plain data, built in memory: what :class:`Stream` writes, before its
    strings are escaped (``escape.json_data``), and without its memo of compared values."""
    return {
        **head(result.settings),
        "deployments": [deployment_json(r) for r in result.results],
        "pairs": [{**pair_json(p), "compared": Compared(p.rows()).data()} for p in result.pairs],
        **tail(result),
    }


# ``json.dumps`` with ``indent`` runs CPython's pure-Python encoder; without it the C encoder
# is used (at 2,000 deployments: 0.28 s with ``indent=2``, 0.10 s for this). So only the
# outer levels are indented here: the report, each deployment and pair, and each list of
# findings (one finding per line); everything deeper (a pool, a finding, a location) is written
# compactly on one line by the C encoder.
INDENTED_LEVELS = 3  # objects and lists above this depth are indented
_ascii = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


class _Texts(dict[str, str]):
    """String -> its JSON text, escaped (``escape.json_text``): a report repeats its strings
    (261,000 of them, 13,000 distinct, at 2,000 deployments), so most are found by the C
    lookup of ``_string`` below and only the first sight of each runs Python. Short strings
    are kept, up to a bound (``escape.keep``)."""

    def __missing__(self, text: str) -> str:
        at = json_text_at(text)  # a location: its file's escaping, kept, and the line and column
        # json_text's own cache: a deployment's file is written as a string, then as the place
        # of its locations (json_text_at asks json_text for it)
        out = _ascii(at if at is not None else json_text(text))
        if len(text) <= 256:
            keep(self, text, out, MEMO_SIZE)
        return out


_string = _Texts().__getitem__  # ``text`` escaped as a JSON string literal


# the C encoder ``json.dumps`` uses, with :func:`_string` writing every string (keys too)
_make_encoder = getattr(json.encoder, "c_make_encoder", None)
if _make_encoder is not None:
    _deep = _make_encoder(
        None, json.JSONEncoder().default, _string, None, ": ", ", ", False, False, True
    )

    def _compact(value: Any) -> str:
        return "".join(_deep(value, 0))

else:  # pragma: no cover  (an interpreter without json's C accelerator)
    from .escape import json_data

    _encode = json.JSONEncoder(separators=(", ", ": ")).encode

    def _compact(value: Any) -> str:
        return _encode(json_data(value))


# the members the report writes most, other than strings: json's text for each, without a call
# into the encoder
_SCALARS = {
    bool: lambda v: "true" if v else "false",
    type(None): lambda v: "null",
    int: int.__repr__,
}


def dump(value: Any, out: TextIO, level: int = 0) -> None:
    """Write ``value`` as JSON: indented by two spaces down to :data:`INDENTED_LEVELS` (and lists
    one level further), compact below."""
    kind = type(value)
    indented = level < INDENTED_LEVELS or (level == INDENTED_LEVELS and kind is list)
    if not indented or not value or kind is Compared or not isinstance(value, (dict, list)):
        out.write(_value(value))  # a string, a scalar, a pair's compared values, or compact
        return
    pad = "\n" + "  " * (level + 1)
    if isinstance(value, dict):
        out.write("{")
        for i, (key, member) in enumerate(value.items()):
            out.write(f"{',' if i else ''}{pad}{_string(str(key))}: ")
            dump(member, out, level + 1)
        out.write("\n" + "  " * level + "}")
    else:
        out.write("[")
        for i, item in enumerate(value):
            out.write(f"{',' if i else ''}{pad}")
            dump(item, out, level + 1)
        out.write("\n" + "  " * level + "]")


class _Waiting:
    """Text kept to be written later: in memory, as the pieces given, up to
    :data:`PAIRS_IN_MEMORY` characters; past that (35 MB of pairs at 20,000 deployments) in a
    temporary file."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.size = 0
        self.file: TextIO | None = None

    def write(self, text: str) -> None:
        if self.file is not None:
            self.file.write(text)
            return
        self.pieces.append(text)
        self.size += len(text)
        if self.size > PAIRS_IN_MEMORY:
            import tempfile  # here: a report of fewer pairs never spills (with shutil, 2.7 ms)

            self.file = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
            self.file.writelines(self.pieces)
            self.pieces = []

    def write_to(self, out: TextIO) -> None:
        """Write the text kept to ``out``, and let it go."""
        if self.file is None:
            out.writelines(self.pieces)
            self.pieces = []
            return
        import shutil

        with self.file:
            self.file.seek(0)
            shutil.copyfileobj(self.file, out, 1 << 16)


STREAMS = True  # Stream writes each unit as it comes and keeps none


class Stream:
    """The report written unit by unit (``engine.run_units``): the deployments as their units are
    checked, then the pairs (waiting in memory or, past a bound, in a temporary file), the errors and
    the summary: ``as_data(result)``, escaped, with the layout :func:`dump` gives it."""

    def __init__(self, settings: Settings, out: TextIO):
        self.out = out
        self.deployments = 0
        self.pairs = 0
        self.pair_text = _Waiting()  # the pairs wait for the last deployment
        out.write("{")
        for key, value in head(settings).items():
            self._member(key, value)
        out.write(',\n  "deployments": [')

    def _member(self, key: str, value: Any) -> None:
        self.out.write(f"{',' if key != 'version' else ''}\n  {_string(key)}: ")
        dump(value, self.out, 1)

    def unit(self, unit: RunResult) -> None:
        self.take(self.part(unit))

    parts = True  # checked in a worker process (workers.py): part() stands for unit()

    def part(self, unit: RunResult) -> tuple[list[str], list[str]]:
        """The unit's deployments and pairs as JSON texts, without the commas between them."""
        return [_text(deployment_json(r)) for r in unit.results], [
            _text(pair_json(pair)) for pair in unit.pairs
        ]

    def take(self, part: tuple[list[str], list[str]]) -> None:
        """Write the deployments (one write) and keep the pairs (one piece) of a :meth:`part`."""
        deployments, pairs = part
        text: list[str] = []
        for body in deployments:
            text.append(",\n    " if self.deployments else "\n    ")
            text.append(body)
            self.deployments += 1
        self.out.write("".join(text))
        text.clear()
        for body in pairs:
            text.append(",\n    " if self.pairs else "\n    ")
            text.append(body)
            self.pairs += 1
        self.pair_text.write("".join(text))

    def finish(self, totals: RunResult) -> None:
        out = self.out
        out.write("\n  ]" if self.deployments else "]")
        out.write(',\n  "pairs": [')
        self.pair_text.write_to(out)
        out.write("\n  ]" if self.pairs else "]")
        for key, value in tail(totals).items():
            self._member(key, value)
        out.write("\n}\n")


def _text(value: dict[str, Any]) -> str:
    """One deployment or pair as ``dump(value, out, 2)`` lays it out inside its list, written
    without the recursion (a third of the JSON report's time): its members one to a line, a
    list among them one item to a line, everything below on the line (tests/test_report_json.py
    holds the two equal)."""
    text = ["{"]
    for i, (key, member) in enumerate(value.items()):
        text.append(f"{',' if i else ''}\n      {_string(key)}: ")
        if type(member) is list and member:
            text.append("[")
            text.append(",".join("\n        " + _value(item) for item in member))
            text.append("\n      ]")
        else:
            text.append(_value(member))
    text.append("\n    }")
    return "".join(text)


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
