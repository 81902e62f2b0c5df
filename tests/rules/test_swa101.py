"""SWA101 unified-ring-mismatch: (window, ring_size, pages) of the target and draft pools."""

from __future__ import annotations

import json

from conftest import EAGLE, V4_FLASH, edits, loc, related
from conftest import only as the_only

UNIFIED = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
W256_DRAFT = "speculative-draft-model-path: models/mtp256\n"  # line 5 after EAGLE
RING_MSG = "DSV4 target and draft pools must share SWA ring geometry: target=(128, 131, 33667), draft=(256, 259, 66563)"


def only(run, code="SWA101"):
    return the_only(run, code)


def test_prefill_with_the_checkpoints_own_nextn_draft_passes(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: prefill\n"}, *UNIFIED)
    assert run.exit_code == 0
    assert run.codes() == []
    dep = run.deployments[0]
    assert dep["mode"] == "unified" and dep["checked_by_sglang"] is True
    assert dep["target"]["tuple"] == dep["draft"]["tuple"] == [128, 131, 33667]


def test_decode_with_16_requests_gets_extra_slots_on_both_pools(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: decode\nmax-running-requests: 16\n"}, *UNIFIED
    )
    assert run.exit_code == 0
    assert "SWA101" not in run.codes()
    assert (
        run.deployments[0]["target"]["tuple"]
        == run.deployments[0]["draft"]["tuple"]
        == [128, 131, 6419]
    )


def test_decode_with_attention_dp_2_and_64_requests_matches(lint):
    server = (
        EAGLE
        + "disaggregation-mode: decode\nmax-running-requests: 64\nattn-dp-size: 2\ntp-size: 8\n"
    )
    run = lint({"server.yaml": server}, *UNIFIED)
    assert run.exit_code == 0
    assert run.codes() == []
    assert run.deployments[0]["draft"]["tuple"] == [128, 131, 12707]


def test_window_256_draft_under_pd_prefill_is_an_error_with_sglangs_tuples(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"}, *UNIFIED)
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(RING_MSG)
    assert "window 128 vs 256, ring_size 131 vs 259, pages 33667 vs 66563" in f["message"]
    assert loc(f) == ("server.yaml", 5, 1)  # the speculative-draft-model-path key
    related = {(r["file"], r["line"]) for r in f["related"]}
    assert related == {("models/v4/config.json", 14), ("models/mtp256/config.json", 14)}


def test_fix_removes_the_draft_model_path_line(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"}, *UNIFIED)
    f = only(run)
    assert f["fix"]["description"].startswith("Remove speculative-draft-model-path")
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_same_mismatch_without_pd_is_a_note_and_exit_0(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT}, *UNIFIED)
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "note"
    assert f["message"].startswith("target and draft SWA geometry differ (window 128 vs 256")
    assert "SGLang checks this only under PD disaggregation" in f["message"]
    assert RING_MSG in f["message"]
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_note_fails_the_run_with_fail_on_note(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT}, *UNIFIED, "--fail-on", "note")
    assert run.exit_code == 1
    assert only(run)["severity"] == "note"


def test_align_to_draft_moves_the_target_window_instead(lint):
    run = lint(
        {"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"},
        *UNIFIED,
        "--align-to",
        "draft",
    )
    f = only(run)
    assert f["severity"] == "error"
    assert loc(f) == ("models/v4/config.json", 14, 21)
    assert edits(f) == [("models/v4/config.json", 14, 21, 14, 24, "256")]
    assert "target model's sliding_window to 256" in f["fix"]["description"]


def test_deployment_file_platform_and_env_select_unified_mode(lint):
    deploy = (
        "swacheck: 1\n"
        "platform: rocm\n"
        "env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"
        "server:\n"
        "  model-path: models/v4\n"
        "  speculative-draft-model-path: models/mtp256\n"
        "  speculative-algorithm: EAGLE\n"
        "  speculative-num-steps: 3\n"
        "  speculative-eagle-topk: 1\n"
        "  disaggregation-mode: prefill\n"
    )
    run = lint({"deploy.yaml": deploy})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(RING_MSG)
    assert loc(f) == ("deploy.yaml", 6, 1)
    assert edits(f) == [("deploy.yaml", 6, 1, 7, 1, "")]


def test_paged_platform_reports_swa102_not_swa101(lint):
    run = lint({"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"})
    assert run.exit_code == 1
    assert "SWA101" not in run.codes()
    assert "SWA102" in run.codes()


def test_two_steps_give_three_draft_tokens_in_the_ring(lint):
    server = (
        EAGLE.replace("speculative-num-steps: 3", "speculative-num-steps: 2")
        + W256_DRAFT
        + "disaggregation-mode: prefill\n"
    )
    run = lint({"server.yaml": server}, *UNIFIED)
    f = only(run)
    assert "target=(128, 130, 33410), draft=(256, 258, 66306)" in f["message"]


def test_explicit_draft_pages_copied_from_a_prefill_log_mismatch_a_decode_server(lint):
    deploy = (
        "swacheck: 1\n"
        "platform: rocm\n"
        "env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"
        "server:\n"
        "  model-path: models/v4\n"
        "  speculative-algorithm: EAGLE\n"
        "  speculative-num-steps: 3\n"
        "  speculative-eagle-topk: 1\n"
        "  disaggregation-mode: decode\n"
        "  max-running-requests: 16\n"
        "draft:\n"
        "  geometry:\n"
        "    pages: 33667\n"
    )
    run = lint({"deploy.yaml": deploy})
    assert run.exit_code == 1
    f = only(run)
    assert (
        "target=(128, 131, 6419), draft=(128, 131, 33667) (pages 6419 vs 33667; target vs draft)"
        in f["message"]
    )
    assert loc(f) == ("deploy.yaml", 13, 12)
    assert edits(f) == []  # numbers copied from a log are evidence, never "fixed"
    # the target's pages are derived (slots x ring): the related note points at the slots' input
    assert related(f) == [
        ("deploy.yaml", 10, 25, "target pages 6419 comes from here"),
        ("deploy.yaml", 13, 12, "draft pages 33667 comes from here"),
    ]
    assert "not the copied numbers" in f["fix"]["description"]


def test_numbers_from_a_log_point_at_the_draft_window_first(lint):
    deploy = (
        "swacheck: 1\n"
        "target:\n"
        "  geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}\n"
        "draft:\n"
        "  geometry: {unified: true, window: 256, ring_size: 259, pages: 66563}\n"
    )
    run = lint({"log.yaml": deploy})
    assert run.exit_code == 1  # no server: checked as a PD launch
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(RING_MSG)
    assert loc(f) == ("log.yaml", 5, 37)
    assert edits(f) == []


def test_equal_explicit_numbers_from_a_log_pass(lint):
    deploy = (
        "swacheck: 1\n"
        "target: {geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}}\n"
        "draft: {geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}}\n"
    )
    run = lint({"log.yaml": deploy})
    assert run.exit_code == 0
    assert run.codes() == []


def test_target_without_nextn_layers_fixes_the_draft_config_instead_of_dropping_it(lint):
    no_nextn = json.loads(V4_FLASH)
    no_nextn["num_nextn_predict_layers"] = 0
    files = {
        "models/plain/config.json": json.dumps(no_nextn, indent=2) + "\n",
        "server.yaml": EAGLE.replace("models/v4", "models/plain")
        + W256_DRAFT
        + "disaggregation-mode: prefill\n",
    }
    run = lint(files, *UNIFIED)
    f = only(run)
    assert loc(f) == ("models/mtp256/config.json", 14, 21)
    assert edits(f) == [("models/mtp256/config.json", 14, 21, 14, 24, "128")]


def test_the_documented_example_gives_exactly_this_finding(tmp_path):
    """`swacheck rule SWA101`'s example, run as written (its comment gives the platform and env)."""
    import re
    import shutil

    from conftest import EXAMPLES, run_cli

    from swacheck.rules import swa101

    example = re.search(r"```yaml\n(.*?)```", swa101.__doc__ or "", re.S).group(1)
    (tmp_path / "prefill.yaml").write_text(example)
    shutil.copytree(
        EXAMPLES / "models" / "DeepSeek-V4-Flash", tmp_path / "models" / "DeepSeek-V4-Flash"
    )
    shutil.copytree(
        EXAMPLES / "models" / "DeepSeek-V4-Flash-MTP-w256",
        tmp_path / "models" / "DeepSeek-V4-Flash-MTP",
    )
    run = run_cli(
        "--format",
        "json",
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
        "prefill.yaml",
        cwd=tmp_path,
    )
    assert [f["code"] for f in run.deployments[0]["findings"]] == ["SWA101"]


def test_copied_numbers_are_never_edited_dropping_a_draft_is_unsafe(lint):
    """A swacheck file's own `geometry` numbers are copied from a failing server's log: writing
    the target's over the draft's would hide the evidence and fix nothing, so there is no edit
    (it used to be a "safe" fix); dropping the draft checkpoint changes what runs (unsafe)."""
    copied = (
        "swacheck: 1\n"
        "target:\n"
        "  geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}\n"
        "draft:\n"
        "  geometry: {unified: true, window: 128, ring_size: 131, pages: 6419}\n"
    )
    f = only(lint({"log.yaml": copied}))
    assert edits(f) == []
    assert "not the copied numbers" in f["fix"]["description"]
    f = only(
        lint(
            {
                "log.yaml": copied.replace(
                    "window: 128, ring_size: 131, pages: 6419",
                    "window: 256, ring_size: 259, pages: 66563",
                )
            }
        )
    )
    assert edits(f) == []  # all three numbers are the file's own: evidence
    run = lint({"server.yaml": EAGLE + W256_DRAFT + "disaggregation-mode: prefill\n"}, *UNIFIED)
    assert only(run)["fix"]["safe"] is False  # the draft path's line is deleted
