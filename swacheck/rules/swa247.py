"""SWA247 lm-head-args-refused: a DP or all-to-all TP LM head without the attention DP it needs.

## What it does

Checks the asserts of `_dp_lm_head_validation` (`arg_groups/overrides.py`, run by
`handle_data_parallelism` in `arg_groups/parallel_hook.py`; SGLang 0.5.22 and 0.5.23, where the
code was read; found by the raise inventory, `conformance/inventory/`), in their order (lines
0.5.23 / 0.5.22):

- `enable-dp-lm-head` without attention DP (1425 / 1388). SGLang first turns it off itself when
  the server has a single DP rank (`_data_parallelism_defaults`: `dp-size` x attention-DP size
  1), so this is `enable-dp-lm-head` with data-parallel replicas (`dp-size` > 1) and no
  `attn-dp-size`;
- `--enable-tp-lm-head-all-to-all` written on the command line (a `--config` file cannot hold
  it: SWA303) without attention DP (1429 / 1392), with `enable-dp-lm-head` (1432 / 1395), with
  `tp-size` other than the attention-DP size (1436 / 1399), or with an attention-CP size other
  than 1 (1441 / 1404; with `enable-prefill-cp` the DSV4 hook sets it to `tp-size` divided by
  the attention-DP size). Left unwritten, SGLang turns it on only where all of these hold
  (`_tp_lm_head_all_to_all_default`), so the default is never refused.

## Why it matters

The server stops while it resolves its arguments, e.g. `AssertionError: --enable-dp-lm-head
requires attention DP (--attn-dp-size).`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
dp-size: 2
enable-dp-lm-head: true
```

## Fix

Use attention DP (`attn-dp-size`) for a DP LM head, or drop `enable-dp-lm-head`; give
`--enable-tp-lm-head-all-to-all` `attn-dp-size` equal to `tp-size` and no DP LM head, or drop it
(SGLang turns it on by itself on a decode server where it applies).

Fix safety: none — no automatic fix: both change how the LM head is split across GPUs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import arg, flag, is_dsv4, platform
from .base import RuleContext

CODE = "SWA247"
NAME = "lm-head-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "enable-dp-lm-head or --enable-tp-lm-head-all-to-all without the attention DP (and sizes) "
    "they need"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

DP_HEAD = "enable-dp-lm-head"
TP_HEAD = "enable-tp-lm-head-all-to-all"


def _site(l23: int) -> R.Site:
    return R.Site(
        "arg_groups/overrides.py", "_dp_lm_head_validation", (("0.5.23", l23), ("0.5.22", l23 - 37))
    )


def _value(res: Resolution, name: str) -> int:
    val = res.values.get(name)
    return val.value if val is not None and isinstance(val.value, int) and val.value > 0 else 1


def _tp_head_written(res: Resolution) -> bool:
    """``--enable-tp-lm-head-all-to-all`` on the command line (a config file's is SWA303's)."""
    a = arg(res, TP_HEAD)
    return a is not None and a.cli and a.written == TP_HEAD and a.value is not False


def refusals(res: Resolution) -> Iterator[R.Refused]:
    attn_dp = _value(res, "attn_dp_size")
    dp = _value(res, "dp_size")
    # _data_parallelism_defaults turns the DP LM head off with a single DP rank
    dp_head = flag(res, DP_HEAD) and dp * attn_dp > 1
    if dp_head and attn_dp <= 1:
        yield R.Refused(
            DP_HEAD,
            "AssertionError",
            "--enable-dp-lm-head requires attention DP (--attn-dp-size).",
            _site(1425),
            "Use attn-dp-size instead of dp-size replicas, or drop enable-dp-lm-head.",
        )
        return
    if not _tp_head_written(res):
        return
    tp = R.as_int(res, "tp-size", 1)
    cp = tp // attn_dp if flag(res, "enable-prefill-cp") else R.as_int(res, "attn-cp-size", 1)
    fix = "Drop --enable-tp-lm-head-all-to-all (SGLang turns it on where it applies)."
    if attn_dp <= 1:
        message, line = (
            "--enable-tp-lm-head-all-to-all requires attention DP (--attn-dp-size).",
            1429,
        )
    elif dp_head:
        message, line = (
            "--enable-tp-lm-head-all-to-all uses a TP-sharded LM head and is incompatible with "
            "--enable-dp-lm-head.",
            1432,
        )
    elif tp != attn_dp:
        message, line = (
            "--enable-tp-lm-head-all-to-all currently requires tp_size == attn_dp_size, got "
            f"tp_size={tp}, attn_dp_size={attn_dp}.",
            1436,
        )
    elif cp != 1:
        message, line = (
            f"--enable-tp-lm-head-all-to-all currently requires attn_cp_size == 1, got {cp}.",
            1441,
        )
    else:
        return
    yield R.Refused(TP_HEAD, "AssertionError", message, _site(line), fix)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    yield from R.findings(sys.modules[__name__], res, refusals(res))
