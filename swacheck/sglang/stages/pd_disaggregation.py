"""Stage 3, the PD hook: the disaggregation mode and the decode server's extra request slots.

SGLang's ``srt/arg_groups/pd_disaggregation_hook.py`` ``handle_pd_disaggregation`` (0.5.23:129-143)
runs before the DSV4 model hook fills in max-running-requests, so the extra-slot default sees
only what was written. ``_validate_prefill_complete`` is the same file's check of
``--disaggregation-decode-allocation-policy prefill_complete``. See docs/sglang.md, "PD".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.records import Val
from ...model.recordtype import record
from ...model.tree import Scalar
from ..events import Kind
from .reader import default

if TYPE_CHECKING:
    from .parallel import Parallel
    from .reader import ArgReader

EXTRA_SLOTS_CUTOFF = 32  # per-worker requests above which a decode server gets no extra slots


@record
class PD:
    """The PD role, whether the server is a PD server, and the decode side's extra slots."""

    mode: str  # "null" | "prefill" | "decode"
    pd: bool  # a PD server (or assumed one by the deployment)
    mrr_explicit: Val | None  # max-running-requests as written, before the DSV4 hook's default
    extra_slots: Val


def pd_disaggregation(r: ArgReader, par: Parallel) -> PD:
    mode_val = r.str_arg("disaggregation-mode") or default("null", "--disaggregation-mode")
    mode = mode_val.value
    r.values["disaggregation_mode"] = mode_val
    mrr_explicit = r.int_arg("max-running-requests")
    extra = decode_extra_slots(r, mode, mrr_explicit, par)
    r.values["decode_extra_slots"] = extra
    return PD(mode, mode in ("prefill", "decode") or r.dep.assume_pd, mrr_explicit, extra)


def decode_extra_slots(r: ArgReader, mode: str, mrr: Val | None, par: Parallel) -> Val:
    """``--disaggregation-decode-extra-slots``, or its default: 2 x the per-worker requests when
    those are at most 32, else 0; 0 when max-running-requests is unset when the hook runs."""
    profile = r.profile
    extra = r.int_arg("disaggregation-decode-extra-slots", 0)
    if mode != "decode" or not profile.has_decode_extra_slots:
        return default(
            0,
            "only a PD decode server pre-allocates request slots"
            if profile.has_decode_extra_slots
            else f"no decode extra slots in SGLang {profile.version}",
        )
    if extra is not None:
        return extra
    if mrr is None:
        return default(0, "PD hook: max-running-requests unset when it runs")
    dp_size, attn_dp = par.dp_size, par.attn_dp
    divisor = dp_size.value * (attn_dp.value if profile.extra_slots_divisor == "dp*attn_dp" else 1)
    per = mrr.value // max(1, divisor)
    if profile.extra_slots_floor_one:
        per = max(1, per)
    small = per <= EXTRA_SLOTS_CUTOFF
    return Val(
        2 * per if small else 0,
        f"PD hook: 2 x per-worker requests {per}"
        if small
        else f"PD hook: per-worker requests {per} > 32",
        None,
        (("max-running-requests", mrr), ("dp-size", dp_size), ("attn-dp-size", attn_dp)),
    )


def prefill_complete(r: ArgReader, pd_mode: str, attn_dp: Val) -> None:
    """``--disaggregation-decode-allocation-policy prefill_complete`` and what it does not support.

    ``_validate_prefill_complete`` (``arg_groups/pd_disaggregation_hook.py`` 0.5.23:199-242,
    0.5.22:205-248; the option appears in 0.5.22): one ``ValueError`` listing every unsupported
    feature. swacheck lists those a server config decides; the environment-driven ones
    (staging buffers, the Rust bootstrap registry) and PD multiplexing are not read.
    """
    arg = r.arg("disaggregation-decode-allocation-policy")
    if (
        arg is None
        or not isinstance(arg.node, Scalar)
        or str(arg.node.value) != "prefill_complete"
        or arg.how not in ("exact", "prefix")
    ):
        return
    unsupported = _unsupported_by_prefill_complete(r, pd_mode, attn_dp)
    if unsupported:
        r.event(
            Kind.PREFILL_COMPLETE_REFUSED,
            "ValueError: --disaggregation-decode-allocation-policy prefill_complete does not yet support "
            + ", ".join(unsupported),
            arg,
            location=arg.value_loc,
        )


def _unsupported_by_prefill_complete(r: ArgReader, pd_mode: str, attn_dp: Val) -> list[str]:
    unsupported = []
    if pd_mode not in ("prefill", "decode"):
        unsupported.append("aggregated serving")
    backend = r.arg("disaggregation-transfer-backend")
    if (
        backend is not None
        and isinstance(backend.node, Scalar)
        and str(backend.node.value) not in ("mooncake", "mooncake_tcp")
    ):
        unsupported.append("transfer backends other than Mooncake")
    if any(r.plain_int(n, 1) != 1 for n in ("pp-size", "attn-cp-size", "dcp-size")):
        unsupported.append("pipeline or attention context parallelism")
    # attn_dp_size = dp_size if enable_dp_attention else 1; tp_size must equal it
    # (pd_disaggregation_hook.py 0.5.23:208-210). enable_dp_attention is always False by then:
    # the deprecated-flag handler runs first and clears it (parallel_hook.py 0.5.23:50-61,
    # pipeline.py:45 before :138), so any tp-size > 1 is refused, attention DP or not
    if r.plain_int("tp-size", 1) > 1:
        unsupported.append("attention tensor parallelism greater than one")
    if r.flag_value("enable-pd-role-switch"):
        unsupported.append("runtime PD role switching")
    if r.flag_value("enable-hisparse"):
        unsupported.append("HiSparse")
    if _host_receive_below_one(r):
        unsupported.append("decode host KV buffering")
    if pd_mode == "decode" and (
        r.flag_value("disaggregation-decode-enable-radix-cache")
        or r.flag_value("enable-hierarchical-cache")
    ):
        unsupported.append("decode radix cache or decode HiCache")
    return unsupported


def _host_receive_below_one(r: ArgReader) -> bool:
    threshold = r.arg("disaggregation-decode-host-receive-threshold")
    if threshold is None or not isinstance(threshold.node, Scalar):
        return False
    try:
        return float(str(threshold.node.value)) < 1
    except ValueError:
        return False
