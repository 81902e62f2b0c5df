"""SWA401 pd-page-size: prefill and decode servers resolve different page sizes.

## What it does

Compares the page size each server of a PD pair resolves. For DeepSeek-V4 SGLang forces 256
(128 on NPU) whatever is configured, so in practice this fires when one side runs on NPU.

## Why it matters

The decode server compares the prefill's page size on the *first request* and raises
`RuntimeError: Page size mismatch: prefill server has page_size=256, but decode server has
page_size=128. Both servers must use the same --page-size value.`; the scheduler then kills
the decode server (`disaggregation/common/conn.py` `try_ensure_parallel_info`).

## Example

A prefill server on CUDA paired with a decode server on NPU.

## Fix

Run both servers on the same platform (the DSV4 page size follows it).

Fix safety: unsafe — it changes one server of the pair.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ._pair import fails_alone, pair_finding
from .base import RuleContext

CODE = "SWA401"
NAME = "pd-page-size"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers resolve different page sizes"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    rule = sys.modules[__name__]
    if pair.differs("page_size"):
        p, d = pair.prefill_values["page_size"].value, pair.decode_values["page_size"].value
        yield pair_finding(
            rule,
            pair,
            "page_size",
            f"Page size mismatch: prefill server has page_size={p}, but decode server has page_size={d}: "
            "the decode server dies at the first request",
            "Run both servers where DeepSeek-V4 resolves the same page size (256; 128 on NPU).",
        )
