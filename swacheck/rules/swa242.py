"""SWA242 adaptive-config-refused: an adaptive speculative config SGLang refuses, or steps not
among its candidates.

## What it does

With `speculative-adaptive: true` (EAGLE, top-k 1, no attention DP, no multi-layer EAGLE),
SGLang reads the candidate steps of `speculative-adaptive-config` (a JSON file:
`speculative/adaptive_spec_params.py` `_load_adaptive_config`, 0.5.23:102-136,
0.5.22:92-126), or its `DEFAULT_ADAPTIVE_CONFIG` (steps 0, 1, 3, 5, 7) without one, and
`_init_adaptive_speculative_params` (`arg_groups/speculative_hook.py` 0.5.23:1392-1427,
0.5.22:1302-1337) takes the middle candidate when `speculative-num-steps` is unset and refuses
steps that are not a candidate. swacheck reads the file the same way (inside the run's root) and
reports:

- a file that is not JSON, not an object, whose integer keys hold no object, or whose
  `candidate_steps` is not a non-empty list of non-negative integers (`ValueError: BS 1:
  candidate_steps must be a list of non-negative ints, got ...`; 0.5.23:127, 0.5.22:117), or
  that has no integer batch-size key (0.5.23:134, 0.5.22:124);
- the config written as a mapping in a server config instead of a file's path: the `--config`
  loader passes a mapping on as its JSON text (`json.dumps`, `server_args_config_parser.py`
  0.5.23:178-179, 0.5.22:155-156) and `_load_adaptive_config` opens that text as a path
  (`FileNotFoundError`; conformance case `adaptive-config-mapping`);
- `speculative-num-steps` not among the candidates (`ValueError: --speculative-num-steps=4 is
  not in the adaptive config candidate_steps [1, 3, 7]. Pass one of those values.`;
  0.5.23:1417, 0.5.22:1327);
- as a warning, a file swacheck cannot read here (missing, or outside the root): the steps and
  the ring then are not checked.

The steps and draft tokens swacheck computes (and so the ring of both pools) come from the
file: unset steps are its middle candidate. The largest candidate is SWA243's. SGLang 0.5.22
and 0.5.23 (the code read).

## Why it matters

The server stops while it resolves its arguments.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: EAGLE
speculative-eagle-topk: 1
speculative-num-steps: 4
speculative-adaptive: true
speculative-adaptive-config: adaptive.json   # {"1": {"candidate_steps": [1, 3, 7]}}
```

## Fix

Set `speculative-num-steps` to one of the candidates (or leave it unset), and give every
integer key a non-empty list of non-negative integers as `candidate_steps`.

Fix safety: none — no automatic fix: the steps decide how far the draft runs ahead.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA242"
NAME = "adaptive-config-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "speculative-adaptive-config SGLang refuses, or speculative-num-steps not among its candidate_steps"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of(Kind.ADAPTIVE_CONFIG_REFUSED):
        fix = Fix(
            "Set speculative-num-steps to one of the candidate steps (or leave it unset), and give "
            "each integer key of the adaptive config a non-empty list of non-negative integers."
        )
        yield finding_for_event(rule, event, fix, field="speculative-adaptive-config")
    for event in res.events_of(Kind.ADAPTIVE_CONFIG_UNREAD):
        fix = Fix("Check the file where the server runs, or put it under the checked root.")
        yield finding_for_event(
            rule, event, fix, severity="warning", field="speculative-adaptive-config"
        )
