"""SWA412 pd-transfer-backend: prefill and decode servers use different transfer backends.

## What it does

Compares `--disaggregation-transfer-backend` (`mooncake` by default) between the prefill and the
decode server. Nothing in SGLang compares the two: the bootstrap server's registration
(`PrefillServerInfo`, `disaggregation/common/conn.py`) carries no backend, so the decode's
first-request handshake (`try_ensure_parallel_info`) passes.

## Why it matters

What fails is the prefill reading the decode's registration message, which each backend frames
its own way:

- a **Mooncake** prefill (also `mooncake_tcp`, which the PD hook rewrites to `mooncake`) takes a
  NIXL or Mori registration (first frame `NixlMsgGuard` / `MoriMsgGuard`) for a transfer request
  and raises on `int(waiting_req_bytes[7])` (`disaggregation/mooncake/conn.py`
  `start_prefill_thread`, 0.5.23:3015, 0.5.22:2943): its bootstrap thread dies;
- a **NIXL** prefill asserts `First message should be b'NixlMsgGuard'. Foreign traffic?`
  (`disaggregation/nixl/conn.py` 0.5.23:3379-3381, 0.5.22:3232-3234): its bootstrap thread dies
  ("prefill bootstrap_thread died ... requests to this rank will time out in
  KVPoll.Bootstrapping");
- a **Mori** prefill drops every message without its guard ("Received malformed bootstrap
  message", `disaggregation/mori/conn.py` 0.5.23:923-926, 0.5.22:900-903);
- a **fake** decode never registers nor asks for KV (`disaggregation/fake/conn.py`
  `FakeKVReceiver.init` 0.5.23:173-177): it decodes from KV that never arrives, and the prefill's
  copy of each request waits until it times out. (A fake prefill is refused by SWA230.)

Both servers start; every request fails (it times out waiting on the prefill). Mooncake against
`mooncake_tcp` or `ascend` speaks the same messages through different transfer engines (RDMA,
TCP, Ascend): whether the KV arrives is the transfer engine's decision, not SGLang's, and
swacheck says so with a warning.

## Example

```yaml
# prefill.yaml
disaggregation-transfer-backend: mooncake
# decode.yaml
disaggregation-transfer-backend: nixl
```

## Fix

Set `disaggregation-transfer-backend` the same on both servers.

Fix safety: unsafe — it changes the transfer library one server uses.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..results import ServerPair
from ..sglang.pd import transfer_backend
from ._pair import fails_alone, pair_finding
from .base import RuleContext

CODE = "SWA412"
NAME = "pd-transfer-backend"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers use different transfer backends"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits

# the registration message each backend frames (Ascend's manager is Mooncake's subclass)
WIRE = {"mooncake": "mooncake", "mooncake_tcp": "mooncake", "ascend": "mooncake"}
NAMES = {"mooncake": "Mooncake", "nixl": "NIXL", "mori": "Mori", "fake": "fake"}

PREFILL_READS = {
    "mooncake": (
        "the Mooncake prefill's bootstrap thread reads the decode's {decode} registration as a "
        "transfer request and raises on its frames (disaggregation/mooncake/conn.py "
        "start_prefill_thread); the thread dies"
    ),
    "nixl": (
        "the NIXL prefill's bootstrap thread asserts \"First message should be "
        "b'NixlMsgGuard'. Foreign traffic?\" on the decode's {decode} registration "
        "(disaggregation/nixl/conn.py); the thread dies"
    ),
    "mori": (
        "the Mori prefill drops the decode's {decode} registration (\"Received malformed "
        'bootstrap message", disaggregation/mori/conn.py)'
    ),
}


def outcome(prefill: str, decode: str) -> tuple[str, str] | None:
    """(severity, what happens) for a prefill on ``prefill`` and a decode on ``decode``;
    None when they are the same backend."""
    if prefill == decode:
        return None
    wp, wd = WIRE.get(prefill, prefill), WIRE.get(decode, decode)
    if wd == "fake":
        return (
            "error",
            "the fake decode never registers with the prefill nor asks it for KV "
            "(disaggregation/fake/conn.py FakeKVReceiver): it decodes from KV that never "
            "arrives, and the prefill's copy of every request waits until it times out",
        )
    if wp == wd:
        return (
            "warning",
            f"both speak Mooncake's bootstrap messages through different transfer engines "
            f"({prefill} vs {decode}): whether the KV arrives is decided by the transfer engine, "
            "not by SGLang's checks",
        )
    if wp not in PREFILL_READS:
        return None  # a fake prefill: refused on its own (SWA230)
    return (
        "error",
        PREFILL_READS[wp].format(decode=NAMES.get(wd, decode))
        + ": every request to that prefill times out in KVPoll.Bootstrapping",
    )


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    p = transfer_backend(pair.prefill.resolution)
    d = transfer_backend(pair.decode.resolution)
    said = outcome(str(p.value), str(d.value))
    if said is None:
        return
    severity, what = said
    yield pair_finding(
        sys.modules[__name__],
        pair,
        "disaggregation_transfer_backend",
        f"Transfer backends differ: prefill {p.value}, decode {d.value}; nothing compares them "
        f"at start-up or in the first-request handshake, and {what}",
        "Set disaggregation-transfer-backend the same on both servers.",
        severity=severity,
        values=(p, d),
    )
