"""SWA308 model-config-not-found: a DeepSeek-V4 launch whose model config.json is found nowhere.

## What it does

Reports a launch that is swacheck's business (a DeepSeek-V4 model id, or DSV4-only arguments,
with speculative decoding or PD) whose target or draft `config.json` is neither beside the
model path, nor in the Hugging Face Hub cache (`HF_HUB_CACHE` / `HF_HOME`, the server's or this
machine's), nor given with `--model-config`. Everything read before the model config is still
checked (refused keys, bad values, duplicate keys, pitfalls); the target/draft ring geometry and
the checkpoint rules are not, and the finding says so.

## Why it matters

A repository keeps launch files, not 160 GB checkpoints: the model config is usually on the
serving machine only. Such a launch is not broken, but swacheck cannot compare its pools, and a
silent pass would read as "checked". It used to be an input error (exit 2) that failed the whole
run, so one launch ended a walk of a repository whose other deployments were fine.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: EAGLE
```

run where the checkpoint was never downloaded.

## Fix

Give swacheck the model's `config.json` (a few KB): `--model-config
deepseek-ai/DeepSeek-V4-Flash=path/to/config.json`, or `model-config = {...}` in the
configuration file, or run where the Hub cache holds it. `--model-config` pointing at a path that
does not exist stays an input error.

Fix safety: none — no automatic fix: the file is not in the repository.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA308"
NAME = "model-config-not-found"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits
SEVERITY = "warning"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "a DeepSeek-V4 launch whose config.json is found nowhere: its geometry is not checked"

_FIX = Fix(
    "Give the model's config.json with --model-config ID=PATH (or model-config in the "
    "configuration file), or run where the Hugging Face Hub cache holds it."
)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.MODEL_NOT_FOUND):  # always at the model path's position
        yield finding_for_event(sys.modules[__name__], event, _FIX, field="model-config")
