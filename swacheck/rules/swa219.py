"""SWA219 dspark-draft-config-refused: a DSpark draft checkpoint whose markov or mask keys SGLang refuses.

## What it does

For `speculative-algorithm: DSPARK`, reads the draft checkpoint's `config.json` (the
`speculative-draft-model-path`, or the target's own when it bundles the draft) as
`parse_dspark_draft_config` (`speculative/dspark_components/dspark_config.py`) does, in its
order -- the `dspark_*` keys first, then `dspark_config` / `dflash_config`, `text_config` and
the top level -- and reports (SGLang 0.5.22 and 0.5.23, where the code was read):

- a `markov_rank` below 0 (0.5.23:251, 0.5.22:245);
- a `markov_rank` above 0 without `markov_head_type`, in a config without the `dspark_*` keys
  (0.5.23:266, 0.5.22:260);
- a `markov_head_type` other than `vanilla`, `gated` or `rnn`, any case (0.5.23:272, 0.5.22:266);
- a `mask_token_id` / `dspark_noise_token_id` below 0 (0.5.23:291, 0.5.22:285);
- a `dspark_target_layer_ids` that is not a non-empty list (0.5.23:303, 0.5.22:297).

A draft config read from outside the run's root is not judged (its values are never quoted).

## Why it matters

While the arguments are resolved the speculative hook catches the error and only logs it
(`_handle_dspark`, `arg_groups/speculative_hook.py` 0.5.23:796-804, 0.5.22:722-730: gamma then falls back to the
block size, the draft tokens or 7); the server stops when the draft model is built
(`models/deepseek_v4_dspark.py` 0.5.23:727, 0.5.22:764 call the same parser), after loading the target's
weights, e.g. `ValueError: Unsupported DSpark markov_head_type='lstm'. Supported: ('vanilla',
'gated', 'rnn').` The conformance harness builds no model, so real SGLang passes these cases
there (conformance/expected-disagreements.tsv).

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4-Flash
speculative-algorithm: DSPARK
speculative-draft-model-path: models/dspark-draft   # config.json: "markov_head_type": "lstm"
```

## Fix

Correct the draft checkpoint's key (the message names it), or use the published draft.

Fix safety: none — no automatic fix: the checkpoint is not swacheck's to edit.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix, Location
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from . import _refusals as R
from ._preflight import is_dsv4
from .base import RuleContext

CODE = "SWA219"
NAME = "dspark-draft-config-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "a DSpark draft config.json whose markov_rank, markov_head_type, mask token or target "
    "layer ids SGLang refuses"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

HEADS = ("vanilla", "gated", "rnn")
LINES = {  # message start -> (0.5.23, 0.5.22)
    "rank": (251, 245),
    "head": (266, 260),
    "head_type": (272, 266),
    "mask": (291, 285),
    "layers": (303, 297),
}


class _Config:
    """The draft's config.json as parse_dspark_draft_config reads it: (value, where)."""

    def __init__(self, model) -> None:  # type: ignore[no-untyped-def]
        self.model = model
        self.nested = {}
        for key in ("dflash_config", "dspark_config"):  # dspark_config wins
            v = model.get(key)
            if v is not None and isinstance(v.value, dict):
                self.nested.update({k: (x, v.location) for k, x in v.value.items()})
        text = model.get("text_config")
        self.text = (
            {k: (x, text.location) for k, x in text.value.items()}
            if text is not None and isinstance(text.value, dict)
            else {}
        )

    def top(self, key: str) -> tuple[object, Location | None]:
        v = self.model.get(key)
        return (v.value, v.location) if v is not None else (None, None)

    def lookup(self, key: str, prefixed: str) -> tuple[object, Location | None, str]:
        value, loc = self.top(prefixed)
        if value is not None:
            return value, loc, prefixed
        for table in (self.nested, self.text):
            if key in table:
                return (*table[key], key)
        value, loc = self.top(key)
        return value, loc, key


def _int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def refusals(cfg: _Config) -> Iterator[tuple[str, str, Location | None, str]]:
    uses_prefixed = any(
        cfg.top(k)[0] is not None
        for k in (
            "dspark_block_size",
            "dspark_markov_rank",
            "dspark_noise_token_id",
            "dspark_target_layer_ids",
        )
    )
    raw, loc, key = cfg.lookup("markov_rank", "dspark_markov_rank")
    rank = _int(raw) if raw is not None else 0
    if rank is not None and rank < 0:
        yield "rank", f"DSpark markov_rank must be >= 0, got {rank}.", loc, key
        return
    head, hloc, hkey = cfg.lookup("markov_head_type", "dspark_markov_head_type")
    if rank and rank > 0 and head is None and not uses_prefixed:
        yield "head", "DSpark requires markov_head_type when markov_rank > 0, got None.", loc, key
        return
    if head is not None and str(head).lower() not in HEADS:
        shown = str(head).lower()
        yield (
            "head_type",
            f"Unsupported DSpark markov_head_type={shown!r}. Supported: {HEADS}.",
            hloc,
            hkey,
        )
        return
    mask, mloc, mkey = cfg.lookup("mask_token_id", "dspark_noise_token_id")
    m = _int(mask) if mask is not None else None
    if m is not None and m < 0:
        yield "mask", f"DSpark mask_token_id must be non-negative, got {m}.", mloc, mkey
        return
    value, lloc = cfg.top("dspark_target_layer_ids")
    if value is not None and (not isinstance(value, (list, tuple)) or not value):
        yield (
            "layers",
            f"DSpark dspark_target_layer_ids must be a non-empty list of ints, got {value!r}.",
            lloc,
            "dspark_target_layer_ids",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    version = res.profile.version
    if not is_dsv4(res) or R.algorithm(res) != "DSPARK" or res.draft is None:
        return
    if release_key(version)[:3] not in ((0, 5, 22), (0, 5, 23)) or res.draft.model is None:
        return
    model = res.draft.model
    if model.private:  # read from outside the run's root: its values are never quoted
        return
    for which, message, loc, key in refusals(_Config(model)):
        line = LINES[which][0 if release_key(version)[:3] == (0, 5, 23) else 1]
        yield Finding(
            CODE,
            SEVERITY,
            f"{model.source} ({key}): ValueError: {message} "
            f"(speculative/dspark_components/dspark_config.py:{line} parse_dspark_draft_config, "
            f"SGLang {version}; the server stops when the draft model is built)",
            loc or res.draft.window.location or R.where(res, None),
            Fix(f"Correct {key} in the draft checkpoint's config.json (the message says how)."),
            field=key,
        )
