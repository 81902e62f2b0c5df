"""SWA208 model-config-refused: a DeepSeek-V4 checkpoint config.json SGLang cannot load.

## What it does

Reports a target or draft `config.json` SGLang's config loading stops on:

- `compress_rates` instead of `compress_ratios` (a config.json re-saved by transformers 4.57 or
  later): `ModelConfig`'s DeepSeek-V4 branch reads `hf_config.compress_ratios` right after the
  window (`configs/model_config.py` 0.5.23:1429, 0.5.22:1320, 0.5.21:1241, 0.5.20:1153,
  0.5.17:884): `AttributeError: '_DeepseekV4ConfigAlias' object has no attribute
  'compress_ratios'`. Fix: rename the key.
- DeepSeek-V4.1 (`model_type` `deepseek_v41`) on a release without its config class (0.5.20 and
  earlier; `srt/configs/deepseek_v41.py` arrives in 0.5.21), and the older V4.1 layout in every
  release read: `model_type` `deepseek_v4.1` (no config class registers it) or `architectures`
  `DeepseekV41ForConditionalGeneration` (`normalize_deepseek_v41_config` rewrites only
  `["DeepseekV41ForCausalLM"]`, `configs/deepseek_v41.py` 0.5.23:38-39, so the model registry
  refuses it, `models/registry.py` 0.5.23:64).
- `"model_type": "deepseek_v4"` and no
`sliding_window` (and no `sliding_window` in `json-model-override-args`). SGLang's config class
for that model type (`utils/hf_transformers/common.py` `_DeepseekV4ConfigAlias`) has no default
for it and `ModelConfig`'s DeepSeek-V4 branch reads it (`configs/model_config.py` 0.5.23:1425,
0.5.22:1316, 0.5.20:1149, 0.5.17:880). For the target, swacheck then has no window to compute
pools from: the deployment is reported as skipped with this error. An EAGLE/MTP draft's config
is loaded only when the draft worker builds its `ModelConfig`, after every argument hook and the
target's pool: the target's pool is kept (the deployment is skipped with no draft pool), and
what the hooks and the target's rules refuse, which SGLang stops on first, is reported beside
this error (conformance cases `draft-refused-hooks`, `draft-refused-hooks-dspark`: a DSpark
draft's keys are taken while the arguments are resolved, its `ModelConfig` fails as late, and
the target's pool is built with the draft's tokens). A DSpark draft config refused while it is
loaded, whose tokens are then unknown, still skips the deployment. A config of another or no
`model_type` without `sliding_window` stays an input error (SGLang's failure there depends on
transformers).

## Why it matters

The launch stops while loading the model config with
`AttributeError: '_DeepseekV4ConfigAlias' object has no attribute 'sliding_window'`,
typically because the draft checkpoint is not the one the target needs (an MTP head exported
without its config, or a truncated config.json).

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
speculative-draft-model-path: models/mtp-without-window   # its config.json has no sliding_window
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
```

## Fix

Point the path at the right checkpoint, or add the checkpoint's `sliding_window` to its
config.json.

Fix safety: none — no automatic fix: only you know the checkpoint's window.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA208"
NAME = "model-config-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "a DeepSeek-V4 config.json SGLang cannot load: no sliding_window, compress_rates, "
    "or a DeepSeek-V4.1 layout the release refuses"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.MODEL_CONFIG_REFUSED):
        fix = Fix(
            event.data.get("fix")
            or f"Point the {event.data['role']} model path at the checkpoint you mean, or "
            f"give its config.json the model's sliding_window."
        )
        field = event.data.get("field") or "sliding_window"
        yield finding_for_event(sys.modules[__name__], event, fix, field=field)
