"""SWA102 paged-geometry-mismatch: (page_size, sliding_window, ring_capacity) of the two pools."""

from __future__ import annotations

import json

from conftest import EAGLE, V4_FLASH, edits, loc, related
from conftest import only as the_only

W256_DRAFT = "speculative-draft-model-path: models/mtp256\n"  # line 5 after EAGLE
PAGED_MSG = "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(256, 256, None)"


def only(run, code="SWA102"):
    return the_only(run, code)


def copied_page_size(side: str, server_extra: str = "") -> str:
    """A PD prefill deployment file whose ``side`` pool has a page size of 64 copied from a log
    (line 8 or 9 ``SIDE:``, the geometry one line below)."""
    return (
        "swacheck: 1\n"
        "server:\n"
        "  model-path: models/v4\n"
        "  speculative-algorithm: EAGLE\n"
        "  speculative-num-steps: 3\n"
        "  speculative-eagle-topk: 1\n"
        "  disaggregation-mode: prefill\n"
        f"{server_extra}"
        f"{side}:\n"
        "  geometry: {page_size: 64}\n"
    )


def test_cuda_prefill_with_own_nextn_draft_passes(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: prefill\n"})
    assert run.exit_code == 0
    assert run.codes() == []
    dep = run.deployments[0]
    assert dep["mode"] == "paged"
    assert dep["target"]["tuple"] == dep["draft"]["tuple"] == [256, 128, None]


def test_window_256_draft_on_pd_decode_is_an_error_with_sglangs_message(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: decode\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == PAGED_MSG + " (sliding_window 128 vs 256; target vs draft)"
    assert loc(f) == ("server.yaml", 5, 1)


def test_fix_removes_speculative_draft_model_path(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: decode\n"})
    f = only(run)
    assert f["fix"]["description"].startswith("Remove speculative-draft-model-path:")
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_alias_speculative_draft_model_is_removed_too(lint):
    run = lint(
        {
            "server.yaml": EAGLE
            + "speculative-draft-model: models/mtp256\ndisaggregation-mode: decode\n"
        }
    )
    f = only(run)
    assert f["fix"]["description"].startswith("Remove speculative-draft-model:")
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_without_pd_the_mismatch_is_a_note_and_exit_0(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT})
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "note"
    assert f["message"].startswith(
        "target and draft SWA geometry differ (sliding_window 128 vs 256)"
    )
    assert f["message"].endswith("where it would fail with: " + PAGED_MSG)
    assert run.deployments[0]["checked_by_sglang"] is False


def test_align_to_draft_edits_the_target_config_json(lint):
    run = lint(
        {"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: decode\n"}, "--align-to", "draft"
    )
    f = only(run)
    assert loc(f) == ("models/v4/config.json", 14, 21)
    assert edits(f) == [("models/v4/config.json", 14, 21, 14, 24, "256")]


def test_rocm_without_the_unified_backend_is_paged(lint):
    run = lint(
        {"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"}, "--platform", "rocm"
    )
    assert run.deployments[0]["mode"] == "paged"
    assert only(run)["message"].startswith(PAGED_MSG)
    assert "SWA101" not in run.codes()


def test_unified_backend_env_on_cuda_stays_paged(lint):
    run = lint(
        {"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"},
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert run.deployments[0]["mode"] == "paged"
    assert only(run)["severity"] == "error"


def test_npu_uses_page_size_128_on_both_pools(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: decode\n"}, "--platform", "npu")
    assert run.exit_code == 0
    assert (
        run.deployments[0]["target"]["tuple"]
        == run.deployments[0]["draft"]["tuple"]
        == [128, 128, None]
    )


def test_dcp_size_2_scales_the_draft_page_size(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: decode\ndcp-size: 2\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(512, 128, None)"
    )
    assert "page_size 256 vs 512" in f["message"]
    assert loc(f)[:2] == ("server.yaml", 6)  # dcp-size
    assert f["fix"]["description"].startswith("The draft pool's page is page size x dcp-size (512)")
    assert edits(f) == [("server.yaml", 6, 11, 6, 12, "1")]


def test_explicit_draft_page_size_with_dcp_size_is_evidence_not_a_dcp_edit(lint):
    deploy = copied_page_size("draft", "  dcp-size: 2\n")
    run = lint({"deploy.yaml": deploy})
    f = only(run)
    assert "draft=(64, 128, None)" in f["message"]
    assert edits(f) == []  # the copied page size is the evidence; dcp-size is not what made it
    assert "dcp-size" not in f["fix"]["description"].split(":")[0]


def test_target_page_size_from_a_log_without_dcp_size_has_no_edit(lint):
    deploy = copied_page_size("target")
    run = lint({"deploy.yaml": deploy})
    assert run.exit_code == 1
    f = only(run)
    assert "target=(64, 128, None), draft=(256, 128, None)" in f["message"]
    assert edits(f) == []
    # the draft's page size is SGLang's default (no position): the finding names the deployment,
    # and its related note the copied target number
    assert loc(f) == ("deploy.yaml", 1, 1)
    assert related(f) == [("deploy.yaml", 9, 25, "target page_size 64 comes from here")]


def test_explicit_draft_page_size_is_evidence_not_fixed(lint):
    deploy = copied_page_size("draft")
    run = lint({"deploy.yaml": deploy})
    f = only(run)
    assert "target=(256, 128, None), draft=(64, 128, None)" in f["message"]
    assert loc(f) == ("deploy.yaml", 9, 25)
    assert edits(f) == []


def test_dspark_bundled_target_fixes_the_draft_window_instead_of_dropping_the_draft(lint):
    bundled = json.loads(V4_FLASH)
    bundled["dspark_block_size"] = (
        16  # SGLang's checkpoint_bundles_dspark_draft: may lack a NextN head
    )
    files = {
        "models/v4/config.json": json.dumps(bundled, indent=2) + "\n",
        "server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: decode\n",
    }
    run = lint(files)
    f = only(run)
    assert f["fix"]["description"].startswith("Set the draft model's sliding_window to 128")
    assert edits(f) == [("models/mtp256/config.json", 14, 21, 14, 24, "128")]


def test_draft_path_equal_to_the_target_checkpoint_passes(lint):
    run = lint(
        {
            "server.yaml": EAGLE
            + "speculative-draft-model-path: models/v4\ndisaggregation-mode: prefill\n"
        }
    )
    assert run.exit_code == 0
    assert run.codes() == []


def test_json_model_override_of_sliding_window_applies_to_both_pools(lint):
    server = (
        EAGLE
        + W256_DRAFT
        + "disaggregation-mode: decode\njson-model-override-args: '{\"sliding_window\": 128}'\n"
    )
    run = lint({"server.yaml": server})
    assert run.exit_code == 0
    assert "SWA102" not in run.codes()


def test_no_speculative_decoding_has_no_draft_pool_to_compare(lint):
    run = lint({"server.yaml": "model-path: models/v4\ndisaggregation-mode: prefill\n"})
    assert run.exit_code == 0
    assert run.deployments[0]["mode"] == "skipped"
    assert run.deployments[0]["draft"] is None
