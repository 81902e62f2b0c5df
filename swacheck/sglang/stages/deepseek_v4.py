"""Stage 4, the DSV4 model hook: what SGLang forces and refuses for a DeepSeek-V4 target.

SGLang's ``srt/arg_groups/deepseek_v4_hook.py`` ``apply_deepseek_v4_defaults`` (0.5.23:63-158)
with ``srt/arg_groups/model_overrides/deepseek_v4.py``: page size 256 (NPU 128) replaces any
explicit value, max-running-requests 256 when unset, only the KV dtypes and speculative
algorithms of the release, EAGLE top-k 1 -- asserted on the raw text *before* the speculative
hook upper-cases the algorithm and fills in its defaults. See docs/sglang.md, "DSV4 model hook".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.records import Val
from ...model.recordtype import record
from ..events import Kind
from .reader import default

if TYPE_CHECKING:
    from ...model.deployment import Arg
    from .reader import ArgReader

DSV4_PAGE_SIZE = 256  # the page size the hook forces (NPU: SGLangProfile.dsv4_npu_page_size)
DSV4_DEFAULT_MRR = 256


@record
class DSV4:
    """What the DeepSeek-V4 model hook leaves: page size, max-running-requests, the algorithm."""

    page: Val
    mrr: Val  # max-running-requests after the hook's default
    algo: str | None  # the speculative algorithm once the refusal is corrected (EAGLE, DSPARK)
    spec_arg: Arg | None
    algorithm_refused: bool


def deepseek_v4(r: ArgReader, pd_mode: str, mrr_explicit: Val | None) -> DSV4:
    page = _page_size(r)
    _kv_dtype_and_backend(r, pd_mode)
    mrr = mrr_explicit or default(DSV4_DEFAULT_MRR, "DSV4 hook, max-running-requests unset")
    r.values["max_running_requests"] = mrr
    spec_arg = r.arg("speculative-algorithm")
    algo = _algorithm(r, spec_arg)
    return DSV4(page, mrr, algo, spec_arg, r.has_event(Kind.ALGORITHM_REFUSED))


def eagle_topk(r: ArgReader, dsv4: DSV4, topk: Val | None) -> Val | None:
    """The hook's ``topk == 1`` assertion for EAGLE; the top-k resolves as 1 once corrected,
    and as 1 for DSPARK, which the speculative hook sets to 1 whatever was written.

    Read after the speculative arguments (argparse order), before the speculative hook."""
    no_server = r.dep.server.mapping is None
    topk_written = r.arg("speculative-eagle-topk") is not None  # even with a bad value (SWA304)
    if dsv4.algo == "EAGLE" and not no_server and (topk is None or topk.value != 1):
        if (
            not topk_written and not dsv4.algorithm_refused
        ):  # the algorithm fix adds top-k 1 as well
            r.event(
                Kind.EAGLE_TOPK_MISSING,
                "EAGLE needs an explicit speculative-eagle-topk: 1 for DeepSeek-V4",
                dsv4.spec_arg,
            )
        elif topk is not None:
            r.event(
                Kind.EAGLE_TOPK_REFUSED,
                f"speculative-eagle-topk {topk.value} is not supported for DeepSeek-V4",
                r.arg("speculative-eagle-topk"),
                value=topk.value,
            )
    if dsv4.algo == "EAGLE" and (topk is None or topk.value != 1):
        topk = Val(1, "the only top-k SGLang accepts for DeepSeek-V4 EAGLE")
    elif dsv4.algo == "DSPARK" and (topk is None or topk.value != 1):
        # _handle_dspark sets any other top-k to 1, with a warning (arg_groups/speculative_hook.py
        # 0.5.23:774-789, 0.5.22:699-714, 0.5.16:332-339)
        topk = Val(
            1,
            "DSpark only supports top-k 1 (SGLang's speculative hook sets it)",
            None,
            (("speculative-eagle-topk", topk),) if topk is not None else (),
        )
    return topk


def _page_size(r: ArgReader) -> Val:
    platform = r.dep.platform
    is_npu = platform.value == "npu"
    page_default = r.profile.dsv4_npu_page_size if is_npu else DSV4_PAGE_SIZE
    page_arg = r.int_arg("page-size")
    page = Val(
        page_default,
        "SGLang default (DSV4 override" + (", NPU)" if is_npu else ")"),
        None,
        (("platform", platform),),
    )
    if page_arg is not None and page_arg.value != page_default:
        r.event(
            Kind.PAGE_SIZE_REPLACED,
            f"page-size {page_arg.value} is replaced by {page_default}",
            r.arg("page-size"),
            value=page_arg.value,
            forced=page_default,
        )
    r.values["page_size"] = page
    return page


def _kv_dtype_and_backend(r: ArgReader, pd_mode: str) -> None:
    profile = r.profile
    kv_dtype = r.str_arg("kv-cache-dtype")
    if kv_dtype is not None and kv_dtype.value not in profile.dsv4_kv_dtypes:
        r.event(
            Kind.KV_DTYPE_REFUSED,
            f"kv-cache-dtype {kv_dtype.value!r} is not supported for DeepSeek-V4",
            r.arg("kv-cache-dtype"),
            value=kv_dtype.value,
        )
    attn_backend = r.str_arg("dsv4-attn-backend")
    if (
        profile.trtllm_pd_assert
        and attn_backend is not None
        and attn_backend.value == "trtllm"
        and pd_mode != "null"
    ):
        r.event(
            Kind.TRTLLM_PD,
            "--dsv4-attn-backend trtllm does not support PD disaggregation yet",
            r.arg("dsv4-attn-backend"),
        )
    pp = r.int_arg("pp-size", 1) if profile.pd_pp_refused and pd_mode != "null" else None
    if pp is not None and pp.value > 1:
        # 0.5.12 deepseek_v4_hook.py:54-59 (get_mla_kv_ptrs_with_pp cannot slice V4's KV by PP layer range)
        r.event(
            Kind.PD_PP_REFUSED,
            f"V4 PD disaggregation requires pp_size=1, got pp_size={pp.value}.",
            r.arg("pp-size"),
            value=pp.value,
        )


def _algorithm(r: ArgReader, spec_arg: Arg | None) -> str | None:
    """The algorithm, checked on the raw text before the speculative hook upper-cases it and maps
    NEXTN; a refused one resolves as what its correction would be (EAGLE for NEXTN)."""
    profile = r.profile
    algo_val = r.str_arg("speculative-algorithm")
    raw = algo_val.value if algo_val else None
    algo: str | None = raw
    if raw is not None and raw not in profile.algorithms:
        r.event(
            Kind.ALGORITHM_REFUSED,
            f"speculative-algorithm {raw!r} is not supported for DeepSeek-V4",
            spec_arg,
            algorithm=raw,
        )
        upper = raw.upper()
        algo = (
            "EAGLE"
            if upper in ("NEXTN", "EAGLE")
            else "DSPARK"
            if upper == "DSPARK" and "DSPARK" in profile.algorithms
            else None
        )
    if r.dep.server.mapping is None and r.dep.draft_geometry.values:
        algo = "EAGLE"  # numbers copied from a log: a draft pool existed
    r.values["speculative_algorithm"] = (
        Val(algo, spec_arg.written, spec_arg.value_loc)
        if (algo and spec_arg)
        else default(algo, "no speculative decoding")
    )
    return algo
