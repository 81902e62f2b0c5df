"""``--format junit``: JUnit XML, one test suite per file and one test case per deployment.

The golden outputs are the ``expected.junit`` files of tests/golden/ (test_golden.py).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from conftest import EAGLE, ROOT, run_cli

from swacheck.report import junit

GOLDEN = ROOT / "tests" / "golden"
CASES = [
    "rocm-unified-draft-window",
    "cuda-no-pd-draft-window",
    "cuda-nextn",
    "rocm-unified-decode",
    "formats-ci",  # an input error, a deployment with two errors, safe and unsafe fixes
]

# One SWA102 error (PD, draft window 256) and one SWA201 warning (explicit page-size).
FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)
PASSING = EAGLE + "disaggregation-mode: prefill\n"
NOTE_ONLY = EAGLE + "speculative-draft-model-path: models/mtp256\n"  # no PD: SWA102 note


def junit_run(*args: str, cwd=ROOT):
    run = run_cli("--format", "junit", *args, cwd=cwd)
    assert run.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(run.stdout.encode("utf-8")), run


def counts(element: ET.Element) -> tuple[int, int, int]:
    return int(element.get("tests")), int(element.get("failures")), int(element.get("errors"))


def assert_counts_consistent(root: ET.Element) -> None:
    assert root.tag == "testsuites"
    total = [0, 0, 0]
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        for c in cases:  # one outcome per test case, as Jenkins and GitLab read them
            assert len(c.findall("failure")) + len(c.findall("skipped")) <= 1, ET.tostring(c)
        failures = sum(1 for c in cases if c.findall("failure"))
        errors = sum(len(c.findall("error")) for c in cases)
        assert counts(suite) == (len(cases), failures, errors)
        for c in cases:
            assert c.get("classname") == suite.get("name")
        total = [total[0] + len(cases), total[1] + failures, total[2] + errors]
    assert counts(root) == tuple(total)


GOLDEN_JUNIT = sorted(GOLDEN.glob("*/expected.junit"))


@pytest.mark.parametrize("path", GOLDEN_JUNIT, ids=lambda p: p.parent.name)
def test_golden_outputs_count_consistently(path):
    assert_counts_consistent(ET.fromstring(path.read_bytes()))


def test_golden_outputs_cover_the_cases():
    assert sorted(p.parent.name for p in GOLDEN_JUNIT) == sorted(CASES)


def test_examples_parse_and_count():
    root, run = junit_run("examples/")
    assert run.exit_code == 1
    assert_counts_consistent(root)
    suites = root.findall("testsuite")
    assert len(suites) == 21  # one per file that holds deployments (a manifest holds two)
    assert counts(root) == (
        22,
        10,
        0,
    )  # 22 deployments, 10 of them failing (11 error findings: one deployment has two)
    by_name = {s.get("name"): s for s in suites}
    case = by_name["examples/rocm-draft-window/prefill.yaml"].find("testcase")
    assert case.get("name") == "v4-flash-prefill-rocm-w256-draft"
    (failure,) = case.findall("failure")
    assert failure.get("type") == "SWA101"
    assert failure.get("message").startswith(
        "SWA101: DSV4 target and draft pools must share SWA ring geometry"
    )
    assert failure.text.startswith("examples/rocm-draft-window/prefill.yaml:12:1: SWA101 error: ")
    assert "fix (unsafe): Remove speculative-draft-model-path" in failure.text
    assert "examples/rocm-draft-window/prefill.yaml:12:1: delete line 12" in failure.text
    # a note below --fail-on error goes to system-out, not to a failure
    no_pd = by_name["examples/cuda-no-pd/server.yaml"].find("testcase")
    assert no_pd.findall("failure") == []
    assert "SWA102 note: " in no_pd.find("system-out").text


def test_one_failure_per_error_finding(tree):
    files = {"a.yaml": FAILING, "b.yaml": PASSING, "c.yaml": NOTE_ONLY}
    root, run = junit_run(*files, cwd=tree(files))
    assert run.exit_code == 1
    assert_counts_consistent(root)
    assert counts(root) == (3, 1, 0)
    cases = {c.get("classname"): c for c in root.iter("testcase")}
    assert [f.get("type") for f in cases["a.yaml"].findall("failure")] == ["SWA102"]
    assert "SWA201 warning: page-size 64 is replaced" in cases["a.yaml"].find("system-out").text
    assert list(cases["b.yaml"]) == []  # a passing test case is empty
    assert cases["c.yaml"].findall("failure") == []


def test_fail_on_warning_makes_warnings_failures(tree):
    files = {"a.yaml": FAILING, "c.yaml": NOTE_ONLY}
    root, _ = junit_run("--fail-on", "warning", *files, cwd=tree(files))
    assert_counts_consistent(root)
    cases = {c.get("classname"): c for c in root.iter("testcase")}
    (failure,) = cases["a.yaml"].findall("failure")  # one failure, both findings in its text
    assert failure.get("type") == "SWA102,SWA201"
    assert failure.get("message").startswith("SWA102: ")
    assert failure.get("message").endswith(" (and 1 more)")
    assert "SWA102 error: " in failure.text and "SWA201 warning: " in failure.text
    assert cases["a.yaml"].find("system-out") is None
    assert cases["c.yaml"].findall("failure") == []
    root, _ = junit_run("--fail-on", "note", *files, cwd=tree(files))
    assert counts(root) == (2, 2, 0)  # failing test cases, not findings


def test_input_errors_are_error_test_cases(tree):
    files = {"bad.yaml": "model-path: [\n", "a.yaml": FAILING}
    root, run = junit_run(*files, cwd=tree(files))
    assert run.exit_code == 2
    assert_counts_consistent(root)
    assert counts(root) == (2, 1, 1)
    suite = next(s for s in root.findall("testsuite") if s.get("name") == "bad.yaml")
    (case,) = suite.findall("testcase")
    (error,) = case.findall("error")
    assert error.get("message").startswith("invalid YAML")
    assert error.text.startswith("bad.yaml:2:1: invalid YAML")


def test_text_is_always_valid_xml():
    # characters XML 1.0 forbids, other control characters and bytes that are not UTF-8 are
    # shown as escapes (report/escape.py), a tab too
    assert junit.clean("a\x00b\x1bc\td\ne\udcff\ufffe") == "a\\x00b\\x1bc\\td\\ne\\xff\\ufffe"


def test_skipped_deployments_and_named_files_are_skipped_test_cases(tree):
    no_draft = "model-path: models/v4\ndisaggregation-mode: prefill\n"  # no speculative decoding
    root = tree({"plain.yaml": no_draft, "good.yaml": PASSING, "values.yaml": "replicas: 3\n"})
    xml, run = junit_run("plain.yaml", "good.yaml", "values.yaml", cwd=root)
    assert run.exit_code == 0
    assert_counts_consistent(xml)
    assert xml.get("skipped") == "2"
    cases = {(c.get("classname"), c.get("name")): c for c in xml.iter("testcase")}
    assert (
        cases["plain.yaml", "plain"]
        .find("skipped")
        .get("message")
        .startswith("no speculative decoding")
    )
    assert (
        cases["values.yaml", "not a deployment"]
        .find("skipped")
        .get("message")
        .startswith("skipped, not a deployment")
    )
    assert cases["good.yaml", "good"].find("skipped") is None
    suites = {s.get("name"): s.get("skipped") for s in xml.iter("testsuite")}
    assert suites == {"plain.yaml": "1", "good.yaml": "0", "values.yaml": "1"}
