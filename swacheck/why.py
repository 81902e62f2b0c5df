"""``swacheck why``: explain a DSV4 target/draft ``RuntimeError`` from a failed SGLang launch.

Four layers, each usable on its own:

* **parsing** (pure): text or log lines -> one :class:`ParsedError` per distinct error (with
  how many times it appeared and its first line) and a :class:`Malformed` for each DSV4
  message whose tuples cannot be read;
* **diagnosis** (pure): a :class:`ParsedError` -> :class:`Diagnosis`: which fields differ, the
  numbers derived from them (draft tokens, request slots) and what in the inputs must differ,
  in the order a human would look (window, then ring, then pages);
* **matching**: which deployment checked by :func:`swacheck.engine.run` predicts exactly these
  tuples, and the input keys (value provenance) behind the differing fields;
* **rendering**: a rich report for the terminal, or JSON.

The wording, tuple shape and ``srt/disaggregation/utils.py`` line (``setup_state_kv_args``) of
every message in every SGLang release that has them come from the release profiles
(``swacheck/sglang/version.py``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

# The messages, per SGLang release: the release profiles (swacheck/sglang/version.py)
from .sglang.version import CHECK_ORDER, MESSAGE_LINES, VERSIONS, WORDINGS, Wording

EXAMPLE = "DSV4 target and draft pools must share SWA ring geometry: target=(...), draft=(...)"


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


@dataclass(slots=True)
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


@dataclass(slots=True)
class Malformed:
    """A DSV4 message whose tuples cannot be read (reported once, however often repeated)."""

    line: int
    problem: str
    count: int = 1


@dataclass(slots=True)
class Parse:
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


# ---------------------------------------------------------------------------------------------
# Diagnosis (pure)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Derived:
    """A number derived from a tuple, per side: draft tokens, request slots."""

    name: str
    how: str
    target: int | float | None
    draft: int | float | None

    @property
    def differs(self) -> bool:
        return self.target != self.draft


@dataclass(frozen=True, slots=True)
class Diagnosis:
    differs: tuple[str, ...]  # tuple fields whose values differ
    causes: tuple[str, ...]  # the differing fields the inputs must explain (not mere consequences)
    derived: tuple[Derived, ...]
    sentences: tuple[str, ...]


def diagnose(err: ParsedError) -> Diagnosis:
    if err.kind == "ring":
        return _diagnose_ring(err.target, err.draft)  # type: ignore[arg-type]
    if err.kind == "paged":
        return _diagnose_paged(err.fields, err.target, err.draft)  # type: ignore[arg-type]
    return Diagnosis((), (), (), FIXED_SENTENCES[err.kind])


EQUAL = (
    "The two tuples are equal, but SGLang raises this only when they differ: the text was edited, "
    "or it comes from a modified SGLang."
)


def _window_sentences(name: str, tw: int, dw: int) -> list[str]:
    return [
        f"{name} differs (target {tw}, draft {dw}): the draft checkpoint's sliding_window differs from the "
        "target's. Each pool reads sliding_window from its own config.json; the draft's comes from "
        "speculative-draft-model-path, which defaults to model-path.",
        "Fix: drop speculative-draft-model-path (DeepSeek-V4's MTP draft is the target checkpoint's own NextN "
        f"layer, which SGLang loads from model-path), or make the draft checkpoint's sliding_window {tw} like "
        "the target's.",
        "The other cause is json-model-override-args setting sliding_window for one side only: SGLang applies "
        "it to both model configs, but older releases' EAGLE worker (v1) replaced the draft's overrides with "
        '{"hot_vocab_size": N} when speculative-token-map was set, so an override reached the target alone.',
    ]


def _slots(pages: int, ring: int) -> int | float | None:
    if ring <= 0:
        return None
    return pages // ring if pages % ring == 0 else round(pages / ring, 2)


def _slot_reading(slots: int) -> str:
    """slots = per-worker requests + decode extra slots + 1, read back into inputs."""
    if slots < 2:
        return f"{slots} leaves no request slot after the padding row"
    reqs = slots - 1
    text = f"{slots} = {reqs} + 0 + 1"
    if reqs == 256:
        text += " (256 is DeepSeek-V4's default max-running-requests)"
    if reqs % 3 == 0 and 1 <= reqs // 3 <= 32:
        m = reqs // 3
        text += (
            f", or {m} + {2 * m} + 1 (a PD decode server with max-running-requests "
            f"{m}: extra slots default to 2 × {m})"
        )
    return text


SLOTS_MEANING = (
    "Request slots = per-worker max-running-requests (max-running-requests ÷ attn-dp-size) + PD decode extra "
    "slots (disaggregation-decode-extra-slots) + 1 padding row. The draft pool normally reuses the target's "
    "request table, so the two pools were sized with different values of these."
)


def _diagnose_ring(target: tuple, draft: tuple) -> Diagnosis:
    (tw, tr, tp), (dw, dr, dp) = target, draft
    names = ("window", "ring_size", "pages")
    differs = tuple(n for n, a, b in zip(names, target, draft) if a != b)
    tokens = Derived("draft tokens", "ring − window + 1", tr - tw + 1, dr - dw + 1)
    slots = Derived("request slots", "pages ÷ ring", _slots(tp, tr), _slots(dp, dr))
    if not differs:
        return Diagnosis((), (), (tokens, slots), (EQUAL,))
    out: list[str] = []
    causes: list[str] = []
    if tw != dw:
        causes.append("window")
        out += _window_sentences("window", tw, dw)
    impossible = [(side, w, r) for side, w, r in (("target", tw, tr), ("draft", dw, dr)) if r < w]
    for side, w, r in impossible:
        out.append(
            f"The {side}'s ring_size {r} is smaller than its window {w}: SGLang's ring is window + draft tokens − 1, "
            "never less than the window, so these numbers cannot come from one SGLang pool."
        )
    if tokens.differs and not impossible:
        causes.append("ring_size")
        out.append(
            f"ring_size differs{' with the same window' if tw == dw else ' beyond the window'}: the speculative "
            f"draft-token count differs between the pools (ring = window + draft tokens − 1): target "
            f"{tokens.target} ({tr} − {tw} + 1), draft {tokens.draft} ({dr} − {dw} + 1). Both pools read the "
            "server's one speculative_num_draft_tokens (EAGLE: speculative-num-steps + 1; DSpark: "
            "speculative-dspark-block-size + 1), so it changed between the target and the draft pool builds: "
            "check speculative-num-steps, speculative-num-draft-tokens, speculative-dspark-block-size and "
            "speculative-adaptive."
        )
    sides = (("target", tp, tr, slots.target), ("draft", dp, dr, slots.draft))
    broken = [(side, p, r) for side, p, r, s in sides if not isinstance(s, int)]
    for side, p, r in broken:
        ratio = "" if r <= 0 else f" ({p} ÷ {r} = {p / r:.2f})"
        out.append(
            f"The {side}'s pages {p} is not a whole multiple of its ring_size {r}{ratio}: pages = request slots × "
            "ring, so these numbers cannot come from one SGLang pool."
        )
    if slots.differs and not broken:
        causes.append("pages")
        lead = "pages differ with the same ring" if tr == dr else "pages differ beyond the ring"
        out.append(
            f"{lead}: the request-slot count differs (pages = request slots × ring): target {slots.target} "
            f"({tp} ÷ {tr}), draft {slots.draft} ({dp} ÷ {dr}). {SLOTS_MEANING} Read back: target "
            f"{_slot_reading(slots.target)}; draft {_slot_reading(slots.draft)}."  # type: ignore[arg-type]
        )
    if tw != dw and not tokens.differs and not slots.differs and not broken:
        out.append(
            f"ring_size and pages follow from the window: both pools have {tokens.target} draft tokens "
            f"(ring − window + 1) and {slots.target} request slots (pages ÷ ring)."
        )
    return Diagnosis(differs, tuple(causes), (tokens, slots), tuple(out))


def _diagnose_paged(fields: tuple[str, ...], target: tuple, draft: tuple) -> Diagnosis:
    differs = tuple(n for n, a, b in zip(fields, target, draft) if a != b)
    if not differs:
        return Diagnosis((), (), (), (EQUAL,))
    out: list[str] = []
    tpage, dpage = target[0], draft[0]
    if "page_size" in differs:
        text = (
            f"page_size differs (target {tpage}, draft {dpage}): SGLang fixes DeepSeek-V4's page size at 256 "
            "(128 on NPU), replacing any page-size argument, and only the draft worker scales it, by dcp-size "
            "(page × dcp-size, loc_space_scale in kv_cache_configurator.py)."
        )
        if tpage > 0 and dpage > tpage and dpage % tpage == 0:
            text += f" The draft's {dpage} = {tpage} × {dpage // tpage}: dcp-size {dpage // tpage}."
        else:
            text += f" The draft's {dpage} is not {tpage} × a dcp-size, so this is not the dcp scaling alone."
        out.append(
            text + " Fix: run the PD server with dcp-size 1 (no decode context parallelism)."
        )
    if "sliding_window" in differs:
        out += _window_sentences("sliding_window", target[1], draft[1])
    if "ring_capacity" in differs:
        out.append(
            f"ring_capacity differs (target {target[2]}, draft {draft[2]}): it is set only with encoder SWA bounded "
            "replay (enable-encoder-swa-bounded-replay, DeepSeek-V4.1 only) and None otherwise: on the target the "
            "request window's capacity, ceil((sliding_window + online MTP max draft tokens) / page_size) × "
            "page_size; on the draft its SWA ring, ceil((sliding_window + draft tokens) / page_size) × page_size "
            "(not on ROCm). A difference means encoder replay is on for one pool only, or the two pools count "
            "draft tokens differently: check enable-encoder-swa-bounded-replay and the model (DeepSeek-V4.1)."
        )
    return Diagnosis(differs, differs, (), tuple(out))


FIXED_SENTENCES = {
    "draft_ratios": (
        "The draft pool's compression_ratios list is empty or has a non-zero entry: SGLang transfers a DSV4 "
        "draft's state only for SWA-only NextN layers (compression ratio 0), and checks this first.",
        "A DeepSeek-V4 NextN (MTP) draft gets ratio 0 on each of its layers (models/deepseek_v4_nextn.py), so "
        "the released code does not raise this from configuration alone: the draft SGLang built is not a "
        "DeepSeek-V4 NextN layer (a draft model with compressed-attention layers, or with no layers).",
        "Check speculative-draft-model-path and the draft checkpoint's architectures and "
        "num_nextn_predict_layers; without speculative-draft-model-path SGLang uses the target checkpoint's own "
        "NextN layer.",
    ),
    "unified_mode": (
        "One pool uses the unified KV layout and the other the paged one; SGLang checks this before any geometry.",
        "The gate is is_unified_kv_triton(): a ROCm (HIP) build with SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton, "
        "read once per process, so the two pools of one server normally agree: the gate was read differently for "
        "each (a modified build, or one whose draft worker decides unified KV on its own).",
        "Set SGLANG_HACK_FLASHMLA_BACKEND once for the whole server process (unified_kv_triton, or unset) and run "
        "both pools from one ROCm build; in a swacheck deployment file, target.geometry.unified and "
        "draft.geometry.unified must agree (SWA103).",
    ),
    "mapping": (
        "The draft pool's full-to-SWA index mapping is not the very object the target's is (SGLang compares them "
        "with `is`, in paged KV mode): the draft registered its own SWA index mapping instead of the target "
        "allocator's.",
        "In the released code the draft shares the target's SWA allocator and registers the same tensor, so "
        "configuration alone does not cause it: a build that mixes allocator versions does (an older allocator "
        "registered weakref.proxy(mapping) while the draft registers the raw tensor), as does a draft with an "
        "allocator of its own.",
        "swacheck cannot predict this from the config files. Run the target and the draft from one SGLang build; "
        "if the server sets disable-hybrid-swa-memory (no mapping is registered on either pool), try without it.",
    ),
}

# ---------------------------------------------------------------------------------------------
# Matching against deployments (reads the engine's results)
# ---------------------------------------------------------------------------------------------

POOL_ATTR = {
    "window": "window",
    "ring_size": "ring_size",
    "pages": "pages",
    "page_size": "page_size",
    "sliding_window": "window",
    "ring_capacity": "ring_capacity",
}
RULE_FOR_KIND = {
    "ring": "SWA101",
    "paged": "SWA102",
    "unified_mode": "SWA103",
    "draft_ratios": "SWA104",
}
# inputs of a derived value that another cause already covers
SKIP_INPUTS = {"ring_size": ("window",), "pages": ("ring size",), "page_size": ("page size",)}


@dataclass(frozen=True, slots=True)
class Key:
    """An input position behind a differing field: where to edit."""

    file: str
    line: int
    column: int
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "what": self.what}


@dataclass(slots=True)
class DeploymentMatch:
    file: str
    name: str
    title: str
    details: str
    matches: bool
    predicted: dict[str, Any] | None  # {"target": ..., "draft": ...} in the message's terms
    note: str
    keys: list[Key]
    finding: Any = None  # the swacheck finding (SWA101-SWA104) for this kind of error, if any

    def to_json(self) -> dict[str, Any]:
        fix = None
        if self.finding is not None:
            fix = {"code": self.finding.code, "message": self.finding.message}
            fix.update(
                self.finding.fix.to_json()
                if self.finding.fix
                else {"description": None, "edits": []}
            )
        return {
            "file": self.file,
            "name": self.name,
            "matches": self.matches,
            "predicted": self.predicted,
            "note": self.note or None,
            "keys": [k.to_json() for k in self.keys],
            "fix": fix,
        }


def match_deployment(err: ParsedError, diag: Diagnosis, result: Any) -> DeploymentMatch:
    """Does this deployment (an engine ``DeploymentResult``) predict the error? Where are its inputs?"""
    from .report.common import heading

    res = result.resolution
    title, details = heading(result)
    t, d = res.target, res.draft
    code = RULE_FOR_KIND.get(err.kind)
    finding = next((f for f in result.findings if f.code == code), None) if code else None

    def make(
        matches: bool, predicted: dict[str, Any] | None, note: str, keys: list[Key]
    ) -> DeploymentMatch:
        return DeploymentMatch(
            result.deployment.file,
            result.deployment.name,
            title,
            details,
            matches,
            predicted,
            note,
            keys,
            finding,
        )

    if t is None or d is None:
        return make(False, None, res.skip_reason or "no draft pool: SGLang compares nothing", [])
    keys = _keys(err, diag, res)
    if err.kind in ("ring", "paged"):
        predicted_t = tuple(getattr(t, POOL_ATTR[f]).value for f in err.fields)
        predicted_d = tuple(getattr(d, POOL_ATTR[f]).value for f in err.fields)
        predicted = {"target": list(predicted_t), "draft": list(predicted_d)}
        want = "unified" if err.kind == "ring" else "paged"
        if res.mode != want:
            other = (
                "the SWA ring geometry message"
                if res.mode == "unified"
                else "the paged SWA geometry message"
            )
            return make(
                False,
                None,
                f"its pools are {res.mode} KV, where SGLang compares other tuples and prints {other}",
                keys,
            )
        if (predicted_t, predicted_d) == (err.target, err.draft):
            return make(True, predicted, _pd_note(res), keys)
        diffs = [
            f"{side} {name} {want_v} in the message, {got} here"
            for side, msg_tuple, got_tuple in (
                ("target", err.target, predicted_t),
                ("draft", err.draft, predicted_d),
            )
            for name, want_v, got in zip(err.fields, msg_tuple, got_tuple)  # type: ignore[arg-type]
            if want_v != got
        ]
        return make(False, predicted, "; ".join(diffs), keys)
    if err.kind == "unified_mode":
        predicted = {"target": t.unified.value, "draft": d.unified.value}
        if t.unified.value != d.unified.value:
            return make(True, predicted, _pd_note(res), keys)
        return make(
            False,
            predicted,
            f"both pools are {'unified' if t.unified.value else 'paged'} here",
            keys,
        )
    if err.kind == "draft_ratios":
        ratios = d.compression_ratios.value if d.compression_ratios is not None else None
        predicted = {"target": None, "draft": ratios}
        if ratios is not None and (not ratios or any(r != 0 for r in ratios)):
            return make(True, predicted, _pd_note(res), keys)
        return make(
            False,
            predicted,
            f"the draft's compression ratios are {ratios} here (all 0 passes)",
            keys,
        )
    return make(
        False,
        None,
        "swacheck cannot predict this check from configuration: SGLang compares object identity",
        keys,
    )


def _pd_note(res: Any) -> str:
    if res.checked_by_sglang:
        return ""
    return (
        "it matches, but it runs no PD disaggregation, so SGLang does not compare "
        "its pools: the failed launch was its PD form"
    )


def _keys(err: ParsedError, diag: Diagnosis, res: Any) -> list[Key]:
    """Every input position behind the fields the diagnosis names as causes, draft side first."""
    found: dict[tuple[str, int, int], list[Any]] = {}  # position -> [roles, text]

    def add(loc: Any, role: str, text: str) -> None:
        pos = (loc.file, loc.line, loc.column)
        if pos not in found:
            found[pos] = [[], text]
        if role and role not in found[pos][0]:
            found[pos][0].append(role)

    def walk(val: Any, role: str, name: str, skip: tuple[str, ...] = ()) -> None:
        if val is None:
            return
        if val.location is not None:
            label = val.origin if re.fullmatch(r"[\w.-]+", val.origin) else name
            text = f"{label} {_fmt(val.value)}" + (
                "" if label == val.origin or not val.origin else f" ({val.origin})"
            )
            add(val.location, role, text)
        for inner_name, inner in val.inputs:
            if inner_name not in skip:
                walk(inner, role, inner_name)

    t, d = res.target, res.draft
    causes: tuple[str, ...] = diag.causes
    if err.kind == "unified_mode":
        for pool in (d, t):
            walk(pool.unified, pool.role, "unified")
    elif err.kind == "draft_ratios":
        walk(d.compression_ratios, "draft", "compression_ratios")
    for cause in causes:
        for pool in (d, t):
            walk(getattr(pool, POOL_ATTR[cause]), pool.role, cause, SKIP_INPUTS.get(cause, ()))
    return [
        Key(
            file,
            line,
            column,
            (", ".join(sorted(roles, key=("target", "draft").index)) + ": " if roles else "")
            + text,
        )
        for (file, line, column), (roles, text) in found.items()
    ]


def _fmt(value: Any) -> str:
    return "None" if value is None else str(value)


# ---------------------------------------------------------------------------------------------
# The report: parse + diagnose + match, then render
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Explained:
    error: ParsedError
    diagnosis: Diagnosis
    deployments: list[DeploymentMatch] = field(default_factory=list)


def explain(parse: Parse, run_result: Any = None) -> list[Explained]:
    out = []
    for err in parse.errors:
        diag = diagnose(err)
        matches = (
            [match_deployment(err, diag, r) for r in run_result.results]
            if run_result is not None
            else []
        )
        out.append(Explained(err, diag, matches))
    return out


def side_json(err: ParsedError, side: tuple | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {"tuple": list(side), **dict(zip(err.fields, side))}


def to_json(items: list[Explained]) -> dict[str, Any]:
    errors = []
    for item in items:
        err, diag = item.error, item.diagnosis
        errors.append(
            {
                "kind": err.kind,
                "message": err.message,
                "count": err.count,
                "first_line": err.first_line,
                "sglang_versions": err.wording.version_range,
                "sglang_versions_from_traceback": list(err.frame_versions),
                "target": side_json(err, err.target),
                "draft": side_json(err, err.draft),
                "differs": list(diag.differs),
                "derived": {
                    x.name.replace(" ", "_"): {"target": x.target, "draft": x.draft}
                    for x in diag.derived
                },
                "diagnosis": list(diag.sentences),
                "deployments": [m.to_json() for m in item.deployments],
            }
        )
    return {"version": 1, "errors": errors}


def render_json(items: list[Explained], out: TextIO) -> None:
    from .report.escape import json_data

    json.dump(json_data(to_json(items)), out, indent=2)
    out.write("\n")


def render_human(
    items: list[Explained], out: TextIO, color: str, source: str, with_paths: bool
) -> None:
    """Through the human report's writer: every piece of text through report/escape.py."""
    from .report.common import Row, edit_text
    from .report.escape import terminal
    from .report.human import RichWriter

    w = RichWriter(out, color)
    for n, item in enumerate(items):
        err, diag = item.error, item.diagnosis
        if n:
            w.print()
        w.line((err.message, "bold red"))
        times = "once" if err.count == 1 else f"{err.count} times"
        info = f"  {err.wording.check} · printed by SGLang {err.wording.version_range}"
        if err.frame_versions:
            info += f" · its line in the traceback's utils.py is SGLang {', '.join(err.frame_versions)}'s"
        info += f" · seen {times}, first on line {err.first_line}"
        w.line((info, "dim"))
        if err.fields:
            rows, styles = [], []
            for name, tv, dv in zip(err.fields, err.target, err.draft):  # type: ignore[arg-type]
                rows.append(Row((name, _fmt(tv), _fmt(dv)), tv != dv))  # type: ignore[arg-type]
                styles.append("bold red" if tv != dv else None)
            for x in diag.derived:
                rows.append(Row((f"{x.name} ({x.how})", _fmt(x.target), _fmt(x.draft)), x.differs))  # type: ignore[arg-type]
                styles.append("red" if x.differs else "dim")
            w.table(
                ("field", "target", "draft"),
                rows,
                title_rows=False,
                styles=styles,
                overflow="ellipsis",
            )
        w.line(("Why:", "bold"))
        for sentence in diag.sentences:
            wrapped = textwrap.fill(
                terminal(sentence),
                width=max(40, w.width),
                initial_indent="  - ",
                subsequent_indent="    ",
            )
            for line in wrapped.split("\n"):
                w.line((line, None))
        if with_paths:
            _render_deployments(w, item, edit_text)
    total = sum(i.error.count for i in items)
    distinct = len(items)
    w.print()
    w.line(
        (
            f"Explained {distinct} distinct DSV4 target/draft error{'s' if distinct != 1 else ''} "
            f"({total} occurrence{'s' if total != 1 else ''}) from {source}.",
            "dim",
        )
    )


def _predicted_text(kind: str, predicted: dict[str, Any]) -> str:
    t, d = predicted["target"], predicted["draft"]
    if kind == "unified_mode":
        return f"predicts target {'unified' if t else 'paged'} KV, draft {'unified' if d else 'paged'} KV"
    if kind == "draft_ratios":
        return f"predicts draft compression ratios {d}"
    return f"predicts target={format_tuple(tuple(t))}, draft={format_tuple(tuple(d))}"


def _render_deployments(w: Any, item: Explained, edit_text: Any) -> None:
    matches = item.deployments
    if not matches:
        w.line(("Deployments: none found in the given paths.", "yellow"))
        return
    hits = sum(m.matches for m in matches)
    w.line(
        (
            f"Deployments ({hits} of {len(matches)} match{'es' if len(matches) == 1 else ''}):",
            "bold",
        )
    )
    for m in matches:
        line: list[tuple[str, str | None]] = [
            ("  ", None),
            (m.title, "bold"),
            (f"  ({m.details})", "dim"),
            (": ", None),
        ]
        if m.matches:
            line.append(("matches: this is the deployment that failed", "bold green"))
        else:
            line.append(("does not match", "yellow"))
        if m.predicted is not None:
            line.append((f" ({_predicted_text(item.error.kind, m.predicted)})", None))
        w.line(*line)
        if m.note:
            w.line((f"    {m.note}", "dim"))
        if not m.matches:
            continue
        for key in m.keys:
            w.line((f"    {key}: {key.what}", None))
        if m.finding is not None and m.finding.fix is not None:
            w.line((f"    fix ({m.finding.code}): ", "green"), (m.finding.fix.description, None))
            for e in m.finding.fix.edits:
                w.line((f"      {e.file}:{e.line}:{e.column}: {edit_text(e)}", "green"))
    if not hits:
        w.line(
            (
                "  No deployment predicts this error: the failed launch used other inputs than these files "
                "(give its server config, --platform and --env as it ran).",
                "dim",
            )
        )


# ---------------------------------------------------------------------------------------------
# The command (called by cli.py)
# ---------------------------------------------------------------------------------------------


def _read_log(path: str) -> tuple[Parse | None, str]:
    """Parse a log file (or stdin for ``-``) line by line; (None, error) when it cannot be read."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else (sys.stdin.read() if sys.stdin else "")
        text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
        return parse_text(text), ""
    try:
        from .loading import special_kind

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


def _is_file(text: str) -> bool:
    try:
        return "\n" not in text and os.path.isfile(text)
    except (OSError, ValueError):
        return False


def run_why(settings: Any, text: str | None, log: str | None, fmt: str) -> int:
    """Parse, explain, match, print; the exit code (0 explained, 2 nothing to explain / bad input)."""
    from .report.escape import print_error

    if log is not None:
        if log == "-" and "-" in settings.paths:
            print(
                "swacheck why: --from-log - and the PATH - both read standard input; give one of them",
                file=sys.stderr,
            )
            return 2
        parse, problem = _read_log(log)
        if parse is None:
            print_error(problem)
            return 2
        source = "standard input" if log == "-" else log
        where = "<stdin>:{}" if log == "-" else log.replace("{", "{{").replace("}", "}}") + ":{}"
    else:
        parse = parse_text(text or "")
        source, where = "the text", "swacheck why: line {}"

    for bad in parse.malformed:
        times = f" ({bad.count} times)" if bad.count > 1 else ""
        print_error(
            f"{where.format(bad.line)}: malformed DSV4 target/draft message: {bad.problem}{times}"
        )
    if not parse.errors:
        if not parse.malformed:
            hint = (
                "; to read a log file, use --from-log FILE"
                if log is None and _is_file(text or "")
                else ""
            )
            print_error(
                f'swacheck why: no DSV4 target/draft error found in {source} (expected e.g. "{EXAMPLE}"){hint}'
            )
        return 2

    run_result = None
    if settings.paths:
        from .engine import run

        run_result = run(settings)
        for error in run_result.errors:
            print(error, file=sys.stderr)
    items = explain(parse, run_result)
    if fmt == "json":
        render_json(items, sys.stdout)
    else:
        render_human(items, sys.stdout, settings.color, source, bool(settings.paths))
    return 2 if parse.malformed or (run_result is not None and run_result.errors) else 0
