"""SWA220 ragged-verify-mode-refused: `SGLANG_RAGGED_VERIFY_MODE` set to a value SGLang refuses.

## What it does

With speculative decoding on (EAGLE or DSPARK for DeepSeek-V4), reports
`SGLANG_RAGGED_VERIFY_MODE` set to anything but `static`, `cap-accept` or `compact`, compared as
written (case matters: `Static` is refused). SGLang reads it for every algorithm when the
speculative hook dispatches to the algorithm's handler (`speculative/spec_info.py`
`handle_server_args`, 0.5.23:253, 0.5.22:252), through `read_ragged_verify_mode`
(`speculative/ragged_verify.py` 0.5.23:19-27, 0.5.22:19-27); a DeepSeek-V4.1 PD server with
speculative decoding reads it earlier (`validate_deepseek_v41_features`,
`arg_groups/deepseek_v4_hook.py` 0.5.23:368). Without speculative decoding the start-up path
does not read it, and swacheck says nothing.

## Why it matters

The server stops while it resolves its arguments: `ValueError: invalid
SGLANG_RAGGED_VERIFY_MODE='Static'; expected one of 'static', 'cap-accept', 'compact'`.

## Example

```yaml
swacheck: 1
env: {SGLANG_RAGGED_VERIFY_MODE: Static}
server:
  model-path: deepseek-ai/DeepSeek-V4-Flash
  speculative-algorithm: EAGLE
  speculative-num-steps: 3
  speculative-eagle-topk: 1
```

## Fix

Set it to `static` (the default), `cap-accept` or `compact`, or unset it.

Fix safety: none — no automatic fix: it changes the server's environment.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from . import _refusals as R
from ._preflight import is_dsv4, platform
from .base import RuleContext

CODE = "SWA220"
NAME = "ragged-verify-mode-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "SGLANG_RAGGED_VERIFY_MODE other than static, cap-accept or compact with speculative decoding"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

NAME_ENV = "SGLANG_RAGGED_VERIFY_MODE"
MODES = ("static", "cap-accept", "compact")
SITE = R.Site(
    "speculative/ragged_verify.py", "read_ragged_verify_mode", (("0.5.23", 24), ("0.5.22", 24))
)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm") or R.algorithm(res) is None:
        return
    val = res.deployment.env.get(NAME_ENV)
    if val is None or str(val.value) in MODES:
        return
    refused = R.Refused(
        NAME_ENV,
        "ValueError",
        f"invalid SGLANG_RAGGED_VERIFY_MODE={str(val.value)!r}; expected one of "
        + ", ".join(repr(m) for m in MODES),
        SITE,
        f"Set {NAME_ENV} to static, cap-accept or compact, or unset it.",
        env=True,
    )
    yield from R.findings(sys.modules[__name__], res, [refused])
