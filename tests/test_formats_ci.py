"""The formats and options for CI logs and dashboards: ``--format concise``, ``--format gitlab``
and ``--statistics``. Their golden outputs on the bundled examples are the cases
tests/golden/examples-ci, examples-statistics and rocm-unified-draft-window (test_golden.py).
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import EAGLE, ROOT, run_cli

CONCISE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>SWA\d{3}) "
    r"(?P<severity>error|warning|note): \S.*$"
)


@pytest.fixture(autouse=True)
def _no_ci_environment(monkeypatch):
    for name in ("GITHUB_WORKSPACE", "CI_PROJECT_DIR", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def test_concise_is_one_line_per_finding_sorted_by_file_and_position():
    run = run_cli("--format", "concise", "-q", "examples/", cwd=ROOT)
    lines = run.stdout.splitlines()
    data = run_cli("--format", "json", "examples/", cwd=ROOT).data
    assert len(lines) == sum(len(d["findings"]) for d in data["deployments"])
    keys = []
    for line in lines:
        m = CONCISE.match(line)
        assert m, line
        keys.append((m["file"], int(m["line"]), int(m["col"])))
    assert keys == sorted(keys)


def test_concise_sorts_a_files_findings_by_position(tree):
    text = (
        EAGLE.replace("speculative-eagle-topk: 1\n", "")
        + "page-size: 64\nspeculative-num-draft-tokens: 9\n"
    )
    root = tree({"server.yaml": text})
    lines = run_cli("--format", "concise", "-q", "server.yaml", cwd=root).stdout.splitlines()
    positions = [tuple(int(x) for x in line.split(":")[1:3]) for line in lines]
    assert len(lines) >= 2 and positions == sorted(positions)


def test_gitlab_code_quality_shape(tree):
    failing = (
        EAGLE
        + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
    )
    root = tree({"deploy/server.yaml": failing.replace("models/", "../models/")})
    run = run_cli("--format", "gitlab", "deploy", cwd=root)
    issues = json.loads(run.stdout)
    assert [(i["check_name"], i["severity"]) for i in issues] == [
        ("SWA102", "major"),
        ("SWA201", "minor"),
    ]
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["location"]["path"] == "deploy/server.yaml"
        assert isinstance(issue["location"]["lines"]["begin"], int)
        assert re.fullmatch(r"[0-9a-f]{64}", issue["fingerprint"])
    assert len({i["fingerprint"] for i in issues}) == 2
    # the same fingerprints as SARIF's
    sarif = json.loads(run_cli("--format", "sarif", "deploy", cwd=root).stdout)
    assert [r["partialFingerprints"]["swacheck/v2"] for r in sarif["runs"][0]["results"]] == [
        i["fingerprint"] for i in issues
    ]


def test_gitlab_paths_are_relative_to_ci_project_dir(tree, monkeypatch):
    root = tree(
        {"deploy/server.yaml": (EAGLE + "page-size: 64\n").replace("models/", "../models/")}
    )
    monkeypatch.setenv("CI_PROJECT_DIR", str(root))
    run = run_cli("--format", "gitlab", "server.yaml", cwd=root / "deploy")
    assert [i["location"]["path"] for i in json.loads(run.stdout)] == ["deploy/server.yaml"]


def test_statistics_with_output_writes_the_report_to_the_file(tree):
    root = tree({"server.yaml": EAGLE + "page-size: 64\n"})
    run = run_cli("--statistics", "--format", "json", "-o", "out.json", "server.yaml", cwd=root)
    assert run.stdout.splitlines()[0] == "1  SWA201  warning  page-size-replaced"
    assert json.loads((root / "out.json").read_text())["summary"]["warnings"] == 1
    assert (
        run_cli("--statistics", "-q", "server.yaml", cwd=root).stdout
        == "1  SWA201  warning  page-size-replaced\n"
    )


# SWA102 on the Compose example: a fix without edits (drop the draft path by hand);
# SWA207 on the ROCm pp example a safe one, SWA204 an unsafe one with an edit.
FIX_CASE = ("examples/compose", "examples/rocm-fp8-pp")


@pytest.mark.parametrize("fmt", ["human", "github", "junit", "sarif"])
def test_every_format_says_safe_and_unsafe_alike(fmt, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    text = run_cli("--format", fmt, "--color", "never", *FIX_CASE, cwd=ROOT).stdout
    if fmt == "github":
        text += summary.read_text()
    if fmt == "sarif":
        text = "\n".join(r["message"]["text"] for r in json.loads(text)["runs"][0]["results"])
    data = run_cli("--format", "json", *FIX_CASE, cwd=ROOT).data
    fixes = [f["fix"] for d in data["deployments"] for f in d["findings"] if f.get("fix")]
    kinds = {(f["safe"], bool(f["edits"])) for f in fixes}
    assert kinds >= {(False, True), (True, False)}, kinds
    for fix in fixes:
        label = "fix" if fix["safe"] else "fix (unsafe)"
        said = re.findall(
            rf"(?i)\b(fix(?: \(unsafe\))?): {re.escape(fix['description'][:30])}", text
        )
        assert said and {s.lower() for s in said} == {label}, (fix, said)


def test_an_unsafe_fix_without_edits_is_never_labelled_fix():
    from swacheck.model.records import Fix
    from swacheck.report.common import fix_label

    assert fix_label(Fix("Drop the draft path by hand.", (), safe=False)) == "fix (unsafe)"
    assert fix_label(Fix("Set it.", (), safe=True)) == "fix"
