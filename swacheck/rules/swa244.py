"""SWA244 validation-args-refused: arguments SGLang's argument validation refuses for DeepSeek-V4.

## What it does

Checks three refusals of SGLang's `arg_groups/validation_hook.py` that depend only on the files
(SGLang 0.5.22 and 0.5.23, where the code was read; found by the raise inventory,
`conformance/inventory/`):

- `SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS` set in the environment, to any value: the
  switch is retired (`validate_sampling_mask_max_tokens`, 0.5.23:680, 0.5.22:677), and
  `sampling-mask-max-tokens` 0 or below (0.5.23:688, 0.5.22:685). Both run first, before the
  model is read;
- on a server that is not a PD decode server, a chunked-prefill size that is not a multiple of
  the page size, 256 for DeepSeek-V4 (`check_server_args`, 0.5.23:244, 0.5.22:243). The size
  checked is the one per attention-DP rank: with attention DP SGLang divides
  `chunked-prefill-size` by `attn-dp-size` first (`arg_groups/parallel_hook.py`
  `handle_data_parallelism`, 0.5.23:331, 0.5.22:319), so `chunked-prefill-size: 1024` with
  `attn-dp-size: 8` is checked as 128. Left unset, the size is SGLang's default for the GPU's
  memory (`arg_groups/memory_hook.py` `handle_gpu_memory_settings`: 2048 below 20 GiB, 4096
  below 60 GiB, 8192 below 160 GiB, else 16384), judged only when the GPU is named. A size of 0
  or below (chunked prefill off) is not checked.

## Why it matters

The server stops before it loads anything, with
`ValueError: SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS is no longer supported. Unset it. ...`
while it resolves its arguments, or `AssertionError: chunked_prefill_size must be divisible by
page_size` when it validates them.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
attn-dp-size: 8
chunked-prefill-size: 1024
```

## Fix

Unset `SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS` (to use sampling masks under PD, set
`SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1` and the same positive `sampling-mask-max-tokens` on both
servers); give `chunked-prefill-size` a multiple of 256 x `attn-dp-size` (2048 with
`attn-dp-size: 8`).

Fix safety: none — no automatic fix: the chunk size changes prefill batching and memory.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import gpu, is_dsv4, platform
from .base import RuleContext

CODE = "SWA244"
NAME = "validation-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "the retired SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS, sampling-mask-max-tokens below 1, "
    "a chunked-prefill size per attention-DP rank that is not a multiple of the page size"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_VH = "arg_groups/validation_hook.py"
MASK_ENV = "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS"
MASK = R.Site(_VH, "validate_sampling_mask_max_tokens", (("0.5.23", 680), ("0.5.22", 677)))
MASK_TOKENS = R.Site(_VH, "validate_sampling_mask_max_tokens", (("0.5.23", 688), ("0.5.22", 685)))
CHUNK = R.Site(_VH, "check_server_args", (("0.5.23", 244), ("0.5.22", 243)))

# handle_gpu_memory_settings: (below this many GiB, the default chunked-prefill size)
_DEFAULTS = ((20, 2048), (35, 4096), (60, 4096), (90, 8192), (160, 8192))


def _mask(res: Resolution) -> Iterator[R.Refused]:
    if res.deployment.env.get(MASK_ENV) is not None:  # envs.X.is_set(): any value, even empty
        yield R.Refused(
            MASK_ENV,
            "ValueError",
            f"{MASK_ENV} is no longer supported. Unset it. To enable sampling masks for "
            "disaggregated serving, set SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1 and use the same "
            "positive --sampling-mask-max-tokens value on both prefill and decode servers.",
            MASK,
            f"Unset {MASK_ENV}.",
            env=True,
        )
        return
    if R.raw(res, "sampling-mask-max-tokens") is None:
        return
    tokens = R.as_int(res, "sampling-mask-max-tokens", 1)
    if tokens <= 0:
        yield R.Refused(
            "sampling-mask-max-tokens",
            "ValueError",
            f"--sampling-mask-max-tokens must be positive (got {tokens}).",
            MASK_TOKENS,
            "Set sampling-mask-max-tokens to a positive number, or remove it.",
        )


def default_chunk(res: Resolution) -> int | None:
    """SGLang's chunked-prefill size for the named GPU's memory; None without a known GPU."""
    _, known = gpu(res)
    if known is None:
        return None
    gib = known.memory_bytes / (1 << 30)
    return next((size for limit, size in _DEFAULTS if gib < limit), 16384)


def _chunk(res: Resolution) -> Iterator[R.Refused]:
    if str(res.values["disaggregation_mode"].value) == "decode":
        return
    page = res.values.get("page_size")
    page_size = page.value if page is not None and isinstance(page.value, int) else 256
    written = R.raw(res, "chunked-prefill-size") is not None
    size = R.as_int(res, "chunked-prefill-size", 0) if written else default_chunk(res)
    attn = res.values.get("attn_dp_size")
    attn_dp = attn.value if attn is not None and isinstance(attn.value, int) else 1
    if size is None or size <= 0 or page_size <= 1:
        return
    per_rank = size // attn_dp if attn_dp > 1 else size
    if per_rank <= 0 or per_rank % page_size == 0:
        return
    said = (
        f"chunked-prefill-size {size}"
        if written
        else f"SGLang's default chunked-prefill size {size}"
    )
    how = f"{said} / attn-dp-size {attn_dp} = {per_rank}" if attn_dp > 1 else said
    step = page_size * attn_dp
    better = max(step, (size + step - 1) // step * step)
    yield R.Refused(
        "chunked-prefill-size",
        "AssertionError",
        f"chunked_prefill_size must be divisible by page_size ({how}, page size {page_size})",
        CHUNK,
        f"Set chunked-prefill-size to a multiple of {step} (page size {page_size}"
        + (f" x attn-dp-size {attn_dp}" if attn_dp > 1 else "")
        + f"), e.g. {better}.",
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    refusals = list(_mask(res)) or list(_chunk(res))  # the mask check runs first and stops it
    yield from R.findings(sys.modules[__name__], res, refusals)
