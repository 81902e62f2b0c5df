"""SWA413 pd-checkpoint: prefill and decode servers serve different checkpoints.

## What it does

Compares the target checkpoints (`config.json`) of the two servers of a PD pair, key by key.
Nothing in SGLang compares them: the bootstrap registration (`PrefillServerInfo`,
`disaggregation/common/conn.py`) carries no model identity, only page size, KV dtype and KV
layout.

## Why it matters

- Keys that shape the DeepSeek-V4 state each server registers (`compress_ratios`,
  `num_hidden_layers`, `head_dim`, `qk_rope_head_dim`, `index_head_dim`): the state components
  differ in item length by position (`setup_state_kv_args`, `disaggregation/utils.py`), so the
  prefill rejects the decode session when it registers (Mooncake `_validate_peer_state_layout`,
  `disaggregation/mooncake/conn.py` 0.5.23:938, 0.5.22:911; NIXL from 0.5.23) and every request
  to that decode fails; other backends and older releases write the state by position, silently
  wrong (as SWA406 says per backend). With unified KV (ROCm `unified_kv_triton`) the
  registration check defers the state to the send path: a warning, not modelled further.
- Any other key (`sliding_window`, `torch_dtype`, the vocabulary, the weights' quantisation):
  the handshake passes and the decode server continues each request from KV another model
  computed: its answers are silently wrong (a warning).

## Example

```yaml
# prefill.yaml
model-path: /models/DeepSeek-V4-Flash
# decode.yaml
model-path: /models/DeepSeek-V4-Flash-w256
```

## Fix

Serve the same checkpoint on both servers.

Fix safety: none — no automatic fix: which checkpoint is right is the user's call.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Val
from ..results import ServerPair
from ._pair import fails_alone, pair_finding, state_outcome
from .base import RuleContext

CODE = "SWA413"
NAME = "pd-checkpoint"
SEVERITY = "error"
SCOPE = "pair"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "prefill and decode servers serve different checkpoints"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

# what sizes the DSV4 state components a server registers for transfer
STATE_KEYS = (
    "compress_ratios",
    "num_hidden_layers",
    "head_dim",
    "qk_rope_head_dim",
    "index_head_dim",
)
# ignored: where the file came from, not what it holds
IGNORED = ("_name_or_path", "transformers_version")


def _model(pair_side):  # type: ignore[no-untyped-def]
    target = pair_side.resolution.target
    return target.model if target is not None else None


def _config(pair_side) -> dict | None:  # type: ignore[no-untyped-def]
    model = _model(pair_side)
    if model is None:
        return None
    return {k: model.get(k) for k in model.root.pairs if k not in IGNORED}


def _value(v: Val | None) -> object:
    return None if v is None else v.value


def _shown(p: dict, d: dict, keys: list[str]) -> str:
    text = ", ".join(f"{k} {_value(p.get(k))!r} vs {_value(d.get(k))!r}" for k in keys[:3])
    return text + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")


def _outcome(pair: ServerPair, shown: str, state: bool) -> tuple[str | None, str]:
    """(severity, message): None is the rule's own (error)."""
    unified = any(
        r.target is not None and bool(r.target.unified.value)
        for r in (pair.prefill.resolution, pair.decode.resolution)
    )
    head = f"The two servers serve different checkpoints ({shown}): "
    if state and unified:
        # a unified-KV pool publishes its SWA state whole: the registration check defers it to
        # the send path (mooncake/conn.py _validate_peer_state_layout, "fully_checked" False)
        return "warning", head + (
            "the unified-KV state they register differs, which the registration check leaves to "
            "the send path: what each transfer does is not modelled"
        )
    if state:
        when, what = state_outcome(pair, False)
        return None if when == "every request" else "warning", head + (
            "the DSV4 state they register differs in item length, which nothing compares at "
            f"start-up; {what}"
        )
    return "warning", head + (
        "nothing in SGLang compares them; the decode continues each request from KV another "
        "model computed, silently wrong"
    )


def check_pair(pair: ServerPair, ctx: RuleContext) -> Iterator[Finding]:
    if fails_alone(pair):
        return  # a server that fails on its own never reaches the handshake
    if _model(pair.prefill) is _model(pair.decode):
        return  # one config.json (or none) for both: nothing differs
    p, d = _config(pair.prefill), _config(pair.decode)
    if p is None or d is None:
        return
    differ = sorted(k for k in set(p) | set(d) if _value(p.get(k)) != _value(d.get(k)))
    if not differ:
        return
    state = [k for k in differ if k in STATE_KEYS]
    keys = state or differ
    severity, message = _outcome(pair, _shown(p, d, keys), bool(state))
    key = keys[0]
    yield pair_finding(
        sys.modules[__name__],
        pair,
        f"checkpoint {key}",
        message,
        "Serve the same checkpoint on both servers.",
        severity=severity,
        values=(
            p.get(key) or Val(None, f"no {key} in the prefill's config.json"),
            d.get(key) or Val(None, f"no {key} in the decode's config.json"),
        ),
        fix_value=None,
    )
