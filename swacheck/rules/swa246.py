"""SWA246 kv-cache-sharding-dsv4: `enable-kv-cache-sharding` on a DeepSeek-V4 PD prefill server.

## What it does

Reports `enable-kv-cache-sharding` on a DeepSeek-V4 PD prefill server without speculative
decoding (off a prefill server, or with speculative decoding, is SWA209), with the refusal SGLang
reaches first: KV sharding never starts for DeepSeek-V4. SGLang 0.5.22 and 0.5.23, where the
code was read (found by the raise inventory, `conformance/inventory/`). In the order of
`handle_kv_cache_sharding` (`arg_groups/kv_shard_hook.py`, lines 0.5.23 / 0.5.22):

- `radix-cache-backend` written (126 / 77);
- the radix tree core is not the Python one while the radix cache is on:
  `SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND` other than `python` (140 / 87). Its default is `rust`:
  0.5.23 sets `python` when the variable is unset, 0.5.22 does not, so on 0.5.22 every sharded
  server with the radix cache on stops here;
- `enable-unified-cache-external-linker`, `enable-streaming-session`,
  `enable-session-radix-cache`, `enable-flexkv`, `enable-unified-memory` (146-166 / 93-113);
- `dcp-size` above 1 (171 / 118);
- HiCache: 0.5.22 refuses `enable-hierarchical-cache` (124), 0.5.23 only with
  `hicache-storage-backend` (177);
- `enable-lmcache`, `enable-hisparse`, `enable-dynamic-chunking` with `pp-size` > 1,
  `enable-two-batch-overlap` (195-214 / 130-149);
- the prefill attention backend (`validate_kv_shard_attention_backend`): `prefill-attention-backend`
  if written, else `dsv4` (DeepSeek-V4's override sets `attention_backend` whatever was written).
  Only `fa3` passes; `trtllm_mla` needs an MLA model (0.5.23:77, 0.5.22:38), `dsa` (0.5.23)
  wants CUDA interleave prefill CP, and then TRT-LLM backends with page size 64 (42, 51); any
  other backend, `dsv4` included: "currently requires the fa3 prefill attention backend"
  (0.5.23:71, 0.5.22:32);
- a transfer backend other than Mooncake or NIXL (237 / 172), `SGLANG_DISAGG_STAGING_BUFFER`
  (245 / 180);
- DeepSeek-V4 is not an MLA model here, so without `enable-prefill-cp` and an attention-CP size
  above 1 (the DSV4 hook sets `tp-size / attn-dp-size`): "for GQA models shards across
  attention-CP ranks" (266 / 206);
- `chunked-prefill-size` 0 or below, per attention-DP rank (282 / 222);
- past every check of the hook, the pool: DeepSeek-V4's `DeepSeekV4TokenToKVPool` is not a
  page-interleaved pool, so `KVCacheConfigurator._init_pools` refuses it when the scheduler
  builds its pools (`mem_cache/kv_cache_configurator.py` 0.5.23:786, 0.5.22:748).

An unmodelled hook that refuses a feature above (HiCache, LMCache, two-batch overlap, ...) may
stop the server first; the verdict is the same.

## Why it matters

The server stops, e.g. `ValueError: --enable-kv-cache-sharding currently requires the fa3
prefill attention backend, or trtllm_mla for plain-TP MLA; got 'dsv4'.` while it resolves its
arguments, or `ValueError: --enable-kv-cache-sharding does not support this model family (pool
DeepSeekV4TokenToKVPool).` when it builds its KV pools.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
tp-size: 8
disaggregation-mode: prefill
enable-kv-cache-sharding: true
```

## Fix

Remove `enable-kv-cache-sharding`: SGLang has no sharded KV pool for DeepSeek-V4.

Fix safety: none — no automatic fix: it changes how the prefill server holds its KV cache.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from . import _refusals as R
from ._preflight import env_true, flag, is_dsv4, platform, text
from .base import RuleContext

CODE = "SWA246"
NAME = "kv-cache-sharding-dsv4"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "enable-kv-cache-sharding on a DeepSeek-V4 PD prefill server: the KV-sharding hook's first "
    "refusal, else the pool configurator's (no sharded DSV4 pool)"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_KS = "arg_groups/kv_shard_hook.py"
SHARD = "enable-kv-cache-sharding"
TREE_ENV = "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND"
STAGING = "SGLANG_DISAGG_STAGING_BUFFER"
DROP = "Remove enable-kv-cache-sharding: SGLang has no sharded KV pool for DeepSeek-V4."
_P = "--enable-kv-cache-sharding"


def _site(function: str, l23: int | None, l22: int | None) -> R.Site:
    lines = tuple((v, n) for v, n in (("0.5.23", l23), ("0.5.22", l22)) if n is not None)
    return R.Site(_KS, function, lines)


def _hook(l23: int | None, l22: int | None) -> R.Site:
    return _site("handle_kv_cache_sharding", l23, l22)


def _backend_site(l23: int | None, l22: int | None) -> R.Site:
    return _site("validate_kv_shard_attention_backend", l23, l22)


POOLS = R.Site(
    "mem_cache/kv_cache_configurator.py",
    "KVCacheConfigurator._init_pools",
    (("0.5.23", 786), ("0.5.22", 748)),
)

# store_true switches the hook refuses, in its order: (flag, message, 0.5.23 line, 0.5.22 line)
_EARLY = (
    (
        "enable-unified-cache-external-linker",
        f"{_P} does not support --enable-unified-cache-external-linker: load-back allocates "
        "through the flat allocator API.",
        146,
        93,
    ),
    (
        "enable-streaming-session",
        f"{_P} does not support streaming sessions: their virtual nodes do not carry KV-shard "
        "rotation metadata.",
        152,
        99,
    ),
    (
        "enable-session-radix-cache",
        f"{_P} does not support session radix cache yet.",
        157,
        104,
    ),
    (
        "enable-flexkv",
        f"{_P} does not support --enable-flexkv: FlexKV load-back allocates through the stock "
        "flat allocator API.",
        161,
        108,
    ),
    (
        "enable-unified-memory",
        f"{_P} does not support --enable-unified-memory: the unified pool uses a different "
        "virtual-id allocator and layout.",
        166,
        113,
    ),
)
_LATE = (
    ("enable-lmcache", f"{_P} does not support --enable-lmcache.", 195, 130),
    (
        "enable-hisparse",
        f"{_P} does not support --enable-hisparse: HiSparse selects a non-sharded allocator and "
        "assumes each rank owns complete KV pages.",
        199,
        134,
    ),
)
_TBO = (
    f"{_P} does not support --enable-two-batch-overlap: the sharded pool's per-batch gather plan "
    "is a process-wide singleton, but TBO rebuilds attention metadata multiple times per extend "
    "forward and clobbers the plan."
)


def _refused(name: str, message: str, site: R.Site, fix: str = DROP, env: bool = False):
    return R.Refused(name, "ValueError", message, site, fix, env=env)


def _switches(res: Resolution, new: bool) -> Iterator[R.Refused]:
    """From the radix-cache backend to two-batch overlap (every check before the backends)."""
    backend = text(res, "radix-cache-backend")
    if backend is not None:
        yield _refused(
            "radix-cache-backend",
            f"{_P} requires the built-in UnifiedRadixCache with a rotation-aware UnifiedTreeCore "
            f"and does not support --radix-cache-backend={backend!r}.",
            _hook(126, 77),
        )
    tree = res.deployment.env.get(TREE_ENV)
    core = str(tree.value) if tree is not None else ("python" if new else "rust")
    if not flag(res, "disable-radix-cache") and core != "python":
        yield _refused(
            TREE_ENV if tree is not None else SHARD,
            f"{_P} requires the Python UnifiedTreeCore: {TREE_ENV}={core!r} is not supported for "
            "sharded KV.",
            _hook(140, 87),
            f"Set {TREE_ENV}=python (or disable-radix-cache) -- or rather remove "
            "enable-kv-cache-sharding: SGLang has no sharded KV pool for DeepSeek-V4.",
            env=tree is not None,
        )
    for name, message, l23, l22 in _EARLY:
        if flag(res, name):
            yield _refused(name, message, _hook(l23, l22))
    if R.as_int(res, "dcp-size", 1) > 1:
        yield _refused(
            "dcp-size",
            f"{_P} and decode context parallelism (--dcp-size) are mutually exclusive users of the "
            "widened allocator index space.",
            _hook(171, 118),
        )
    if flag(res, "enable-hierarchical-cache"):
        if not new:
            yield _refused(
                "enable-hierarchical-cache",
                f"{_P} does not support --enable-hierarchical-cache yet: HiCache backup/load "
                "assumes each rank holds full pages.",
                _hook(None, 124),
            )
        elif text(res, "hicache-storage-backend") is not None:
            yield _refused(
                "hicache-storage-backend",
                f"{_P} supports HiCache host offload but not --hicache-storage-backend yet: the "
                "storage path reads and writes whole pages per rank, not each rank's own stripe.",
                _hook(177, None),
            )
    for name, message, l23, l22 in _LATE:
        if flag(res, name):
            yield _refused(name, message, _hook(l23, l22))
    if flag(res, "enable-dynamic-chunking") and R.as_int(res, "pp-size", 1) > 1:
        yield _refused(
            "enable-dynamic-chunking",
            f"{_P} does not support dynamic chunk sizing with pipeline parallelism: profiling and "
            "predicted chunks can exceed the fixed sharded scratch capacity. Disable "
            "--enable-dynamic-chunking.",
            _hook(207, 142),
        )
    if flag(res, "enable-two-batch-overlap"):
        yield _refused("enable-two-batch-overlap", _TBO, _hook(214, 149))


def _attention(res: Resolution, new: bool, prefill_cp: bool, attn_cp: int) -> Iterator[R.Refused]:
    """``validate_kv_shard_attention_backend``: DeepSeek-V4 is neither DSA nor MLA."""
    written = text(res, "prefill-attention-backend")
    backend = {"compressed": "dsv4"}.get(written or "", written) or "dsv4"
    if new and backend == "tokenspeed_mla":
        backend = "cutedsl_mla"  # 0.5.23's other deprecated alias
    name = "prefill-attention-backend" if written else SHARD
    if backend == "fa3":
        return
    if backend == "dsa" and new:
        interleave = text(res, "cp-strategy") == "interleave"
        if (
            platform(res) != "cuda"
            or not prefill_cp
            or attn_cp <= 1
            or not interleave
            or (R.as_int(res, "pp-size", 1) != 1)
        ):
            message = "DSA KV sharding requires CUDA interleave prefill CP > 1 and PP1."
            site = _backend_site(42, None)
        else:  # DeepSeek-V4's page size is 256
            message = (
                "DSA KV sharding requires TRTLLM prefill/decode with fp8_e4m3 KV and page size 64."
            )
            site = _backend_site(51, None)
        yield _refused(name, message, site)
    elif backend == "trtllm_mla":
        yield _refused(
            name, "KV sharding with trtllm_mla requires an MLA model.", _backend_site(77, 38)
        )
    else:
        yield _refused(
            name,
            f"{_P} currently requires the fa3 prefill attention backend, or trtllm_mla for "
            f"plain-TP MLA; got {backend!r}.",
            _backend_site(71, 32),
        )


def _topology(res: Resolution, prefill_cp: bool, attn_cp: int) -> Iterator[R.Refused]:
    """From the transfer backend to the chunk size."""
    backend = text(res, "disaggregation-transfer-backend", "mooncake") or "mooncake"
    backend = "mooncake" if backend == "mooncake_tcp" else backend  # the PD hook's rewrite
    if backend not in ("mooncake", "nixl"):
        yield _refused(
            "disaggregation-transfer-backend",
            f"{_P} currently only supports the mooncake and nixl transfer backends: both route "
            "sends through CommonKVSender._prepare_send_indices and pair destinations by fancy "
            f"index. Got --disaggregation-transfer-backend {backend!r}.",
            _hook(237, 172),
        )
    if env_true(res, STAGING):
        yield _refused(
            STAGING,
            f"{_P} is incompatible with {STAGING} (the staging path assumes contiguous send "
            "slices).",
            _hook(245, 180),
            env=True,
        )
    if not prefill_cp or attn_cp <= 1:
        yield _refused(
            SHARD,
            f"{_P} for GQA models shards across attention-CP ranks and requires "
            "--enable-prefill-cp with attn_cp_size > 1.",
            _hook(266, 206),
        )
    if R.raw(res, "chunked-prefill-size") is not None:
        attn = res.values.get("attn_dp_size")
        attn_dp = attn.value if attn is not None and isinstance(attn.value, int) else 1
        size = R.as_int(res, "chunked-prefill-size", 1)
        if (size // attn_dp if attn_dp > 1 else size) <= 0:
            yield _refused(
                "chunked-prefill-size",
                f"{_P} requires chunked prefill (--chunked-prefill-size > 0).",
                _hook(282, 222),
            )


def refusal(res: Resolution) -> R.Refused:
    """The first refusal SGLang reaches for sharding on a DSV4 prefill server (there is one)."""
    new = release_key(res.profile.version) >= (0, 5, 23)
    prefill_cp = flag(res, "enable-prefill-cp")
    tp = R.as_int(res, "tp-size", 1)
    attn = res.values.get("attn_dp_size")
    attn_dp = attn.value if attn is not None and isinstance(attn.value, int) and attn.value else 1
    # with prefill CP the DSV4 hook sets attn_cp_size = tp / attn-DP (deepseek_v4_hook.py 0.5.23:220)
    attn_cp = tp // attn_dp if prefill_cp else R.as_int(res, "attn-cp-size", 1)
    for r in (
        *_switches(res, new),
        *_attention(res, new, prefill_cp, attn_cp),
        *_topology(res, prefill_cp, attn_cp),
    ):
        return r
    return _refused(
        SHARD,
        f"{_P} does not support this model family (pool DeepSeekV4TokenToKVPool). (at "
        "scheduler start, when the KV pools are built: every check of the hook passed)",
        POOLS,
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm") or not flag(res, SHARD):
        return
    if str(res.values["disaggregation_mode"].value) != "prefill":
        return  # SWA209
    algorithm = text(res, "speculative-algorithm")
    if algorithm is not None and algorithm.lower() not in ("none", "null", ""):
        return  # SWA209
    yield from R.findings(sys.modules[__name__], res, [refusal(res)])
