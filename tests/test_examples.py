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
    "cuda-paged/prefill.yaml": ([], PAGED, PAGED),
    "cuda-draft-window/decode.yaml": (["SWA102:error"], PAGED, [256, 256, None]),
    "cuda-no-pd/server.yaml": (["SWA102:note"], PAGED, [256, 256, None]),
    "cuda-nextn/prefill.yaml": (["SWA202:error"], PAGED, PAGED),
    "cuda-dp-attention-in-config/decode.yaml": (["SWA303:error"], PAGED, PAGED),
    "rocm-unified/prefill.yaml": ([], [128, 131, 33667], [128, 131, 33667]),
    "rocm-unified/decode.yaml": ([], [128, 131, 6419], [128, 131, 6419]),
    "rocm-dp-attention/decode.yaml": ([], [128, 131, 12707], [128, 131, 12707]),
    "rocm-paged/prefill.yaml": ([], PAGED, PAGED),
    "rocm-draft-window/prefill.yaml": (["SWA101:error"], [128, 131, 33667], [256, 259, 66563]),
    "rocm-fp8-pp/decode.yaml": (
        ["SWA204:error", "SWA207:error"],
        [128, 131, 6419],
        [128, 131, 6419],
    ),
    "from-log/tuples.yaml": (["SWA101:error"], [128, 131, 33667], [256, 259, 66563]),
    "cuda-paged/decode.yaml": ([], PAGED, PAGED),
    "pd-unified-one-side/prefill.yaml": ([], PAGED, PAGED),
    "pd-unified-one-side/decode.yaml": (["SWA404:error"], [128, 131, 6419], [128, 131, 6419]),
    "preflight-hopper-deepep/server.yaml": (["SWA501:error"], PAGED, PAGED),
    "preflight-memory/server.yaml": (["SWA504:error"], PAGED, PAGED),
}
# Launch commands, Kubernetes manifests and Compose files in sub-folders:
# (file under examples/, deployment name) -> (finding codes with severity, target tuple, draft tuple)
LAUNCH_EXPECTED = {
    ("launch/decode.sh", "decode"): ([], [128, 131, 6419], [128, 131, 6419]),
    ("launch/Dockerfile", "Dockerfile"): (["SWA201:warning"], [128, 131, 33667], [128, 131, 33667]),
    ("k8s/pd-rocm.yaml", "Deployment/dsv4-flash-prefill/sglang"): (
        [],
        [128, 131, 33667],
        [128, 131, 33667],
    ),
    ("k8s/pd-rocm.yaml", "Deployment/dsv4-flash-decode/sglang"): (
        [],
        [128, 131, 6419],
        [128, 131, 6419],
    ),
    ("compose/docker-compose.yaml", "compose/dsv4-decode"): (
        ["SWA102:error"],
        PAGED,
        [256, 256, None],
    ),
}
LAUNCH_FILES = sorted({f for f, _ in LAUNCH_EXPECTED})


@pytest.fixture(scope="module")
def report():
    run = run_cli("--format", "json", "examples/", cwd=ROOT)
    return run


def test_every_example_is_listed():
    on_disk = {
        p.relative_to(EXAMPLES).as_posix()
        for p in EXAMPLES.glob("*/*.yaml")
        if not p.name.startswith("sglang-")
    }
    assert on_disk - {f for f, _ in LAUNCH_EXPECTED} == set(EXPECTED)
    launch = {
        p.relative_to(EXAMPLES).as_posix()
        for folder in ("launch", "k8s", "compose")
        for p in (EXAMPLES / folder).iterdir()
    }
    assert launch == set(LAUNCH_FILES)


def test_examples_exit_1_because_some_fail(report):
    assert report.exit_code == 1
    assert report.data["errors"] == []
    assert report.data["summary"]["deployments"] == len(EXPECTED) + len(LAUNCH_EXPECTED)


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
    """Named alone, a file gets the verdict it gets in the whole run: a PD server's partner in its
    folder is found and checked with it even when not named (as when pre-commit stages one file)."""
    run = run_cli("--format", "json", f"examples/{name}", cwd=ROOT)
    (dep,) = [d for d in run.deployments if d["file"] == f"examples/{name}"]
    assert [f"{f['code']}:{f['severity']}" for f in dep["findings"]] == EXPECTED[name][0]
    others = {d["file"].removeprefix("examples/") for d in run.deployments} - {name}
    assert others <= {
        n for n in EXPECTED if n.split("/")[0] == name.split("/")[0]
    }  # only its partner
    codes = [
        c for d in run.deployments for c in (f"{f['code']}:{f['severity']}" for f in d["findings"])
    ]
    assert run.exit_code == (1 if any(c.endswith(":error") for c in codes) else 0)


@pytest.mark.parametrize(
    "key",
    sorted(LAUNCH_EXPECTED),
    ids=lambda k: f"{k[0]}:{k[1]}" if isinstance(k, tuple) else str(k),
)
def test_launch_example_verdict_and_tuples(report, key):
    file, name = key
    codes, target, draft = LAUNCH_EXPECTED[key]
    (dep,) = [
        d for d in report.deployments if d["file"] == f"examples/{file}" and d["name"] == name
    ]
    assert [f"{f['code']}:{f['severity']}" for f in dep["findings"]] == codes
    assert dep["target"]["tuple"] == target
    assert dep["draft"]["tuple"] == draft


@pytest.mark.parametrize("file", LAUNCH_FILES)
def test_launch_example_header_states_its_verdict(file):
    text = (EXAMPLES / file).read_text()
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    codes = [c for (f, _), (cs, _, _) in LAUNCH_EXPECTED.items() if f == file for c in cs]
    if codes:
        for code in codes:
            assert code.split(":")[0] in header and code.split(":")[1] in header
    else:
        assert re.search(r"Expected: pass", header)


@pytest.mark.parametrize("file", LAUNCH_FILES)
def test_each_launch_example_alone_gives_the_same_verdict(file):
    run = run_cli("--format", "json", f"examples/{file}", cwd=ROOT)
    folder = file.split("/")[0]  # a PD server's partner beside it is checked too
    expected = {
        name: codes
        for (f, name), (codes, _, _) in LAUNCH_EXPECTED.items()
        if f.split("/")[0] == folder
    }
    assert run.exit_code == (
        1 if any(c.endswith(":error") for cs in expected.values() for c in cs) else 0
    ), run.stderr
    assert {
        d["name"]: [f"{x['code']}:{x['severity']}" for x in d["findings"]] for d in run.deployments
    } == expected


def test_server_configs_referenced_by_deployment_files_are_not_checked_twice(report):
    files = {d["file"] for d in report.deployments}
    assert not any("/sglang-" in f for f in files)


def test_pairs_found_in_the_examples(report):
    pairs = {(p["prefill"]["file"], p["decode"]["file"]) for p in report.data["pairs"]}
    assert ("examples/cuda-paged/prefill.yaml", "examples/cuda-paged/decode.yaml") in pairs
    assert ("examples/rocm-unified/prefill.yaml", "examples/rocm-unified/decode.yaml") in pairs
    (broken,) = [
        p
        for p in report.data["pairs"]
        if p["decode"]["file"] == "examples/pd-unified-one-side/decode.yaml"
    ]
    assert broken["compared"]["unified_kv"] == {
        "prefill": False,
        "decode": True,
        "differs": True,
        "prefill_from": "rocm, SGLANG_HACK_FLASHMLA_BACKEND=unset (auto)",
        "decode_from": "ROCm and SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    }
    assert [f["code"] for f in broken["findings"]] == ["SWA404"]
    # no server is left with an ambiguous partner
    assert not [f for d in report.deployments for f in d["findings"] if f["code"] == "SWA400"]
