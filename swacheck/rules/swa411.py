"""SWA411 pd-allocation-policy: prefill and decode servers use different decode allocation policies.

## What it does

Compares `--disaggregation-decode-allocation-policy` (`early` by default, or `prefill_complete`;
the option exists from SGLang 0.5.22) between the prefill and the decode server.

## Why it matters

The prefill publishes its policy when it registers with the bootstrap server; every time a
decode receiver starts a request it compares it with its own (`CommonKVReceiver.init`,
`disaggregation/common/conn.py` 0.5.23:2527-2541) and marks the request failed:
`Disaggregation decode allocation policy mismatch: prefill=early, decode=prefill_complete. Set
--disaggregation-decode-allocation-policy identically on both roles.` Both servers start; every
request fails.

`prefill_complete` with attention TP, CP or PP above 1 is refused by the server at argument
resolution (SWA207): that is reported on that server, not as a pair finding. Past those checks
a DeepSeek-V4 server with `prefill_complete` stops when its KV manager starts (SWA222,
`CommonKVManager.__init__`), before any request: that too is its own finding, so for
DeepSeek-V4 this comparison is reached only when that refusal is ignored.

## Example

```yaml
# decode.yaml (the prefill keeps the default, early)
disaggregation-decode-allocation-policy: prefill_complete
```

## Fix

Set `disaggregation-decode-allocation-policy` the same on both servers.

Fix safety: unsafe — it changes when one server reserves KV.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ..sglang.pd import decode_allocation_policy
from ..sglang.version import release_key
from ._pair import fails_alone, pair_finding
from .base import RuleContext

CODE = "SWA411"
NAME = "pd-allocation-policy"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers use different decode allocation policies"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair) or release_key(pair.prefill.resolution.profile.version) < (0, 5, 22):
        return  # a server that fails on its own never reaches the handshake; no option before
    p = decode_allocation_policy(pair.prefill.resolution)
    d = decode_allocation_policy(pair.decode.resolution)
    if p.value != d.value:
        yield pair_finding(
            sys.modules[__name__],
            pair,
            "decode_allocation_policy",
            f"Disaggregation decode allocation policy mismatch: prefill={p.value}, "
            f"decode={d.value}: every request fails when the decode receives it",
            "Set disaggregation-decode-allocation-policy the same on both servers.",
            values=(p, d),
        )
