"""The docs (README.md, docs/*.md) and action.yml name what the registries hold: every rule, every
output format, every input kind (docs/architecture.md's checklists list these places; a test keeps them true,
since nothing else reads them)."""

from __future__ import annotations

import re

from conftest import ROOT, doc_section, docs_text

from swacheck.inputs import kinds
from swacheck.report import formats_for
from swacheck.rules import RULES

DOCS = docs_text()


def section(heading: str) -> str:
    """The text under ``heading`` (``## Title``: the title, at whatever level and in whichever
    of README.md and docs/*.md it now lives), up to the next heading of its level."""
    return doc_section(heading.lstrip("#").strip())


def test_the_rules_table_has_a_row_per_rule_with_its_name_and_severity():
    rows = re.findall(r"^\| (SWA\d{3}) \| ([a-z0-9-]+) \| (\w+) \|", section("### Rules"), re.M)
    assert rows == [(r.CODE, r.NAME, r.SEVERITY) for r in RULES]


def test_every_report_format_is_documented_where_it_is_chosen():
    formats = formats_for("check")
    table = re.findall(r"^\| `([a-z]+)` \|", section("### Output formats"), re.M)
    assert sorted(table) == sorted(formats)
    option = next(line for line in DOCS.splitlines() if line.startswith("| `-f, --format"))
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


def test_the_rules_index_is_generated_from_the_rules():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "rules_index.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_is_a_short_front_door():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    for heading in ("## Install", "## The two commands", "## What it prints", "## In CI"):
        assert f"\n{heading}\n" in readme, heading
    ci = re.search(r"## In CI\n\n```yaml\n(.*?)```", readme, re.S)
    assert ci and len(ci.group(1).splitlines()) <= 5  # CI in five lines
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{doc.name})" in readme, f"the README does not link {doc.name}"


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors of a Markdown text (headings outside code fences)."""
    found, fence = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#+ (.*)$", line)
        if m:
            found.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return found


def test_every_relative_link_in_the_docs_resolves():
    from conftest import DOC_FILES

    for doc in DOC_FILES:
        text = doc.read_text(encoding="utf-8")
        outside = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", outside):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            assert file.exists(), f"{doc.relative_to(ROOT)}: {target} does not exist"
            if anchor and file.suffix == ".md":
                assert anchor in _anchors(file.read_text(encoding="utf-8")), (
                    f"{doc.relative_to(ROOT)}: no heading #{anchor} in {file.name}"
                )
