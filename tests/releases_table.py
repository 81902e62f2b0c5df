"""Expected verdicts, tuples and message wording of every example and scenario, per SGLang release.

Data for ``tests/test_releases.py``. Each case is a list of ``(first release, findings, target,
draft)`` rows, oldest first; a row holds from its release until the next row's. ``findings`` is a
list of ``(code:severity, text the message contains)``, in report order. Every change between
two rows is a fact of the release profiles (``swacheck/sglang/version.py``; the field is named)
or of the release's flag table (``swacheck/sglang/data/server-args-X.tsv``), with the SGLang
file and line it was read from where it is not in the profile's own comment:

- ``has_dsv4_block`` (0.5.16+, ``srt/disaggregation/utils.py`` 0.5.16:951): before it, a
  target/draft difference is a note, "does not compare the pools yet";
- ``paged_tuple_has_third`` (0.5.23:1827) and ``msg_paged``: the paged tuple is
  ``(page_size, sliding_window)`` with "must share paged SWA geometry" up to 0.5.22, then
  ``(page_size, sliding_window, ring_capacity)`` with "must share SWA geometry";
- ``has_unified_kv`` (0.5.14+): ROCm's ``unified_kv_triton`` backend does not exist in
  0.5.12-0.5.13, so those servers are paged there;
- unified pages = (per-worker requests + decode extra slots + 1) x ring 131 (window 128 + 4
  draft tokens - 1); extra slots 2 x per-worker requests when <= 32 (``extra_slots_divisor``);
- the flag tables: ``attn-dp-size`` exists from 0.5.22 (``unrecognized arguments`` before, and
  the divisor is 1); ``enable-dp-attention`` is a ``DeprecatedStoreTrueAction`` the ``--config``
  loader refuses from 0.5.22 (a plain store_true before); ``dcp-size`` exists from 0.5.15;
- ``dcp_draft_page_scale`` (0.5.17+): the draft's page is page_size x dcp-size
  (``srt/mem_cache/kv_cache_configurator.py`` 0.5.17:279-285 ``loc_space_scale``; absent from
  the 0.5.16 file, which scales only the token counts, 0.5.16:1466-1479);
- ``fp8_pd``: fp8 unified KV under PD absent before 0.5.20, refused for any PD server in
  0.5.20-0.5.21 (``srt/model_executor/pool_configurator.py`` 0.5.20:1033, 0.5.21:1077, in
  ``DSV4PoolConfigurator.__init__``), only with pp > 1 or HiSparse from 0.5.22;
- ``pp_spec``: PP with speculative decoding refused everywhere before 0.5.21 with "Pipeline
  parallelism is not compatible with overlap schedule, speculative decoding"
  (``srt/arg_groups/validation_hook.py`` 0.5.20:81-84 off NPU), only off prefill servers from
  0.5.21 ("only supported on prefill nodes");
- ``pd_pp_refused`` (0.5.12 only): "V4 PD disaggregation requires pp_size=1";
- ``algorithm_assert``: "Only EAGLE speculative algorithm is supported" up to 0.5.15.post1,
  "Only EAGLE and DSPARK speculative algorithms are supported" from 0.5.16.
"""

from __future__ import annotations

from conftest import EAGLE


def server(*lines: str) -> str:
    return EAGLE + "".join(line + "\n" for line in lines)


P2 = (256, 128)  # paged, up to 0.5.22
P3 = (256, 128, None)  # paged, 0.5.23
U_PREFILL = (128, 131, 33667)  # 257 request slots (256 + 1) x 131
U_DECODE_16 = (128, 131, 6419)  # (16 + 32 + 1) x 131
U_DECODE_64_ATTN_DP_2 = (128, 131, 12707)  # (32 + 64 + 1) x 131
U_DECODE_64 = (128, 131, 8515)  # (64 + 0 + 1) x 131: attn-dp-size is not an option yet
W256_PAGED2 = (256, 256)
W256_PAGED3 = (256, 256, None)
W256_UNIFIED = (256, 259, 66563)  # 257 x 259

NOT_YET = "does not compare the pools yet (the check came in 0.5.16"
PAGED_AB = "DSV4 target and draft pools must share paged SWA geometry: target=(256, 128), draft="
PAGED_C = "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft="
RING = "DSV4 target and draft pools must share SWA ring geometry: target=(128, 131, 33667), draft=(256, 259, 66563)"
OLD_PP = "AssertionError: Pipeline parallelism is not compatible with overlap schedule, speculative decoding"
NEW_PP = "on a decode server: AssertionError: PP + speculative decoding (MTP) is only supported on prefill nodes"
FP8_ANY_PD = (
    "ValueError: SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation "
    "(pool_configurator.py DSV4PoolConfigurator.__init__, 0.5.2"
)
FP8_PP = "does not support PD disaggregation with pp_size=2 (pool_configurator.py check_dsv4_unified_fp8_pd_supported)"
NO_ATTN_DP = "unknown server argument 'attn-dp-size': error: unrecognized arguments"
DP_ATTENTION_REFUSED = (
    "refuses 'enable-dp-attention': ValueError: Unsupported config option "
    "'enable_dp_attention' with action 'DeprecatedStoreTrueAction'"
)
EAGLE_ONLY = (
    "AssertionError: Only EAGLE speculative algorithm is supported for DeepseekV4ForCausalLM"
)
EAGLE_DSPARK = "AssertionError: Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM"
DEEPEP = "moe-runner-backend auto with moe-a2a-backend deepep"
MEMORY = "ValueError: Loaded weights leave no GPU memory for the KV cache"
PAGE_64 = "page-size 64 is replaced by 256 for DeepSeek-V4"
ONE_SIDE = "unified KV on the decode server only (prefill unified=False, decode unified=True)"


def _paged(findings_ab=(), findings_c=None):
    """A CUDA/paged case whose only change is the tuple shape: 2-tuple up to 0.5.22, 3 after."""
    return [
        ("0.5.12", list(findings_ab), P2, P2),
        ("0.5.23", list(findings_ab if findings_c is None else findings_c), P3, P3),
    ]


def _w256_paged(pd: bool):
    """A paged server with the window-256 draft: a note before 0.5.16; under PD an error then."""
    if not pd:
        return [
            ("0.5.12", [("SWA102:note", NOT_YET)], P2, W256_PAGED2),
            ("0.5.16", [("SWA102:note", "SGLang checks this only under PD")], P2, W256_PAGED2),
            ("0.5.23", [("SWA102:note", "SGLang checks this only under PD")], P3, W256_PAGED3),
        ]
    return [
        ("0.5.12", [("SWA102:note", NOT_YET)], P2, W256_PAGED2),
        ("0.5.16", [("SWA102:error", PAGED_AB + "(256, 256)")], P2, W256_PAGED2),
        ("0.5.23", [("SWA102:error", PAGED_C + "(256, 256, None)")], P3, W256_PAGED3),
    ]


def _unified(tuples, findings=()):
    """A ROCm unified-KV server: paged where the unified backend does not exist (0.5.12-0.5.13)."""
    return [
        ("0.5.12", list(findings), P2, P2),
        ("0.5.14", list(findings), tuples, tuples),
    ]


def _w256_unified():
    return [
        ("0.5.12", [("SWA102:note", NOT_YET)], P2, W256_PAGED2),
        ("0.5.14", [("SWA101:note", NOT_YET)], U_PREFILL, W256_UNIFIED),
        ("0.5.16", [("SWA101:error", RING)], U_PREFILL, W256_UNIFIED),
    ]


# (file, deployment name) -> rows; every deployment of `swacheck examples/`
EXAMPLES = {
    ("examples/cuda-paged/prefill.yaml", "prefill"): _paged(),
    ("examples/cuda-paged/decode.yaml", "decode"): _paged(),
    ("examples/cuda-draft-window/decode.yaml", "decode"): _w256_paged(pd=True),
    ("examples/cuda-no-pd/server.yaml", "server"): _w256_paged(pd=False),
    ("examples/compose/docker-compose.yaml", "compose/dsv4-decode"): _w256_paged(pd=True),
    ("examples/cuda-nextn/prefill.yaml", "prefill"): [
        ("0.5.12", [("SWA202:error", EAGLE_ONLY)], P2, P2),
        ("0.5.16", [("SWA202:error", EAGLE_DSPARK)], P2, P2),
        ("0.5.23", [("SWA202:error", EAGLE_DSPARK)], P3, P3),
    ],
    ("examples/cuda-dp-attention-in-config/decode.yaml", "decode"): [
        ("0.5.12", [], P2, P2),
        ("0.5.22", [("SWA303:error", DP_ATTENTION_REFUSED)], P2, P2),
        ("0.5.23", [("SWA303:error", DP_ATTENTION_REFUSED)], P3, P3),
    ],
    ("examples/rocm-unified/prefill.yaml", "v4-flash-prefill-rocm"): _unified(U_PREFILL),
    ("examples/rocm-unified/decode.yaml", "v4-flash-decode-rocm"): _unified(U_DECODE_16),
    ("examples/k8s/pd-rocm.yaml", "Deployment/dsv4-flash-prefill/sglang"): _unified(U_PREFILL),
    ("examples/k8s/pd-rocm.yaml", "Deployment/dsv4-flash-decode/sglang"): _unified(U_DECODE_16),
    ("examples/launch/decode.sh", "decode"): _unified(U_DECODE_16),
    ("examples/launch/Dockerfile", "Dockerfile"): _unified(
        U_PREFILL, [("SWA201:warning", PAGE_64)]
    ),
    ("examples/rocm-dp-attention/decode.yaml", "v4-flash-decode-rocm-dp-attention"): [
        ("0.5.12", [("SWA303:error", NO_ATTN_DP)], P2, P2),
        ("0.5.14", [("SWA303:error", NO_ATTN_DP)], U_DECODE_64, U_DECODE_64),
        ("0.5.22", [], U_DECODE_64_ATTN_DP_2, U_DECODE_64_ATTN_DP_2),
    ],
    ("examples/rocm-paged/prefill.yaml", "v4-flash-prefill-rocm-paged"): _paged(),
    (
        "examples/rocm-draft-window/prefill.yaml",
        "v4-flash-prefill-rocm-w256-draft",
    ): _w256_unified(),
    ("examples/from-log/tuples.yaml", "copied-from-log"): [  # the tuples are given: any release
        ("0.5.12", [("SWA101:note", NOT_YET)], U_PREFILL, W256_UNIFIED),
        ("0.5.16", [("SWA101:error", RING)], U_PREFILL, W256_UNIFIED),
    ],
    ("examples/rocm-fp8-pp/decode.yaml", "v4-flash-decode-rocm-fp8-pp2"): [
        (
            "0.5.12",
            [
                ("SWA207:error", OLD_PP),
                ("SWA506:error", "V4 PD disaggregation requires pp_size=1, got pp_size=2."),
            ],
            P2,
            P2,
        ),
        ("0.5.13", [("SWA207:error", OLD_PP)], P2, P2),
        ("0.5.14", [("SWA207:error", OLD_PP)], U_DECODE_16, U_DECODE_16),
        (
            "0.5.20",
            [("SWA204:error", FP8_ANY_PD + "0:1033)"), ("SWA207:error", OLD_PP)],
            U_DECODE_16,
            U_DECODE_16,
        ),
        (
            "0.5.21",
            [("SWA204:error", FP8_ANY_PD + "1:1077)"), ("SWA207:error", NEW_PP)],
            U_DECODE_16,
            U_DECODE_16,
        ),
        (
            "0.5.22",
            [("SWA204:error", FP8_PP), ("SWA207:error", NEW_PP)],
            U_DECODE_16,
            U_DECODE_16,
        ),
    ],
    ("examples/pd-unified-one-side/prefill.yaml", "v4-flash-prefill"): _paged(),
    ("examples/pd-unified-one-side/decode.yaml", "v4-flash-decode"): [
        ("0.5.12", [], P2, P2),  # no unified backend: both sides paged, the pair agrees
        ("0.5.14", [("SWA404:error", ONE_SIDE)], U_DECODE_16, U_DECODE_16),
    ],
    ("examples/preflight-hopper-deepep/server.yaml", "v4-flash-h200-deepep"): _paged(
        [("SWA501:error", DEEPEP)]
    ),
    ("examples/preflight-memory/server.yaml", "v4-flash-2xh100"): _paged(
        [("SWA504:error", MEMORY)]
    ),
}

ROCM = {"platform": "rocm", "env": {"SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton"}}
FP8 = {
    "platform": "rocm",
    "env": {"SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton", "SGLANG_DSV4_UNIFIED_KV_FP8": "1"},
}

# name -> (server.yaml beside models/v4 and models/mtp256, swacheck.check options, rows); the
# scenarios of tests/test_scenarios.py (test_releases.py checks that their inputs are the same)
SCENARIOS = {
    "1 cuda paged": (server("disaggregation-mode: prefill"), {}, _paged()),
    "2 rocm unified prefill": (server("disaggregation-mode: prefill"), ROCM, _unified(U_PREFILL)),
    "3 rocm decode mrr 16": (
        server("disaggregation-mode: decode", "max-running-requests: 16"),
        ROCM,
        _unified(U_DECODE_16),
    ),
    "4 rocm decode dp attention": (
        server(
            "disaggregation-mode: decode",
            "attn-dp-size: 2",
            "max-running-requests: 64",
            "tp-size: 8",
        ),
        ROCM,
        [
            ("0.5.12", [("SWA303:error", NO_ATTN_DP)], P2, P2),
            ("0.5.14", [("SWA303:error", NO_ATTN_DP)], U_DECODE_64, U_DECODE_64),
            ("0.5.22", [], U_DECODE_64_ATTN_DP_2, U_DECODE_64_ATTN_DP_2),
        ],
    ),
    "5 rocm draft window 256": (
        server("disaggregation-mode: prefill", "speculative-draft-model-path: models/mtp256"),
        ROCM,
        _w256_unified(),
    ),
    "6 cuda draft window 256": (
        server("disaggregation-mode: prefill", "speculative-draft-model-path: models/mtp256"),
        {},
        _w256_paged(pd=True),
    ),
    "7 rocm env unset": (server("disaggregation-mode: prefill"), {"platform": "rocm"}, _paged()),
    "10 cuda dcp 2": (
        server("disaggregation-mode: prefill", "dcp-size: 2"),
        {},
        [
            ("0.5.12", [("SWA303:error", "unknown server argument 'dcp-size'")], P2, P2),
            ("0.5.15", [], P2, P2),  # no DSV4 block to compare, and the draft page unscaled
            ("0.5.17", [("SWA102:error", PAGED_AB + "(512, 128)")], P2, (512, 128)),
            ("0.5.23", [("SWA102:error", PAGED_C + "(512, 128, None)")], P3, (512, 128, None)),
        ],
    ),
    "8 fp8 unified pd with pp": (
        server("disaggregation-mode: decode", "pp-size: 2"),
        FP8,
        [
            (
                "0.5.12",
                [
                    ("SWA207:error", OLD_PP),
                    ("SWA506:error", "V4 PD disaggregation requires pp_size=1"),
                ],
                P2,
                P2,
            ),
            ("0.5.13", [("SWA207:error", OLD_PP)], P2, P2),
            ("0.5.14", [("SWA207:error", OLD_PP)], U_PREFILL, U_PREFILL),
            (
                "0.5.20",
                [("SWA204:error", FP8_ANY_PD + "0:1033)"), ("SWA207:error", OLD_PP)],
                U_PREFILL,
                U_PREFILL,
            ),
            (
                "0.5.21",
                [("SWA204:error", FP8_ANY_PD + "1:1077)"), ("SWA207:error", NEW_PP)],
                U_PREFILL,
                U_PREFILL,
            ),
            (
                "0.5.22",
                [("SWA204:error", FP8_PP), ("SWA207:error", NEW_PP)],
                U_PREFILL,
                U_PREFILL,
            ),
        ],
    ),
    "8 fp8 unified pd alone": (
        server("disaggregation-mode: decode"),
        FP8,
        [
            ("0.5.12", [], P2, P2),
            ("0.5.14", [], U_PREFILL, U_PREFILL),  # no mrr: no decode extra slots
            ("0.5.20", [("SWA204:error", FP8_ANY_PD + "0:1033)")], U_PREFILL, U_PREFILL),
            ("0.5.21", [("SWA204:error", FP8_ANY_PD + "1:1077)")], U_PREFILL, U_PREFILL),
            ("0.5.22", [], U_PREFILL, U_PREFILL),
        ],
    ),
    "11 page size 128 is replaced": (
        server("page-size: 128", "disaggregation-mode: prefill"),
        {},
        _paged([("SWA201:warning", "page-size 128 is replaced by 256 for DeepSeek-V4")]),
    ),
    "12 eagle topk 2": (
        EAGLE.replace("topk: 1", "topk: 2"),
        {},
        _paged(
            [
                (
                    "SWA202:error",
                    "Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM",
                )
            ]
        ),
    ),
    "9 no speculative decoding": (
        "model-path: models/v4\ndisaggregation-mode: prefill\n",
        {},
        [("0.5.12", [], P2, None), ("0.5.23", [], P3, None)],
    ),
    "no pd draft window 256": (
        server("speculative-draft-model-path: models/mtp256"),
        ROCM,
        [
            ("0.5.12", [("SWA102:note", NOT_YET)], P2, W256_PAGED2),
            ("0.5.14", [("SWA101:note", NOT_YET)], U_PREFILL, W256_UNIFIED),
            (
                "0.5.16",
                [("SWA101:note", "SGLang checks this only under PD")],
                U_PREFILL,
                W256_UNIFIED,
            ),
        ],
    ),
}

# ``dsv4_fp4_auto_sm`` is empty in 0.5.12-0.5.13: moe-runner-backend auto is triton for DeepSeek-V4's
# FP4 experts on every GPU (no FP4-capable runner chosen; srt/arg_groups/deepseek_v4_hook.py has no
# runner override there, srt/layers/quantization/fp8.py 0.5.12:1637-1649), so SWA501 needs no --gpu
# for them: an error where the checkpoint's folder name says FP4 (the examples' DeepSeek-V4-Flash),
# a warning where only SGLang's default does (the scenarios' models/v4). It is reported first.
AUTO_TRITON = "picks no FP4-capable runner for DeepSeek-V4 on any GPU: auto is triton"


def _old_auto(rows, severity):
    """The rows with SWA501 first before 0.5.14, and a 0.5.14 row without it."""
    old = [r for r in rows if r[0] in ("0.5.12", "0.5.13")]
    out = [(r[0], [(f"SWA501:{severity}", AUTO_TRITON), *r[1]], r[2], r[3]) for r in old]
    if not any(r[0] == "0.5.14" for r in rows):
        out.append(("0.5.14", *old[-1][1:]))
    return out + [r for r in rows if r not in old]


for _key in (
    ("examples/compose/docker-compose.yaml", "compose/dsv4-decode"),
    ("examples/cuda-dp-attention-in-config/decode.yaml", "decode"),
    ("examples/cuda-draft-window/decode.yaml", "decode"),
    ("examples/cuda-nextn/prefill.yaml", "prefill"),
    ("examples/cuda-no-pd/server.yaml", "server"),
    ("examples/cuda-paged/decode.yaml", "decode"),
    ("examples/cuda-paged/prefill.yaml", "prefill"),
):
    EXAMPLES[_key] = _old_auto(EXAMPLES[_key], "error")
for _name in (
    "1 cuda paged",
    "10 cuda dcp 2",
    "11 page size 128 is replaced",
    "12 eagle topk 2",
    "6 cuda draft window 256",
    "9 no speculative decoding",
):
    _text, _extra, _rows = SCENARIOS[_name]
    SCENARIOS[_name] = (_text, _extra, _old_auto(_rows, "warning"))
