"""PD pair cases: a prefill server and a decode server that differ in one thing (or agree).

    generate() -> list[PairCase]

Each side is a single-server case (``cases.Case``, run by sglang_driver.py like any other); the
pair step (``sglang_driver.py --pairs``) then drives SGLang's two PD comparisons on what each
side published, and ``compare_pair`` sets the outcome against swacheck's, for the two servers
checked as a pair (``swacheck pair``, each side a swacheck deployment file carrying its own
environment).

Outcomes, both tools: ``ok``; ``start-up:prefill`` / ``start-up:decode`` (that server fails on its
own, before any handshake); ``first request`` (the decode's ``try_ensure_parallel_info`` raises and
the decode server dies); ``every request`` (the prefill rejects the decode's state layout at
registration, so every request to it fails); ``silently`` (swacheck only: nothing in SGLang
notices — the harness sees ``ok``).

Standard library only (plus ``cases.Case``): the smoke test imports it without SGLang.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cases import Case

EAGLE = [
    "speculative-algorithm: EAGLE",
    "speculative-num-steps: 3",
    "speculative-eagle-topk: 1",
]
BASE = ["model-path: models/target", "tp-size: 8", "max-running-requests: 8"]

# name: (platform, (prefill lines, prefill env), (decode lines, decode env))
UNIFIED = {"SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton"}
VARIANTS: dict[str, tuple[str, tuple[list, dict], tuple[list, dict]]] = {
    "same-eagle": ("cuda", (EAGLE, {}), (EAGLE, {})),
    "same-no-spec": ("cuda", ([], {}), ([], {})),
    "spec-prefill-only": ("cuda", (EAGLE, {}), ([], {})),
    "spec-decode-only": ("cuda", ([], {}), (EAGLE, {})),
    "kv-bf16-decode": ("cuda", (EAGLE, {}), (EAGLE + ["kv-cache-dtype: bfloat16"], {})),
    "kv-fp8-explicit": ("cuda", (EAGLE + ["kv-cache-dtype: fp8_e4m3"], {}), (EAGLE, {})),
    "page-64-decode": ("cuda", (EAGLE, {}), (EAGLE + ["page-size: 64"], {})),
    "tp4-decode": ("cuda", (EAGLE, {}), (EAGLE + ["tp-size: 4"], {})),
    "draft-tokens-4-vs-2": (
        "cuda",
        (EAGLE + ["speculative-num-draft-tokens: 4"], {}),
        (EAGLE[:1] + ["speculative-num-steps: 1"] + EAGLE[2:], {}),
    ),
    "steps-3-vs-2": (
        "cuda",
        (EAGLE, {}),
        (EAGLE[:1] + ["speculative-num-steps: 2"] + EAGLE[2:], {}),
    ),
    "mrr-8-vs-4": ("cuda", (EAGLE, {}), (EAGLE + ["max-running-requests: 4"], {})),
    "online-compress-decode-no-spec": (
        "cuda",
        ([], {}),
        ([], {"SGLANG_OPT_USE_ONLINE_COMPRESS": "1"}),
    ),
    "online-compress-decode-mtp": (
        "cuda",
        (EAGLE, {}),
        (EAGLE, {"SGLANG_OPT_USE_ONLINE_COMPRESS": "1"}),
    ),
    "pp2-decode-no-spec": ("cuda", ([], {}), (["tp-size: 4", "pp-size: 2"], {})),
    "pp2-decode-mtp": ("cuda", (EAGLE, {}), (EAGLE + ["tp-size: 4", "pp-size: 2"], {})),
    "layout-v41-decode": ("cuda", (EAGLE, {}), (EAGLE, {"SGLANG_DSV4_KV_LAYOUT": "v41"})),
    "checksum-decode": (
        "cuda",
        (EAGLE, {}),
        (EAGLE + ["disaggregation-enable-kv-checksum: true"], {}),
    ),
    "policy-prefill-complete-decode": (
        "cuda",
        (["tp-size: 1"], {}),
        (["tp-size: 1", "disaggregation-decode-allocation-policy: prefill_complete"], {}),
    ),
    "rocm-same-unified": ("rocm", (EAGLE, UNIFIED), (EAGLE, UNIFIED)),
    "rocm-unified-decode-only": ("rocm", (EAGLE, {}), (EAGLE, UNIFIED)),
    "rocm-unified-prefill-only": ("rocm", (EAGLE, UNIFIED), (EAGLE, {})),
    "rocm-unified-fp8-decode": (
        "rocm",
        (EAGLE, UNIFIED),
        (EAGLE, {**UNIFIED, "SGLANG_DSV4_UNIFIED_KV_FP8": "1"}),
    ),
    "rocm-unified-spec-decode-only": ("rocm", ([], UNIFIED), (EAGLE, UNIFIED)),
    "rocm-paged-spec-prefill-only": ("rocm", (EAGLE, {}), ([], {})),
}


@dataclass
class PairCase:
    name: str
    prefill: Case
    decode: Case


def _server(lines: list[str], mode: str) -> str:
    keys = {ln.split(":", 1)[0] for ln in lines}
    base = [ln for ln in BASE if ln.split(":", 1)[0] not in keys]
    return "\n".join(base + [f"disaggregation-mode: {mode}"] + lines) + "\n"


def generate(select: str | None = None) -> list[PairCase]:
    out = []
    for name, (platform, (p_lines, p_env), (d_lines, d_env)) in VARIANTS.items():
        sides = {}
        for role, lines, env in (("prefill", p_lines, p_env), ("decode", d_lines, d_env)):
            sides[role] = Case(
                name=f"pair-{name}-{role}",
                file="pairs.py",
                description=f"the {role} server of pair {name}",
                platform=platform,
                env=dict(env),
                models={"target": {}},
                server=_server(lines, role),
            )
        out.append(PairCase(f"pair-{name}", sides["prefill"], sides["decode"]))
    if select:
        out = [p for p in out if select in p.name]
    return out


def deployment_file(case: Case, gpu: str) -> str:
    """The side as a swacheck deployment file: its platform, GPU and environment with it."""
    env = "".join(f"  {k}: {v!r}\n" for k, v in sorted(case.env.items()))
    server = "".join(f"  {ln}\n" for ln in case.server.splitlines() if ln.strip())
    return (
        f"swacheck: 1\nplatform: {case.platform}\ngpu: {gpu}\n"
        + (f"env:\n{env}" if env else "")
        + f"server:\n{server}"
    )


# --- comparing ---------------------------------------------------------------------------------

FIRST_REQUEST = ("SWA401", "SWA402", "SWA403", "SWA408")


def swacheck_outcome(report: dict | None) -> tuple[str, str]:
    """(outcome, the finding's message) from ``swacheck --format json pair P D``."""
    if report is None or report.get("errors"):
        return "input error", str((report or {}).get("errors"))
    deps = {}
    for dep in report.get("deployments") or []:
        role = "prefill" if "prefill" in dep.get("file", "") else "decode"
        deps[role] = dep
    pair_ids = set()
    for pair in report.get("pairs") or []:
        for f in pair.get("findings") or []:
            pair_ids.add((f["code"], f["message"]))
    for role in ("prefill", "decode"):
        for f in (deps.get(role) or {}).get("findings") or []:
            if f["severity"] == "error" and (f["code"], f["message"]) not in pair_ids:
                return f"start-up:{role}", f"{f['code']} {f['message']}"
    for pair in report.get("pairs") or []:
        for f in pair.get("findings") or []:
            if f["severity"] != "error":
                continue
            if "silently" in f["message"]:
                return "silently", f"{f['code']} {f['message']}"
            if "every request" in f["message"]:
                return "every request", f"{f['code']} {f['message']}"
            if f["code"] in FIRST_REQUEST or "first request" in f["message"]:
                return "first request", f"{f['code']} {f['message']}"
            return "error", f"{f['code']} {f['message']}"
    return "ok", ""


def sglang_outcome(result: dict | None) -> tuple[str, str]:
    if result is None or result.get("outcome") == "harness-error":
        return "harness", str((result or {}).get("message"))
    if result.get("outcome") == "ok":
        return "ok", str(result.get("note") or "")
    if result.get("when") == "start-up":
        return (
            f"start-up:{result['side']}",
            f"{result.get('stage')}:{result.get('exception')}: {result.get('message')}",
        )
    return str(result.get("when")), f"{result.get('exception')}: {result.get('message')}"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip().lower()


def compare_pair(name: str, result: dict | None, report: dict | None) -> dict:
    """One row: do both tools say the same server fails, at the same time, for the same reason?"""
    sgl, sgl_why = sglang_outcome(result)
    swa, swa_why = swacheck_outcome(report)
    row = {"case": name, "sglang": sgl, "swacheck": swa, "sglang_why": sgl_why, "why": swa_why}
    if sgl == "harness":
        row["agrees"] = None
        return row
    # swacheck's "silently": nothing in SGLang notices, and the harness sees the pair start
    same = sgl == swa or (swa == "silently" and sgl == "ok")
    if same and sgl in ("first request",):
        # an assert whose message SGLang wrote with a trailing comma prints as a tuple: ('...',)
        head = _norm(str(result.get("message")).lstrip("(\"'"))[:30]
        same = head in _norm(swa_why)
    row["agrees"] = same
    return row
