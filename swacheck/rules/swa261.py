"""SWA261 checkpoint-pool-refused: a DeepSeek-V4 config.json the KV pools cannot be built from.

## What it does

Reports a target or draft `config.json` that loads but whose values the DeepSeek-V4 pools
cannot be built from (SGLang 0.5.22 and 0.5.23; stage `pools`, in SGLang's order):

- a target whose derived context length is 0 (`max_position_embeddings: 0` and no
  `--context-length`): `KVCacheConfigurator.resolve_max_num_reqs` divides by it
  (`mem_cache/kv_cache_configurator.py` 0.5.23:3123, 0.5.22:2804: `ZeroDivisionError`);
- the target's `kv_source_layer_ids` that is no list (`null`, a number):
  `list(hf_config.kv_source_layer_ids)` in `KVCacheConfigurator._build_dsv4_kv_pool`
  (`mem_cache/kv_cache_configurator.py` 0.5.23:2083, 0.5.22:1782) raises
  `TypeError: 'NoneType' object is not iterable`;
- the target's `compress_ratios: null` (transformers then keeps its default layer schedule, but
  `ModelConfig.compress_ratios` is `None`): `set(compression_ratios)` in
  `DeepSeekV4TokenToKVPool.__init__` (`mem_cache/deepseek_v4_memory_pool.py` 0.5.23:1056,
  0.5.22:1014) raises `TypeError`;
- head dimensions that give a row size the pool does not expect. `ModelConfig` takes
  `qk_rope_head_dim` (64 when the file has none) and `qk_nope_head_dim = head_dim -
  qk_rope_head_dim`, and SGLang's alias class sets `head_dim = qk_rope_head_dim` when the file has
  no `head_dim` (transformers `DeepseekV3Config.__post_init__`). In the V4 KV layout a row is
  `nope + 2 x rope + nope // 64 + 1` bytes and `DeepSeekV4SingleKVPool.create_buffer` asserts 584
  (`mem_cache/deepseek_v4_memory_pool.py` 0.5.23:313, 0.5.22:277: `AssertionError: DSV4 KV
  layout: qk_nope_head_dim FP8 (448) + qk_rope_head_dim BF16 (64*2) + nope FP8 scales +
  scale_pad = 584 bytes/token`); the V4.1 layouts assert `nope + rope == 512`
  (`get_bytes_per_token`, 0.5.23:297, 0.5.22:261), the uniform-FP8 pool of
  `--dsv4-attn-backend trtllm` 512 bytes (0.5.23:392, 0.5.22:356). So `head_dim` 256 or 576,
  `qk_rope_head_dim` 32 or 128, or no `head_dim` at all, stops the launch.

The layout is the one `select_dsv4_kv_layout` picks for the deployment (`SGLANG_DSV4_KV_LAYOUT`,
the attention backend, the GPU); ROCm's unified KV pool is not checked. Releases before 0.5.22
are not checked.

## Why it matters

The server stops while it allocates the KV cache, after the weights' configs are read: a
checkpoint of another model family given the DeepSeek-V4 architecture, or a config.json that
lost its `head_dim`.

## Example

```json
{"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
 "head_dim": 256, "qk_rope_head_dim": 64, "sliding_window": 128}
```

## Fix

Give the checkpoint DeepSeek-V4's head dimensions (`head_dim` 512, `qk_rope_head_dim` 64) and
a list for `kv_source_layer_ids` and `compress_ratios`, or point the model path at the
checkpoint you mean.

Fix safety: none — no automatic fix: only you know the checkpoint's values.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang import hfconfig
from ..sglang.pd import kv_layout
from ..sglang.resolve import Resolution
from ..sglang.stages.model_config import checkpoint_message
from .base import RuleContext
from .swa241 import derived

CODE = "SWA261"
NAME = "checkpoint-pool-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "DeepSeek-V4 head dimensions, kv_source_layer_ids or compress_ratios the KV pools "
    "cannot be built from"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    sites = res.profile.checkpoint_sites
    if sites is None or res.target is None or res.mode == "unified":
        return
    zero = _zero_context(res)
    if zero is not None:
        yield zero
        return
    # a PD server's layout is among the values its pairing compared already (pd.compared_values)
    chosen = res.compared["kv_layout"] if res.compared is not None else kv_layout(res)
    layout = str(chosen.value).split("/", 1)[0]
    seen: set[int] = set()
    for pool in (res.target, res.draft):
        model = pool.model if pool is not None else None
        if pool is None or model is None or model.file is None or model.catalogue is not None:
            continue
        if model.model_type != "deepseek_v4" or bool(pool.unified.value):
            continue
        if id(model) in seen:  # the draft reads the target's config.json: its rows are the target's
            continue
        seen.add(id(model))
        found = hfconfig.pool_refusal(model, pool.role, sites, layout)
        if found is None:
            continue
        yield Finding(
            CODE,
            SEVERITY,
            checkpoint_message(model.label, pool.role, found, res.profile.version),
            hfconfig.location(model, found.key),
            Fix(found.fix),
            field=found.key,
        )
        return  # SGLang stops at the first pool it cannot build


def _zero_context(res: Resolution) -> Finding | None:
    """``int(token_capacity / context_len * 512)``: a target context length of 0."""
    model = res.target.model if res.target is not None else None
    sites = res.profile.checkpoint_sites
    if model is None or sites is None or model.file is None or model.catalogue is not None:
        return None
    if model.model_type != "deepseek_v4" or "context-length" in res.deployment.server.args:
        return None
    limit, source = derived(model)
    if limit != 0:
        return None
    found = hfconfig.Refusal(
        "pools",
        "ZeroDivisionError",
        "division by zero",
        "max_position_embeddings",
        sites.context,
        f"its context length is 0 ({source})",
        "Give max_position_embeddings the checkpoint's context length, or set --context-length.",
    )
    return Finding(
        CODE,
        SEVERITY,
        checkpoint_message(model.label, "target", found, res.profile.version),
        hfconfig.location(model, "max_position_embeddings"),
        Fix(found.fix),
        field="max_position_embeddings",
    )
