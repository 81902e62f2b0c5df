"""SWA304 bad-value: a server-argument value SGLang rejects while parsing arguments.

## What it does

SGLang's `--config` loader turns each value into command-line text (`str(value)`) and
argparse parses it, so this rule checks every value, of any flag of the release's table, with
argparse's own types and choices: integers (`"128"` is fine, `128.0`, `eight`, `true` and
`null` are not), floats (`mem-fraction-static: high`), `human_readable_int` (`1k`, `1Ki`),
choices (`disaggregation-mode` is one of `null`, `prefill`, `decode`, case-sensitive; an
unquoted YAML `null` reaches SGLang as the text `None`), SGLang's own type functions that can
refuse a value (`json.loads` flags such as `preferred-sampling-params` take JSON; `json_list_type`
flags such as `forward-hooks` take JSON as `orjson` reads it, no `NaN`; `cuda-graph-config`
takes a JSON object; `cuda-graph-backend-*` refuses the retired `tc_piecewise`), each item of a
list flag; the same on a command line. Which flags have which type and choices is the release's
own table (`swacheck/sglang/data/server-args-X.tsv`), so `--sglang-version` decides. A
store_true flag in a `--config` file takes only a YAML boolean: the loader passes any other
value on after the flag (`trust-remote-code: "true"` becomes
`--trust-remote-code true`) and argparse stops with `unrecognized arguments: true`.
`json-model-override-args` must be a JSON object.
It also reports `dp-size` > 1 together with `attn-dp-size` > 1, which SGLang's parallel hook
refuses (`srt/arg_groups/parallel_hook.py`, and again in `model_override_base.py`); sizes
below 1 (SGLang divides by them); and a
`max-running-requests` that leaves a worker no request: SGLang before 0.5.23 stops with
`AssertionError: max_running_request is zero` (`managers/tp_worker.py`
`TpModelWorker.alloc_memory_pool`), 0.5.23 silently raises it to 1 (a warning).

## Why it matters

argparse exits with `error: argument --page-size: invalid int value: '256.0'` (or
`unrecognized arguments: true`, or SGLang raises `ValueError`) and the server never starts.

## Example

```yaml
max-running-requests: 64.0
disaggregation-mode: Decode
tp-size: eight
trust-remote-code: "true"
```

## Fix

Write the value in the type the flag takes.

Fix safety: none — no automatic fix: only you know the value you meant.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, finding_for_event

CODE = "SWA304"
NAME = "bad-value"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "server-argument value SGLang rejects while parsing arguments (type, choice, dp-size with attn-dp-size)"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of(Kind.BAD_VALUE):
        assert event.arg is not None
        fix = Fix(f"Give {event.arg.written} {event.data['expected']}.")
        yield finding_for_event(rule, event, fix)
    for event in res.events_of(Kind.ZERO_REQUESTS):
        yield finding_for_event(
            rule,
            event,
            Fix(
                event.data.get("fix")
                or "Set max-running-requests to at least attn-dp-size (requests are split across attention-DP workers)."
            ),
        )
    for event in res.events_of(Kind.REQUESTS_CLAMPED):
        fix = Fix(
            "Set max-running-requests to the number of requests you mean (at least attn-dp-size)."
        )
        yield finding_for_event(rule, event, fix, severity="warning")
    for event in res.events_of(Kind.DP_COMBINATION):
        fix = Fix(
            "Use either dp-size (replicas) or attn-dp-size (attention data parallelism), not both above 1."
        )
        yield finding_for_event(rule, event, fix, message=f"ValueError: {event.message}")
