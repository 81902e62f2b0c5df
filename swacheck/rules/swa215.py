"""SWA215 dsv4-trtllm-refused: `dsv4-attn-backend: trtllm` with what SGLang asserts it cannot run with.

## What it does

For a DeepSeek-V4 target with `dsv4-attn-backend: trtllm` on CUDA, checks what
`apply_deepseek_v4_defaults` (`arg_groups/deepseek_v4_hook.py`) asserts after the GPU (an
SM100/SM103 GPU, SWA502) -- SGLang 0.5.22 and 0.5.23, where the code was read:

- `kv-cache-dtype` other than `auto` / `fp8_e4m3` (`bfloat16`; the other dtypes DeepSeek-V4
  refuses first, SWA205): `AssertionError: --dsv4-attn-backend trtllm requires
  kv_cache_dtype=fp8_e4m3, got bfloat16.` (0.5.23:108, 0.5.22:58);
- `enable-hisparse` (0.5.23:112, 0.5.22:62);
- context parallelism: `attn-cp-size` > 1, `dcp-size` > 1 or `enable-prefill-cp`
  (0.5.23:115, 0.5.22:65);
- `chunked-prefill-size` written as 0 or less: the trtllm-gen semaphore buffer is sized from the
  prefill chunk (0.5.23:129, 0.5.22:83);
- a DeepSeek-V4.1 target (`model_type` `deepseek_v41`) with `cuda-graph-backend-prefill` other
  than `disabled` or `breakable` (0.5.23:282-290; 0.5.22:216-222 takes only `disabled`):
  `validate_deepseek_v41_features`, called from `arg_groups/model_hook.py`. The prefill CUDA
  graph is `disabled` unless written;
- a DeepSeek-V4.1 target with `enable-encoder-swa-bounded-replay` (0.5.22: or
  `enable-decoder-swa-bounded-replay`): `DeepSeek-V4.1 does not support TRT-LLM with encoder SWA
  bounded replay yet` (0.5.23:340-353, 0.5.22:271-284; the rest of that list is SWA213's).

The uniform-FP8 pool's own asserts (`DeepSeekV4TokenToKVPool.__init__` and
`_init_compressed_pools`, `mem_cache/deepseek_v4_memory_pool.py` 0.5.23:1035/1228/1576,
0.5.22:993/1153/1461: a V4.1 layout, a KV dtype other than fp8_e4m3, HiSparse) repeat the
hook's: the hook refuses first (a V4.1 target's `auto` KV dtype resolves to `fp8_e4m3` too, as
measured on real 0.5.23), and `select_dsv4_kv_layout` refuses a V4.1 layout before (SWA221).
PD with trtllm is SWA205's; the GPU is SWA502's.

## Why it matters

The server stops while it resolves its arguments, e.g. `AssertionError: --dsv4-attn-backend
trtllm does not support context parallelism (prefill CP, attention CP, or decode CP).`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
dsv4-attn-backend: trtllm
kv-cache-dtype: bfloat16
```

## Fix

Run trtllm with `kv-cache-dtype: fp8_e4m3` (or `auto`), without HiSparse or context
parallelism, with chunked prefill on and (V4.1) the prefill CUDA graph disabled; or use
`dsv4-attn-backend: auto`.

Fix safety: none — no automatic fix: the kernels, the KV dtype and the parallel layout are
choices.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from . import _refusals as R
from ._preflight import flag, is_dsv4, platform
from .base import RuleContext

CODE = "SWA215"
NAME = "dsv4-trtllm-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "dsv4-attn-backend trtllm with a KV dtype other than fp8_e4m3, HiSparse, context "
    "parallelism, no chunked prefill, or (V4.1) a prefill CUDA graph"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_HOOK = "arg_groups/deepseek_v4_hook.py"


def _hook(l23: int, l22: int) -> R.Site:
    return R.Site(_HOOK, "apply_deepseek_v4_defaults", (("0.5.23", l23), ("0.5.22", l22)))


BACKEND_FIX = "Use dsv4-attn-backend: auto, or drop what the message names."


def _v41(res: Resolution) -> bool:
    model = res.target.model if res.target is not None else None
    return model is not None and model.model_type == "deepseek_v41"


def refusals(res: Resolution) -> Iterator[R.Refused]:
    kv = R.raw(res, "kv-cache-dtype") or "auto"
    if kv not in ("auto", "fp8_e4m3") and kv in res.profile.dsv4_kv_dtypes:
        yield R.Refused(
            "kv-cache-dtype",
            "AssertionError",
            f"--dsv4-attn-backend trtllm requires kv_cache_dtype=fp8_e4m3, got {kv}.",
            _hook(108, 58),
            "Set kv-cache-dtype: fp8_e4m3 with dsv4-attn-backend trtllm.",
        )
    if flag(res, "enable-hisparse"):
        yield R.Refused(
            "enable-hisparse",
            "AssertionError",
            "--dsv4-attn-backend trtllm does not support enable_hisparse.",
            _hook(112, 62),
            BACKEND_FIX,
        )
    cp = next(
        (
            name
            for name, on in (
                ("attn-cp-size", R.as_int(res, "attn-cp-size", 1) > 1),
                ("dcp-size", R.as_int(res, "dcp-size", 1) > 1),
                ("enable-prefill-cp", flag(res, "enable-prefill-cp")),
            )
            if on
        ),
        None,
    )
    if cp is not None:
        yield R.Refused(
            cp,
            "AssertionError",
            "--dsv4-attn-backend trtllm does not support context parallelism (prefill CP, "
            "attention CP, or decode CP).",
            _hook(115, 65),
            BACKEND_FIX,
        )
    if (
        R.raw(res, "chunked-prefill-size") is not None
        and R.as_int(res, "chunked-prefill-size", 1) <= 0
    ):
        yield R.Refused(
            "chunked-prefill-size",
            "AssertionError",
            "--dsv4-attn-backend trtllm requires chunked prefill (--chunked-prefill-size > 0).",
            _hook(129, 83),
            "Set chunked-prefill-size above 0 (or leave it unset) with dsv4-attn-backend trtllm.",
        )
    graph = R.raw(res, "cuda-graph-backend-prefill")
    new = release_key(res.profile.version) >= (0, 5, 23)
    taken = ("disabled", "breakable") if new else ("disabled",)
    if _v41(res) and graph is not None and graph not in taken:
        yield R.Refused(
            "cuda-graph-backend-prefill",
            "ValueError",
            "DeepSeek-V4.1 TRT-LLM requires --cuda-graph-backend-prefill disabled"
            + (" or breakable" if "breakable" in taken else ""),
            R.Site(_HOOK, "validate_deepseek_v41_features", (("0.5.23", 287), ("0.5.22", 220))),
            "Set cuda-graph-backend-prefill: " + " or ".join(taken) + " with trtllm on V4.1.",
        )


def _v41_replay(res: Resolution, new: bool) -> Iterator[R.Refused]:
    """validate_deepseek_v41_features' unsupported list: TRT-LLM with bounded replay."""
    encoder = flag(res, "enable-encoder-swa-bounded-replay")
    decoder = flag(res, "enable-decoder-swa-bounded-replay")
    if not _v41(res) or not (encoder or (decoder and not new)):
        return
    what = "TRT-LLM with encoder SWA bounded replay" if new else "TRT-LLM with SWA bounded replay"
    yield R.Refused(
        "enable-encoder-swa-bounded-replay" if encoder else "enable-decoder-swa-bounded-replay",
        "ValueError",
        f"DeepSeek-V4.1 does not support {what} yet; disable it to serve this model.",
        R.Site(_HOOK, "validate_deepseek_v41_features", (("0.5.23", 350), ("0.5.22", 281))),
        "Turn the bounded replay off with dsv4-attn-backend trtllm.",
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) != "cuda" or R.raw(res, "dsv4-attn-backend") != "trtllm":
        return
    new = release_key(res.profile.version) >= (0, 5, 23)
    found = [*refusals(res), *_v41_replay(res, new)]
    yield from R.findings(sys.modules[__name__], res, found)
