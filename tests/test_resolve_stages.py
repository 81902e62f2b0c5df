"""The resolver's stages pinned under every SGLang release swacheck knows.

Each case is a server config run through the CLI (``--format json``) once per release profile
(``swacheck.sglang.version.PROFILES``), and the whole outcome is compared: the mode, the
target and draft tuples SGLang compares -- on ROCm with unified KV that is (window, ring size,
pages), so the request slots and the draft tokens show through --, the rule codes, and whether
SGLang would run its DSV4 target/draft check at all. The numbers follow SGLang's code
(docs/sglang.md, one section per stage); the boundaries are the ones a mutation run found
unguarded: the decode extra slots (one request per worker, the 32 cut-off, max-running-requests
unset), the per-worker floor of 0.5.23, the DSPARK gamma sources, the steps assumed when none
are given, and each release's own branches. A second group pins the provenance of the numbers
(``swacheck explain --format json``), which the reports print.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import V4_FLASH, run_cli

from swacheck.sglang.events import Kind
from swacheck.sglang.resolution import Resolution
from swacheck.sglang.version import PROFILES

RELEASES = list(PROFILES)
ROCM = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
ROCM_ENV_UNSET = ("--platform", "rocm")
NPU = ("--platform", "npu")
EAGLE = [
    "model-path: models/v4",
    "speculative-algorithm: EAGLE",
    "speculative-num-steps: 3",
    "speculative-eagle-topk: 1",
]
DECODE = [*EAGLE, "disaggregation-mode: decode"]
PREFILL = [*EAGLE, "disaggregation-mode: prefill"]
DSPARK = [
    "model-path: models/v4",
    "speculative-algorithm: DSPARK",
    "disaggregation-mode: prefill",
    "max-running-requests: 16",
]
DSPARK_D = [*DSPARK, "speculative-draft-model-path: models/d"]


def v4_flash(**keys) -> str:
    """The V4-Flash config.json with some keys added or replaced."""
    return json.dumps({**json.loads(V4_FLASH), **keys})


def releases(span: str) -> list[str]:
    """ "0.5.14-0.5.21" -> every release from the first to the last, in PROFILES order."""
    first, _, last = span.partition("-")
    return RELEASES[RELEASES.index(first) : RELEASES.index(last or first) + 1]


# name: (model files, server.yaml lines, CLI arguments,
#        {releases: (mode, target tuple, draft tuple, rule codes, checked by SGLang)})
CASES = {
    "decode mrr unset": (
        {},
        [*DECODE],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 33667), (128, 131, 33667), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 33667), (128, 131, 33667), (), True),
        },
    ),
    "decode mrr 1": (
        {},
        [*DECODE, "max-running-requests: 1"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 524), (128, 131, 524), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 524), (128, 131, 524), (), True),
        },
    ),
    "decode mrr 32": (
        {},
        [*DECODE, "max-running-requests: 32"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 12707), (128, 131, 12707), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 12707), (128, 131, 12707), (), True),
        },
    ),
    "decode mrr 33": (
        {},
        [*DECODE, "max-running-requests: 33"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 4454), (128, 131, 4454), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 4454), (128, 131, 4454), (), True),
        },
    ),
    "decode mrr 0": (
        {},
        [*DECODE, "max-running-requests: 0"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA304",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 131),
                (128, 131, 131),
                ("SWA304",),
                False,
            ),
            "0.5.16-0.5.22": ("unified", (128, 131, 131), (128, 131, 131), ("SWA304",), True),
            "0.5.23": ("unified", (128, 131, 524), (128, 131, 524), ("SWA304",), True),
        },
    ),
    "decode dp 2 mrr 64": (
        {},
        [*DECODE, "dp-size: 2", "max-running-requests: 64"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 16899), (128, 131, 16899), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 16899), (128, 131, 16899), (), True),
        },
    ),
    "decode dp 2 mrr 66": (
        {},
        [*DECODE, "dp-size: 2", "max-running-requests: 66"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 8777), (128, 131, 8777), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 8777), (128, 131, 8777), (), True),
        },
    ),
    "decode dp 2 dp-attention mrr 64": (
        {},
        [
            *DECODE,
            "dp-size: 2",
            "enable-dp-attention: true",
            "max-running-requests: 64",
            "tp-size: 8",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 12707), (128, 131, 12707), (), False),
            "0.5.16-0.5.21": ("unified", (128, 131, 12707), (128, 131, 12707), (), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 12707), (128, 131, 12707), ("SWA303",), True),
        },
    ),
    "decode attn-dp 2 mrr 64": (
        {},
        [*DECODE, "attn-dp-size: 2", "max-running-requests: 64", "tp-size: 8"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 8515),
                (128, 131, 8515),
                ("SWA303",),
                False,
            ),
            "0.5.16-0.5.21": ("unified", (128, 131, 8515), (128, 131, 8515), ("SWA303",), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 12707), (128, 131, 12707), (), True),
        },
    ),
    "decode attn-dp 2 mrr 1": (
        {},
        [*DECODE, "attn-dp-size: 2", "max-running-requests: 1", "tp-size: 8"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 524),
                (128, 131, 524),
                ("SWA303",),
                False,
            ),
            "0.5.16-0.5.21": ("unified", (128, 131, 524), (128, 131, 524), ("SWA303",), True),
            "0.5.22": ("unified", (128, 131, 131), (128, 131, 131), ("SWA304",), True),
            "0.5.23": ("unified", (128, 131, 524), (128, 131, 524), ("SWA304",), True),
        },
    ),
    "decode attn-dp 2 mrr 3": (
        {},
        [*DECODE, "attn-dp-size: 2", "max-running-requests: 3", "tp-size: 8"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 1310),
                (128, 131, 1310),
                ("SWA303",),
                False,
            ),
            "0.5.16-0.5.21": ("unified", (128, 131, 1310), (128, 131, 1310), ("SWA303",), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 524), (128, 131, 524), (), True),
        },
    ),
    "decode dp 2 attn-dp 2 mrr 64": (
        {},
        [*DECODE, "dp-size: 2", "attn-dp-size: 2", "max-running-requests: 64", "tp-size: 8"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 16899),
                (128, 131, 16899),
                ("SWA303",),
                False,
            ),
            "0.5.16-0.5.21": ("unified", (128, 131, 16899), (128, 131, 16899), ("SWA303",), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 8515), (128, 131, 8515), ("SWA304",), True),
        },
    ),
    "decode extra 5": (
        {},
        [*DECODE, "disaggregation-decode-extra-slots: 5"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 34322), (128, 131, 34322), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 34322), (128, 131, 34322), (), True),
        },
    ),
    # --max-total-tokens caps the request table (0.5.22+: min(mrr // attn-dp, capacity // 2), the
    # capacity floored to pages): 300 tokens -> 256 -> 128 requests, not 200 (conformance
    # cases/max-total-tokens.yaml, SGLang 0.5.23 and 0.5.22 build 131 request slots)
    "decode max-total-tokens caps requests": (
        {},
        [
            *DECODE,
            "max-running-requests: 200",
            "disaggregation-decode-extra-slots: 2",
            "max-total-tokens: 300",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 26593), (128, 131, 26593), (), False),
            "0.5.16-0.5.21": ("unified", (128, 131, 26593), (128, 131, 26593), (), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 17161), (128, 131, 17161), (), True),
        },
    ),
    "decode max-total-tokens 1k does not cap 200 requests": (
        {},
        [*DECODE, "max-running-requests: 200", "max-total-tokens: 1k"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 26331), (128, 131, 26331), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 26331), (128, 131, 26331), (), True),
        },
    ),
    "decode max-total-tokens below a page": (
        {},
        [*DECODE, "max-running-requests: 8", "max-total-tokens: 200"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 3275), (128, 131, 3275), (), False),
            "0.5.16-0.5.21": ("unified", (128, 131, 3275), (128, 131, 3275), (), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), ("SWA304",), True),
        },
    ),
    "prefill mrr 16": (
        {},
        [*PREFILL, "max-running-requests: 16"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 2227), (128, 131, 2227), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), (), True),
        },
    ),
    "eagle steps 5": (
        {},
        [
            "model-path: models/v4",
            "speculative-algorithm: EAGLE",
            "speculative-num-steps: 5",
            "speculative-eagle-topk: 1",
            "disaggregation-mode: prefill",
            "max-running-requests: 16",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 133, 2261), (128, 133, 2261), (), False),
            "0.5.16-0.5.23": ("unified", (128, 133, 2261), (128, 133, 2261), (), True),
        },
    ),
    "eagle no steps": (
        {},
        [
            "model-path: models/v4",
            "speculative-algorithm: EAGLE",
            "speculative-eagle-topk: 1",
            "disaggregation-mode: prefill",
            "max-running-requests: 16",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA202",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 2227),
                (128, 131, 2227),
                ("SWA202",),
                False,
            ),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), ("SWA202",), True),
        },
    ),
    "eagle no steps no topk": (
        {},
        [
            "model-path: models/v4",
            "speculative-algorithm: EAGLE",
            "disaggregation-mode: prefill",
            "max-running-requests: 16",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA202",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 2227),
                (128, 131, 2227),
                ("SWA202",),
                False,
            ),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), ("SWA202",), True),
        },
    ),
    "eagle adaptive no steps": (
        {},
        [
            "model-path: models/v4",
            "speculative-algorithm: EAGLE",
            "speculative-eagle-topk: 1",
            "disaggregation-mode: prefill",
            "max-running-requests: 16",
            "speculative-adaptive: true",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 2227), (128, 131, 2227), (), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), (), True),
        },
    ),
    "eagle ndt 2": (
        {},
        [*PREFILL, "max-running-requests: 16", "speculative-num-draft-tokens: 2"],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA203",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 2227),
                (128, 131, 2227),
                ("SWA203",),
                False,
            ),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), ("SWA203",), True),
        },
    ),
    "eagle topk 2": (
        {},
        [
            "model-path: models/v4",
            "speculative-algorithm: EAGLE",
            "speculative-num-steps: 3",
            "speculative-eagle-topk: 2",
            "disaggregation-mode: prefill",
            "max-running-requests: 16",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA202",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 2227),
                (128, 131, 2227),
                ("SWA202",),
                False,
            ),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), ("SWA202",), True),
        },
    ),
    "nextn": (
        {},
        [
            "model-path: models/v4",
            "speculative-algorithm: NEXTN",
            "speculative-num-steps: 2",
            "speculative-eagle-topk: 1",
            "disaggregation-mode: prefill",
            "max-running-requests: 16",
        ],
        ROCM,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA202",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 130, 2210),
                (128, 130, 2210),
                ("SWA202",),
                False,
            ),
            "0.5.16-0.5.23": ("unified", (128, 130, 2210), (128, 130, 2210), ("SWA202",), True),
        },
    ),
    "dspark gamma default": (
        {"models/d/config.json": V4_FLASH},
        [*DSPARK_D],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.23": ("unified", (128, 135, 2295), (128, 135, 2295), (), True),
        },
    ),
    "dspark draft dspark_block_size 4": (
        {"models/d/config.json": v4_flash(dspark_block_size=4)},
        [*DSPARK_D],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.23": ("unified", (128, 132, 2244), (128, 132, 2244), (), True),
        },
    ),
    "dspark draft block_size 5": (
        {"models/d/config.json": v4_flash(block_size=5)},
        [*DSPARK_D],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.23": ("unified", (128, 133, 2261), (128, 133, 2261), (), True),
        },
    ),
    "dspark flag 2": (
        {"models/d/config.json": v4_flash(dspark_block_size=4)},
        [*DSPARK_D, "speculative-dspark-block-size: 2"],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202", "SWA303"), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202", "SWA303"), False),
            "0.5.16-0.5.23": ("unified", (128, 130, 2210), (128, 130, 2210), (), True),
        },
    ),
    "dspark ndt 6": (
        {"models/d/config.json": V4_FLASH},
        [*DSPARK_D, "speculative-num-draft-tokens: 6"],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.23": ("unified", (128, 133, 2261), (128, 133, 2261), (), True),
        },
    ),
    "dspark bundled 3": (
        {"models/v4/config.json": v4_flash(dspark_block_size=3)},
        [*DSPARK],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), (), True),
        },
    ),
    "dspark not bundled": (
        {},
        [*DSPARK],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.23": ("unified", (128, 135, 2295), (128, 135, 2295), ("SWA202",), True),
        },
    ),
    # 0.5.23 takes a DSpark draft from the target's dspark/ subfolder (speculative_hook.py
    # 0.5.23:737-750): its config.json gives the draft's gamma and window
    "dspark subfolder": (
        {"models/v4/dspark/config.json": v4_flash(dspark_block_size=3)},
        [*DSPARK],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.22": ("unified", (128, 135, 2295), (128, 135, 2295), ("SWA202",), True),
            "0.5.23": ("unified", (128, 131, 2227), (128, 131, 2227), (), True),
        },
    ),
    "dspark subfolder window 256": (
        {"models/v4/dspark/config.json": v4_flash(dspark_block_size=3, sliding_window=256)},
        [*DSPARK],
        ROCM,
        {
            "0.5.12-0.5.13": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.14-0.5.15.post1": ("skipped", (128, 128, 2176), None, ("SWA202",), False),
            "0.5.16-0.5.22": ("unified", (128, 135, 2295), (128, 135, 2295), ("SWA202",), True),
            "0.5.23": ("unified", (128, 131, 2227), (256, 259, 4403), ("SWA101",), True),
        },
    ),
    "cuda dcp 2": (
        {},
        [*PREFILL, "dcp-size: 2"],
        (),
        {
            "0.5.12-0.5.14": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.15-0.5.15.post1": ("paged", (256, 128), (256, 128), (), False),
            "0.5.16": ("paged", (256, 128), (256, 128), (), True),
            "0.5.17-0.5.22": ("paged", (256, 128), (512, 128), ("SWA102",), True),
            "0.5.23": ("paged", (256, 128, None), (512, 128, None), ("SWA102",), True),
        },
    ),
    "npu prefill": (
        {},
        [*PREFILL],
        NPU,
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.17": ("paged", (128, 128), (128, 128), (), False),
            "0.5.18-0.5.22": ("paged", (128, 128), (128, 128), (), True),
            "0.5.23": ("paged", (128, 128, None), (128, 128, None), (), True),
        },
    ),
    "cuda page 128": (
        {},
        [*PREFILL, "page-size: 128"],
        (),
        {
            "0.5.12-0.5.15.post1": ("paged", (256, 128), (256, 128), ("SWA201",), False),
            "0.5.16-0.5.22": ("paged", (256, 128), (256, 128), ("SWA201",), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), ("SWA201",), True),
        },
    ),
    "cuda bf16": (
        {},
        [*PREFILL, "kv-cache-dtype: bfloat16"],
        (),
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), ("SWA205",), False),
            "0.5.14-0.5.15.post1": ("paged", (256, 128), (256, 128), ("SWA503",), False),
            "0.5.16-0.5.22": ("paged", (256, 128), (256, 128), ("SWA503",), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), ("SWA503",), True),
        },
    ),
    "cuda trtllm decode": (
        {},
        [*DECODE, "dsv4-attn-backend: trtllm"],
        (),
        {
            "0.5.12-0.5.15.post1": ("paged", (256, 128), (256, 128), ("SWA303",), False),
            "0.5.16-0.5.19": ("paged", (256, 128), (256, 128), ("SWA303",), True),
            "0.5.20-0.5.22": ("paged", (256, 128), (256, 128), ("SWA205",), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), ("SWA205",), True),
        },
    ),
    "rocm fp8 decode": (
        {},
        [*DECODE],
        (*ROCM, "--env", "SGLANG_DSV4_UNIFIED_KV_FP8=1"),
        {
            "0.5.12-0.5.13": ("paged", (256, 128), (256, 128), (), False),
            "0.5.14-0.5.15.post1": ("unified", (128, 131, 33667), (128, 131, 33667), (), False),
            "0.5.16-0.5.19": ("unified", (128, 131, 33667), (128, 131, 33667), (), True),
            "0.5.20-0.5.21": ("unified", (128, 131, 33667), (128, 131, 33667), ("SWA204",), True),
            "0.5.22-0.5.23": ("unified", (128, 131, 33667), (128, 131, 33667), (), True),
        },
    ),
    "rocm fp8 decode pp 2": (
        {},
        [*DECODE, "pp-size: 2"],
        (*ROCM, "--env", "SGLANG_DSV4_UNIFIED_KV_FP8=1"),
        {
            "0.5.12": ("paged", (256, 128), (256, 128), ("SWA207", "SWA506"), False),
            "0.5.13": ("paged", (256, 128), (256, 128), ("SWA207",), False),
            "0.5.14-0.5.15.post1": (
                "unified",
                (128, 131, 33667),
                (128, 131, 33667),
                ("SWA207",),
                False,
            ),
            "0.5.16-0.5.19": ("unified", (128, 131, 33667), (128, 131, 33667), ("SWA207",), True),
            "0.5.20-0.5.23": (
                "unified",
                (128, 131, 33667),
                (128, 131, 33667),
                ("SWA204", "SWA207"),
                True,
            ),
        },
    ),
    "cuda decode pp 2 no spec": (
        {},
        ["model-path: models/v4", "disaggregation-mode: decode", "pp-size: 2"],
        (),
        {
            "0.5.12": ("skipped", (256, 128), None, ("SWA506",), False),
            "0.5.13-0.5.22": ("skipped", (256, 128), None, (), False),
            "0.5.23": ("skipped", (256, 128, None), None, (), False),
        },
    ),
    "cuda eagle prefill pp 2": (
        {},
        [*PREFILL, "pp-size: 2"],
        (),
        {
            "0.5.12": ("paged", (256, 128), (256, 128), ("SWA207", "SWA506"), False),
            "0.5.13-0.5.15.post1": ("paged", (256, 128), (256, 128), ("SWA207",), False),
            "0.5.16-0.5.20": ("paged", (256, 128), (256, 128), ("SWA207",), True),
            "0.5.21-0.5.22": ("paged", (256, 128), (256, 128), (), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), (), True),
        },
    ),
    "npu eagle prefill pp 2": (
        {},
        [*PREFILL, "pp-size: 2"],
        NPU,
        {
            "0.5.12": ("paged", (256, 128), (256, 128), ("SWA207", "SWA506"), False),
            "0.5.13": ("paged", (256, 128), (256, 128), ("SWA207",), False),
            "0.5.14-0.5.17": ("paged", (128, 128), (128, 128), ("SWA207",), False),
            "0.5.18-0.5.19": ("paged", (128, 128), (128, 128), ("SWA207",), True),
            "0.5.20-0.5.22": ("paged", (128, 128), (128, 128), (), True),
            "0.5.23": ("paged", (128, 128, None), (128, 128, None), (), True),
        },
    ),
    "cuda eagle aggregated pp 2 pp-spec env": (
        {},
        [*EAGLE, "pp-size: 2"],
        ("--env", "SGLANG_ENABLE_PP_SPEC=1"),
        {
            "0.5.12-0.5.20": ("paged", (256, 128), (256, 128), ("SWA207",), False),
            "0.5.21-0.5.22": ("paged", (256, 128), (256, 128), (), False),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), (), False),
        },
    ),
    "cuda dspark prefill pp 2": (
        {"models/d/config.json": V4_FLASH},
        [*DSPARK_D, "pp-size: 2"],
        (),
        {
            "0.5.12": ("skipped", (256, 128), None, ("SWA202", "SWA506"), False),
            "0.5.13-0.5.15.post1": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.16-0.5.20": ("paged", (256, 128), (256, 128), ("SWA207",), True),
            "0.5.21-0.5.22": ("paged", (256, 128), (256, 128), (), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), (), True),
        },
    ),
    "cuda dspark decode pp 2": (
        {"models/d/config.json": V4_FLASH},
        [
            "model-path: models/v4",
            "speculative-algorithm: DSPARK",
            "disaggregation-mode: decode",
            "speculative-draft-model-path: models/d",
            "pp-size: 2",
        ],
        (),
        {
            "0.5.12": ("skipped", (256, 128), None, ("SWA202", "SWA506"), False),
            "0.5.13-0.5.15.post1": ("skipped", (256, 128), None, ("SWA202",), False),
            "0.5.16-0.5.22": ("paged", (256, 128), (256, 128), ("SWA207",), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), ("SWA207",), True),
        },
    ),
    "rocm env unset decode": (
        {},
        [*DECODE],
        ROCM_ENV_UNSET,
        {
            "0.5.12-0.5.15.post1": ("paged", (256, 128), (256, 128), (), False),
            "0.5.16-0.5.22": ("paged", (256, 128), (256, 128), (), True),
            "0.5.23": ("paged", (256, 128, None), (256, 128, None), (), True),
        },
    ),
}


# CUDA launches with moe-runner-backend auto and SGLang's default FP4 experts: 0.5.12-0.5.13 pick no
# FP4-capable runner on any GPU (auto is triton), so SWA501 reports it there without --gpu, first
OLD_AUTO_CASES = {
    "cuda bf16",
    "cuda dcp 2",
    "cuda page 128",
    "cuda trtllm decode",
    "cuda decode pp 2 no spec",
    "cuda eagle prefill pp 2",
    "cuda eagle aggregated pp 2 pp-spec env",
    "cuda dspark prefill pp 2",
    "cuda dspark decode pp 2",
}


def expectations():
    for name, (files, lines, args, by_span) in CASES.items():
        expected = {v: outcome for span, outcome in by_span.items() for v in releases(span)}
        assert sorted(expected, key=RELEASES.index) == RELEASES, name  # every release, once
        for version in RELEASES:
            want = expected[version]
            if name in OLD_AUTO_CASES and version in ("0.5.12", "0.5.13"):
                want = (*want[:3], ("SWA501", *want[3]), *want[4:])
            yield pytest.param(files, lines, args, version, want, id=f"{name}@{version}")


def outcome(tree, files, lines, args, version, *command):
    root = tree({**files, "server.yaml": "".join(line + "\n" for line in lines)})
    run = run_cli(
        *command, "--format", "json", "--sglang-version", version, *args, "server.yaml", cwd=root
    )
    assert run.stderr == "", run.stderr
    return json.loads(run.stdout)["deployments"][0]


@pytest.mark.parametrize(("files", "lines", "args", "version", "expected"), list(expectations()))
def test_outcome_under_every_release(tree, files, lines, args, version, expected):
    dep = outcome(tree, files, lines, args, version)
    got = (
        dep["mode"],
        tuple(dep["target"]["tuple"]) if dep["target"] else None,
        tuple(dep["draft"]["tuple"]) if dep["draft"] else None,
        tuple(f["code"] for f in dep["findings"]),
        dep["checked_by_sglang"],
    )
    assert got == expected


def flatten(node: dict, depth: int = 0) -> list[str]:
    """An explain tree as lines: name = value: formula (or where it came from), inputs indented."""
    lines = [
        f"{'  ' * depth}{node['name']} = {node['value']!r}: {node['formula'] or node['origin']}"
    ]
    for child in node["inputs"]:
        lines += flatten(child, depth + 1)
    return lines


# (case, release, field of the target pool): the explain tree of that number
PROVENANCE = {
    ("decode attn-dp 2 mrr 1", "0.5.23", "pages"): [
        "pages = 524: request slots 4 x ring 131",
        "  request slots = 4: per-worker requests 1 + decode extra slots 2 + 1 padding row",
        "    per-worker max-running-requests = 1: max-running-requests 1 // attn-dp-size 2"
        " (memory assumed not to cap it)",
        "      max-running-requests = 1: max-running-requests",
        "      attn-dp-size = 2: attn-dp-size",
        "    decode extra slots = 2: PD hook: 2 x per-worker requests 1",
        "      max-running-requests = 1: max-running-requests",
        "      dp-size = 1: SGLang default (--dp-size)",
        "      attn-dp-size = 2: attn-dp-size",
        "  ring size = 131: None",
    ],
    ("decode attn-dp 2 mrr 1", "0.5.22", "pages"): [
        "pages = 131: request slots 1 x ring 131",
        "  request slots = 1: per-worker requests 0 + decode extra slots 0 + 1 padding row",
        "    per-worker max-running-requests = 0: max-running-requests 1 // attn-dp-size 2"
        " (memory assumed not to cap it)",
        "      max-running-requests = 1: max-running-requests",
        "      attn-dp-size = 2: attn-dp-size",
        "    decode extra slots = 0: PD hook: 2 x per-worker requests 0",
        "      max-running-requests = 1: max-running-requests",
        "      dp-size = 1: SGLang default (--dp-size)",
        "      attn-dp-size = 2: attn-dp-size",
        "  ring size = 131: None",
    ],
    ("decode mrr unset", "0.5.23", "pages"): [
        "pages = 33667: request slots 257 x ring 131",
        "  request slots = 257: per-worker requests 256 + decode extra slots 0 + 1 padding row",
        "    per-worker max-running-requests = 256: max-running-requests 256 // attn-dp-size 1"
        " (memory assumed not to cap it)",
        "      max-running-requests = 256: SGLang default (DSV4 hook, max-running-requests unset)",
        "      attn-dp-size = 1: SGLang default (--attn-dp-size)",
        "    decode extra slots = 0: SGLang default (PD hook: max-running-requests unset when it runs)",
        "  ring size = 131: None",
    ],
    ("decode mrr 33", "0.5.21", "pages"): [
        "pages = 4454: request slots 34 x ring 131",
        "  request slots = 34: per-worker requests 33 + decode extra slots 0 + 1 padding row",
        "    per-worker max-running-requests = 33: max-running-requests 33 // attn-dp-size 1"
        " (memory assumed not to cap it)",
        "      max-running-requests = 33: max-running-requests",
        "      attn-dp-size = 1: SGLang default (no enable-dp-attention)",
        "    decode extra slots = 0: PD hook: per-worker requests 33 > 32",
        "      max-running-requests = 33: max-running-requests",
        "      dp-size = 1: SGLang default (--dp-size)",
        "      attn-dp-size = 1: SGLang default (no enable-dp-attention)",
        "  ring size = 131: None",
    ],
    ("decode dp 2 dp-attention mrr 64", "0.5.21", "pages"): [
        "pages = 12707: request slots 97 x ring 131",
        "  request slots = 97: per-worker requests 32 + decode extra slots 64 + 1 padding row",
        "    per-worker max-running-requests = 32: max-running-requests 64 // attn-dp-size 2"
        " (memory assumed not to cap it)",
        "      max-running-requests = 64: max-running-requests",
        "      attn-dp-size = 2: dp-size 2 (enable-dp-attention)",
        "    decode extra slots = 64: PD hook: 2 x per-worker requests 32",
        "      max-running-requests = 64: max-running-requests",
        "      dp-size = 2: dp-size",
        "      attn-dp-size = 2: dp-size 2 (enable-dp-attention)",
        "  ring size = 131: None",
    ],
    ("decode dp 2 dp-attention mrr 64", "0.5.22", "pages"): [
        "pages = 12707: request slots 97 x ring 131",
        "  request slots = 97: per-worker requests 32 + decode extra slots 64 + 1 padding row",
        "    per-worker max-running-requests = 32: max-running-requests 64 // attn-dp-size 2"
        " (memory assumed not to cap it)",
        "      max-running-requests = 64: max-running-requests",
        "      attn-dp-size = 2: dp-size 2 (what enable-dp-attention means)",
        "    decode extra slots = 64: PD hook: 2 x per-worker requests 32",
        "      max-running-requests = 64: max-running-requests",
        "      dp-size = 1: enable-dp-attention turns dp-size into attn-dp-size",
        "      attn-dp-size = 2: dp-size 2 (what enable-dp-attention means)",
        "  ring size = 131: None",
    ],
    ("eagle no steps", "0.5.23", "ring_size"): [
        "ring_size = 131: window 128 + draft tokens 4 - 1",
        "  window = 128: None",
        "  draft tokens = 4: speculative-num-steps 3 + 1 (top-k 1)",
        "    speculative-num-steps = 3: assumed: SGLang's auto choice for DeepSeek-V4 is 3 steps",
    ],
    ("eagle adaptive no steps", "0.5.23", "ring_size"): [
        "ring_size = 131: window 128 + draft tokens 4 - 1",
        "  window = 128: None",
        "  draft tokens = 4: speculative-num-steps 3 + 1 (top-k 1)",
        "    speculative-num-steps = 3: adaptive speculative: the middle of candidate steps [0, 1, 3, 5, 7]"
        " (SGLang's default adaptive config)",
    ],
    ("dspark gamma default", "0.5.23", "ring_size"): [
        "ring_size = 135: window 128 + draft tokens 8 - 1",
        "  window = 128: None",
        "  draft tokens = 8: DSpark gamma 7 + 1",
        "    gamma = 7: SGLang default (DEFAULT_DSPARK_GAMMA)",
    ],
    ("dspark draft dspark_block_size 4", "0.5.20", "ring_size"): [
        "ring_size = 132: window 128 + draft tokens 5 - 1",
        "  window = 128: None",
        "  draft tokens = 5: DSpark gamma 4 + 1",
        "    gamma = 4: draft config.json dspark_block_size",
    ],
    ("dspark draft block_size 5", "0.5.23", "ring_size"): [
        "ring_size = 133: window 128 + draft tokens 6 - 1",
        "  window = 128: None",
        "  draft tokens = 6: DSpark gamma 5 + 1",
        "    gamma = 5: draft config.json block_size",
    ],
    ("dspark flag 2", "0.5.17", "ring_size"): [
        "ring_size = 130: window 128 + draft tokens 3 - 1",
        "  window = 128: None",
        "  draft tokens = 3: DSpark gamma 2 + 1",
        "    gamma = 2: speculative-dspark-block-size",
    ],
    ("dspark ndt 6", "0.5.23", "ring_size"): [
        "ring_size = 133: window 128 + draft tokens 6 - 1",
        "  window = 128: None",
        "  draft tokens = 6: speculative-num-draft-tokens",
    ],
    ("decode extra 5", "0.5.23", "pages"): [
        "pages = 34322: request slots 262 x ring 131",
        "  request slots = 262: per-worker requests 256 + decode extra slots 5 + 1 padding row",
        "    per-worker max-running-requests = 256: max-running-requests 256 // attn-dp-size 1"
        " (memory assumed not to cap it)",
        "      max-running-requests = 256: SGLang default (DSV4 hook, max-running-requests unset)",
        "      attn-dp-size = 1: SGLang default (--attn-dp-size)",
        "    decode extra slots = 5: disaggregation-decode-extra-slots",
        "  ring size = 131: None",
    ],
    ("prefill mrr 16", "0.5.14", "pages"): [
        "pages = 2227: request slots 17 x ring 131",
        "  request slots = 17: per-worker requests 16 + decode extra slots 0 + 1 padding row",
        "    per-worker max-running-requests = 16: max-running-requests 16 // attn-dp-size 1"
        " (memory assumed not to cap it)",
        "      max-running-requests = 16: max-running-requests",
        "      attn-dp-size = 1: SGLang default (no enable-dp-attention)",
        "    decode extra slots = 0: SGLang default (only a PD decode server pre-allocates request slots)",
        "  ring size = 131: None",
    ],
    ("decode mrr 0", "0.5.23", "pages"): [
        "pages = 524: request slots 4 x ring 131",
        "  request slots = 4: per-worker requests 1 + decode extra slots 2 + 1 padding row",
        "    per-worker max-running-requests = 1: max-running-requests 0 // attn-dp-size 1"
        " (memory assumed not to cap it)",
        "      max-running-requests = 0: max-running-requests",
        "      attn-dp-size = 1: SGLang default (--attn-dp-size)",
        "    decode extra slots = 2: PD hook: 2 x per-worker requests 1",
        "      max-running-requests = 0: max-running-requests",
        "      dp-size = 1: SGLang default (--dp-size)",
        "      attn-dp-size = 1: SGLang default (--attn-dp-size)",
        "  ring size = 131: None",
    ],
}


@pytest.mark.parametrize(("name", "version", "field"), list(PROVENANCE), ids=" ".join)
def test_provenance(tree, name, version, field):
    files, lines, args, _ = CASES[name]
    dep = outcome(tree, files, lines, args, version, "explain")
    (node,) = [f for f in dep["target"]["fields"] if f["name"] == field]
    assert flatten(node) == PROVENANCE[name, version, field]


def test_event_kinds_are_named_constants():
    """Rules select events by Kind: a misspelt member fails, and so does a free string."""
    res = Resolution(None, PROFILES["0.5.23"], {}, [], "skipped")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        res.events_of("page-size-replacd")
    assert res.events_of(Kind.PAGE_SIZE_REPLACED) == []
    package = Path(__file__).resolve().parent.parent / "swacheck"
    rules = "".join(p.read_text() for p in (package / "rules").glob("*.py"))
    stages = "".join(p.read_text() for p in (package / "sglang").rglob("*.py"))
    assert not re.search(r'events_of\(\s*"', rules)  # no free strings
    for kind in Kind:  # each kind is recorded by a stage and selected by a rule
        assert f"Kind.{kind.name}" in stages, kind
        assert f"Kind.{kind.name}" in rules, kind


PREFILL_COMPLETE = "disaggregation-decode-allocation-policy: prefill_complete"


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize(
    ("lines", "refused"),
    [
        (["enable-pd-role-switch: true"], "runtime PD role switching"),
        (["disaggregation-decode-host-receive-threshold: 0.5"], "decode host KV buffering"),
        (["disaggregation-decode-host-receive-threshold: 1"], None),
        (
            ["disaggregation-decode-enable-radix-cache: true"],
            "decode radix cache or decode HiCache",
        ),
        (["enable-hierarchical-cache: true"], "decode radix cache or decode HiCache"),
        (["disaggregation-transfer-backend: mooncake_tcp"], None),  # rewritten to mooncake first
        (["dcp-size: 2"], "pipeline or attention context parallelism"),
    ],
)
def test_prefill_complete_on_a_decode_server(tree, version, lines, refused):
    """pd_disaggregation_hook.py _validate_prefill_complete (0.5.23:199-242, 0.5.22:205-248)."""
    dep = outcome(tree, {}, [*DECODE, PREFILL_COMPLETE, *lines], (), version)
    messages = [f["message"] for f in dep["findings"] if f["code"] == "SWA207"]
    expected = [
        "ValueError: --disaggregation-decode-allocation-policy prefill_complete does not yet "
        f"support {refused}"
    ]
    assert messages == (expected if refused else [])


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            "0.5.22",
            "max-running-requests 0 // attn-dp-size 1 is 0 requests per worker: "
            "AssertionError: max_running_request is zero (managers/tp_worker.py)",
        ),
        (
            "0.5.23",
            "max-running-requests 0 gives 0 requests per worker; SGLang 0.5.23 raises it to 1 "
            "(max(1, max-running-requests // attn-dp-size))",
        ),
    ],
)
def test_zero_requests_per_worker(tree, version, message):
    dep = outcome(tree, {}, [*DECODE, "max-running-requests: 0"], ROCM, version)
    assert [f["message"] for f in dep["findings"]] == [message]


def test_a_flag_that_takes_no_value_written_true(tree):
    """0.5.20-0.5.22 have BooleanOptionalAction options the --config merger passes on as --KEY true."""
    dep = outcome(tree, {}, [*PREFILL, "no-dllm-fdfo: true"], (), "0.5.22")
    assert [(f["code"], f["message"]) for f in dep["findings"]] == [
        (
            "SWA303",
            "SGLang's --config loader passes 'no-dllm-fdfo' on as --no-dllm-fdfo true: "
            "error: unrecognized arguments: true (BooleanOptionalAction takes no value)",
        )
    ]
