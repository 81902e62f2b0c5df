"""Everything about SGLang that changes between releases, in one place.

swacheck follows SGLang 0.5.23 (uploaded 2026-10-30), the newest release it knows. The facts
come from the released wheel (``pip download --no-deps sglang==0.5.23``); each field names the
file it was read from. ``research/sglang-versions.md`` in the project's shared notes covers
0.5.14 - 0.5.23; a later ``--sglang-version`` option adds profiles here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SGLangProfile:
    version: str
    # srt/disaggregation/utils.py setup_state_kv_args, the DSV4 block (0.5.23: lines 1775-1859)
    has_dsv4_block: bool
    npu_skips_block: bool  # era A (0.5.16-0.5.17) guards the block with `not is_npu()`
    paged_tuple_has_third: bool  # 0.5.23: (page_size, sliding_window, ring capacity or None)
    msg_draft_ratios: str
    msg_unified_mode: str
    msg_ring: str
    msg_mapping: str
    msg_paged: str
    args_file: str  # every long option of launch_server, with its action and type (data/)
    env_backend_default: str  # srt/environ.py SGLANG_HACK_FLASHMLA_BACKEND default


SGLANG_0_5_23 = SGLangProfile(
    version="0.5.23",
    has_dsv4_block=True,
    npu_skips_block=False,
    paged_tuple_has_third=True,
    msg_draft_ratios="DSV4 draft state transfer expects SWA-only NextN layers",
    msg_unified_mode="DSV4 target and draft pools must use the same unified-KV mode",
    msg_ring="DSV4 target and draft pools must share SWA ring geometry: target={target}, draft={draft}",
    msg_mapping="DSV4 target and draft pools must share the SWA index mapping",
    msg_paged="DSV4 target and draft pools must share SWA geometry: target={target}, draft={draft}",
    args_file="server-args-0.5.23.tsv",
    env_backend_default="auto",
)

DEFAULT = SGLANG_0_5_23


def format_tuple(values: tuple) -> str:
    """Python's tuple repr, which is what SGLang's f-string prints."""
    return repr(tuple(values))
