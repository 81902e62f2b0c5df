"""SWA304 bad-value: a server-argument value SGLang's argument parser rejects.

## What it does

SGLang's `--config` loader turns each value into command-line text and argparse parses it,
so this rule checks the values swacheck reads with the same types: integers
(`"128"` is fine, `128.0` and `true` are not), choices (`disaggregation-mode` is one of
`null`, `prefill`, `decode`), and `json-model-override-args` must be a JSON object.

## Why it matters

argparse exits with `error: argument --page-size: invalid int value: '256.0'` and the server
never starts.

## Example

```yaml
max-running-requests: 64.0
disaggregation-mode: Decode
```

## Fix

Write the value in the type the flag takes.
"""

from __future__ import annotations

import sys
from typing import Iterator

from ..model import Finding, Fix
from ..sglang.resolve import Resolution
from .base import Context, finding_for_event

CODE = "SWA304"
NAME = "bad-value"
SEVERITY = "error"
SUMMARY = "server-argument value that SGLang's argument parser rejects (type or choice)"


def check(res: Resolution, ctx: Context) -> Iterator[Finding]:
    for event in res.events_of("bad-value"):
        assert event.arg is not None
        fix = Fix(f"Give {event.arg.written} {event.data['expected']}.")
        yield finding_for_event(sys.modules[__name__], event, fix)
