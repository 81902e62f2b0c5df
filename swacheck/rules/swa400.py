"""SWA400 pd-partner-ambiguous: a PD server whose partner swacheck cannot tell.

## What it does

Among the checked deployments, PD prefill and decode servers of the same model are paired
(see `swacheck --show-pairs`). When a server could belong to several partners — two decode
servers for one prefill, say — and their names do not settle it, swacheck does not guess: it
reports this note and checks the server on its own.

## Why it matters

The prefill/decode rules (SWA401-SWA410) catch failures SGLang only hits at the first request
or never reports. An unpaired server is not checked against its partner.

## Example

`prefill.yaml`, `decode-a.yaml` and `decode-b.yaml` for one model in one directory.

## Fix

Name the pair: `swacheck pair prefill.yaml decode-a.yaml`, or a deployment file with
`pairs: [{prefill: prefill.yaml, decode: decode-a.yaml}]`, or names that differ only by
`prefill` / `decode`.

Fix safety: none — no automatic fix: name the pair explicitly.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix

CODE = "SWA400"
NAME = "pd-partner-ambiguous"
SEVERITY = "note"
SCOPE = "unpaired"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "PD server whose prefill/decode partner is ambiguous"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check_alone(alone) -> Iterator[Finding]:  # type: ignore[no-untyped-def]
    for result, why in alone:
        dep = result.deployment
        yield Finding(
            CODE,
            SEVERITY,
            f"{dep.name}: no PD partner chosen: {why}; it is not checked against a partner",
            dep.location,
            Fix(
                "Name the pair with `swacheck pair PREFILL DECODE` or a `pairs:` list in a deployment file."
            ),
            (),
            "pair",
        )
