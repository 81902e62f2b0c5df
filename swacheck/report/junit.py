"""``--format junit``: JUnit XML for CI test-report viewers.

``<testsuites>`` holds one ``<testsuite name=FILE>`` per input file and one
``<testcase classname=FILE name=DEPLOYMENT>`` per deployment. A deployment with findings at or
above ``--fail-on`` has one ``<failure>`` (what Jenkins and GitLab show per test case): its
``message`` names the first finding and how many there are, its text holds every one of them in
the human format's words; lower findings go to the test case's ``<system-out>``. The
``failures`` counts are failing test cases, not findings. An input error is a test case of
its file's suite with an ``<error>``.
A deployment swacheck does not check (no draft pool, not a DeepSeek-V4 target) and a file named
explicitly that holds no deployment are ``<skipped>`` test cases, never passes.
Every attribute and text goes through ``escape.xml`` (report/escape.py).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import partial
from typing import TextIO

from ..model.records import SEVERITY_RANK, Finding, InputError
from ..results import RunResult
from .common import edit_text, fix_label
from .escape import xml as clean
from .renderer import WholeRun, render_run


def body(lines: list[str]) -> str:
    """A multi-line text node: each line through report/escape.py's ``xml`` (so a line break
    inside an input shows as ``\\n``), joined by line breaks."""
    return "\n".join(clean(line) for line in lines)


def finding_text(f: Finding) -> list[str]:
    """The finding's lines as the human format prints them: location, message, related, fix and edits."""
    lines = [(f"{f.location}: " if f.location else "") + f"{f.code} {f.severity}: {f.message}"]
    for rel in f.related:
        lines.append(f"    related: {rel.location}: {rel.message}")
    if f.fix is not None:
        lines.append(f"    {fix_label(f.fix)}: {f.fix.description}")
        for e in f.fix.edits:
            lines.append(f"      {e.file}:{e.line}:{e.column}: {edit_text(e)}")
    return lines


class _Suite:
    def __init__(self, name: str):
        self.element = ET.Element("testsuite", name=clean(name))
        self.tests = self.failures = self.errors = self.skipped = 0

    def case(self, classname: str, name: str) -> ET.Element:
        self.tests += 1
        return ET.SubElement(self.element, "testcase", classname=clean(classname), name=clean(name))


def _failure(case: ET.Element, failed: list[Finding]) -> None:
    """The one ``<failure>`` of a failing test case: every failing finding in its text."""
    first = failed[0]
    more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
    failure = ET.SubElement(
        case,
        "failure",
        message=clean(f"{first.code}: {first.message}{more}"),
        type=",".join(dict.fromkeys(f.code for f in failed)),
    )
    failure.text = body([line for f in failed for line in finding_text(f)])


def _error_case(suite: _Suite, e: InputError) -> None:
    where = f" at {e.line}:{e.column or 1}" if e.line is not None else ""
    case = suite.case(e.file, f"input error{where}")
    error = ET.SubElement(case, "error", message=clean(e.message), type="input-error")
    error.text = clean(str(e))
    suite.errors += 1


def as_element(result: RunResult) -> ET.Element:
    threshold = SEVERITY_RANK[result.settings.fail_on]
    suites: dict[str, _Suite] = {}

    def suite_for(file: str) -> _Suite:
        if file not in suites:
            suites[file] = _Suite(file)
        return suites[file]

    for r in result.results:
        suite = suite_for(r.deployment.file)
        case = suite.case(r.deployment.file, r.deployment.name)
        below: list[str] = []
        failed = [f for f in r.findings if SEVERITY_RANK[f.severity] >= threshold]
        if (
            r.resolution.mode == "skipped" and not failed
        ):  # a failure wins: one outcome per test case
            ET.SubElement(case, "skipped", message=clean(r.resolution.skip_reason or "not checked"))
            suite.skipped += 1
        elif r.resolution.skip_reason:
            below.append(r.resolution.skip_reason)
        for f in r.findings:
            if SEVERITY_RANK[f.severity] < threshold:
                below.extend(finding_text(f))
        if failed:
            _failure(case, failed)
            suite.failures += 1
        if below:
            ET.SubElement(case, "system-out").text = body(below)
    for e in result.errors:
        _error_case(suite_for(e.file), e)
    for note in result.notes:
        suite = suite_for(note.file)
        ET.SubElement(
            suite.case(note.file, "not a deployment"), "skipped", message=clean(note.message)
        )
        suite.skipped += 1

    root = ET.Element("testsuites", name="swacheck")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites.values():
        suite.element.set("tests", str(suite.tests))
        suite.element.set("failures", str(suite.failures))
        suite.element.set("errors", str(suite.errors))
        suite.element.set("skipped", str(suite.skipped))
        totals["tests"] += suite.tests
        totals["failures"] += suite.failures
        totals["errors"] += suite.errors
        totals["skipped"] += suite.skipped
        root.append(suite.element)
    for key, value in totals.items():
        root.set(key, str(value))
    return root


def write(result: RunResult, out: TextIO) -> None:
    """The whole report of a run."""
    root = as_element(result)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


STREAMS = False  # the report needs the whole run: Stream keeps the units
Stream = partial(WholeRun, write=write)


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
