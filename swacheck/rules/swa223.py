"""SWA223 deterministic-inference-refused: `enable-deterministic-inference` for DeepSeek-V4.

## What it does

Reports `enable-deterministic-inference: true` (or `rl-on-policy-target`, which turns it on) on a
DeepSeek-V4 server on CUDA or ROCm. DeepSeek-V4 runs only on the `dsv4` attention backend (its
model override sets `attention_backend` before), and deterministic inference takes only
`ascend`, `fa3`, `fa4`, `flashinfer`, `intel_xpu` and `triton`
(`arg_groups/choices.py` `DETERMINISTIC_ATTENTION_BACKEND_CHOICES`): `handle_deterministic_inference`
(`arg_groups/attention_hook.py` 0.5.23:640, 0.5.22:639) runs `_deterministic_attention_backend`
(`arg_groups/overrides.py`), which raises (0.5.23:1119, 0.5.22:1060). SGLang 0.5.22 and 0.5.23,
where the code was read and the refusal measured (`conformance/cases/speculative-switches.yaml`).

The speculative hook's own checks against deterministic inference (0.5.22: with rejection
sampling, `arg_groups/speculative_hook.py` 0.5.22:1144-1149) come later and are never reached.

## Why it matters

The server stops while it resolves its arguments: `ValueError: Currently only ['ascend', 'fa3',
'fa4', 'flashinfer', 'intel_xpu', 'triton'] attention backends are supported for deterministic
inference, but you explicitly specified 'dsv4'.`

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
enable-deterministic-inference: true
```

## Fix

Remove `enable-deterministic-inference` (and `rl-on-policy-target`): DeepSeek-V4 cannot run
deterministic inference in these releases.

Fix safety: none — no automatic fix: it drops a feature that was asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import flag, is_dsv4, platform
from .base import RuleContext

CODE = "SWA223"
NAME = "deterministic-inference-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "enable-deterministic-inference (or rl-on-policy-target) for DeepSeek-V4: dsv4 is no deterministic backend"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

CHOICES = "['ascend', 'fa3', 'fa4', 'flashinfer', 'intel_xpu', 'triton']"
SITE = R.Site(
    "arg_groups/overrides.py",
    "_deterministic_attention_backend",
    (("0.5.23", 1119), ("0.5.22", 1060)),
)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    name = (
        "enable-deterministic-inference"
        if flag(res, "enable-deterministic-inference")
        else "rl-on-policy-target"
        if R.raw(res, "rl-on-policy-target") not in (None, "None")
        else None
    )
    if name is None:
        return
    refused = R.Refused(
        name,
        "ValueError",
        f"Currently only {CHOICES} attention backends are supported for deterministic "
        "inference, but you explicitly specified 'dsv4'.",
        SITE,
        "Remove enable-deterministic-inference (and rl-on-policy-target) for DeepSeek-V4.",
    )
    yield from R.findings(sys.modules[__name__], res, [refused])
