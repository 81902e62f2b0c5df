"""The worked scenarios of the DSV4 geometry (docs/sglang.md), with the exact tuples.

Corrections from the SGLang 0.5.23 wheel apply: EAGLE needs explicit top-k 1 *and*
num-steps (speculative_hook.py:1159); fp8 unified KV under PD is refused only with
pp-size > 1 or HiSparse (pool_configurator.py:148).
"""

from __future__ import annotations

import pytest
from conftest import EAGLE

ROCM = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")


def server(*lines: str) -> dict[str, str]:
    return {"server.yaml": EAGLE + "".join(line + "\n" for line in lines)}


# name, server lines, CLI options, target, draft, codes (under every release: test_releases.py)
SCENARIOS = [
    (
        "1 cuda paged",
        ["disaggregation-mode: prefill"],
        (),
        [256, 128, None],
        [256, 128, None],
        [],
    ),
    (
        "2 rocm unified prefill",
        ["disaggregation-mode: prefill"],
        ROCM,
        [128, 131, 33667],
        [128, 131, 33667],
        [],
    ),
    (
        "3 rocm decode mrr 16",
        ["disaggregation-mode: decode", "max-running-requests: 16"],
        ROCM,
        [128, 131, 6419],
        [128, 131, 6419],
        [],
    ),
    (
        "4 rocm decode dp attention",
        [
            "disaggregation-mode: decode",
            "attn-dp-size: 2",
            "max-running-requests: 64",
            "tp-size: 8",
        ],
        ROCM,
        [128, 131, 12707],
        [128, 131, 12707],
        [],
    ),
    (
        "5 rocm draft window 256",
        ["disaggregation-mode: prefill", "speculative-draft-model-path: models/mtp256"],
        ROCM,
        [128, 131, 33667],
        [256, 259, 66563],
        ["SWA101"],
    ),
    (
        "6 cuda draft window 256",
        ["disaggregation-mode: prefill", "speculative-draft-model-path: models/mtp256"],
        (),
        [256, 128, None],
        [256, 256, None],
        ["SWA102"],
    ),
    (
        "7 rocm env unset",
        ["disaggregation-mode: prefill"],
        ("--platform", "rocm"),
        [256, 128, None],
        [256, 128, None],
        [],
    ),
    (
        "10 cuda dcp 2",
        ["disaggregation-mode: prefill", "dcp-size: 2"],
        (),
        [256, 128, None],
        [512, 128, None],
        ["SWA102"],
    ),
]


@pytest.mark.parametrize("name, lines, platform, target, draft, codes", SCENARIOS)
def test_scenario(lint, name, lines, platform, target, draft, codes):
    run = lint(server(*lines), *platform)
    dep = run.deployments[0]
    assert dep["target"]["tuple"] == target
    assert dep["draft"]["tuple"] == draft
    assert run.codes() == codes
    assert run.exit_code == (1 if codes else 0)


def test_scenario_5_message_is_sglangs(lint):
    run = lint(
        server("disaggregation-mode: prefill", "speculative-draft-model-path: models/mtp256"), *ROCM
    )
    (finding,) = run.findings("SWA101")
    assert finding["message"].startswith(
        "DSV4 target and draft pools must share SWA ring geometry: "
        "target=(128, 131, 33667), draft=(256, 259, 66563)"
    )


def test_scenario_8_fp8_unified_pd_with_pp(lint):
    run = lint(
        server("disaggregation-mode: decode", "pp-size: 2"),
        *ROCM,
        "--env",
        "SGLANG_DSV4_UNIFIED_KV_FP8=1",
    )
    assert run.codes() == [
        "SWA204",
        "SWA207",
    ]  # and PP + MTP on a decode server (validation_hook.py:161)


def test_scenario_8_fp8_unified_pd_alone_is_accepted_by_0_5_23(lint):
    run = lint(
        server("disaggregation-mode: decode"), *ROCM, "--env", "SGLANG_DSV4_UNIFIED_KV_FP8=1"
    )
    assert run.codes() == []


def test_scenario_9_no_speculative_decoding_no_draft_pool(lint):
    run = lint({"server.yaml": "model-path: models/v4\ndisaggregation-mode: prefill\n"})
    dep = run.deployments[0]
    assert dep["mode"] == "skipped" and dep["draft"] is None
    assert run.exit_code == 0


def test_scenario_11_page_size_128_is_replaced(lint):
    run = lint(server("page-size: 128", "disaggregation-mode: prefill"))
    assert run.codes() == ["SWA201"]
    assert run.deployments[0]["target"]["tuple"] == [256, 128, None]


def test_scenario_12_eagle_topk_2_is_refused(lint):
    run = lint({"server.yaml": EAGLE.replace("topk: 1", "topk: 2")})
    assert run.codes() == ["SWA202"]
    assert run.exit_code == 1


def test_without_pd_a_mismatch_is_only_a_note(lint):
    run = lint(server("speculative-draft-model-path: models/mtp256"), *ROCM)
    assert [f["severity"] for f in run.deployments[0]["findings"]] == ["note"]
    assert run.exit_code == 0
    assert run_fail_on_note(lint) == 1


def run_fail_on_note(lint) -> int:
    return lint(
        server("speculative-draft-model-path: models/mtp256"), *ROCM, "--fail-on", "note"
    ).exit_code
