"""SWA202 speculative-args-refused: speculative arguments SGLang's DeepSeek-V4 hook refuses.

## What it does

Checks `speculative-algorithm` and `speculative-eagle-topk` the way SGLang's DeepSeek-V4
model hook does (`srt/arg_groups/deepseek_v4_hook.py`):

- the algorithm must be exactly `EAGLE` or `DSPARK`. The hook checks the raw text *before*
  the speculative hook upper-cases it and maps `NEXTN` to `EAGLE`, so `NEXTN`, `eagle` and
  `nextn` are refused for DeepSeek-V4;
- with `EAGLE`, `speculative-eagle-topk` must be 1 *and given explicitly*: the hook asserts
  it before the speculative hook fills in its defaults;
- with `EAGLE` and top-k given, `speculative-num-steps` must be given too: the speculative
  hook's automatic (steps, top-k, draft tokens) choice asserts that top-k and draft tokens are
  both unset (`speculative_hook.py:1159-1163`, a bare `AssertionError`), unless
  `speculative-adaptive` is on;
- with `DSPARK` and no `speculative-draft-model-path`, the target checkpoint must bundle the
  draft: a `dspark_*` key in its config.json (or, in 0.5.23, a `dspark/` subfolder with its own
  config.json); else the speculative hook raises
  `ValueError: DSpark dense speculative decoding requires setting --speculative-draft-model-path.`
  (`speculative_hook.py` 0.5.23:752, 0.5.22:677, 0.5.20:588, 0.5.17:320).

## Why it matters

SGLang stops at argument resolution with
`AssertionError: Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM`
or `AssertionError: Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM`.
This is an error with or without PD: the server never starts.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
speculative-algorithm: NEXTN
```

## Fix

Write `speculative-algorithm: EAGLE`, `speculative-eagle-topk: 1` and
`speculative-num-steps: 3` (SGLang's own choice for DeepSeek-V4: 4 draft tokens).

Fix safety: mixed — writing `EAGLE` for `NEXTN`/`eagle` and adding `speculative-eagle-topk: 1`
and `speculative-num-steps: 3` (SGLang's own values) is safe; replacing another algorithm or a
top-k other than 1 is unsafe.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, arg_mapping, finding_for_event

CODE = "SWA202"
NAME = "speculative-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "speculative algorithm other than EAGLE/DSPARK, or EAGLE without explicit "
    "top-k 1 and num-steps, for DeepSeek-V4"
)
FIX_SAFETY = "mixed"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    mapping = arg_mapping(res)
    server = res.deployment.server
    for event in res.events_of(Kind.DSPARK_DRAFT_MISSING):
        fix = Fix(
            "Add speculative-draft-model-path: the DSpark draft checkpoint (SGLang "
            "has no default draft for this target)."
        )
        message = (
            f"{event.message}: ValueError: DSpark dense speculative decoding requires "
            f"setting --speculative-draft-model-path."
        )
        yield finding_for_event(
            rule, event, fix, message=message, field="speculative-draft-model-path"
        )
    for event in res.events_of(
        Kind.ALGORITHM_REFUSED,
        Kind.EAGLE_TOPK_MISSING,
        Kind.EAGLE_TOPK_REFUSED,
        Kind.EAGLE_STEPS_MISSING,
    ):
        arg = event.arg
        if event.kind == Kind.ALGORITHM_REFUSED:
            assert arg is not None
            raw = event.data["algorithm"]
            target = (
                "DSPARK"
                if raw.upper() == "DSPARK" and "DSPARK" in res.profile.algorithms
                else "EAGLE"
            )
            edits = [fixes.replace(arg.value_loc, target)]
            if target == "EAGLE":
                edits.extend(_missing_eagle_args(arg, server, mapping))
            what = (
                "the DSV4 hook checks the raw text before NEXTN is mapped to EAGLE and before upper-casing"
                if raw.upper() in ("NEXTN", "EAGLE", "DSPARK")
                else "no DeepSeek-V4 draft pool exists for it"
            )
            # NEXTN/eagle/dspark name the algorithm SGLang would run: safe; another algorithm is replaced: unsafe
            fix = Fix(
                f"Use speculative-algorithm: {target}"
                + (
                    " (DeepSeek-V4 MTP) with speculative-eagle-topk: 1 and speculative-num-steps."
                    if target == "EAGLE"
                    else "."
                ),
                tuple(edits),
                raw.upper() in ("NEXTN", "EAGLE", "DSPARK"),
            )
            message = f"{event.message}: AssertionError: {res.profile.algorithm_assert} ({what})"
        elif event.kind == Kind.EAGLE_TOPK_MISSING:
            edits = _missing_eagle_args(arg, server, mapping) if arg else []
            fix = Fix(
                "Add speculative-eagle-topk: 1"
                + (
                    " and speculative-num-steps: 3."
                    if server.get("speculative-num-steps") is None
                    else "."
                ),
                tuple(edits),
            )
            message = (
                f"{event.message}: AssertionError: {res.profile.topk_assert} (the DSV4 hook checks top-k before the "
                "speculative hook's default of 1 is filled in)"
            )
        elif event.kind == Kind.EAGLE_TOPK_REFUSED:
            assert arg is not None
            fix = Fix(
                "Set speculative-eagle-topk to 1.", (fixes.replace(arg.value_loc, "1"),), safe=False
            )  # changes the drafting
            message = f"{event.message}: AssertionError: {res.profile.topk_assert}"
        else:  # eagle-steps-missing
            assert arg is not None
            edit = fixes.insert_after(arg.pair, mapping, "speculative-num-steps", 3)
            fix = Fix(
                "Add speculative-num-steps: 3 (SGLang's own choice for DeepSeek-V4, 4 draft tokens).",
                (edit,) if edit else (),
            )
            message = (
                f"{event.message}: the speculative hook asserts that top-k and draft tokens are unset "
                "before choosing steps itself, a bare AssertionError (speculative_hook.py)"
            )
        field = {
            Kind.ALGORITHM_REFUSED: "speculative-algorithm",
            Kind.EAGLE_STEPS_MISSING: "speculative-num-steps",
        }.get(event.kind, "speculative-eagle-topk")
        yield finding_for_event(rule, event, fix, message=message, field=field)


def _missing_eagle_args(after, server, mapping) -> list:
    """Insert the EAGLE arguments DeepSeek-V4 needs that the config lacks, after ``after``."""
    missing = [
        (k, v)
        for k, v in (("speculative-eagle-topk", 1), ("speculative-num-steps", 3))
        if server.get(k) is None
    ]
    if not missing:
        return []
    edit = fixes.insert_after(after.pair, mapping, missing[0][0], missing[0][1])
    if edit is None:
        return []
    extra = "".join(
        edit.replacement.replace(f"{missing[0][0]}: {missing[0][1]}", f"{k}: {v}")
        for k, v in missing[1:]
    )
    return [
        type(edit)(
            edit.file,
            edit.line,
            edit.column,
            edit.end_line,
            edit.end_column,
            edit.replacement + extra,
        )
    ]
