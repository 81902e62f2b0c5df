"""SWA301 duplicate-key: the same key twice in one mapping of a config file.

## What it does

Reports every key that appears more than once in the same mapping of a YAML or JSON file
that swacheck reads: server configs, deployment files and model `config.json` files.
`page-size` and `page_size` count as the same server argument.

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
"""

from __future__ import annotations

from typing import Iterator

from .. import fixes
from ..model import Finding, Fix, Related
from ..sglang.resolve import Resolution
from .base import Context

CODE = "SWA301"
NAME = "duplicate-key"
SEVERITY = "warning"
SUMMARY = "duplicate key in a config file; the last value is silently used"


def _findings(dup, kept_desc: str) -> Finding:
    edit = fixes.delete_line_of(dup.first_pair, dup.mapping)
    return Finding(
        CODE,
        SEVERITY,
        f"duplicate key {dup.key!r}: the value at line {dup.again.line} is used and the one at line {dup.first.line} is ignored{kept_desc}",
        dup.again,
        Fix(f"Delete the ignored {dup.key!r} at line {dup.first.line}.", (edit,) if edit else ()),
        (Related(dup.first, "first occurrence, ignored"),),
        dup.key,
    )


def check(res: Resolution, ctx: Context) -> Iterator[Finding]:
    for dup in res.duplicates:
        yield _findings(dup, "")
    # `page-size` and `page_size` in one server config: both reach argparse, the later wins.
    server = res.deployment.server
    if server.mapping is not None:
        by_name: dict[str, list] = {}
        for written, pair in server.mapping.pairs.items():
            by_name.setdefault(written.replace("_", "-"), []).append(pair)
        for name, pairs in by_name.items():
            if len(pairs) > 1:
                pairs.sort(key=lambda p: (p.key_loc.line, p.key_loc.column))
                first, last = pairs[0], pairs[-1]
                edit = fixes.delete_line_of(first, server.mapping)
                yield Finding(
                    CODE,
                    SEVERITY,
                    f"{first.key!r} and {last.key!r} set the same argument {name!r}: SGLang uses the later one",
                    last.key_loc,
                    Fix(f"Delete {first.key!r} at line {first.key_loc.line}.", (edit,) if edit else ()),
                    (Related(first.key_loc, "earlier spelling, ignored"),),
                    name,
                )
