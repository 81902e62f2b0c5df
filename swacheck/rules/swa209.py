"""SWA209 kv-cache-sharding-refused: `enable-kv-cache-sharding` on a server SGLang refuses it for.

## What it does

Reports `enable-kv-cache-sharding` (SGLang 0.5.22 and later) on a DeepSeek-V4 server that is not
a PD prefill server, or that runs speculative decoding.

## Why it matters

SGLang's KV-sharding hook (`arg_groups/kv_shard_hook.py` `handle_kv_cache_sharding`) stops the
server during argument resolution:

- not a PD prefill server: `ValueError: --enable-kv-cache-sharding is only supported on PD
  prefill workers: a rank's pool holds only its stripe of every cached page, which is
  incompatible with local decode.` (0.5.22:60-64, 0.5.23:99-104);
- with speculative decoding: 0.5.22 `ValueError: --enable-kv-cache-sharding does not support
  speculative decoding.` (0.5.22:65-68); 0.5.23 allows only GLM DSA single-layer NextN MTP, so
  for DeepSeek-V4 `ValueError: KV sharding supports speculative decoding only for GLM DSA
  single-layer NextN MTP with EAGLE and topk=1.` (0.5.23:105-117).

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
disaggregation-mode: decode
enable-kv-cache-sharding: true
```

## Fix

Drop `enable-kv-cache-sharding`, or keep it on a PD prefill server without speculative decoding.

Fix safety: none — no automatic fix: it changes how the server holds its KV cache.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from ._preflight import arg, flag, text, where
from .base import RuleContext

CODE = "SWA209"
NAME = "kv-cache-sharding-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "enable-kv-cache-sharding off a PD prefill server, or with speculative decoding"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

NOT_PREFILL = (
    "ValueError: --enable-kv-cache-sharding is only supported on PD prefill workers: a rank's "
    "pool holds only its stripe of every cached page, which is incompatible with local decode."
)
SPEC_0_5_22 = "ValueError: --enable-kv-cache-sharding does not support speculative decoding."
SPEC_0_5_23 = (
    "ValueError: KV sharding supports speculative decoding only for GLM DSA single-layer NextN "
    "MTP with EAGLE and topk=1."
)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if res.quiet or not flag(res, "enable-kv-cache-sharding"):
        return
    at = where(res, arg(res, "enable-kv-cache-sharding"), value=False)
    mode = res.values["disaggregation_mode"].value
    algorithm = text(res, "speculative-algorithm")  # as written: any algorithm is refused
    if mode != "prefill":
        said = (
            f"enable-kv-cache-sharding on a {'PD decode' if mode == 'decode' else 'non-PD'} server"
        )
        message = NOT_PREFILL
    elif algorithm is not None and algorithm.lower() not in ("none", "null", ""):
        said = f"enable-kv-cache-sharding with speculative-algorithm {algorithm}"
        version = release_key(res.profile.version)
        message = SPEC_0_5_23 if version >= (0, 5, 23) else SPEC_0_5_22
    else:
        return
    yield Finding(
        CODE,
        SEVERITY,
        f"{said}: {message} (argument resolution, arg_groups/kv_shard_hook.py)",
        at,
        Fix(
            "Remove enable-kv-cache-sharding, or keep it only on a PD prefill server without "
            "speculative decoding."
        ),
        field="enable-kv-cache-sharding",
    )
