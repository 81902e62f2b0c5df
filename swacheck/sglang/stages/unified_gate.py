"""Stage 7, the unified-KV gate: whether both pools use ROCm's unified SWA KV layout.

SGLang's ``srt/layers/attention/dsv4/unified_kv_gate.py`` ``is_unified_kv_triton`` (0.5.23:13-15):
ROCm (``is_hip()``) and ``SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`` (``srt/environ.py``;
no such switch before 0.5.14); then ``setup_state_kv_args``
(``srt/disaggregation/utils.py`` 0.5.23:1775) compares (window, ring size, pages) instead of
the paged tuple. ``SGLANG_DSV4_UNIFIED_KV_FP8=1`` under PD is refused per release
(``srt/model_executor/pool_configurator.py`` ``check_dsv4_unified_fp8_pd_supported``,
0.5.23:148). See docs/sglang.md, "Unified gate".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.records import Val
from ..events import Kind
from .reader import TRUTHY

if TYPE_CHECKING:
    from .reader import ArgReader

UNIFIED_BACKEND = "unified_kv_triton"
ENV_BACKEND = "SGLANG_HACK_FLASHMLA_BACKEND"
ENV_FP8 = "SGLANG_DSV4_UNIFIED_KV_FP8"


def unified_gate(r: ArgReader, pd_mode: str) -> Val:
    platform, profile = r.dep.platform, r.profile
    backend = r.dep.env.get(ENV_BACKEND)
    unified_on = (
        platform.value == "rocm"
        and backend is not None
        and backend.value == UNIFIED_BACKEND
        and profile.has_unified_kv
    )
    backend_text = backend.value if backend else f"unset ({profile.env_backend_default})"
    unified = Val(
        unified_on,
        f"ROCm and {ENV_BACKEND}=unified_kv_triton"
        if unified_on
        else f"{platform.value}, {ENV_BACKEND}={backend_text}",
        None,
        (("platform", platform),) + ((("env " + ENV_BACKEND, backend),) if backend else ()),
    )
    fp8 = r.dep.env.get(ENV_FP8)
    if unified_on and pd_mode != "null" and fp8 is not None and fp8.value.lower() in TRUTHY:
        _fp8_under_pd(r, fp8)
    return unified


def _fp8_under_pd(r: ArgReader, fp8: Val) -> None:
    """0.5.20-0.5.21 refuse unified FP8 KV on any PD server; 0.5.22+ only with pp-size > 1 or
    --enable-hisparse (``SGLangProfile.fp8_pd``)."""
    if r.profile.fp8_pd == "pd":
        r.event(
            Kind.UNIFIED_FP8_PD,
            "SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation",
            location=fp8.location,
            why="pd",
            env=fp8,
        )
    if r.profile.fp8_pd != "pp-hisparse":
        return
    pp = r.int_arg("pp-size", 1)
    hisparse = r.flag_arg("enable-hisparse")
    if pp is not None and pp.value > 1:
        r.event(
            Kind.UNIFIED_FP8_PD,
            f"SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with pp_size={pp.value}",
            r.arg("pp-size"),
            why="pp-size",
            env=fp8,
        )
    if hisparse is not None and hisparse.value:
        r.event(
            Kind.UNIFIED_FP8_PD,
            "SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with --enable-hisparse",
            r.arg("enable-hisparse"),
            why="enable-hisparse",
            env=fp8,
        )
