"""SWA241 context-length-over-limit: a context length above what the checkpoint allows.

## What it does

Computes the context length SGLang derives from each checkpoint (`get_context_length`,
`utils/hf_transformers/common.py` 0.5.23:677-694: the first of `max_sequence_length`,
`seq_length`, `max_seq_len`, `model_max_length`, `max_position_embeddings` in `config.json`,
times the `rope_scaling` factor unless it names `original_max_position_embeddings` or is
`llama3`; without any of those keys the config class's default, 65536 for DeepSeek-V4's
`DeepseekV4Config`, `configs/deepseek_v4.py:64`, and 4096 for DeepSeek-V4.1's, which is
Transformers' `DeepseekV3Config`), and reports, as `ModelConfig._derive_context_length` does
(`configs/model_config.py` 0.5.23:1291-1318, 0.5.22:1182-1209):

- `context-length` above the target's derived length;
- with speculative decoding, the target's context length (the `context-length` it accepted,
  else its derived one) above the draft checkpoint's derived length: the draft workers build the
  draft's `ModelConfig` with the target's context length (`speculative/eagle_worker_v2.py`
  0.5.23:229, 0.5.22:209; `speculative/draft_worker_common.py:100` for DSPARK).

Only a `config.json` read from a file is judged (the built-in catalogue and an inline
`model_config` list some keys only). Both are allowed when
`SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN` (or `SGLANG_IS_IN_CI`) is on: SGLang then only
warns, and for the draft overrides its `max_position_embeddings`. SGLang 0.5.22 and 0.5.23
(the code read).

## Why it matters

The server stops while it reads the model config (the target) or while it starts the draft
worker: `ValueError: Warning: User-specified context_length (2097152) is greater than the derived
context_length (1048576). ... To allow overriding this maximum, set the env var
SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`, or the same with `Target model's context_length`
for a draft whose `max_position_embeddings` is smaller than the target's.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
context-length: 2097152
```

## Fix

Lower `context-length` to the checkpoint's limit (the message gives it), give the draft a
checkpoint with the target's limit, or set `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` if you
mean to run past it (outputs beyond the trained length may be wrong).

Fix safety: none — no automatic fix: it changes how long a request may be.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.models import ModelConfig
from ..sglang.resolve import Resolution
from ._preflight import arg, env_true, is_dsv4, platform, where
from ._refusals import as_int
from .base import RuleContext

CODE = "SWA241"
NAME = "context-length-over-limit"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "context-length (or the target's) above the target's or the draft's checkpoint limit"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

KEYS = (
    "max_sequence_length",
    "seq_length",
    "max_seq_len",
    "model_max_length",
    "max_position_embeddings",
)
LINES = {"0.5.23": 1314, "0.5.22": 1205}
ENV = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"


def derived(model: ModelConfig) -> tuple[int, str]:
    """SGLang's ``get_context_length`` on this config, and where the number comes from."""
    rope = model.get("rope_scaling")
    factor: float = 1
    if rope is not None and isinstance(rope.value, dict) and rope.value:
        f = rope.value.get("factor", 1)
        factor = f if isinstance(f, int | float) and not isinstance(f, bool) else 1
        if (
            "original_max_position_embeddings" in rope.value
            or rope.value.get("rope_type") == "llama3"
        ):
            factor = 1
    for key in KEYS:
        v = model.get(key)
        if v is not None and isinstance(v.value, int | float) and not isinstance(v.value, bool):
            shown = f"{key} {v.value}" + (f" x rope_scaling factor {factor}" if factor != 1 else "")
            return int(factor * v.value), f"{shown} in {model.source}"
    if model.model_type == "deepseek_v41":
        return 4096, f"no context key in {model.source}: DeepseekV3Config's default 4096"
    return 65536, f"no context key in {model.source}: DeepseekV4Config's default 65536"


def _read(model: ModelConfig | None) -> bool:
    """A config.json read from a file: the catalogue and inline configs list only some keys."""
    return model is not None and model.file is not None and model.catalogue is None


def _msg(reason: str, ctx: int, limit: int) -> str:
    return (
        f"ValueError: Warning: {reason} context_length ({ctx}) is greater than the derived "
        f"context_length ({limit}). ... To allow overriding this maximum, set the env var {ENV}=1"
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    line = LINES.get(res.profile.version)
    if line is None or not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    if env_true(res, ENV) or env_true(res, "SGLANG_IS_IN_CI"):
        return
    target = res.target.model if res.target is not None else None
    if target is None or not _read(target):
        return
    at = f"configs/model_config.py:{line} ModelConfig._derive_context_length, SGLang {res.profile.version}"
    limit, source = derived(target)
    a = arg(res, "context-length")
    asked = as_int(res, "context-length", 0) if a is not None else 0
    if asked > limit:
        yield Finding(
            CODE,
            SEVERITY,
            f"context-length {asked} is above the target's {limit} ({source}): "
            f"{_msg('User-specified', asked, limit)} (reading the model config, {at})",
            where(res, a),
            Fix(f"Lower context-length to at most {limit}, or set {ENV}=1."),
            field="context-length",
        )
        return
    draft = res.draft.model if res.draft is not None else None
    if draft is None or draft is target or not _read(draft):
        return
    target_ctx = asked if asked > 0 else limit
    draft_limit, draft_source = derived(draft)
    if target_ctx > draft_limit:
        said = _msg("Target model's", target_ctx, draft_limit)
        yield Finding(
            CODE,
            SEVERITY,
            f"the target's context length {target_ctx} is above the draft's {draft_limit} "
            f"({draft_source}): {said} "
            f"(starting the draft worker, {at})",
            where(res, a)
            if a is not None
            else where(res, arg(res, "speculative-draft-model-path")),
            Fix(
                f"Give the draft a checkpoint whose limit is the target's, lower context-length to "
                f"{draft_limit}, or set {ENV}=1."
            ),
            field="context-length",
        )
