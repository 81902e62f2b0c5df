"""SWA601-SWA604: the known-failures table (swacheck/sglang/data/known-failures.json) and the rules
that read it. Probes are modelled on the public reports' launches, with the release and GPU the
reports had; the working launches of the same threads stay free of findings."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from conftest import V4_FLASH, loc, only, run_cli

from swacheck.rules import BY_CODE
from swacheck.sglang import known_failures as kf
from swacheck.sglang.version import PROFILES

_DSPARK = json.loads(V4_FLASH)
_DSPARK["dspark_block_size"] = 5
MODELS = {"models/v4-dspark/config.json": json.dumps(_DSPARK)}

# 8x RTX 5090, SGLang 0.5.16 (sgl-project/sglang PR #33407, reproduction comment)
DSPARK_5090 = """\
SGLANG_JIT_DEEPGEMM_PRECOMPILE=0 SGLANG_ENABLE_SPEC_V2=1 \\
python3 -m sglang.launch_server \\
  --trust-remote-code \\
  --model-path models/v4-dspark \\
  --tp 8 \\
  --moe-runner-backend flashinfer_mxfp4 \\
  --mem-fraction-static 0.92 \\
  --speculative-algorithm DSPARK \\
  --chunked-prefill-size 4096 \\
  --cuda-graph-max-bs-decode 8 \\
  --host 0.0.0.0 --port 8000
"""
# B200 x2, DeepSeek-V4-Flash FP4 (sgl-project/sglang#27416)
LAUNCH = "python -m sglang.launch_server --model-path models/v4"
MEGAMOE = LAUNCH + " --tp 2 --ep 2 --moe-a2a-backend megamoe --disable-radix-cache\n"
# sgl-project/sglang#26690
HICACHE = LAUNCH + " --tp 8 --enable-hierarchical-cache --hicache-ratio 2\n"
# the AMD cookbook's FP8 cells (sgl-project/sglang PR #36405)
FP8_HUB = (
    "export SGLANG_USE_AITER=1\n"
    "python3 -m sglang.launch_server --model-path sgl-project/DeepSeek-V4-Flash-FP8 --tp 8\n"
)
FP8_MAP = ("--model-config", "sgl-project/DeepSeek-V4-Flash-FP8=models/v4")


def _run(tree, script: str, *args: str):
    root = tree({**MODELS, "launch.sh": script})
    return run_cli("--format", "json", *args, "launch.sh", cwd=root)


@pytest.mark.parametrize("gpu", ["RTX 5090", "RTX PRO 6000", "RTX PRO 5000"])
@pytest.mark.parametrize("version", ["0.5.16", "0.5.17", "0.5.18"])
def test_dspark_on_sm120_is_the_known_capture_crash(tree, gpu, version):
    run = _run(tree, DSPARK_5090, "--gpu", gpu, "--sglang-version", version)
    f = only(run, "SWA601")
    assert f["severity"] == "error"
    assert "Check failed: num_tokens > 64" in f["message"]
    assert "fixed in 0.5.19" in f["message"]
    assert loc(f) == ("launch.sh", 8, 27)  # the DSPARK value
    assert run.exit_code == 1


@pytest.mark.parametrize(
    "args",
    [
        ("--gpu", "RTX 5090", "--sglang-version", "0.5.19"),  # the fixed release
        ("--gpu", "RTX 5090"),  # the default, 0.5.23
        ("--gpu", "H200", "--sglang-version", "0.5.17"),  # not SM12x
        ("--sglang-version", "0.5.17"),  # no GPU: not judged
    ],
)
def test_dspark_elsewhere_is_not_reported(tree, args):
    assert _run(tree, DSPARK_5090, *args).findings("SWA601") == []


def test_megamoe_with_fp4_experts_and_auto_runner(tree):
    run = _run(tree, MEGAMOE, "--gpu", "B200")
    f = only(run, "SWA602")
    assert "fall back to Triton" in f["message"] and "no release with the fix" in f["message"]
    assert loc(f) == ("launch.sh", 1, 87)  # the megamoe value
    # the working launch of the same thread names the runner
    fixed = MEGAMOE.replace("megamoe", "megamoe --moe-runner-backend deep_gemm")
    ok = _run(tree, fixed, "--gpu", "B200")
    assert ok.findings("SWA602") == [] and ok.exit_code == 0
    # FP8 experts never reach the FP4 fallback
    assert _run(tree, "SGLANG_DSV4_FP4_EXPERTS=0 " + MEGAMOE).findings("SWA602") == []


def test_hierarchical_cache_on_0_5_12_only(tree):
    f = only(_run(tree, HICACHE, "--sglang-version", "0.5.12"), "SWA603")
    assert "HiRadixCache only supports MHA, MLA, and NSA (DSA) models" in f["message"]
    for version in ("0.5.13", "0.5.23"):
        run = _run(tree, HICACHE, "--sglang-version", version)
        assert run.findings("SWA603") == [] and run.exit_code == 0
    unified = "SGLANG_ENABLE_UNIFIED_RADIX_TREE=1 " + HICACHE
    assert _run(tree, unified, "--sglang-version", "0.5.12").findings("SWA603") == []


def test_fp8_checkpoint_by_hub_id_without_the_variable(tree):
    run = _run(tree, FP8_HUB, "--gpu", "MI355X", *FP8_MAP)
    f = only(run, "SWA604")
    assert f["severity"] == "warning" and "SGLANG_DSV4_FP4_EXPERTS=0" in f["fix"]["description"]
    ok = FP8_HUB.replace("export SGLANG_USE_AITER=1", "export SGLANG_DSV4_FP4_EXPERTS=0")
    assert _run(tree, ok, "--gpu", "MI355X", *FP8_MAP).findings("SWA604") == []


def test_every_row_is_a_registered_rule_whose_doc_prints_the_evidence():
    rows = kf.table()
    assert sorted(rows) == [c for c in BY_CODE if c.startswith("SWA6") and c != "SWA600"]
    for code, row in rows.items():
        assert row.evidence and row.upstream and row.seen
        assert row.first in PROFILES and (not row.last or row.last in PROFILES)
        assert not row.fixed_in or row.fixed_in in PROFILES
        text = run_cli("rule", code).stdout
        assert "## Evidence" in text
        for e in row.evidence:
            assert e.where in text
        assert re.search(r":\d+", " ".join(e.where for e in row.evidence))  # file:line


@pytest.mark.parametrize("code", sorted(kf.table()))
def test_every_rows_example_is_caught(tree, code):
    """Each row's documented example (its `# swacheck ...` line says the options) fires the rule."""
    row = kf.row(code)
    first, _, body = row.example.partition("\n")
    args = shlex.split(first.removeprefix("# swacheck"))
    model = re.search(r"model-path: (\S+)", body).group(1)
    target = "models/v4-dspark" if "speculative-algorithm: DSPARK" in body else "models/v4"
    root = tree({**MODELS, "server.yaml": body + "\n"})
    run = run_cli(
        "--format", "json", *args, "--model-config", f"{model}={target}", "server.yaml", cwd=root
    )
    assert [f["code"] for f in run.findings(code)] == [code], run.stdout
