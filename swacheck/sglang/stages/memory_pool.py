"""Stage 6, the memory pool: request slots, and each pool's ring and pages.

SGLang's ``srt/mem_cache/kv_cache_configurator.py`` ``resolve_max_num_reqs`` (0.5.23:3119-3129)
gives each attention-DP worker ``max-running-requests // attn-dp-size`` requests (at least 1 in
0.5.23); the request table adds the decode extra slots and one padding row. The DSV4 pool
(``srt/mem_cache/deepseek_v4_memory_pool.py``) keeps per request a ring of ``window + draft
tokens - 1`` SWA entries, so its pages are slots x ring. See docs/sglang.md, "Memory pool".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.records import Val
from ...model.recordtype import record
from ..events import Kind
from ..resolution import Pool
from .model_config import window
from .reader import TRUTHY

if TYPE_CHECKING:
    from ..models import ModelConfig
    from .reader import ArgReader


@record
class Slots:
    """Request slots: per worker, and for the pool."""

    per_worker: Val
    slots: Val


def request_slots(r: ArgReader, mrr: Val, attn_dp: Val, extra: Val) -> Slots:
    profile = r.profile
    per_worker_value = mrr.value // max(1, attn_dp.value)
    per_worker = Val(
        max(1, per_worker_value) if profile.per_worker_floor_one else per_worker_value,
        f"max-running-requests {mrr.value} // attn-dp-size {attn_dp.value} (memory assumed not to cap it)",
        None,
        (("max-running-requests", mrr), ("attn-dp-size", attn_dp)),
    )
    slots = Val(
        per_worker.value + extra.value + 1,
        f"per-worker requests {per_worker.value} + decode extra slots {extra.value} + 1 padding row",
        None,
        (("per-worker max-running-requests", per_worker), ("decode extra slots", extra)),
    )
    r.values["per_worker_max_running_requests"], r.values["request_slots"] = per_worker, slots
    mrr_arg = r.arg("max-running-requests")
    where = mrr_arg.value_loc if mrr_arg else None
    if per_worker_value <= 0 and not profile.per_worker_floor_one:
        r.event(
            Kind.ZERO_REQUESTS,
            f"max-running-requests {mrr.value} // attn-dp-size {attn_dp.value} is "
            f"{per_worker_value} requests per worker: "
            "AssertionError: max_running_request is zero (managers/tp_worker.py)",
            mrr_arg,
            location=where,
        )
    elif mrr.value <= 0 or mrr.value < attn_dp.value:
        r.event(
            Kind.REQUESTS_CLAMPED,
            f"max-running-requests {mrr.value} gives "
            f"{per_worker_value if per_worker_value > 0 else 0} requests per worker; "
            f"SGLang {profile.version} raises it to 1 (max(1, max-running-requests // attn-dp-size))",
            mrr_arg,
            location=where,
        )
    return Slots(per_worker, slots)


@record
class PoolInputs:
    """What both pools share: the unified-KV gate, the page size, the slots, the overrides."""

    unified: Val
    slots: Val
    overrides: dict[str, Val]


def pool(
    r: ArgReader,
    role: str,
    model: ModelConfig | None,
    shared: PoolInputs,
    page: Val,
    draft_tokens: Val | None,
    explicit: dict[str, Val],
    source: Val | None = None,
) -> Pool:
    """One pool's geometry; a value the deployment gives (``target.geometry``) wins."""
    uni = explicit.get("unified") or shared.unified
    win = window(
        r,
        model,
        shared.overrides,
        role,
        explicit.get("window") or explicit.get("sliding_window"),
        source,
    )
    ring = explicit["ring_size"] if "ring_size" in explicit else ring_size(win, draft_tokens)
    slots = shared.slots
    pages = explicit.get("pages") or Val(
        slots.value * ring.value,
        f"request slots {slots.value} x ring {ring.value}",
        None,
        (("request slots", slots), ("ring size", ring)),
    )
    page_size = explicit.get("page_size") or page
    capacity = explicit.get("ring_capacity") or Val(
        None, "no request window (DeepSeek-V4.1 encoder replay only)"
    )
    ratios = explicit.get("compression_ratios")
    if ratios is None and role == "draft":
        ratios = Val(
            [0], "a DSV4 NextN draft layer has compression ratio 0 (models/deepseek_v4_nextn.py)"
        )
    return Pool(role, model, uni, win, ring, pages, page_size, capacity, ratios)


def ring_size(win: Val, draft_tokens: Val | None) -> Val:
    """The SWA ring of one request: the window plus the tokens a verify step appends."""
    if draft_tokens is not None:
        return Val(
            win.value + draft_tokens.value - 1,
            f"window {win.value} + draft tokens {draft_tokens.value} - 1",
            None,
            (("window", win), ("draft tokens", draft_tokens)),
        )
    return Val(win.value, f"window {win.value} (no speculative decoding)", None, (("window", win),))


def online_compress_mtp(
    r: ArgReader, target: ModelConfig | None, draft: Pool | None, platform: Val
) -> None:
    """``SGLANG_OPT_USE_ONLINE_COMPRESS=1`` with speculative decoding on CUDA: the DSV4 pool asserts.

    ``get_compress_state_ring_size`` (``mem_cache/deepseek_v4_memory_pool.py`` 0.5.23:72-74,
    0.5.22:62-64, 0.5.20:48-50, 0.5.17:41-43): ``ONLINE_C128 = not _is_hip and
    SGLANG_OPT_USE_ONLINE_COMPRESS``; a c128 layer of a speculative server raises
    ``AssertionError: online c128 does not support MTP`` unless
    ``SGLANG_EXPERIMENTAL_ONLINE_C128_MTP`` is on. Reported when the target's config.json
    lists a compression ratio of 128.
    """
    env = r.dep.env
    on = env.get("SGLANG_OPT_USE_ONLINE_COMPRESS")
    if draft is None or platform.value != "cuda" or on is None or on.value.lower() not in TRUTHY:
        return
    if r.env_on("SGLANG_EXPERIMENTAL_ONLINE_C128_MTP"):
        return
    ratios = target.get("compress_ratios") if target is not None else None
    if ratios is None or not isinstance(ratios.value, list) or 128 not in ratios.value:
        return
    r.event(
        Kind.ONLINE_COMPRESS_MTP,
        "SGLANG_OPT_USE_ONLINE_COMPRESS=1 with speculative decoding: "
        "AssertionError: online c128 does not support MTP "
        "(building the DSV4 pool, mem_cache/deepseek_v4_memory_pool.py get_compress_state_ring_size)",
        location=on.location,
        env=on,
    )
