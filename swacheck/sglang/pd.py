"""What a PD prefill server and its decode server must agree on (SGLang 0.5.23).

Sources (paths under ``sglang/srt/`` of the 0.5.23 wheel; docs/sglang.md "PD pairs" says what
is compared when, per transfer backend and release):

- ``disaggregation/common/conn.py`` ``try_ensure_parallel_info`` (1293-1430): on the *first
  request*, the decode server compares page_size, kv_cache_dtype and kv_layout with the
  prefill's and raises; the scheduler then kills the decode server. It also asserts decode
  attn-cp == 1 and decode pp in {1, prefill pp} (1432-1529).
- ``disaggregation/mooncake/conn.py`` ``_validate_peer_state_layout`` (938-1017): state item
  lengths per component; a mismatch rejects every request of that decode session.
- ``mem_cache/deepseek_v4_memory_pool.py``: the layouts (``select_dsv4_kv_layout`` 198-225,
  ``pd_kv_layout`` 1691-1699), rings with and without speculative decoding (60-79), the online
  compress switch (50, 72-75).
- ``srt/environ.py``: ``SGLANG_DSV4_KV_LAYOUT`` ("v4"), ``SGLANG_DSV4_COMPRESSED_KV_LAYOUT``
  ("auto"), ``SGLANG_OPT_USE_ONLINE_COMPRESS`` (False), ``SGLANG_ENABLE_DISAGG_SAMPLING_MASK``
  (False); booleans are true for 1/true/yes/y (``EnvBool``).

Each side's values keep their provenance, so a pair finding can point at both files.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..model.records import Val
from .gpus import Gpu, lookup
from .resolve import Resolution
from .version import release_key

TRUE = ("1", "true", "yes", "y")
ENV_DEFAULTS = {
    "SGLANG_DSV4_KV_LAYOUT": "v4",
    "SGLANG_DSV4_COMPRESSED_KV_LAYOUT": "auto",
    "SGLANG_OPT_USE_ONLINE_COMPRESS": "0",
    "SGLANG_ENABLE_DISAGG_SAMPLING_MASK": "0",
    "SGLANG_DSV4_UNIFIED_KV_FP8": "0",
}


@lru_cache(maxsize=256, typed=True)  # typed: 1 and True are different defaults
def _default(value: Any, why: str) -> Val:
    """An SGLang default, one object per run for each (value, reason): a PD pair compares ~20
    values per server, most of them defaults (values are never changed once made)."""
    return Val(value, f"SGLang default ({why})")


def env(res: Resolution, name: str) -> Val:
    got = res.deployment.env.get(name)
    return got if got is not None else _default(ENV_DEFAULTS[name], f"{name} unset")


def env_flag(res: Resolution, name: str) -> Val:
    raw = env(res, name)
    return Val(raw.value.lower() in TRUE, f"{name}={raw.value}", raw.location)


def _arg(res: Resolution, name: str, default: Any, why: str) -> Val:
    arg = res.deployment.server.args.get(name)
    if arg is None or not hasattr(arg.node, "value"):
        return _default(default, why)
    value = arg.node.value  # type: ignore[union-attr]
    if isinstance(default, int) and not isinstance(default, bool):
        try:
            value = int(str(value))
        except ValueError:
            return _default(default, f"{why}; {arg.written} is not an integer")
    return Val(value, arg.written, arg.value_loc)


def kv_cache_dtype(res: Resolution) -> Val:
    """``auto`` becomes fp8_e4m3 (bfloat16 on NPU): overrides.py _deepseek_v4_kv_cache_dtype."""
    raw = _arg(res, "kv-cache-dtype", "auto", "--kv-cache-dtype auto")
    if raw.value != "auto":
        return raw
    resolved = "bfloat16" if res.values["platform"].value == "npu" else "fp8_e4m3"
    return Val(
        resolved,
        f"DSV4 resolves kv-cache-dtype auto to {resolved}",
        raw.location,
        (("kv-cache-dtype", raw),),
    )


def _known_gpu(res: Resolution) -> Gpu | None:
    val = res.deployment.gpu
    return None if val is None else lookup(str(val.value))


def _v41_gpu(res: Resolution) -> bool | None:
    """Whether this server's GPU holds the V4.1 layouts when ``SGLANG_DSV4_KV_LAYOUT`` is
    ``auto`` (``select_dsv4_kv_layout``: CUDA compute capability 10.x; HIP gfx950 with the
    ``aiter_sparse`` FlashMLA backend); None when the deployment names no GPU swacheck knows."""
    known = _known_gpu(res)
    if known is None:
        return None
    if res.values["platform"].value == "rocm":
        backend = res.deployment.env.get("SGLANG_HACK_FLASHMLA_BACKEND")
        name = (
            str(backend.value).strip() if backend is not None else res.profile.env_backend_default
        )
        gfx95 = (known.gfx or "").startswith("gfx95")
        return gfx95 and name in ("aiter_sparse", "auto")  # auto is aiter_sparse on gfx95
    return known.sm is not None and known.sm // 10 == 10


def _default_attn_backend(res: Resolution, mode: Val) -> str:
    """``--dsv4-attn-backend auto`` on a PD server: ``flashmla_mega`` for a DeepSeek-V4.1
    checkpoint on an SM100 CUDA GPU with an explicit ``fp8_e4m3`` KV cache (a V4.1 checkpoint's
    ``auto`` is not resolved to fp8) and no other layout asked, else ``flashmla``
    (``_default_dsv4_attention_backend``, ``arg_groups/deepseek_v4_hook.py`` 0.5.23:45-59;
    0.5.22 has no ``flashmla_mega``). A GPU swacheck does not know: ``flashmla``."""
    model = res.target.model if res.target is not None else None
    if (
        release_key(res.profile.version) < (0, 5, 23)
        or model is None
        or getattr(model, "model_type", None) != "deepseek_v41"
        or res.values["platform"].value != "cuda"
        or not _v41_gpu(res)
        or _arg(res, "kv-cache-dtype", "auto", "").value != "fp8_e4m3"
        or (
            res.deployment.env.get("SGLANG_DSV4_KV_LAYOUT") is not None
            and str(mode.value).lower() not in ("auto", "v41", "v41_new")
        )
    ):
        return "flashmla"
    return "flashmla_mega"


def kv_layout(res: Resolution) -> Val:
    """(main layout, compressed layout) as select_dsv4_kv_layout would choose them; ``auto``
    resolved for the GPU the deployment names (kept ``auto`` when it names none swacheck knows)."""
    backend = _arg(res, "dsv4-attn-backend", "auto", "--dsv4-attn-backend auto")
    mode = env(res, "SGLANG_DSV4_KV_LAYOUT")
    option = env(res, "SGLANG_DSV4_COMPRESSED_KV_LAYOUT")
    inputs = (
        ("dsv4-attn-backend", backend),
        ("SGLANG_DSV4_KV_LAYOUT", mode),
        ("SGLANG_DSV4_COMPRESSED_KV_LAYOUT", option),
    )
    if backend.value == "trtllm":
        return Val(
            "uniform_fp8",
            "dsv4-attn-backend trtllm uses uniform FP8 pools",
            backend.location,
            inputs,
        )
    chosen = str(backend.value)
    if chosen == "auto":
        chosen = _default_attn_backend(res, mode)
    main = str(mode.value).lower()
    if chosen == "flashmla_mega" and main != "v41_new":
        main = "v41"
    how = ""
    if main == "auto" and (v41 := _v41_gpu(res)) is not None:
        main = "v41" if v41 else "v4"
        how = f" (auto on {res.deployment.gpu.value})"  # type: ignore[union-attr]
    shown = _compressed_option(res, main, str(option.value).lower())
    text = f"{main}/{shown}"
    return Val(text, f"layout {main}{how}, compressed {shown}", None, inputs)


def _compressed_option(res: Resolution, main: str, option: str) -> str:
    """The compressed option as it shows in ``pd_kv_layout``: ``auto`` when it gives the same
    per-ratio layouts as ``auto`` (``resolve_compressed_kv_layout``,
    ``mem_cache/deepseek_v4_memory_pool.py`` 0.5.23:174-195: a V4 main cache keeps every
    compressed cache V4; with V4.1, ``auto`` is fp4 for ratios 1 and 2 and fp8 for the others)."""
    if main == "v4" and option in ("auto", "fp8"):
        return "auto"
    if main not in ("v41", "v41_new") or option not in ("fp8", "fp4"):
        return option
    model = res.target.model if res.target is not None else None
    ratios_val = model.get("compress_ratios") if model is not None else None
    ratios = ratios_val.value if ratios_val is not None else None
    if not isinstance(ratios, list) or not all(isinstance(r, int) for r in ratios):
        return option
    used = set(ratios) - {0}
    small = {r for r in used if r in (1, 2)}
    if (option == "fp8" and not small) or (option == "fp4" and used and small == used):
        return "auto"
    return option


def _attn_tp(res: Resolution) -> Val:
    """Attention TP = tp-size / attn-dp-size (srt/layers/dp_attention.py compute_dp_attention_world_info)."""
    tp = _arg(res, "tp-size", 1, "--tp-size")
    attn_dp = res.values["attn_dp_size"]
    return Val(
        max(1, tp.value // max(1, attn_dp.value)),
        f"tp-size {tp.value} / attn-dp-size {attn_dp.value}",
        None,
        (("tp-size", tp), ("attn-dp-size", attn_dp)),
    )


def compared_values(res: Resolution) -> dict[str, Val]:
    """The values of one server that its PD peer must match (or that SGLang tolerates differing),
    made once per resolution (the same dictionary each time: never changed by its readers)."""
    if res.compared is None:
        res.compared = _compared_values(res)
    return res.compared


def _compared_values(res: Resolution) -> dict[str, Val]:
    v = res.values
    target = res.target
    unified = target.unified if target is not None else Val(False, "no DSV4 pool")
    speculative = v.get("speculative_algorithm") or Val(None, "no speculative decoding")
    return {
        "page_size": v["page_size"],
        "kv_cache_dtype": kv_cache_dtype(res),
        "kv_layout": kv_layout(res),
        "unified_kv": unified,
        "unified_kv_fp8": env_flag(res, "SGLANG_DSV4_UNIFIED_KV_FP8"),
        "speculative": Val(
            speculative.value is not None, str(speculative.value or "off"), speculative.location
        ),
        "online_compress": env_flag(res, "SGLANG_OPT_USE_ONLINE_COMPRESS"),
        "speculative_num_draft_tokens": v.get("speculative_num_draft_tokens")
        or Val(None, "no speculative decoding"),
        "speculative_eagle_topk": v.get("speculative_eagle_topk") or Val(None, "no EAGLE"),
        "speculative_num_steps": v.get("speculative_num_steps") or Val(None, "no EAGLE"),
        "tp_size": _arg(res, "tp-size", 1, "--tp-size"),
        "attn_dp_size": v["attn_dp_size"],
        "attn_tp_size": _attn_tp(res),
        "attn_cp_size": _arg(res, "attn-cp-size", 1, "--attn-cp-size"),
        "pp_size": _arg(res, "pp-size", 1, "--pp-size"),
        "kv_cache_sharding": _arg(res, "enable-kv-cache-sharding", False, "store_true"),
        "kv_checksum": _arg(res, "disaggregation-enable-kv-checksum", False, "store_true"),
        "sampling_mask": env_flag(res, "SGLANG_ENABLE_DISAGG_SAMPLING_MASK"),
        "platform": v["platform"],
    }


def decode_allocation_policy(res: Resolution) -> Val:
    """``--disaggregation-decode-allocation-policy`` (0.5.22+; ``early`` by default)."""
    return _arg(
        res,
        "disaggregation-decode-allocation-policy",
        "early",
        "--disaggregation-decode-allocation-policy early",
    )


def transfer_backend(res: Resolution) -> Val:
    """``--disaggregation-transfer-backend`` (``mooncake`` by default)."""
    return _arg(
        res,
        "disaggregation-transfer-backend",
        "mooncake",
        "--disaggregation-transfer-backend mooncake",
    )


# Where each transfer backend compares the state layout a decode server registers with the
# prefill's (the item length of each state component, paired by position):
# - mooncake (and mooncake_tcp, which is mooncake over TCP): ``_validate_peer_state_layout`` in
#   disaggregation/mooncake/conn.py (0.5.22:911, 0.5.23:938) rejects the decode session when it
#   registers; every later transfer to it fails with that reason (0.5.23:3005). Absent before 0.5.22.
# - nixl: from 0.5.23 the prepared-state plan rejects the peer at registration
#   (disaggregation/nixl/conn.py 0.5.23:736) and every transfer to it raises
#   "NIXL state layout rejected" (0.5.23:3039). Before, only index lengths are checked.
# - mori: only the number of state components ("state component count mismatch",
#   disaggregation/mori/conn.py 0.5.23:1645, 0.5.17:1049); the source item length is used for both
#   sides. That request fails.
# - ascend, fake: not modelled.
STATE_CHECKS: dict[str, tuple[tuple[int, ...], str, str]] = {
    # backend: (first release with a registration check, what it logs, the backend's name)
    "mooncake": ((0, 5, 22), "Rejecting state transfers to decode session", "Mooncake"),
    "mooncake_tcp": ((0, 5, 22), "Rejecting state transfers to decode session", "Mooncake"),
    "nixl": ((0, 5, 23), "NIXL state layout rejected", "NIXL"),
}


def state_layout_outcome(version: str, backend: str, count_differs: bool) -> tuple[str, str]:
    """(when, what happens) for a PD pair whose state components differ in item length, or in
    number when ``count_differs``: when is "every request", "silently" or "unknown"."""
    backend = str(backend)
    if backend in STATE_CHECKS:
        since, says, where = STATE_CHECKS[backend]
        if release_key(version) >= since:
            return (
                "every request",
                f'the prefill rejects the decode session when it registers ("{says} ...", '
                f"{where}) and every request to that decode fails",
            )
        return (
            "silently",
            f"{backend} in SGLang {version} compares no state layout (the check came in "
            f"{'.'.join(map(str, since))}): the state is written by position with the prefill's "
            "item lengths, silently wrong",
        )
    if backend == "mori":
        if count_differs:
            return (
                "every request",
                'every request fails ("PD state transfer failed: state component count mismatch", '
                "Mori)",
            )
        return (
            "silently",
            "mori compares only the number of state components: the state is written with the "
            "prefill's item lengths, silently wrong",
        )
    return ("unknown", f"what the {backend} transfer backend does with it is not modelled")
