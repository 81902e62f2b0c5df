"""SWA205 dsv4-args-refused: other arguments SGLang's DeepSeek-V4 hook refuses.

## What it does

Checks the DeepSeek-V4 assertions of `apply_deepseek_v4_defaults`
(`srt/arg_groups/deepseek_v4_hook.py`, SGLang 0.5.23) that a config file can trigger and
that are not about speculative decoding (SWA202 covers those), and the KV cache dtype check
of `_deepseek_v4_kv_cache_dtype` (`srt/arg_groups/overrides.py`):

- `kv-cache-dtype` must be `auto` (which becomes `fp8_e4m3`), `fp8_e4m3` or `bfloat16`;
  `bf16`, `fp8_e5m2`, `mxfp8`, `nvfp4`, `fp4_mx_block16` are refused;
- `dsv4-attn-backend: trtllm` does not support PD disaggregation.

## Why it matters

SGLang stops at argument resolution with an `AssertionError`, e.g.
`AssertionError: bf16 is not supported for DeepseekV4ForCausalLM`.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
kv-cache-dtype: bf16
```

## Fix

Write `kv-cache-dtype: fp8_e4m3` (or leave it at `auto`, which becomes `fp8_e4m3`) on CUDA, where
the DeepSeek-V4 pool refuses a bfloat16 KV cache (SWA503); `bfloat16` for `bf16` elsewhere (ROCm,
NPU). Use another DSV4 attention backend for PD servers.

Fix safety: unsafe — it changes the KV cache dtype or the attention backend.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA205"
NAME = "dsv4-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "kv-cache-dtype or dsv4-attn-backend that SGLang's DeepSeek-V4 hook refuses"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of(Kind.KV_DTYPE_REFUSED):
        assert event.arg is not None
        value = event.data["value"]
        # bfloat16 is what bf16 means, but the CUDA DSV4 pool asserts on it (SWA503): there the
        # fix is fp8_e4m3, what auto becomes, so that the fix leads into no other finding
        cuda = str(res.deployment.platform.value) == "cuda"
        better = (
            "bfloat16"
            if value in ("bf16",) and "bfloat16" in res.profile.dsv4_kv_dtypes and not cuda
            else "fp8_e4m3"
        )
        why = (
            " (a bfloat16 KV cache is refused on CUDA, SWA503)" if value == "bf16" and cuda else ""
        )
        fix = Fix(
            f"Set {event.arg.written} to {better} (or auto){why}.",
            (fixes.replace(event.arg.value_loc, better),),
            safe=False,
        )
        yield finding_for_event(
            rule,
            event,
            fix,
            message=f"{event.message}: AssertionError: {value} is not supported for DeepseekV4ForCausalLM",
        )
    for event in res.events_of(Kind.TRTLLM_PD):
        assert event.arg is not None
        fix = Fix(
            "Use dsv4-attn-backend auto or flashmla on PD servers.",
            (fixes.replace(event.arg.value_loc, "auto"),),
            safe=False,
        )
        yield finding_for_event(rule, event, fix, message=f"AssertionError: {event.message}")
