"""SWA214 nextn-head-missing: an EAGLE/NEXTN draft from a DSpark-bundled checkpoint that has no NextN head.

## What it does

Reports a DeepSeek-V4 server with `speculative-algorithm` EAGLE (or NEXTN, MTP) and no
`speculative-draft-model-path`, whose target is a published checkpoint that bundles a DSpark
draft and holds no NextN head: deepseek-ai/DeepSeek-V4-Flash-0731 and -Flash-DSpark (swacheck's
catalogue: three DSpark stages `mtp.0`-`mtp.2` and no NextN head, although their config.json says
`num_nextn_predict_layers: 1`). The checkpoint is named by the config's catalogue entry or by a
hub id; a local folder of that name counts when its config.json carries the `dspark_*` keys.

## Why it matters

With no draft path, SGLang's draft is the target's checkpoint. For EAGLE, `ModelConfig` loads it
as `DeepseekV4ForCausalLMNextN` with one NextN layer; only `DSPARK` (or no algorithm) makes it
`DeepseekV4ForCausalLMDSpark` (`configs/model_config.py` 0.5.23:1041-1060, 0.5.22:938-957). The
NextN draft's weights are not in the checkpoint, so the draft does not load.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash-0731
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
```

## Fix

Run `speculative-algorithm: DSPARK` (the checkpoint's own DSpark draft), or point
`speculative-draft-model-path` at an MTP/NextN draft checkpoint.

Fix safety: none — no automatic fix: the algorithm or the draft is a choice.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang import catalogue
from ..sglang.checkpoint import published
from ..sglang.resolve import Resolution
from ._preflight import arg, is_dsv4, text, where
from .base import RuleContext

CODE = "SWA214"
NAME = "nextn-head-missing"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "an EAGLE/NEXTN draft from a DSpark-bundled checkpoint that has no NextN head"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def _entry(res: Resolution) -> catalogue.Entry | None:
    model = res.target.model if res.target is not None else None
    if model is None:
        return None
    path = text(res, "model-path")
    entry = published(model, path)
    if entry is None and model.file is not None and model.bundles_dspark:
        # a local folder of that name, DSpark-bundled (the cheap test first: most are not)
        folder = os.path.basename(os.path.dirname(os.path.abspath(model.file)))
        entry = catalogue.by_name(folder)
    return entry if entry is not None and entry.no_nextn_head else None


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    algorithm = res.values.get("speculative_algorithm")
    if res.quiet or algorithm is None or algorithm.value != "EAGLE" or res.draft is None:
        return
    if not is_dsv4(res) or arg(res, "speculative-draft-model-path") is not None:
        return
    if res.deployment.draft_model is not None:  # a deployment file names the draft
        return
    entry = _entry(res)
    if entry is None:
        return
    at = arg(res, "model-path")
    yield Finding(
        CODE,
        SEVERITY,
        f"speculative-algorithm {text(res, 'speculative-algorithm') or 'EAGLE'} with no "
        f"speculative-draft-model-path loads the target's NextN head as the draft "
        f"(DeepseekV4ForCausalLMNextN), but {entry.id} bundles a DSpark draft and has no NextN "
        f"head ({entry.label}): the draft's weights are not in the checkpoint",
        where(res, at) if at is not None else algorithm.location,
        Fix(
            "Run speculative-algorithm DSPARK (the checkpoint's own DSpark draft), or point "
            "speculative-draft-model-path at an MTP/NextN draft checkpoint."
        ),
        field="speculative-algorithm",
    )
