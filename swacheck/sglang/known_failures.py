"""The table of known failures of SGLang releases (``data/known-failures.json``), as records.

Known failures of SGLang releases: one row per failure, read by the SWA6xx rules
(swacheck/rules/_known.py) and printed by `swacheck rule CODE`.

A row says when a launch fails (`when`: the platform, the GPU's compute-capability major,
arguments, switches, environment, the checkpoint's expert format, the model path), which releases
fail (`first` .. `last`, both inclusive; `"last": ""`: every release swacheck knows, no fix
released), the first release with the fix (`fixed_in`, "" when none), the upstream threads,
the message users saw, and the evidence: files and lines of the release wheels (or of the
FlashInfer wheel a release pins) showing the fix's code absent before and present after.
A new field report becomes a rule by adding a row, a `swa6NN.py` of two lines and a README row.

`when` keys (all given must hold):

- ``platform``: ``["cuda", "rocm", "npu"]``, the server's platform;
- ``gpu_sm_major``: ``[12]``, the GPU's compute-capability major (CUDA); without ``--gpu``, or
  on a GPU swacheck does not know, the row is not judged;
- ``args``: ``{name: [values]}``, the argument's text (case-insensitive) is one of these;
  ``"<unset>"`` matches an argument not given;
- ``flags`` / ``not_flags``: store_true switches that are on / off (or not given);
- ``env_unset`` / ``env_not_true``: variables the server's environment does not set / does not
  set to a true value;
- ``experts``: ``"fp4"``, the checkpoint's routed experts are FP4 (MXFP4);
- ``experts_declared``: ``false``, config.json does not declare the expert format;
- ``model_path``: a regular expression the model-path text matches (case-insensitive).

The SWA6xx rules read it through :func:`row` (``rules/_known.py``). The table is package data,
JSON so that reading it costs no parser of its own (a run without a configuration file imports
no TOML reader), read once and checked as it is read: a row with a key the matcher does not know
is a programming error, never a condition silently ignored.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

from ..model.recordtype import record
from .version import release_key

# os.path, not pathlib: pathlib (with urllib.parse, ipaddress) was ~4 ms of every run's imports
TABLE = os.path.join(os.path.dirname(os.path.realpath(__file__)), "data", "known-failures.json")

# the condition keys rules/_known.py evaluates (see the table's header)
WHEN_KEYS = frozenset(
    (
        "platform",
        "gpu_sm_major",
        "args",
        "flags",
        "not_flags",
        "env_unset",
        "env_not_true",
        "experts",
        "experts_declared",
        "model_path",
    )
)
ROW_KEYS = frozenset(
    (
        "code",
        "name",
        "severity",
        "summary",
        "first",
        "last",
        "fixed_in",
        "upstream",
        "seen",
        "why",
        "fix",
        "example",
        "field",
        "when",
        "evidence",
    )
)


@record(frozen=True)
class Evidence:
    """One place in a release wheel (or the FlashInfer wheel a release pins) and what it shows."""

    where: str
    says: str


@record(frozen=True)
class KnownFailure:
    """One row of the table."""

    code: str
    name: str
    severity: str
    summary: str
    first: str  # the oldest release that fails
    last: str  # the newest release that fails; "" -- every release swacheck knows
    fixed_in: str  # the first release with the fix; "" -- none released
    upstream: tuple[str, ...]
    seen: str  # the message users saw
    why: str
    fix: str
    example: str
    field: str
    when: dict[str, Any]
    evidence: tuple[Evidence, ...]

    def affects(self, version: str) -> bool:
        """Whether the release ``version`` has this failure."""
        key = release_key(version)
        if key < release_key(self.first):
            return False
        return not self.last or key <= release_key(self.last)

    @property
    def releases(self) -> str:
        upto = self.last or "the newest release swacheck knows"
        return self.first if self.first == self.last else f"{self.first} – {upto}"

    @property
    def fixed_text(self) -> str:
        return f"fixed in {self.fixed_in}" if self.fixed_in else "no release with the fix yet"


def _row(raw: dict[str, Any]) -> KnownFailure:
    unknown = set(raw) - ROW_KEYS
    if unknown or set(raw.get("when", {})) - WHEN_KEYS:
        raise ValueError(
            f"{os.path.basename(TABLE)}: {raw.get('code')}: unknown keys {sorted(unknown)}"
        )
    return KnownFailure(
        raw["code"],
        raw["name"],
        raw["severity"],
        raw["summary"],
        raw["first"],
        raw.get("last", ""),
        raw.get("fixed_in", ""),
        tuple(raw.get("upstream", ())),
        raw["seen"],
        raw["why"],
        raw["fix"],
        raw["example"],
        raw.get("field", ""),
        dict(raw.get("when", {})),
        tuple(Evidence(e["where"], e["says"]) for e in raw.get("evidence", ())),
    )


@cache
def table() -> dict[str, KnownFailure]:
    """Every row, by code (read once)."""
    with open(TABLE, encoding="utf-8") as fh:
        rows = [_row(r) for r in json.load(fh)["failure"]]
    return {r.code: r for r in rows}


def row(code: str) -> KnownFailure:
    return table()[code]
