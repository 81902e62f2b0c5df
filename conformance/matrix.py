"""A generated, seeded matrix of single-server cases over the arguments that feed the DSV4 geometry
and SGLang's start-up refusals.

    generate(count, seed) -> list[cases.Case]

Each case draws, with a ``random.Random(seed)`` of its own index (so case ``i`` of a seed never
changes when ``count`` grows), one value per dimension below. The draw is weighted towards the
common deployment (CUDA, EAGLE with one step of top-k 1, PD decode) so that most cases reach the
pools and the target/draft check, and the rarer values (DSPARK, adaptive steps, pipeline
parallelism, allocation policy, unified FP8, online compress...) still appear every few dozen
cases. ``max-running-requests`` stays small: SGLang really allocates the pools.

Standard library only (plus ``cases.Case``): the smoke test imports it without SGLang.
"""

from __future__ import annotations

import random

from cases import Case

# (label, weight, value): a value is a list of "key: value" lines for the --config file, or for
# the environment a dict. Weights are relative within a dimension.
PLATFORM = (  # platform, env
    ("cuda", 6, ("cuda", {})),
    ("rocm-paged", 2, ("rocm", {})),
    ("rocm-unified", 3, ("rocm", {"SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton"})),
)
MODE = (
    ("decode", 5, ["disaggregation-mode: decode"]),
    ("prefill", 3, ["disaggregation-mode: prefill"]),
    ("none", 2, []),
)
ALGORITHM = (
    ("EAGLE", 8, "EAGLE"),
    ("NEXTN", 2, "NEXTN"),
    ("MTP", 1, "MTP"),
    ("DSPARK", 2, "DSPARK"),
    ("STANDALONE", 1, "STANDALONE"),
    ("EAGLE3", 1, "EAGLE3"),
    ("none", 2, None),
)
STEPS = (("s-", 1, None), ("s1", 4, 1), ("s2", 2, 2), ("s3", 3, 3), ("s5", 1, 5))
TOPK = (("k-", 1, None), ("k1", 8, 1), ("k2", 1, 2), ("k4", 1, 4))
DRAFT_TOKENS = (("n-", 6, None), ("n2", 2, 2), ("n4", 2, 4), ("n8", 1, 8), ("n16", 1, 16))
DRAFT_MODEL = (  # the draft's checkpoint: the target's own NextN, or a folder with another window
    ("d-", 6, None),
    ("d=target", 2, "target"),
    ("d=w256", 2, "w256"),
    ("d=w64", 1, "w64"),
    ("d=nowin", 1, "nowin"),
)
TARGET_MODEL = (("t=v4", 8, "target"), ("t=w256", 1, "w256"))
PAGE = (("p-", 8, None), ("p64", 1, 64), ("p256", 1, 256))
MRR = (("r1", 1, 1), ("r4", 2, 4), ("r8", 4, 8), ("r16", 2, 16))
PARALLEL = (
    ("tp8", 6, ["tp-size: 8"]),
    ("tp4", 2, ["tp-size: 4"]),
    ("adp2", 2, ["tp-size: 8", "attn-dp-size: 2"]),
    ("dpattn2", 2, ["tp-size: 8", "enable-dp-attention: true", "dp-size: 2"]),
    ("dpattn8", 1, ["tp-size: 8", "enable-dp-attention: true", "dp-size: 8"]),
    ("pp2", 1, ["tp-size: 4", "pp-size: 2"]),
    ("dcp2", 1, ["tp-size: 8", "dcp-size: 2"]),
)
EXTRA = (  # one more switch that reaches a hook, a validator or the pools
    ("x-", 12, []),
    ("adaptive", 2, ["speculative-adaptive: true"]),
    ("prefill-complete", 1, ["disaggregation-decode-allocation-policy: prefill_complete"]),
    ("kv-bf16", 1, ["kv-cache-dtype: bfloat16"]),
    ("kv-fp8", 1, ["kv-cache-dtype: fp8_e4m3"]),
    ("extra-slots4", 1, ["disaggregation-decode-extra-slots: 4"]),
    ("no-hybrid-swa", 1, ["disable-hybrid-swa-memory: true"]),
    ("override-w256", 1, ["json-model-override-args: '{\"sliding_window\": 256}'"]),
    ("kv-sharding", 1, ["enable-kv-cache-sharding: true"]),
)
ENV = (  # switches read from the environment
    ("e-", 10, {}),
    ("online-compress", 2, {"SGLANG_OPT_USE_ONLINE_COMPRESS": "1"}),
    ("unified-fp8", 2, {"SGLANG_DSV4_UNIFIED_KV_FP8": "1"}),
    ("layout-v41", 1, {"SGLANG_DSV4_KV_LAYOUT": "v41"}),
)

# --- dimensions added for issue 24 (drawn after the thirteen above, so those draws are unchanged)
CUDA_GPU = (("g-", 6, None), ("g=H100", 1, "H100"), ("g=B200", 2, "B200"))
ROCM_GPU = (("g-", 5, None), ("g=MI300X", 2, "MI300X"))
CHECKPOINT = (  # the target checkpoint's odd, null or missing keys, or another layout
    ("c-", 12, None),
    ("c=nextn-null", 1, {"num_nextn_predict_layers": None}),
    ("c=nextn-missing", 1, {"drop": ["num_nextn_predict_layers"]}),
    ("c=window-null", 1, {"sliding_window": None}),
    ("c=fp16", 1, {"torch_dtype": "float16"}),
    ("c=dtype-odd", 1, {"torch_dtype": "float8"}),
    ("c=extra-key", 1, {"x_unknown_key": [1, 2]}),
    ("c=ctx4k", 1, {"max_position_embeddings": 4096}),
    ("c=v41", 2, {"base": "v41-flash"}),
)
ENV2 = (  # more switches the raise inventory shows on the path (inventory/env-VERSION.tsv)
    ("e2-", 14, {}),
    ("state-bf16", 1, {"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "bf16"}),
    ("state-fp16", 1, {"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "float16"}),
    ("ckv-fp8", 1, {"SGLANG_DSV4_COMPRESSED_KV_LAYOUT": "fp8"}),
    ("ckv-fp4", 1, {"SGLANG_DSV4_COMPRESSED_KV_LAYOUT": "fp4"}),
    ("layout-auto", 1, {"SGLANG_DSV4_KV_LAYOUT": "auto"}),
    ("layout-v41new", 1, {"SGLANG_DSV4_KV_LAYOUT": "v41_new"}),
    ("staging", 1, {"SGLANG_DISAGG_STAGING_BUFFER": "1"}),
    ("pp-spec", 1, {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("c128-mtp", 1, {"SGLANG_EXPERIMENTAL_ONLINE_C128_MTP": "1"}),
)
PD_EXTRA = (  # the PD hook's switches (SWA207, SWA230) and the transfer backends
    ("pd-", 12, []),
    ("nixl", 1, ["disaggregation-transfer-backend: nixl"]),
    ("mori", 1, ["disaggregation-transfer-backend: mori"]),
    ("fake", 1, ["disaggregation-transfer-backend: fake"]),
    ("mooncake-tcp", 1, ["disaggregation-transfer-backend: mooncake_tcp"]),
    ("role-switch", 2, ["enable-pd-role-switch: true"]),
    ("host-0.5", 1, ["disaggregation-decode-host-receive-threshold: 0.5"]),
    ("host-2", 1, ["disaggregation-decode-host-receive-threshold: 2"]),
    ("radix", 1, ["disaggregation-decode-enable-radix-cache: true"]),
)
SIZING = (
    ("z-", 10, []),
    ("ctx4k", 1, ["context-length: 4096"]),
    ("ctx2m", 1, ["context-length: 2000000"]),
    ("chunk4k", 1, ["chunked-prefill-size: 4096"]),
    ("chunk1000", 1, ["chunked-prefill-size: 1000"]),
)
CLI = (("cli-", 6, 0), ("cli1", 2, 1), ("cli2", 1, 2))  # lines moved from --config to argv
YAML_STYLE = (  # how max-running-requests is written (SGLang's loader is yaml.safe_load)
    ("y-", 10, None),
    ("y=quoted", 1, 'max-running-requests: "{}"'),
    ("y=list", 1, "max-running-requests: [{}]"),
)

MODELS = {
    "target": {},
    "w256": {"sliding_window": 256},
    "w64": {"sliding_window": 64},
    "nowin": {"drop": ["sliding_window"]},
}


def _to_argv(line: str) -> list[str] | None:
    """A ``key: value`` line as command-line arguments; None when it would not survive a shell
    split (spaces, quotes, a YAML list or mapping) or means nothing on the command line."""
    key, _, value = line.partition(":")
    value = value.strip()
    if not value or any(c in value for c in " '\"[]{}"):
        return None
    if value == "true":
        return [f"--{key}"]
    if value == "false":
        return None
    return [f"--{key}", value]


def _pick(rng: random.Random, dim):
    labels, weights, values = zip(*dim)
    i = rng.choices(range(len(dim)), weights=weights)[0]
    return labels[i], values[i]


def draw(index: int, seed: int) -> Case:
    """Case ``index`` of the matrix of ``seed``: independent of how many cases are drawn."""
    rng = random.Random(f"{seed}:{index}")
    labels = []

    def pick(dim):
        label, value = _pick(rng, dim)
        labels.append(label)
        return value

    platform, env = pick(PLATFORM)
    env = dict(env)
    target = pick(TARGET_MODEL)
    lines = [f"model-path: models/{target}"]
    lines += pick(PARALLEL)
    lines += pick(MODE)
    lines.append(f"max-running-requests: {pick(MRR)}")
    page = pick(PAGE)
    if page is not None:
        lines.append(f"page-size: {page}")
    algo = pick(ALGORITHM)
    if algo is not None:
        lines.append(f"speculative-algorithm: {algo}")
        for key, dim in (
            ("speculative-num-steps", STEPS),
            ("speculative-eagle-topk", TOPK),
            ("speculative-num-draft-tokens", DRAFT_TOKENS),
        ):
            value = pick(dim)
            if value is not None:
                lines.append(f"{key}: {value}")
        draft = pick(DRAFT_MODEL)
        if draft is not None:
            lines.append(f"speculative-draft-model-path: models/{draft}")
    else:
        labels.append("nospec")
    lines += pick(EXTRA)
    env.update(pick(ENV))
    # the dimensions added later: GPU, checkpoint, more switches, PD, sizing, CLI, YAML
    gpu = pick(CUDA_GPU if platform == "cuda" else ROCM_GPU)
    checkpoint = pick(CHECKPOINT)
    env.update(pick(ENV2))
    lines += pick(PD_EXTRA)
    lines += pick(SIZING)
    moved = pick(CLI)
    style = pick(YAML_STYLE)
    if style is not None:
        i = next(i for i, ln in enumerate(lines) if ln.startswith("max-running-requests:"))
        lines[i] = style.format(lines[i].split(":", 1)[1].strip())
    argv: list[str] = []
    for _ in range(moved):
        movable = [i for i, ln in enumerate(lines) if _to_argv(ln) is not None]
        if not movable:
            break
        i = rng.choice(movable)
        argv += _to_argv(lines.pop(i)) or []
    used = {"target"} | {
        ln.split("models/")[1] for ln in lines if "models/" in ln and ln.split("models/")[1]
    }
    used |= {a.split("models/")[1] for a in argv if a.startswith("models/")}
    models = {name: dict(MODELS[name]) for name in sorted(used)}
    if checkpoint is not None:  # a variation of the target's checkpoint
        models[target] = {**models[target], **checkpoint}
    return Case(
        name=f"matrix-{seed}-{index:04d}[{','.join(labels)}]",
        file=f"matrix.py (seed {seed})",
        description="generated matrix case",
        platform=platform,
        gpu=gpu,
        env=env,
        argv=argv,
        models=models,
        server="\n".join(lines) + "\n",
    )


# Seeds from HELD_BACK on are held back: never run while rules are developed, run once at the end
# and reported apart (whether the rules generalise past the cases they were fixed on).
HELD_BACK = 1000


def generate(count: int, seed: int = 0, *, select: str | None = None) -> list[Case]:
    cases = [draw(i, seed) for i in range(count)]
    if select:
        cases = [c for c in cases if select in c.name]
    return cases
