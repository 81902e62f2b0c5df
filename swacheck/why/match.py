"""Matching a DSV4 target/draft error against deployments (reads the engine's results).

Which deployment checked by :func:`swacheck.engine.run` predicts exactly the tuples of an
error, and the input keys (value provenance) behind the differing fields.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from ..model.recordtype import record
from .diagnose import Diagnosis, diagnose
from .parse import Parse, ParsedError

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


@record(frozen=True)
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


@record
class DeploymentMatch:
    """A deployment checked against the error: whether its predicted tuples match the message."""

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


# (matches, what the deployment predicts in the message's terms, a note)
Verdict = tuple[bool, dict[str, Any] | None, str]


def match_deployment(err: ParsedError, diag: Diagnosis, result: Any) -> DeploymentMatch:
    """Does this deployment (an engine ``DeploymentResult``) predict the error? Where are its inputs?"""
    from ..report.common import heading

    res = result.resolution
    title, details = heading(result)
    code = RULE_FOR_KIND.get(err.kind)
    finding = next((f for f in result.findings if f.code == code), None) if code else None
    if res.target is None or res.draft is None:
        verdict: Verdict = (
            False,
            None,
            res.skip_reason or "no draft pool: SGLang compares nothing",
        )
        keys: list[Key] = []
    else:
        keys = _keys(err, diag, res)
        verdict = VERDICTS.get(err.kind, _identity_verdict)(err, res)
    matches, predicted, note = verdict
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


def _tuples_verdict(err: ParsedError, res: Any) -> Verdict:
    """The ring and paged geometry messages: the deployment's tuples against the message's."""
    t, d = res.target, res.draft
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
        return (
            False,
            None,
            f"its pools are {res.mode} KV, where SGLang compares other tuples and prints {other}",
        )
    if (predicted_t, predicted_d) == (err.target, err.draft):
        return True, predicted, _pd_note(res)
    diffs = [
        f"{side} {name} {want_v} in the message, {got} here"
        for side, msg_tuple, got_tuple in (
            ("target", err.target, predicted_t),
            ("draft", err.draft, predicted_d),
        )
        for name, want_v, got in zip(err.fields, msg_tuple, got_tuple)  # type: ignore[arg-type]
        if want_v != got
    ]
    return False, predicted, "; ".join(diffs)


def _unified_verdict(err: ParsedError, res: Any) -> Verdict:
    t, d = res.target, res.draft
    predicted = {"target": t.unified.value, "draft": d.unified.value}
    if t.unified.value != d.unified.value:
        return True, predicted, _pd_note(res)
    return False, predicted, f"both pools are {'unified' if t.unified.value else 'paged'} here"


def _ratios_verdict(err: ParsedError, res: Any) -> Verdict:
    d = res.draft
    ratios = d.compression_ratios.value if d.compression_ratios is not None else None
    predicted = {"target": None, "draft": ratios}
    if ratios is not None and (not ratios or any(r != 0 for r in ratios)):
        return True, predicted, _pd_note(res)
    return False, predicted, f"the draft's compression ratios are {ratios} here (all 0 passes)"


def _identity_verdict(err: ParsedError, res: Any) -> Verdict:
    return (
        False,
        None,
        "swacheck cannot predict this check from configuration: SGLang compares object identity",
    )


VERDICTS = {
    "ring": _tuples_verdict,
    "paged": _tuples_verdict,
    "unified_mode": _unified_verdict,
    "draft_ratios": _ratios_verdict,
}


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


@record
class Explained:
    """One distinct error: what it says, and each deployment given checked against it."""

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


@record
class WhyReport:
    """What ``swacheck why`` reports: the explained errors, read from ``source``."""

    settings: Any  # colour, and whether deployments were given (settings.paths)
    items: list[Explained]
    source: str  # "the text", "standard input" or the log file's name
