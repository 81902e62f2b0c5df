"""SWA222 dsv4-prefill-complete: `prefill_complete` decode allocation on a DeepSeek-V4 PD server.

## What it does

Reports `disaggregation-decode-allocation-policy: prefill_complete` (SGLang 0.5.22 and later) on
a DeepSeek-V4 PD server, prefill or decode, that SGLang's argument checks let through (SWA207
reports the combinations `_validate_prefill_complete` refuses earlier). When the server's KV
manager starts, `CommonKVManager.__init__` (`disaggregation/common/conn.py` 0.5.23:421-424,
0.5.22:376-379) accepts the policy only when every state component the pool registers is a DSA
one; a DeepSeek-V4 pool always registers its SWA state (`setup_state_kv_args`,
`disaggregation/utils.py` 0.5.23:1543-1550), so every such server stops. Found by the raise
inventory (`conformance/inventory/`).

## Why it matters

The server stops at start-up, after loading the weights, with
`ValueError: prefill_complete currently supports full-attention and DSA KV pools only`.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
disaggregation-mode: decode
disaggregation-decode-allocation-policy: prefill_complete
```

## Fix

Drop `disaggregation-decode-allocation-policy` (the default, `early`, serves DeepSeek-V4).

Fix safety: none — no automatic fix: it changes how the decode server allocates requests.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from ._preflight import arg, is_dsv4, text
from .base import RuleContext

CODE = "SWA222"
NAME = "dsv4-prefill-complete"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "prefill_complete decode allocation on a DeepSeek-V4 PD server (its KV manager refuses it)"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

MESSAGE = "ValueError: prefill_complete currently supports full-attention and DSA KV pools only"


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or release_key(res.profile.version) < (0, 5, 22):
        return
    policy = arg(res, "disaggregation-decode-allocation-policy")
    if policy is None or text(res, "disaggregation-decode-allocation-policy") != "prefill_complete":
        return
    mode = res.values.get("disaggregation_mode")
    if mode is None or mode.value not in ("prefill", "decode"):
        return  # without PD the argument checks refuse it already (SWA207)
    if res.events_of(Kind.PREFILL_COMPLETE_REFUSED):
        return  # SGLang stops at argument resolution, before any KV manager
    yield Finding(
        CODE,
        SEVERITY,
        f"disaggregation-decode-allocation-policy prefill_complete on a DeepSeek-V4 {mode.value} "
        f"server: {MESSAGE} (starting the KV manager, disaggregation/common/conn.py "
        "CommonKVManager.__init__: a DSV4 pool registers SWA state)",
        policy.value_loc,
        Fix(
            "Drop disaggregation-decode-allocation-policy (the default, early, serves DeepSeek-V4)."
        ),
        field="disaggregation-decode-allocation-policy",
    )
