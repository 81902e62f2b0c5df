"""Validation: pipeline parallelism with speculative decoding, per release.

``SGLangProfile.pp_spec`` and ``dspark_pp`` cite the code: ``srt/server_args.py`` (0.5.12:7253,
0.5.17:8723, 0.5.18:9161), ``srt/arg_groups/validation_hook.py``
``check_pipeline_parallel_compat`` (0.5.19:54, 0.5.20:62-85, 0.5.21:38-83, 0.5.22:118-165,
0.5.23:119-166) and DSPARK's own check in ``srt/arg_groups/speculative_hook.py`` (0.5.17:307 -
0.5.20:567, 0.5.21:632 - 0.5.23:716). See docs/sglang.md, "Validation".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import Kind

if TYPE_CHECKING:
    from ...model.records import Val
    from .reader import ArgReader

_OVERLAP = "AssertionError: Pipeline parallelism is not compatible with overlap schedule, speculative decoding"
_EAGLE_ONLY = (
    "AssertionError: Pipeline parallelism currently only supports "
    "EAGLE (non-multi-layer) speculative decoding"
)
_MTP_PREFILL = (
    "AssertionError: PP + speculative decoding (MTP) "
    "is only supported on prefill nodes (disaggregation-mode=prefill)"
)


def _server(pd_mode: str) -> str:
    return "decode" if pd_mode == "decode" else "non-PD"


def pipeline_speculative(r: ArgReader, algo: str | None, pd_mode: str, attn_dp: Val) -> None:
    """pp-size > 1 with speculative decoding, per release (``SGLangProfile.pp_spec`` cites the code)."""
    pp = r.plain_int("pp-size", 1)
    if algo is None or pp <= 1:
        return
    where = f"pp-size {pp} with speculative-algorithm {algo}"
    message = _dspark_pp(r, algo, pd_mode, where)
    if message is None:
        message = _pp_spec(r, algo, pd_mode, attn_dp, where)
    if message is not None:
        r.event(Kind.PP_SPEC_REFUSED, message, r.arg("pp-size"))


def _dspark_pp(r: ArgReader, algo: str, pd_mode: str, where: str) -> str | None:
    """DSPARK's own check in the speculative hook, which runs before the validation hook."""
    if algo == "DSPARK" and r.profile.dspark_pp == "pp1":
        return (
            f"{where}: ValueError: Currently DSpark speculative decoding only supports "
            f"pp_size == 1. (speculative hook)"
        )
    if algo == "DSPARK" and r.profile.dspark_pp == "prefill" and pd_mode != "prefill":
        return (
            f"{where} on a {_server(pd_mode)} server: ValueError: DSpark pipeline parallelism "
            "requires PD prefill; decode and non-disaggregated serving require pp_size == 1. (speculative hook)"
        )
    return None


def _pp_spec(r: ArgReader, algo: str, pd_mode: str, attn_dp: Val, where: str) -> str | None:
    prof = r.profile
    npu = r.dep.platform.value == "npu"
    if prof.pp_spec == "refused" or (prof.pp_spec == "npu-prefill" and not npu):
        return f"{where}: {_OVERLAP}"
    if prof.pp_spec == "npu-prefill":
        if algo != "EAGLE" or r.flag_value("enable-multi-layer-eagle"):
            return f"{where}: {_EAGLE_ONLY}"
        if pd_mode != "prefill":
            return (
                f"{where}: AssertionError: NPU PP + speculative decoding (MTP) is only "
                f"supported on prefill nodes (disaggregation-mode=prefill)"
            )
        return None
    if algo == "DSPARK":  # prefill-only: a PD prefill server
        if r.env_on("SGLANG_ENABLE_PP_SPEC"):
            return (
                f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC does not support DSPARK PD prefill"
            )
        return None
    if r.flag_value("enable-multi-layer-eagle"):
        return f"{where}: {_EAGLE_ONLY}"
    if r.env_on("SGLANG_ENABLE_PP_SPEC"):
        return _pp_spec_env(r, pd_mode, attn_dp, where)
    if pd_mode != "prefill":
        return f"{where} on a {_server(pd_mode)} server: {_MTP_PREFILL}"
    return None


def _pp_spec_env(r: ArgReader, pd_mode: str, attn_dp: Val, where: str) -> str | None:
    """SGLANG_ENABLE_PP_SPEC lets EAGLE run with PP off a prefill server, but not with these."""
    if pd_mode != "null":
        return f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with --disaggregation-mode"
    if r.flag_value("speculative-adaptive"):
        return f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with --speculative-adaptive"
    if attn_dp.value > 1:
        return f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with attention DP"
    return None
