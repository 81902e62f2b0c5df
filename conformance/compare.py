"""Compare one case's outcome under real SGLang with swacheck's JSON report.

Standard library only (the smoke test runs it without SGLang).

Three questions per case:

- **verdict**: does SGLang start (``ok``) exactly when swacheck reports no error?
- **cause**: when both fail, does swacheck's first error name the failure SGLang hit (stage,
  exception and message; see CAUSES)?
- **tuple**: when SGLang built the target and draft DSV4 pools, are swacheck's target and draft
  tuples the ones SGLang's pools hold (under PD: the ones ``setup_state_kv_args`` compared)?
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# swacheck code -> (SGLang stages where that failure happens, regex over "Exception: message").
CAUSES: dict[str, tuple[tuple[str, ...], str]] = {
    "SWA101": (
        ("setup",),
        r"RuntimeError: DSV4 target and draft pools must share SWA ring geometry",
    ),
    "SWA102": (
        ("setup",),
        r"RuntimeError: DSV4 target and draft pools must share (paged )?SWA geometry",
    ),
    "SWA103": (
        ("setup",),
        r"RuntimeError: DSV4 target and draft pools must use the same unified-KV mode",
    ),
    "SWA104": (
        ("setup",),
        r"RuntimeError: DSV4 draft state transfer expects SWA-only NextN layers",
    ),
    "SWA202": (
        ("resolve", "validate"),
        r"(Assertion|Value)Error: .*(speculative|EAGLE|topk|DSPARK)",
    ),
    "SWA204": (("pools", "setup"), r"NotImplementedError|FP8|fp8"),
    "SWA205": (
        ("resolve", "validate", "pools"),
        r"kv.cache.dtype|attn.backend|attention.backend|dsv4",
    ),
    "SWA206": (("pools",), r"AssertionError: online c128 does not support MTP"),
    "SWA207": (
        ("resolve", "validate"),
        r"[Pp]ipeline|PP \+ speculative|SGLANG_ENABLE_PP_SPEC|prefill_complete",
    ),
    "SWA208": (("model",), r"AttributeError: .*sliding_window"),
    "SWA213": (("resolve",), r"ValueError: DeepSeek-V4.1 does not support"),
    # a checkpoint key the config classes or ModelConfig stop on; the pools' refusals of one
    "SWA260": (
        ("resolve", "model"),
        r"StrictDataclass(Field|Class)ValidationError|AttributeError|TypeError|KeyError|IndexError",
    ),
    "SWA261": (("pools",), r"AssertionError: DSV4 .*KV layout|TypeError|ZeroDivisionError"),
    "SWA221": (
        ("pools",),
        r"SGLANG_DSV4_COMPRESS_STATE_DTYPE|SGLANG_DSV4_KV_LAYOUT|compressed KV layout|"
        r"V4 main cache only pairs|trtllm uses uniform FP8",
    ),
    "SWA222": (("setup", "pools"), r"prefill_complete currently supports"),
    "SWA230": (
        ("resolve",),
        r"enable-pd-role-switch|host.receive|Prefill server does not support 'fake'|"
        r"decode-enable-radix-cache|SGLANG_DISAGG_STAGING_BUFFER",
    ),
    "SWA303": (("parse",), r".*"),
    "SWA503": (
        ("pools",),
        r"AssertionError",
    ),  # kv-cache-dtype bfloat16: the DSV4 pool's store_dtype assert
    "SWA304": (("parse", "resolve"), r".*"),
}


@dataclass
class Verdict:
    ok: bool
    label: str  # short text for the table
    detail: str = ""  # message


@dataclass
class Row:
    case: str
    sglang: Verdict
    swacheck: Verdict
    verdict: bool
    cause: bool | None  # None: not applicable (at least one side passes)
    tuple: bool | None  # None: SGLang built no DSV4 pool, or swacheck has no tuple
    why: str = ""
    harness: bool = False  # the run itself broke: SGLang's verdict is unknown

    @property
    def agrees(self) -> bool:
        return (
            not self.harness
            and self.verdict
            and self.cause is not False
            and self.tuple is not False
        )


def sglang_verdict(result: dict | None) -> Verdict:
    if result is None:
        return Verdict(
            False, "no result", "the SGLang driver produced no result (crash or timeout)"
        )
    if result.get("outcome") == "ok":
        return Verdict(True, "ok")
    if result.get("outcome") == "harness-error":
        return Verdict(
            False,
            "harness error",
            f"{result.get('exception')}: {result.get('message')} at {result.get('where')}",
        )
    return Verdict(
        False,
        f"{result.get('stage')}:{result.get('exception')}",
        f"{result.get('exception')}: {result.get('message')}",
    )


def _deployment(report: dict) -> dict | None:
    deployments = report.get("deployments") or []
    return deployments[0] if deployments else None


def _errors(report: dict) -> list[dict]:
    out = []
    for dep in report.get("deployments") or []:
        out += [f for f in dep.get("findings") or [] if f.get("severity") == "error"]
    return out


def swacheck_verdict(report: dict | None) -> Verdict:
    if report is None:
        return Verdict(False, "no report", "swacheck printed no JSON")
    if report.get("errors"):
        first = report["errors"][0]
        return Verdict(False, "input error", str(first.get("message")))
    errors = _errors(report)
    if errors:
        return Verdict(
            False, ",".join(dict.fromkeys(f["code"] for f in errors)), errors[0].get("message", "")
        )
    if not report.get("deployments"):
        return Verdict(False, "no deployment", "swacheck found no deployment in the file")
    return Verdict(True, "ok")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip().lower()


def cause_agrees(result: dict, report: dict) -> tuple[bool, str]:
    """Both sides failed: does one of swacheck's errors name SGLang's failure?"""
    stage = result.get("stage")
    said = f"{result.get('exception')}: {result.get('message')}"
    errors = _errors(report)
    if report.get("errors") or not errors:
        return False, "swacheck reports an input error, SGLang fails at " + str(stage)
    for finding in errors:
        code = finding.get("code")
        if code in CAUSES:
            stages, pattern = CAUSES[code]
            if stage in stages and re.search(pattern, said):
                return True, ""
        # swacheck quotes SGLang's message: the start of it is enough to name the same failure
        head = _norm(str(result.get("message")))[:48]
        if head and head in _norm(finding.get("message", "")):
            return True, ""
        # or it cites the line that raised (an assert without a message): "file.py:LINE", or for
        # a bare exception, its type and the file that raised it
        where = str(result.get("where") or "")
        said_here = finding.get("message", "")
        if where and where.rsplit("/", 1)[-1] in said_here:
            return True, ""
        bare = not str(result.get("message") or "").strip()
        source = where.rsplit("/", 1)[-1].split(":")[0]
        if bare and source and source in said_here and str(result.get("exception")) in said_here:
            return True, ""
    codes = ",".join(f.get("code", "?") for f in errors)
    return False, f"swacheck {codes} vs SGLang {stage}: {said}"


def _tuple(value):
    return None if value is None else [None if v is None else int(v) for v in value]


def tuple_agrees(result: dict, report: dict) -> tuple[bool | None, str]:
    dep = _deployment(report)
    if not result.get("target") or dep is None:
        return None, ""
    mine = (
        _tuple((dep.get("target") or {}).get("tuple")),
        _tuple((dep.get("draft") or {}).get("tuple")),
    )
    theirs = (_tuple(result.get("target")), _tuple(result.get("draft")))
    if mine[0] is None:
        return None, ""
    if theirs[1] is None:  # no draft pool: SGLang compares no tuple (setup_state_kv_args' block
        return None, ""  # needs both pools), and the harness's own reading is not SGLang's
    if mine == theirs:
        return True, ""
    return (
        False,
        f"tuples: swacheck target={mine[0]} draft={mine[1]}, SGLang target={theirs[0]} draft={theirs[1]}",
    )


def compare(name: str, result: dict | None, report: dict | None) -> Row:
    sgl, swa = sglang_verdict(result), swacheck_verdict(report)
    # a missing result or report, or a failure of the harness itself, is never an agreement
    broken = result is None or report is None or result.get("outcome") == "harness-error"
    if broken:
        return Row(
            name,
            sgl,
            swa,
            False,
            None,
            None,
            f"not compared: {sgl.detail or swa.detail}",
            harness=True,
        )
    verdict = sgl.ok == swa.ok
    why = []
    if not verdict:
        why.append(
            f"SGLang {sgl.label} ({sgl.detail})"
            if not sgl.ok
            else f"SGLang starts; swacheck {swa.label}: {swa.detail}"
        )
    cause = None
    if not sgl.ok and not swa.ok and result is not None and report is not None:
        cause, reason = cause_agrees(result, report)
        if reason:
            why.append(reason)
    tup = None
    if result is not None and report is not None:
        tup, reason = tuple_agrees(result, report)
        if reason:
            why.append(reason)
    return Row(name, sgl, swa, verdict, cause, tup, "; ".join(why))


def _mark(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def table(rows: list[Row]) -> str:
    header = ("case", "SGLang", "swacheck", "verdict", "cause", "tuple")
    body = [
        (
            r.case,
            r.sglang.label,
            r.swacheck.label,
            "n/a" if r.harness else _mark(r.verdict),
            _mark(r.cause),
            _mark(r.tuple),
        )
        for r in rows
    ]
    widths = [
        max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)) for b in body]
    for r in rows:
        if not r.agrees:
            lines.append(f"  ! {r.case}: {r.why}")
    return "\n".join(lines)


def summary(rows: list[Row], version: str) -> str:
    agree = sum(r.agrees for r in rows)
    broken = sum(r.harness for r in rows)
    compared = [r for r in rows if not r.harness]
    return (
        f"SGLang {version}: {len(rows)} cases, {agree} agree, {len(compared) - agree} disagree "
        f"(verdict {sum(not r.verdict for r in compared)}, cause {sum(r.cause is False for r in compared)}, "
        f"tuple {sum(r.tuple is False for r in compared)}), {broken} not compared (harness)"
    )
