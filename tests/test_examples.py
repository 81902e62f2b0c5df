"""Acceptance: every bundled example gets its documented verdict and exactly SGLang's tuples.

The expected tuples are the ones SGLang 0.5.23 compares in
``srt/disaggregation/utils.py`` ``setup_state_kv_args`` (worked scenarios of the research
notes: 257 x 131 = 33667, 49 x 131 = 6419, 97 x 131 = 12707, 257 x 259 = 66563).
"""

from __future__ import annotations

import re

import pytest

from conftest import EXAMPLES, ROOT, run_cli

PAGED = [256, 128, None]
# file -> (expected finding codes with severity, target tuple, draft tuple)
EXPECTED = {
    "cuda-paged-prefill.yaml": ([], PAGED, PAGED),
    "cuda-paged-decode-draft-window.yaml": (["SWA102:error"], PAGED, [256, 256, None]),
    "cuda-no-pd-draft-window.yaml": (["SWA102:note"], PAGED, [256, 256, None]),
    "cuda-nextn.yaml": (["SWA202:error"], PAGED, PAGED),
    "cuda-dp-attention-in-config.yaml": (["SWA303:error"], PAGED, PAGED),
    "rocm-unified-prefill.yaml": ([], [128, 131, 33667], [128, 131, 33667]),
    "rocm-unified-decode.yaml": ([], [128, 131, 6419], [128, 131, 6419]),
    "rocm-unified-dp-attention.yaml": ([], [128, 131, 12707], [128, 131, 12707]),
    "rocm-paged-env-unset.yaml": ([], PAGED, PAGED),
    "rocm-unified-draft-window.yaml": (["SWA101:error"], [128, 131, 33667], [256, 259, 66563]),
    "rocm-unified-fp8-pp.yaml": (["SWA204:error"], [128, 131, 6419], [128, 131, 6419]),
    "from-log.yaml": (["SWA101:error"], [128, 131, 33667], [256, 259, 66563]),
}


@pytest.fixture(scope="module")
def report():
    run = run_cli("--format", "json", "examples/", cwd=ROOT)
    return run


def test_every_example_is_listed():
    on_disk = {p.name for p in EXAMPLES.glob("*.yaml")}
    assert on_disk == set(EXPECTED)


def test_examples_exit_1_because_some_fail(report):
    assert report.exit_code == 1
    assert report.data["errors"] == []
    assert report.data["summary"]["deployments"] == len(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_verdict_and_tuples(report, name):
    codes, target, draft = EXPECTED[name]
    (dep,) = [d for d in report.deployments if d["file"] == f"examples/{name}"]
    assert [f"{f['code']}:{f['severity']}" for f in dep["findings"]] == codes
    assert dep["target"]["tuple"] == target
    assert dep["draft"]["tuple"] == draft


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_header_states_its_verdict(name):
    """Each example's comment says what swacheck reports, so a reader can trust the file."""
    text = (EXAMPLES / name).read_text()
    codes = EXPECTED[name][0]
    if codes:
        for code in codes:
            assert code.split(":")[0] in text
    else:
        assert re.search(r"Expected: pass", text)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_example_alone_gives_the_same_verdict(name):
    run = run_cli("--format", "json", f"examples/{name}", cwd=ROOT)
    codes = EXPECTED[name][0]
    assert run.exit_code == (1 if any(c.endswith(":error") for c in codes) else 0)
    assert [f"{f['code']}:{f['severity']}" for f in run.deployments[0]["findings"]] == codes


def test_server_configs_referenced_by_deployment_files_are_not_checked_twice(report):
    files = {d["file"] for d in report.deployments}
    assert not any(f.startswith("examples/sglang/") for f in files)
