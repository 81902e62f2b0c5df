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
# every transfer backend against every other one a prefill can use (a fake prefill is refused
# on its own): nothing in SGLang compares them, the prefill's bootstrap loop reads the decode's
# registration in its own framing
BACKENDS = ("mooncake", "nixl", "mori", "mooncake_tcp", "fake")
for _p in BACKENDS[:4]:
    for _d in BACKENDS:
        if (_p, _d) != ("mooncake", "mooncake"):
            VARIANTS[f"backend-{_p}-{_d}"] = (
                "rocm" if "mori" in (_p, _d) else "cuda",
                (EAGLE + [f"disaggregation-transfer-backend: {_p}"], {}),
                (EAGLE + [f"disaggregation-transfer-backend: {_d}"], {}),
            )
# a GPU, a checkpoint, or a dtype/environment switch on one side: (platform, side, side), a side
# being (lines, env, GPU or None, the model folder's spec or None)
SIDED: dict[str, tuple[str, tuple, tuple]] = {
    "gpu-b200-h200-auto": (
        "cuda",
        (EAGLE, {"SGLANG_DSV4_KV_LAYOUT": "auto"}, "B200", None),
        (EAGLE, {"SGLANG_DSV4_KV_LAYOUT": "auto"}, "H200", None),
    ),
    "gpu-h100-h200": ("cuda", (EAGLE, {}, "H100", None), (EAGLE, {}, "H200", None)),
    "gpu-mi355x-mi300x-auto": (
        "rocm",
        (EAGLE, {"SGLANG_DSV4_KV_LAYOUT": "auto"}, "MI355X", None),
        (EAGLE, {"SGLANG_DSV4_KV_LAYOUT": "auto"}, "MI300X", None),
    ),
    "gpu-mi355x-mi300x": ("rocm", (EAGLE, {}, "MI355X", None), (EAGLE, {}, "MI300X", None)),
    "ckpt-w256-decode": (
        "cuda",
        (EAGLE, {}, None, None),
        (EAGLE, {}, None, {"sliding_window": 256}),
    ),
    "ckpt-w256-decode-no-spec": (
        "cuda",
        ([], {}, None, None),
        ([], {}, None, {"sliding_window": 256}),
    ),
    "ckpt-ratios-decode": (
        "cuda",
        (EAGLE, {}, None, None),
        (
            EAGLE,
            {},
            None,
            {"compress_ratios": [0, 0] + [128, 4] * 20 + [128, 0]},
        ),  # c4 and c128 swapped
    ),
    "env-state-bf16-decode": (
        "cuda",
        (EAGLE, {}, None, None),
        (EAGLE, {"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "bfloat16"}, None, None),
    ),
    "env-compressed-fp8-decode": (
        "cuda",
        (EAGLE, {}, None, None),
        (EAGLE, {"SGLANG_DSV4_COMPRESSED_KV_LAYOUT": "fp8"}, None, None),
    ),
}
VARIANTS["backend-fake-prefill"] = (
    "cuda",
    (EAGLE + ["disaggregation-transfer-backend: fake"], {}),
    (EAGLE, {}),
)


@dataclass
class PairCase:
    name: str
    prefill: Case
    decode: Case


def _server(lines: list[str], mode: str) -> str:
    keys = {ln.split(":", 1)[0] for ln in lines}
    base = [ln for ln in BASE if ln.split(":", 1)[0] not in keys]
    return "\n".join(base + [f"disaggregation-mode: {mode}"] + lines) + "\n"


def side_case(name: str, role: str, platform: str, side: tuple) -> Case:
    """One server of a pair: (lines, env[, GPU, the model spec of its own checkpoint])."""
    lines, env, gpu, model = (tuple(side) + (None, None))[:4]
    lines = list(lines)
    models: dict = {"target": {}}
    if model is not None:  # this side serves a checkpoint of its own
        models[f"{role}-model"] = {k: v for k, v in model.items() if v is not None}
        models[f"{role}-model"]["drop"] = [k for k, v in model.items() if v is None]
        lines = [f"model-path: models/{role}-model"] + lines
    return Case(
        name=f"pair-{name}-{role}",
        file="pairs.py",
        description=f"the {role} server of pair {name}",
        platform=platform,
        gpu=gpu,
        env=dict(env),
        models=models,
        server=_server(lines, role),
    )


def generate(select: str | None = None) -> list[PairCase]:
    out = []
    for name, (platform, p_side, d_side) in {**VARIANTS, **SIDED}.items():
        out.append(
            PairCase(
                f"pair-{name}",
                side_case(name, "prefill", platform, p_side),
                side_case(name, "decode", platform, d_side),
            )
        )
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
    found = [
        (_pair_outcome(f), f"{f['code']} {f['message']}")
        for pair in report.get("pairs") or []
        for f in pair.get("findings") or []
        if f["severity"] == "error"
    ]
    # SGLang's order: the decode compares the prefill's parallel info first (the first request's
    # handshake), then registers, which the prefill may reject (every request); what nothing in
    # SGLang notices comes last
    for outcome in ("first request", "every request", "error", "silently"):
        for got, text in found:
            if got == outcome:
                return got, text
    return "ok", ""


def _pair_outcome(f: dict) -> str:
    if "silently" in f["message"]:
        return "silently"
    if "every request" in f["message"]:
        return "every request"
    if f["code"] in FIRST_REQUEST or "first request" in f["message"]:
        return "first request"
    return "error"


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


# --- the seeded pair matrix ---------------------------------------------------------------------
# Each pair draws a shared server (platform, speculative decoding, parallelism), then for each
# dimension below where it differs (nowhere, the prefill, the decode, or both alike) and a value:
# every transfer backend, a GPU per side, a checkpoint per side, one-sided dtype/env switches.
# Pair i of a seed never changes with the count; seeds from matrix.HELD_BACK on are held back.
PAIR_GPU = {
    "cuda": (("H200", 6), ("H100", 1), ("B200", 2)),
    "rocm": (("MI355X", 4), ("MI300X", 2)),
}
PAIR_DIMS: dict[str, tuple] = {
    # name: ((label, weight, (lines, env, model spec)), ...)
    "backend": (
        ("nixl", 2, ([("disaggregation-transfer-backend: nixl")], {}, None)),
        ("mori", 1, (["disaggregation-transfer-backend: mori"], {}, None)),
        ("tcp", 1, (["disaggregation-transfer-backend: mooncake_tcp"], {}, None)),
        ("fake", 1, (["disaggregation-transfer-backend: fake"], {}, None)),
    ),
    "ckpt": (
        ("w256", 2, ([], {}, {"sliding_window": 256})),
        ("ratios", 1, ([], {}, {"compress_ratios": [0, 0] + [128, 4] * 20 + [128, 0]})),
        ("fp16", 1, ([], {}, {"torch_dtype": "float16"})),
    ),
    "env": (
        ("state-bf16", 1, ([], {"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "bfloat16"}, None)),
        ("ckv-fp8", 1, ([], {"SGLANG_DSV4_COMPRESSED_KV_LAYOUT": "fp8"}, None)),
        ("online", 1, ([], {"SGLANG_OPT_USE_ONLINE_COMPRESS": "1"}, None)),
        ("layout-auto", 2, ([], {"SGLANG_DSV4_KV_LAYOUT": "auto"}, None)),
        ("sampling-mask", 1, ([], {"SGLANG_ENABLE_DISAGG_SAMPLING_MASK": "1"}, None)),
    ),
    "dtype": (
        ("fp8", 1, (["kv-cache-dtype: fp8_e4m3"], {}, None)),
        ("bf16", 1, (["kv-cache-dtype: bfloat16"], {}, None)),
    ),
    "size": (
        ("tp4", 2, (["tp-size: 4"], {}, None)),
        ("page64", 1, (["page-size: 64"], {}, None)),
        ("mrr4", 1, (["max-running-requests: 4"], {}, None)),
        ("pp2", 1, (["tp-size: 4", "pp-size: 2"], {}, None)),
    ),
}
WHERE = (("-", 7), ("p", 1), ("d", 1), ("pd", 1))


def _weighted(rng, options):
    return rng.choices(options, weights=[o[-2] if len(o) == 3 else o[1] for o in options])[0]


def draw_pair(index: int, seed: int) -> PairCase:
    """Pair ``index`` of the pair matrix of ``seed``."""
    import random

    rng = random.Random(f"pair:{seed}:{index}")
    platform = _weighted(rng, (("cuda", 6), ("rocm", 3)))[0]
    env = dict(UNIFIED) if platform == "rocm" and rng.random() < 0.4 else {}
    spec = rng.choice((EAGLE, EAGLE, [*EAGLE[:1], "speculative-num-steps: 1", *EAGLE[2:]], []))
    labels = [platform + ("-unified" if env else ""), "eagle" if spec else "nospec"]
    sides = {
        "prefill": [list(spec), dict(env), None, None],
        "decode": [list(spec), dict(env), None, None],
    }
    for role in sides:
        sides[role][2] = _weighted(rng, PAIR_GPU[platform])[0]
    labels.append(f"gpu={sides['prefill'][2]}+{sides['decode'][2]}")
    for dim, options in PAIR_DIMS.items():
        where = _weighted(rng, WHERE)[0]
        label, _weight, (lines, env_more, model) = _weighted(rng, options)
        if where == "-":
            labels.append(f"{dim}-")
            continue
        labels.append(f"{dim}={label}@{where}")
        for role in ("prefill", "decode"):
            if role[0] not in where:
                continue
            side = sides[role]
            keys = {ln.split(":", 1)[0] for ln in lines}
            side[0] = [ln for ln in side[0] if ln.split(":", 1)[0] not in keys] + list(lines)
            side[1].update(env_more)
            if model is not None:
                side[3] = {**(side[3] or {}), **model}
    name = f"pm-{seed}-{index:04d}[{','.join(labels)}]"
    return PairCase(
        f"pair-{name}",
        side_case(name, "prefill", platform, tuple(sides["prefill"])),
        side_case(name, "decode", platform, tuple(sides["decode"])),
    )


def matrix(count: int, seed: int = 0, select: str | None = None) -> list[PairCase]:
    out = [draw_pair(i, seed) for i in range(count)]
    return [p for p in out if not select or select in p.name]
