"""SWA902 unused-suppression: an inline suppression that suppresses nothing.

## What it does

Reports a `# swacheck: ignore[CODE]` comment (or one of its codes) that matched no finding in
this run, like ruff's RUF100. Codes of rules that this run does not select are not reported.

## Why it matters

A stale suppression silently hides the *next* real problem on that line, for instance after
the draft checkpoint is replaced.

## Example

```yaml
speculative-num-steps: 3  # swacheck: ignore[SWA203] nothing to suppress here
```

## Fix

Delete the comment, or the code that no longer applies.

Fix safety: safe — the comment suppresses nothing; removing it changes no result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from .. import fixes
from ..model.records import Finding, Fix
from ..suppress import Suppression

CODE = "SWA902"
NAME = "unused-suppression"
SEVERITY = "warning"
SCOPE = "suppressions"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "inline suppression that matched no finding"
FIX_SAFETY = "safe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_suppressions(
    suppressions: Iterable[Suppression], enabled: Callable[[str], bool]
) -> Iterator[Finding]:
    for s in suppressions:
        unused = [c for c in s.codes if c not in s.used and enabled(c)]
        if not unused:
            continue
        edits = (fixes.replace(s.removal, ""),) if len(unused) == len(s.codes) else ()
        yield Finding(
            CODE,
            SEVERITY,
            f"unused suppression: no {', '.join(unused)} finding on line {s.target_line}",
            s.location,
            Fix(
                "Remove the suppression comment."
                if edits
                else f"Remove {', '.join(unused)} from the comment.",
                edits,
            ),
            (),
            f"line {s.location.line}",
        )
