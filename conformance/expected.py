"""The committed, explained disagreements between swacheck and SGLang (expected-disagreements.tsv).

Standard library only. ``run.py`` exits 0 when the cases that disagree (or could not be
compared) are exactly the committed ones among the cases it ran, and 1 on anything new -- or
on a committed disagreement that now agrees (its row is stale: remove it).

Each row: the releases it holds for (comma-separated, or ``*``), the suite (``cases``,
``matrix``, ``pairs``), the case name, the SGLang ``file:line`` that decides the case, and why
the two tools differ there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "expected-disagreements.tsv"
SUITES = ("cases", "matrix", "pairs")


class TableError(Exception):
    pass


@dataclass(frozen=True)
class Expected:
    releases: tuple[str, ...]
    suite: str
    case: str
    decided_by: str
    why: str

    def holds_for(self, version: str) -> bool:
        return "*" in self.releases or version in self.releases


def read(path: Path = TABLE) -> list[Expected]:
    rows = []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = [c.strip() for c in raw.split("\t")]
        if len(cells) != 5 or not all(cells):
            raise TableError(f"{path}:{n}: want releases, suite, case, decided-by, why")
        releases, suite, case, decided_by, why = cells
        if suite not in SUITES:
            raise TableError(f"{path}:{n}: suite must be one of {', '.join(SUITES)}")
        if ":" not in decided_by:
            raise TableError(f"{path}:{n}: decided-by must be SGLang's file:line")
        rows.append(
            Expected(tuple(r.strip() for r in releases.split(",")), suite, case, decided_by, why)
        )
    return rows


def judge(outcomes: dict[str, bool | None], version: str, suite: str, out, rows=None) -> int:
    """``outcomes``: case name -> agrees (True), disagrees (False), not compared (None)."""
    rows = read() if rows is None else rows
    expected = {r.case: r for r in rows if r.suite == suite and r.holds_for(version)}
    differing = {name for name, ok in outcomes.items() if ok is not True}
    ran = set(outcomes)
    new = sorted(differing - set(expected))
    stale = sorted(name for name in set(expected) & ran if name not in differing)
    known = sorted(differing & set(expected))
    for name in known:
        r = expected[name]
        print(f"  expected: {name}: decided by {r.decided_by}: {r.why}", file=out)
    for name in new:
        print(f"  NEW disagreement: {name} (not in {TABLE.name})", file=out)
    for name in stale:
        print(f"  now agrees: {name}: remove its row from {TABLE.name}", file=out)
    verdict = "as committed" if not new and not stale else "NOT as committed"
    print(
        f"SGLang {version} {suite}: {len(outcomes)} run, {len(outcomes) - len(differing)} agree, "
        f"{len(known)} expected disagreements, {len(new)} new, {len(stale)} stale: {verdict}",
        file=out,
    )
    return 0 if not new and not stale else 1
