"""SWA248 serving-args-refused: the FP4 indexer's GPUs, and prefill_complete's optimistic prefill."""

from __future__ import annotations

import pytest
from conftest import loc, only

BASE = "model-path: models/v4\ntp-size: 8\n"
FP4 = "enable-deepseek-v4-fp4-indexer: true\n"
COMPLETE = (
    "model-path: models/v4\ntp-size: 1\ndisaggregation-mode: prefill\n"
    "disaggregation-decode-allocation-policy: prefill_complete\n"
)


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 467), ("0.5.22", 446)])
@pytest.mark.parametrize(("gpu", "arch"), [("H200", "Hopper, SM90"), ("MI300X", "CDNA3, gfx942")])
def test_fp4_indexer_on_a_gpu_without_it(lint, version, line, gpu, arch):
    run = lint({"server.yaml": BASE + FP4}, "--sglang-version", version, "--gpu", gpu)
    assert run.exit_code == 1
    f = only(run, "SWA248")
    assert f["message"] == (
        "enable-deepseek-v4-fp4-indexer: true: ValueError: --enable-deepseek-v4-fp4-indexer "
        f"requires SM100, SM120, or gfx95 GPUs with FP4 indexer support. ({gpu}: {arch}) "
        f"(arg_groups/serving_hook.py:{line} handle_environment_variables, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 3, 33)


@pytest.mark.parametrize("gpu", ["B200", "MI355X", "RTX PRO 6000", None])
def test_fp4_indexer_where_it_runs_or_the_gpu_is_not_named(lint, gpu):
    args = ("--gpu", gpu) if gpu else ()
    assert lint({"server.yaml": BASE + FP4}, *args).findings("SWA248") == []


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 538), ("0.5.22", 517)])
def test_prefill_complete_with_optimistic_prefill_off(lint, version, line):
    run = lint(
        {"server.yaml": COMPLETE + "optimistic-prefill-attempts: -1\n"}, "--sglang-version", version
    )
    f = only(run, "SWA248")
    assert f["message"] == (
        "optimistic-prefill-attempts: -1: ValueError: prefill_complete requires optimistic "
        "prefill, but the resolved model/cache configuration disabled it. "
        f"(arg_groups/serving_hook.py:{line} handle_other_validations, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 5, 30)


@pytest.mark.parametrize(
    "text",
    [
        COMPLETE,  # 0 is turned into 1 by the PD hook
        COMPLETE + "optimistic-prefill-attempts: 2\n",
        COMPLETE.replace("tp-size: 1", "tp-size: 8")
        + "optimistic-prefill-attempts: -1\n",  # SWA207
    ],
)
def test_prefill_complete_otherwise_is_not_this_rule(lint, text):
    assert lint({"server.yaml": text}).findings("SWA248") == []


def test_releases_not_read_stay_silent(lint):
    run = lint({"server.yaml": BASE + FP4}, "--sglang-version", "0.5.21", "--gpu", "H200")
    assert run.findings("SWA248") == []
