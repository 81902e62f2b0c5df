"""Stage 2, the parallel hook: the data-parallel replicas and the attention-DP width.

SGLang 0.5.22+ ``srt/arg_groups/parallel_hook.py`` ``handle_deprecated_dp_attention`` turns
``--enable-dp-attention --dp-size N`` into ``attn_dp_size = N, dp_size = 1``; before 0.5.22 the
attention-DP divisor is ``dp_size`` itself when ``--enable-dp-attention`` is on
(``SGLangProfile.attn_dp_from``). See docs/sglang.md, "Parallel".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.records import Val
from ...model.recordtype import record
from ..events import Kind
from .reader import default

if TYPE_CHECKING:
    from .reader import ArgReader


@record
class Parallel:
    """dp-size and the attention data-parallel size as the parallel hook leaves them."""

    dp_size: Val
    attn_dp: Val


def parallel(r: ArgReader) -> Parallel:
    """dp-size and attn-dp-size as the parallel hook leaves them. In a --config file the merger
    refuses --enable-dp-attention (SWA303); swacheck resolves what it was meant to say."""
    dp_size = r.int_arg("dp-size", 1) or default(1, "--dp-size")
    dp_attn = r.arg("enable-dp-attention")
    if r.profile.attn_dp_from == "enable-dp-attention":
        # before 0.5.22 the attention-DP divisor is dp-size when --enable-dp-attention is on
        on = dp_attn is not None and dp_attn.value is True
        attn_dp = (
            Val(dp_size.value, f"dp-size {dp_size.value} (enable-dp-attention)", dp_attn.key_loc)
            if on
            else default(1, "no enable-dp-attention")
        )  # type: ignore[union-attr]
    else:
        attn_dp = r.int_arg("attn-dp-size", 1) or default(1, "--attn-dp-size")
        if dp_attn is not None and dp_attn.value is True and attn_dp.value == 1:
            attn_dp = Val(
                dp_size.value,
                f"dp-size {dp_size.value} (what enable-dp-attention means)",
                dp_attn.key_loc,
            )
            dp_size = Val(1, "enable-dp-attention turns dp-size into attn-dp-size", dp_attn.key_loc)
    if r.profile.attn_dp_from == "attn-dp-size" and dp_size.value > 1 and attn_dp.value > 1:
        r.event(
            Kind.DP_COMBINATION,
            f"--dp-size {dp_size.value} with --attn-dp-size {attn_dp.value}: data-parallel replicas "
            "combined with attention data parallelism are not supported",
            r.arg("attn-dp-size") or r.arg("dp-size"),
        )
    r.values["dp_size"], r.values["attn_dp_size"] = dp_size, attn_dp
    return Parallel(dp_size, attn_dp)
