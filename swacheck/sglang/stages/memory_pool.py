"""Stage 6, the memory pool: request slots, and each pool's ring and pages.

SGLang's ``srt/mem_cache/kv_cache_configurator.py`` ``resolve_max_num_reqs`` (0.5.23:3119-3129)
gives each attention-DP worker ``max-running-requests // attn-dp-size`` requests (at least 1 in
0.5.23); the request table adds the decode extra slots and one padding row. The DSV4 pool
(``srt/mem_cache/deepseek_v4_memory_pool.py``) keeps per request a ring of ``window + draft
tokens - 1`` SWA entries, so its pages are slots x ring. See docs/sglang.md, "Memory pool".
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING

from ...model.records import Val
from ...model.recordtype import record
from ...model.tree import Scalar
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


def human_int(text: str) -> int | None:
    """SGLang's ``human_readable_int`` (``srt/utils/common.py`` 0.5.23:3394-3424): an integer or
    a number with an SI (k, M, G, T) or IEC (Ki, Mi, Gi, Ti) suffix; None where it raises."""
    text = text.strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", text)
    if m:
        number, suffix = m.groups()
        if suffix.endswith("i"):
            return None if "." in number else int(number) * _IEC[suffix]
        return int(Decimal(number) * _SI[suffix])
    try:
        return int(text)
    except ValueError:
        return None


_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def token_cap(r: ArgReader, page: Val) -> Val | None:
    """``--max-total-tokens`` as the DSV4 pool takes it: the full pool's tokens are capped by it
    (``_apply_token_constraints``, ``mem_cache/kv_cache_configurator.py`` 0.5.23:3096-3105,
    0.5.22:2777-2786; GPU memory is assumed to hold that many) and floored to whole pages
    (``DSV4PoolConfigurator._compute_dsv4_sizes``, ``model_executor/pool_configurator.py``
    0.5.23:1464, 0.5.22:1385)."""
    arg = r.arg("max-total-tokens")
    if arg is None or not r.profile.max_total_tokens_caps_requests:
        return None
    if not isinstance(arg.node, Scalar) or arg.node.value is None or arg.node.value is True:
        return None
    tokens = human_int(str(arg.node.value))
    if tokens is None:
        return None  # a value argparse refuses: SWA304
    full = tokens // page.value * page.value
    return Val(
        full,
        f"max-total-tokens {arg.node.value} floored to pages of {page.value}",
        arg.value_loc,
        (("max-total-tokens", Val(tokens, arg.written, arg.value_loc)), ("page size", page)),
    )


def request_slots(
    r: ArgReader, mrr: Val, attn_dp: Val, extra: Val, page: Val | None = None
) -> Slots:
    profile = r.profile
    per_worker_value = mrr.value // max(1, attn_dp.value)
    per_worker = Val(
        max(1, per_worker_value) if profile.per_worker_floor_one else per_worker_value,
        f"max-running-requests {mrr.value} // attn-dp-size {attn_dp.value} (memory assumed not to cap it)",
        None,
        (("max-running-requests", mrr), ("attn-dp-size", attn_dp)),
    )
    cap = token_cap(r, page) if page is not None else None
    if cap is not None and cap.value // 2 < per_worker.value:
        # resolve_max_num_reqs: min(requested per worker, token capacity // 2)
        # (kv_cache_configurator.py 0.5.23:3129, 0.5.22:2810)
        per_worker_value = cap.value // 2
        per_worker = Val(
            per_worker_value,
            f"{cap.value} tokens (max-total-tokens) // 2, below max-running-requests "
            f"{mrr.value} // attn-dp-size {attn_dp.value}",
            cap.location,
            (("token capacity", cap), ("requested per worker", per_worker)),
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
    if cap is not None and per_worker.value <= 0:
        r.event(
            Kind.ZERO_REQUESTS,
            f"max-total-tokens {cap.inputs[0][1].value} is {cap.value} tokens in whole pages of "
            f"{page.value if page else 0}, so 0 requests per worker (token capacity // 2): "
            "AssertionError: max_running_request is zero (managers/tp_worker.py)",
            r.arg("max-total-tokens"),
            location=cap.location,
            fix="Raise max-total-tokens to at least two pages, or remove it.",
        )
    elif per_worker_value <= 0 and not profile.per_worker_floor_one:
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


# the compress-state rings of a speculative server (get_compress_state_ring_size,
# mem_cache/deepseek_v4_memory_pool.py 0.5.23:76-77, 0.5.22:66-67) and the draft tokens each
# serves (get_compress_state_write_pad: ring - window + 2, window = 8 for c4, 128 for c128)
SPEC_RINGS = {4: 16, 128: 256}


def ring_serves_draft_tokens(
    r: ArgReader, target: ModelConfig | None, draft: Pool | None, draft_tokens: Val | None
) -> None:
    """``DSV4PoolConfigurator._assert_ring_serves_draft_tokens`` (``model_executor/
    pool_configurator.py`` 0.5.23:1291-1308, 0.5.22:1252-1269): the largest draft-token count
    (the largest adaptive tier with ``--speculative-adaptive``) must fit every compress-state
    ring the target has layers for; c128 is skipped under ``SGLANG_OPT_USE_ONLINE_COMPRESS``."""
    if draft is None or not r.profile.adaptive_config_read or target is None:
        return
    most = r.values.get("max_speculative_num_draft_tokens") or draft_tokens
    ratios = target.get("compress_ratios")
    if most is None or ratios is None or not isinstance(ratios.value, list):
        return
    online = r.env_on("SGLANG_OPT_USE_ONLINE_COMPRESS")
    for ratio in (4, 128):
        if ratio not in ratios.value or (ratio == 128 and online):
            continue
        ring = SPEC_RINGS[ratio]
        serves = ring - ratio * (2 if ratio == 4 else 1) + 2
        if most.value > serves:
            r.event(
                Kind.RING_OVERFLOW,
                f"{most.value} draft tokens ({most.origin}): AssertionError: "
                f"speculative_num_draft_tokens={most.value} exceeds what the c{ratio} compress "
                f"state ring can keep resident (ring_size={ring} serves at most {serves} draft "
                "tokens). (building the DSV4 pool configurator, model_executor/pool_configurator.py "
                "DSV4PoolConfigurator._assert_ring_serves_draft_tokens)",
                location=most.location,
                most=most.value,
                serves=serves,
            )
            return
