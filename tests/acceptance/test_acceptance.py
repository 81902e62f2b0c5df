"""Acceptance: realistic inputs in every format swacheck reads, with their expected verdicts.

Each folder under ``positive/`` (DeepSeek-V4 speculative launches that must be read, with their
geometry computed) and ``negative/`` (launches and YAML that are not swacheck's business) is one
case, written in the shape of public examples (SGLang's scripts and docs, OME, RBG, AIBrix,
Dynamo, KServe, LeaderWorkerSet, srt-slurm, SkyPilot, Helm charts, harness YAML) but not copied
from them. One file of each case carries its expectation in a comment::

    swacheck-expect: exit=1 codes=SWA101,SWA406 checked=2

``exit`` is the exit code of ``swacheck FOLDER``, ``codes`` the exact set of finding codes,
``checked`` how many deployments got their geometry computed (not skipped). The suite runs with
this folder as the working directory, so ``swacheck.toml`` here points the model ids at local
copies of their config.json, as a repository's CI would.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import run_cli

HERE = Path(__file__).resolve().parent
_EXPECT = re.compile(r"swacheck-expect:\s*exit=(\d)\s+codes=([\w,]*)\s+checked=(\d+)")


def _cases() -> list[tuple[str, Path]]:
    out = []
    for group in ("positive", "negative"):
        for case in sorted((HERE / group).iterdir()):
            if case.is_dir():
                out.append((group, case))
    return out


def _expectation(case: Path) -> tuple[int, set[str], int]:
    found = []
    for path in sorted(case.rglob("*")):
        if path.is_file() and (m := _EXPECT.search(path.read_text(encoding="utf-8"))):
            found.append(m)
    assert len(found) == 1, f"{case}: exactly one file must carry 'swacheck-expect:', found {len(found)}"
    m = found[0]
    return int(m.group(1)), {c for c in m.group(2).split(",") if c}, int(m.group(3))


def _codes(run) -> set[str]:  # type: ignore[no-untyped-def]
    return {f["code"] for d in run.deployments for f in d["findings"]}


@pytest.mark.parametrize("group, case", _cases(), ids=[f"{g}/{c.name}" for g, c in _cases()])
def test_case(group, case):
    exit_code, codes, checked = _expectation(case)
    run = run_cli("--format", "json", "--allow-empty", f"{group}/{case.name}", cwd=HERE)  # a case alone may hold no deployment
    assert run.data["errors"] == [], run.data["errors"]
    assert _codes(run) == codes, run.stdout
    assert sum(1 for d in run.deployments if d["mode"] != "skipped") == checked, run.stdout
    assert run.exit_code == exit_code, run.stdout
    if group == "negative":
        assert exit_code == 0, "a negative case never fails the run"


def test_there_are_enough_realistic_inputs():
    files = [p for g in ("positive", "negative") for p in (HERE / g).rglob("*") if p.is_file()]
    assert len(files) >= 40
    assert len({p.suffix or p.name for p in files}) >= 8  # .sh .yaml .md .mdx .rst Dockerfile .yml .tpl ...


def test_a_walk_of_the_whole_repository_has_the_verdict_of_the_dsv4_deployments_alone():
    """Operators' custom resources, a Helm chart, docs, harness YAML and launches of other
    models around the DSV4 deployments change nothing: same findings, same exit code."""
    alone = run_cli("--format", "json", "positive", cwd=HERE)
    both = run_cli("--format", "json", "positive", "negative", cwd=HERE)
    noise = run_cli("--format", "json", "negative", cwd=HERE)
    assert noise.exit_code == 0 and noise.data["errors"] == []
    assert both.data["errors"] == alone.data["errors"] == []
    assert both.exit_code == alone.exit_code == 1

    def findings(run, severities=("error", "warning")):  # type: ignore[no-untyped-def]
        return sorted((d["file"], f["code"], f["location"]["line"] if f.get("location") else 0) for d in run.deployments for f in d["findings"] if f["severity"] in severities)

    assert findings(both) == findings(alone)
    checked = [d for d in both.deployments if d["mode"] != "skipped"]
    assert {d["file"] for d in checked} <= {d["file"] for d in alone.deployments}
