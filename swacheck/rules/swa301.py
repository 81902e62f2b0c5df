"""SWA301 duplicate-key: the same key twice in one mapping of a config file.

## What it does

Reports every key that appears more than once in the same mapping of a YAML or JSON file
that swacheck reads: server configs, deployment files and model `config.json` files.
Spellings that reach one server argument count as the same key: an alias such as `model`
for `model-path`, a unique prefix such as `speculative-algo`. (`page_size` does not reach
`--page-size` at all: SWA303 reports it.)

## Why it matters

PyYAML (which SGLang uses for `--config`) and Python's `json` keep the *last* value without
a word, so the value a reader sees first is not the one the server uses.

## Example

```yaml
max-running-requests: 64
speculative-num-steps: 3
max-running-requests: 16     # this one wins
```

## Fix

Delete the entry that is ignored (the earlier one), or merge the two deliberately.

Fix safety: safe — it deletes the entry YAML and JSON already ignore (the later one wins).
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix, Related
from ..sglang.resolve import Resolution
from .base import RuleContext

CODE = "SWA301"
NAME = "duplicate-key"
SEVERITY = "warning"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "duplicate key in a config file; the last value is silently used"
FIX_SAFETY = "safe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def _at(loc, other) -> str:  # type: ignore[no-untyped-def]
    """``line N``, or ``N:C`` when both occurrences share a line (a flow mapping)."""
    return f"{loc.line}:{loc.column}" if loc.line == other.line else f"line {loc.line}"


def _findings(dup, kept_desc: str) -> Finding:
    edit = fixes.delete_line_of(dup.first_pair, dup.mapping)
    return Finding(
        CODE,
        SEVERITY,
        f"duplicate key {dup.key!r}: the value at {_at(dup.again, dup.first)} is used and the one at "
        f"{_at(dup.first, dup.again)} is ignored{kept_desc}",
        dup.again,
        Fix(f"Delete the ignored {dup.key!r} at line {dup.first.line}.", (edit,) if edit else ()),
        (Related(dup.first, "first occurrence, ignored"),),
        dup.key,
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for dup in res.duplicates:
        yield _findings(dup, "")
    # One option written twice in different spellings (`page-size` / `page_size`, an alias such
    # as `model`, a unique prefix such as `speculative-algo`): argparse keeps the later value.
    server = res.deployment.server
    if len(server.args) == len(server.entries):
        return  # no two keys reach one option (args is entries by option: ServerArgs)
    by_name: dict[str, list] = {}
    for arg in server.entries:
        if arg.how in (
            "exact",
            "prefix",
        ):  # `page_size` never reaches argparse's --page-size (SWA303)
            by_name.setdefault(arg.name, []).append(arg)
    for name, args in by_name.items():
        if len(args) > 1:
            first, last = args[0], args[-1]
            edit = fixes.delete_line_of(first.pair, server.mapping)
            yield Finding(
                CODE,
                SEVERITY,
                f"{first.written!r} and {last.written!r} set the same argument --{name}: SGLang uses the later one",
                last.key_loc,
                Fix(
                    f"Delete {first.written!r} at line {first.key_loc.line}.",
                    (edit,) if edit else (),
                ),
                (Related(first.key_loc, "earlier spelling, ignored"),),
                name,
            )
