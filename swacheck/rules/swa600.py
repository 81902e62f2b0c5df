"""SWA600 release-before-dsv4: the SGLang release cannot run DeepSeek-V4 at all.

## What it does

Reports a DeepSeek-V4 launch checked against an SGLang release older than the first one with
DeepSeek-V4 support, 0.5.12: `--sglang-version 0.5.10`, or an image tag or pip pin in the
launch's file that names such a release (`lmsysorg/sglang:v0.5.10-cu129`,
`pip install sglang==0.5.11`). Nothing else is checked for that launch: every other verdict
would be about a server that never loads the model.

## Why it matters

SGLang 0.5.11 and older have no DeepSeek-V4 model (no `srt/models/deepseek_v4.py`): the server
stops with `ValueError: Model architectures ['DeepseekV4ForCausalLM'] are not supported for now`
(`srt/models/registry.py`, 0.5.11:48-51). 0.5.12 is the first release with
`DeepseekV4ForCausalLM` (`srt/models/deepseek_v4.py:1021`, registered as its `EntryClass`, 1593).

## Example

```yaml
# swacheck --sglang-version 0.5.10
model-path: /models/DeepSeek-V4-Flash
tp-size: 8
```

## Fix

Run SGLang 0.5.12 or later (an image such as `lmsysorg/sglang:v0.5.23-cu129`, or
`pip install sglang==0.5.23`); then check the launch again against that release.

Fix safety: none — the fix is a release to install; swacheck edits nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ..sglang.version import FIRST_DSV4, NEWEST
from . import _preflight as pf
from .base import RuleContext

CODE = "SWA600"
NAME = "release-before-dsv4"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = f"an SGLang release older than {FIRST_DSV4}, the first that can run DeepSeek-V4"
QUIET = ("before-dsv4",)  # the engine keeps every other rule off such a launch


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if res.quiet != "before-dsv4":
        return
    version = res.profile.version
    release = res.deployment.release
    named = (
        f" (from {release.origin})"
        if release is not None and release.value == version
        else " (--sglang-version)"
    )
    yield Finding(
        CODE,
        SEVERITY,
        f"SGLang {version}{named} cannot run DeepSeek-V4: it has no DeepseekV4ForCausalLM "
        "(ValueError: Model architectures ['DeepseekV4ForCausalLM'] are not supported for now); "
        f"the first release that can is {FIRST_DSV4}",
        release.location
        if release is not None and release.value == version and release.location
        else pf.where(res, pf.arg(res, "model-path")),
        Fix(
            f"Run SGLang {FIRST_DSV4} or later (the newest swacheck knows is {NEWEST.version}), "
            "then check the launch against that release."
        ),
        field="sglang-version",
    )
