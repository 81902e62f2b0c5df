"""SWA901 suppression-without-reason: an inline suppression that gives no reason.

## What it does

Reports a `# swacheck: ignore[CODE]` comment with nothing after the closing bracket.

## Why it matters

A suppression silences a check that predicts a failed launch. The next reader (or you, after
the next SGLang upgrade) needs to know why it was safe to silence; a bare suppression hides that.

## Example

```yaml
speculative-draft-model-path: models/mtp  # swacheck: ignore[SWA101]
```

## Fix

Say why after the bracket: `# swacheck: ignore[SWA101] draft pool is rebuilt by our launcher`.

Fix safety: none — no automatic fix: only you know the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..model.records import Finding, Fix
from ..suppress import Suppression

CODE = "SWA901"
NAME = "suppression-without-reason"
SEVERITY = "warning"
SCOPE = "suppressions"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "inline suppression comment without a reason"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_suppressions(
    suppressions: Iterable[Suppression], enabled: Callable[[str], bool]
) -> Iterator[Finding]:
    for s in suppressions:
        if not s.reason:
            yield Finding(
                CODE,
                SEVERITY,
                f"suppression of {', '.join(s.codes)} gives no reason",
                s.location,
                Fix("Write why the finding is safe to ignore after the closing bracket."),
                (),
                f"line {s.location.line}",
            )
