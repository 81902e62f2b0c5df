"""SWA240 parallel-sizes-refused: parallel sizes SGLang's argument checks refuse.

## What it does

Checks the divisibility and combination asserts of SGLang's parallel hook and argument
validation (SGLang 0.5.22 and 0.5.23, where the code was read; found by the raise inventory,
`conformance/inventory/`), on the sizes as written (`tp-size`, `pp-size`, `nnodes`, `dp-size`,
`attn-dp-size` or `enable-dp-attention`, `attn-cp-size`, `moe-dp-size`, `ep-size`,
`moe-dense-tp-size`, `dcp-size`, `dcp-comm-backend`, `enable-prefill-cp`, `cp-strategy`):

- `tp-size` not a multiple of the attention-DP size: a bare `assert cfg.tp_size %
  cfg.attn_dp_size == 0` (`arg_groups/parallel_hook.py` `handle_data_parallelism`, 0.5.23:326,
  0.5.22:314);
- in `handle_context_parallelism`: with `attn-cp-size` > 1 written (not with
  `enable-prefill-cp`, where the DSV4 hook sets it; without `cp-strategy` that is SWA505),
  `tp-size` not a multiple of it or of attn-DP x attn-CP (0.5.23:159-163, 0.5.22:153-157);
  `moe-dp-size` > 1 with `tp-size` not a multiple of it, `ep-size` x `moe-dp-size` above
  `tp-size` (or, with `ep-size` > 1, not equal to it), or `pp-size` > 1 (0.5.23:172-182,
  0.5.22:166-176); `attn-cp-size` different from `moe-dp-size` > 1 (0.5.23:190, 0.5.22:184);
  `enable-aiter-allreduce-fusion` with either (0.5.23:166/185, 0.5.22:160/179);
- decode context parallelism (`handle_decode_context_parallelism`, 0.5.23:244-270,
  0.5.22:238-264): `dcp-size` below 1, `dcp-size` > 1 with `enable-prefill-cp`,
  `dcp-comm-backend` `a2a`/`fi_a2a` without `dcp-size` > 1, `fi_a2a` off CUDA,
  `dcp-replicate-q-proj` (a command-line flag) without `dcp-size` > 1 or with another backend;
- `(tp-size x pp-size)` not a multiple of `nnodes`, `dp-size` > 1 across nodes, and
  `moe-dense-tp-size` other than 1 or `tp-size` (`arg_groups/validation_hook.py`
  `check_server_args`, 0.5.23:179/199/207, 0.5.22:178/198/206).

`ep-size` is read as written (default 1); with `moe-a2a-backend` other than `none` SGLang sets
it itself, and the `ep-size` checks are then left out.

## Why it matters

The server stops while it resolves or validates its arguments, before it loads anything, e.g.
`AssertionError: tp_size must be divisible by number of nodes`, or a bare `AssertionError`
from `parallel_hook.py` for `tp-size: 8` with `attn-dp-size: 3`.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
attn-dp-size: 3
```

## Fix

Choose sizes that divide: `tp-size` a multiple of `attn-dp-size` (and of `nnodes` with
`pp-size`), `moe-dense-tp-size` 1 or `tp-size`, one node per data-parallel replica.

Fix safety: none — no automatic fix: the sizes say how the model is split across GPUs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import flag, is_dsv4, platform
from .base import RuleContext

CODE = "SWA240"
NAME = "parallel-sizes-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "tp/pp/nnodes/attention-DP/CP/MoE-DP/DCP sizes SGLang's argument checks refuse"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_PH = "arg_groups/parallel_hook.py"
_VH = "arg_groups/validation_hook.py"
DATA = R.Site(_PH, "handle_data_parallelism", (("0.5.23", 326), ("0.5.22", 314)))


def _ph(function: str, l23: int, l22: int) -> R.Site:
    return R.Site(_PH, function, (("0.5.23", l23), ("0.5.22", l22)))


def _cp(l23: int) -> R.Site:
    return _ph("handle_context_parallelism", l23, l23 - 6)


def _dcp(l23: int) -> R.Site:
    return _ph("handle_decode_context_parallelism", l23, l23 - 6)


def _vh(l23: int) -> R.Site:
    return R.Site(_VH, "check_server_args", (("0.5.23", l23), ("0.5.22", l23 - 1)))


SPLIT = "Choose sizes that divide (the message says which)."


def _data(res: Resolution, tp: int) -> Iterator[R.Refused]:
    attn_dp = res.values.get("attn_dp_size")
    n = attn_dp.value if attn_dp is not None else 1
    if isinstance(n, int) and n > 1 and tp % n:
        name = "attn-dp-size" if R.raw(res, "attn-dp-size") is not None else "dp-size"
        yield R.Refused(
            name,
            "AssertionError",
            f"cfg.tp_size % cfg.attn_dp_size == 0 (tp-size {tp}, attention DP {n})",
            DATA,
            "Make tp-size a multiple of the attention-DP size.",
        )


def _context(res: Resolution, tp: int, pp: int) -> Iterator[R.Refused]:
    attn_dp = res.values.get("attn_dp_size")
    dp = attn_dp.value if attn_dp is not None and isinstance(attn_dp.value, int) else 1
    prefill_cp = flag(res, "enable-prefill-cp")  # without cp-strategy: SWA505
    fusion = flag(res, "enable-aiter-allreduce-fusion")
    cp = R.as_int(res, "attn-cp-size", 1)
    if cp > 1 and not prefill_cp:  # with prefill CP the DSV4 hook sets attn-cp-size itself
        if tp % cp:
            yield R.Refused(
                "attn-cp-size",
                "AssertionError",
                "tp_size must be divisible by attn_cp_size",
                _cp(159),
                SPLIT,
            )
        elif tp % (dp * cp):
            yield R.Refused(
                "attn-cp-size",
                "AssertionError",
                "tp_size must be divisible by attn_dp_size * attn_cp_size",
                _cp(162),
                SPLIT,
            )
        if fusion:
            yield _fusion(_cp(166))
    moe_dp = R.as_int(res, "moe-dp-size", 1)
    if moe_dp > 1:
        yield from _moe_dp(res, tp, pp, moe_dp, fusion)
        if cp != moe_dp and not prefill_cp:
            yield R.Refused(
                "moe-dp-size",
                "AssertionError",
                "attn_cp_size != moe_dp_size is only supported when moe_dp_size == 1",
                _cp(190),
                "Set moe-dp-size equal to attn-cp-size, or to 1.",
            )


def _fusion(site: R.Site) -> R.Refused:
    return R.Refused(
        "enable-aiter-allreduce-fusion",
        "AssertionError",
        "Aiter allreduce fusion is not supported with context parallelism",
        site,
        "Drop enable-aiter-allreduce-fusion with context parallelism.",
    )


def _moe_dp(res: Resolution, tp: int, pp: int, moe_dp: int, fusion: bool) -> Iterator[R.Refused]:
    if tp % moe_dp:
        yield R.Refused(
            "moe-dp-size",
            "AssertionError",
            "tp_size must be divisible by moe_dp_size",
            _cp(172),
            SPLIT,
        )
    a2a = R.raw(res, "moe-a2a-backend") or "none"
    ep = R.as_int(res, "ep-size", 1)
    if a2a == "none" and ep * moe_dp > tp:
        yield R.Refused(
            "moe-dp-size",
            "AssertionError",
            "ep_size * moe_dp_size must be less than or equal to tp_size",
            _cp(175),
            SPLIT,
        )
    if pp > 1:
        yield R.Refused(
            "moe-dp-size",
            "AssertionError",
            "PP is not supported with context parallelism",
            _cp(178),
            "Run moe-dp-size > 1 with pp-size 1.",
        )
    if a2a == "none" and ep > 1 and ep * moe_dp <= tp and ep * moe_dp != tp:
        yield R.Refused(
            "ep-size",
            "AssertionError",
            "ep_size * moe_dp_size must be equal to tp_size",
            _cp(181),
            SPLIT,
        )
    if fusion:
        yield _fusion(_cp(185))


def _decode_cp(res: Resolution) -> Iterator[R.Refused]:
    dcp = R.as_int(res, "dcp-size", 1)
    if dcp < 1:
        yield R.Refused(
            "dcp-size",
            "ValueError",
            "Decode context parallel size (--dcp-size / --decode-context-parallel-size) must be "
            f">= 1, but got dcp_size={dcp}.",
            _dcp(244),
            "Set dcp-size to 1 or more.",
        )
        return
    if dcp > 1 and flag(res, "enable-prefill-cp"):
        yield R.Refused(
            "dcp-size",
            "ValueError",
            "--dcp-size > 1 does not support --enable-prefill-cp.",
            _dcp(250),
            "Use decode context parallelism or prefill context parallelism, not both.",
        )
    backend = R.raw(res, "dcp-comm-backend")
    if backend in ("a2a", "fi_a2a") and dcp <= 1:
        yield R.Refused(
            "dcp-comm-backend",
            "ValueError",
            f"--dcp-comm-backend {backend} only affects the decode context-parallel attention "
            "reduction and therefore requires --dcp-size / --decode-context-parallel-size > 1, "
            f"but got dcp_size={dcp}.",
            _dcp(252),
            "Drop dcp-comm-backend, or set dcp-size above 1.",
        )
    if backend == "fi_a2a" and platform(res) != "cuda":
        yield R.Refused(
            "dcp-comm-backend",
            "ValueError",
            "--dcp-comm-backend fi_a2a delegates the exchange to FlashInfer's MNNVL All-to-All "
            "kernel, which requires Blackwell and a DCP group within one MNNVL domain.",
            _dcp(259),
            "Use a2a or ag_rs, or leave dcp-comm-backend unset.",
        )
    yield from _replicate_q(res, dcp, backend)


def _replicate_q(res: Resolution, dcp: int, backend: str | None) -> Iterator[R.Refused]:
    if not flag(res, "dcp-replicate-q-proj"):
        return
    if dcp <= 1:
        yield R.Refused(
            "dcp-replicate-q-proj",
            "ValueError",
            "--dcp-replicate-q-proj requires --dcp-size > 1.",
            _dcp(267),
            "Drop dcp-replicate-q-proj, or set dcp-size above 1.",
        )
    elif backend not in ("a2a", "fi_a2a", None):
        yield R.Refused(
            "dcp-replicate-q-proj",
            "ValueError",
            "--dcp-replicate-q-proj only applies to the a2a/fi_a2a DCP communication backend "
            f"(it removes the head-dim Q all-gather); got --dcp-comm-backend={backend}.",
            _dcp(269),
            "Use dcp-comm-backend a2a with dcp-replicate-q-proj, or drop it.",
        )


def _validation(res: Resolution, tp: int, pp: int) -> Iterator[R.Refused]:
    nnodes = R.as_int(res, "nnodes", 1)
    if nnodes >= 1 and (tp * pp) % nnodes:
        yield R.Refused(
            "nnodes",
            "AssertionError",
            "tp_size must be divisible by number of nodes",
            _vh(179),
            "Make tp-size x pp-size a multiple of nnodes.",
        )
    dp = res.values.get("dp_size")
    if dp is not None and isinstance(dp.value, int) and dp.value > 1 and nnodes != 1:
        yield R.Refused(
            "dp-size",
            "AssertionError",
            "multi-node data-parallel replicas are not supported; use attention DP "
            "(--attn-dp-size) across nodes",
            _vh(199),
            "Use attn-dp-size across nodes, or one server per node.",
        )
    dense = R.raw(res, "moe-dense-tp-size")
    if dense is not None and dense not in ("None", "1", str(tp)):
        yield R.Refused(
            "moe-dense-tp-size",
            "AssertionError",
            "moe_dense_tp_size only supports None, 1, or tp_size currently",
            _vh(207),
            "Set moe-dense-tp-size to 1 or to tp-size, or remove it.",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    tp = R.as_int(res, "tp-size", 1)
    pp = R.as_int(res, "pp-size", 1)
    if tp < 1 or pp < 1:
        return
    refusals = [
        *_data(res, tp),
        *_context(res, tp, pp),
        *_decode_cp(res),
        *_validation(res, tp, pp),
    ]
    yield from R.findings(sys.modules[__name__], res, refusals)
