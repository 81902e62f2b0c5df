"""The README and action.yml name what the registries hold: every rule, every output format,
every input kind (docs/architecture.md's checklists list these places; a test keeps them true,
since nothing else reads them)."""

from __future__ import annotations

import re

from conftest import ROOT

from swacheck.inputs import kinds
from swacheck.report import formats_for
from swacheck.rules import RULES

README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(heading: str) -> str:
    """The README's text under ``heading`` (a whole heading line), up to the next heading."""
    start = README.index(f"\n{heading}\n") + len(heading) + 2
    end = re.compile(r"^#{1,3} ", re.M).search(README, start)
    return README[start : end.start() if end else len(README)]


def test_the_rules_table_has_a_row_per_rule_with_its_name_and_severity():
    rows = re.findall(r"^\| (SWA\d{3}) \| ([a-z0-9-]+) \| (\w+) \|", section("### Rules"), re.M)
    assert rows == [(r.CODE, r.NAME, r.SEVERITY) for r in RULES]


def test_every_report_format_is_documented_where_it_is_chosen():
    formats = formats_for("check")
    table = re.findall(r"^\| `([a-z]+)` \|", section("### Output formats"), re.M)
    assert sorted(table) == sorted(formats)
    option = next(line for line in README.splitlines() if line.startswith("| `-f, --format"))
    assert sorted(re.findall(r"`([a-z]+)`", option.split("|")[2])) == sorted(formats)
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    said = re.search(r"description: \"Output format: (.*)\"", action)
    assert said is not None
    assert sorted(re.findall(r"[a-z]+(?= \(|,| or|\.$)", said.group(1))) == sorted(formats)


def test_every_input_kind_is_in_the_inputs_list():
    inputs = section("## Inputs").lower()
    for kind in (*kinds.FILE_KINDS, *kinds.DOCUMENT_KINDS):
        # "a Kubernetes manifest" -> "kubernetes manifest"; "a document (Markdown/...)" -> "markdown"
        words = re.sub(r"^an? ", "", kind.what.lower())
        named = words.split("(")[1].split("/")[0] if "(" in words else words
        assert named in inputs, f"{kind.name}: README 'Inputs' does not mention {named!r}"
