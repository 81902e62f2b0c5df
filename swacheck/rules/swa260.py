"""SWA260 checkpoint-key-refused: a DeepSeek-V4 config.json key SGLang's config loading stops on.

## What it does

Reports a target or draft `config.json` (`model_type` `deepseek_v4`) that SGLang 0.5.22 or
0.5.23 cannot load because one key is null, missing, of another type or an odd value, naming
the exception, the stage and the line where SGLang stops. Both releases pin
`transformers==5.19.0`, and `HfModelConfigParser.parse` loads the file twice:

1. `AutoConfig.from_pretrained` (`utils/hf_transformers/config.py` 0.5.23:228, 0.5.22:223):
   transformers' own `DeepseekV4Config`, a strict dataclass. Every typed field the file writes
   is checked as it is set: `StrictDataclassFieldValidationError` for
   `"num_nextn_predict_layers": null`, `"sliding_window": null`, `"sliding_window": "128"` or
   `128.0`, a boolean for an integer, an integer for a float field (`rms_norm_eps: 0`). Then its
   `__post_init__`: a `torch_dtype` that is no torch dtype (`"float8"`, `"fp8"`, `"bf16"`:
   `AttributeError: module 'torch' has no attribute 'float8'`), `compress_ratios` that is no
   list or holds a ratio other than 0, 4 and 128 (`TypeError`, `KeyError`), a
   `num_hash_layers` that is no integer, a `qk_rope_head_dim` that is no number (`TypeError`),
   and its class validator: fewer `compress_ratios` than `num_hidden_layers`
   (`StrictDataclassClassValidationError` in `validate_layer_type`).
2. `_CONFIG_REGISTRY["deepseek_v4"].from_pretrained` (`config.py` 0.5.23:293, 0.5.22:288):
   SGLang's `_DeepseekV4ConfigAlias` (`utils/hf_transformers/common.py`), a transformers
   `DeepseekV3Config`: its own typed fields (`qk_rope_head_dim`, `kv_lora_rank`,
   `qk_nope_head_dim`, `v_head_dim`, `n_group`, `topk_group`, `intermediate_size`, ...).

Then `ModelConfig`'s DeepSeek-V4 branch reads `index_head_dim` and `compress_ratios`, which
the alias class has no default for (`configs/model_config.py` 0.5.23:1428-1429,
0.5.22:1319-1320): `AttributeError: '_DeepseekV4ConfigAlias' object has no attribute
'index_head_dim'` (a missing `sliding_window`, read first, and `compress_rates` are SWA208's).

SGLang loads the target's and the draft's config while it resolves the arguments, so the
launch stops there (stage `resolve`); the draft's missing attribute is met building its
`ModelConfig` (stage `model`). The fields and their types are the pinned transformers' own,
read by `scripts/dump_checkpoint_fields.py` into `swacheck/sglang/data/dsv4-config-fields.json`;
`__post_init__`'s expressions are evaluated on the file's values, so the message is the one
SGLang prints. A missing key with a class default (`num_nextn_predict_layers`, `torch_dtype`,
`head_dim` ...) is loaded; a pool that then cannot be built is SWA261's. Releases before 0.5.22
are not checked (their transformers pin was not read). A config.json outside the run's root is
named by key and type, never by value.

## Why it matters

The server never starts: a hand-edited or truncated config.json, a converter that writes
`null` for a key it does not know, or a dtype spelled the way another tool spells it stops
SGLang before any weight is read.

## Example

```json
{"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
 "num_nextn_predict_layers": null, "sliding_window": 128, "torch_dtype": "bfloat16"}
```

## Fix

Give the key the value the checkpoint was published with (an integer without quotes;
`torch_dtype: bfloat16`), or drop a key whose class default is right.

Fix safety: none — no automatic fix: only you know the checkpoint's values.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA260"
NAME = "checkpoint-key-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "a DeepSeek-V4 config.json key that is null, of another type or an odd value: "
    "transformers' or SGLang's config class, or ModelConfig, stops the launch"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.CHECKPOINT_REFUSED):
        yield finding_for_event(
            sys.modules[__name__], event, Fix(event.data["fix"]), field=event.data["field"]
        )
