"""SWA221 dsv4-env-refused: a DeepSeek-V4 KV environment switch set to a value SGLang refuses.

## What it does

Checks the environment switches SGLang reads when it builds a DeepSeek-V4 KV pool (SGLang 0.5.22
and later; found by the raise inventory, `conformance/inventory/`), as SGLang reads them:

- `SGLANG_DSV4_COMPRESS_STATE_DTYPE` (stripped, lower-cased) must be `float32`, `fp32`,
  `bfloat16` or `bf16` (`_get_dsv4_compress_state_dtypes`, `mem_cache/kv_cache_configurator.py`
  0.5.23:152-160, 0.5.22:147-155; 0.5.23 asks first while sizing the pools,
  `_get_dsv4_compress_state_dtype_sizes`, `model_executor/pool_configurator.py` 0.5.23:142);
- `SGLANG_DSV4_KV_LAYOUT` (lower-cased, not stripped) must be `v4`, `v41` or `auto`, and from
  0.5.23 also `v41_new` (`select_dsv4_kv_layout`, `mem_cache/deepseek_v4_memory_pool.py`
  0.5.23:213, 0.5.22:178). With `dsv4-attn-backend: flashmla_mega` 0.5.23 replaces any value but
  `v41_new` by `v41` first (0.5.23:204-205), and `trtllm` takes only `auto` and `v4`
  (0.5.23:206-209, 0.5.22:171-174);
- `SGLANG_DSV4_COMPRESSED_KV_LAYOUT` (lower-cased) must be `auto`, `fp8` or `fp4`
  (`resolve_compressed_kv_layout`, 0.5.23:182-186, 0.5.22:147-151), `trtllm` takes only `auto`
  and `fp8`, and `fp4` needs a V4.1 main cache: with `SGLANG_DSV4_KV_LAYOUT` `v4` (the default)
  SGLang asserts `the V4 main cache only pairs with V4 caches` (0.5.23:190, 0.5.22:155).
  With unified KV rings (ROCm `unified_kv_triton`) no compressed pool is built, so only a PD
  server of 0.5.23 resolves the option, when it publishes its KV layout to its peer
  (`DeepSeekV4TokenToKVPool.pd_kv_layout`, 0.5.23:1690-1698, from `disaggregation/decode.py`
  0.5.23:620 and `prefill.py` 0.5.23:271); a unified server without PD, or of 0.5.22, never
  reads it.

## Why it matters

The server stops while it builds the KV pool, after loading the weights, e.g.
`ValueError: Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE='float16'. Expected one of: float32,
fp32, bfloat16, bf16.` or `AssertionError: unknown SGLANG_DSV4_KV_LAYOUT='v42'`.

## Example

```yaml
swacheck: 1
env: {SGLANG_DSV4_COMPRESS_STATE_DTYPE: float16}
server:
  model-path: deepseek-ai/DeepSeek-V4-Flash
```

## Fix

Use one of the values SGLang takes (the message lists them), or unset the variable.

Fix safety: none — no automatic fix: it changes the server's environment.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from ._preflight import is_dsv4, platform, text
from .base import RuleContext

CODE = "SWA221"
NAME = "dsv4-env-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_DSV4_COMPRESS_STATE_DTYPE / KV_LAYOUT / COMPRESSED_KV_LAYOUT value SGLang refuses"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

STATE_DTYPES = ("float32", "fp32", "bfloat16", "bf16")
LAYOUT_AT = "mem_cache/deepseek_v4_memory_pool.py select_dsv4_kv_layout"
DTYPE_AT = "mem_cache/kv_cache_configurator.py _get_dsv4_compress_state_dtypes"
COMPRESSED_AT = "mem_cache/deepseek_v4_memory_pool.py resolve_compressed_kv_layout"


def _layout_refusal(mode: str, backend: str, version: tuple) -> str | None:
    if backend == "flashmla_mega" and version >= (0, 5, 23):
        return None  # any value but v41_new becomes v41
    if backend == "trtllm":
        if mode not in ("auto", "v4"):
            return "AssertionError: trtllm uses uniform FP8 pools, not the packed V4.1 KV layouts"
        return None
    legal = ("v4", "v41", "v41_new", "auto") if version >= (0, 5, 23) else ("v4", "v41", "auto")
    if mode not in legal:
        return f"AssertionError: unknown SGLANG_DSV4_KV_LAYOUT={mode!r}"
    return None


def _compressed_refusal(option: str, mode: str, backend: str, version: tuple) -> str | None:
    if backend == "trtllm":
        if option not in ("auto", "fp8"):
            return "AssertionError: trtllm uses uniform FP8 pools, not the packed V4.1 KV layouts"
        return None
    if option not in ("auto", "fp8", "fp4"):
        return f"AssertionError: unknown compressed KV layout {option!r}"
    v4_main = mode == "v4" and not (backend == "flashmla_mega" and version >= (0, 5, 23))
    if option == "fp4" and v4_main:
        return "AssertionError: the V4 main cache only pairs with V4 caches"
    return None


def _resolves_compressed(res: Resolution, version: tuple) -> bool:
    """Whether SGLang resolves the compressed-cache option: it builds the compressed pools
    (``_init_compressed_pools``), or, with unified KV rings (which build none), a 0.5.23 PD
    server publishes its layout (``get_pd_kv_layout`` -> ``pd_kv_layout``,
    ``disaggregation/decode.py`` 0.5.23:620, ``prefill.py`` 0.5.23:271; 0.5.22 publishes none)."""
    if res.target is None or not res.target.unified.value:
        return True
    mode = res.values.get("disaggregation_mode")
    pd = mode is not None and str(mode.value) in ("prefill", "decode")
    return pd and version >= (0, 5, 23)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    version = release_key(res.profile.version)
    if version < (0, 5, 22):
        return
    env = res.deployment.env
    backend = text(res, "dsv4-attn-backend", "auto") or "auto"
    layout = env.get("SGLANG_DSV4_KV_LAYOUT")
    mode = str(layout.value).lower() if layout is not None else "v4"
    found = []
    if layout is not None:
        refusal = _layout_refusal(mode, backend, version)
        if refusal:
            found.append((layout, refusal, "SGLANG_DSV4_KV_LAYOUT", LAYOUT_AT))
    dtype = env.get("SGLANG_DSV4_COMPRESS_STATE_DTYPE")
    if dtype is not None and not found:
        name = str(dtype.value).strip().lower()
        if name not in STATE_DTYPES:
            refusal = (
                f"ValueError: Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE={name!r}. "
                "Expected one of: float32, fp32, bfloat16, bf16."
            )
            found.append((dtype, refusal, "SGLANG_DSV4_COMPRESS_STATE_DTYPE", DTYPE_AT))
    option = env.get("SGLANG_DSV4_COMPRESSED_KV_LAYOUT")
    if option is not None and not found and _resolves_compressed(res, version):
        refusal = _compressed_refusal(str(option.value).lower(), mode, backend, version)
        if refusal:
            found.append((option, refusal, "SGLANG_DSV4_COMPRESSED_KV_LAYOUT", COMPRESSED_AT))
    for val, refusal, name, at in found:
        yield Finding(
            CODE,
            SEVERITY,
            f"{name}={val.value}: {refusal} (building the DSV4 pool, {at})",
            val.location,
            Fix(f"Set {name} to a value SGLang takes, or unset it."),
            field=name,
        )
