"""SWA103 unified-mode-mismatch: explicit unified flags that differ between the pools."""

from __future__ import annotations

from conftest import EAGLE, edits, loc
from conftest import only as the_only

MODE_MSG = "DSV4 target and draft pools must use the same unified-KV mode"

DOC_EXAMPLE = (
    "swacheck: 1\n"
    "target: {geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}}\n"
    "draft: {geometry: {unified: false, page_size: 256, sliding_window: 128}}\n"
)

BLOCK = (
    "swacheck: 1\n"
    "target:\n"
    "  geometry:\n"
    "    unified: true\n"
    "    window: 128\n"
    "draft:\n"
    "  geometry:\n"
    "    unified: false\n"
    "    window: 128\n"
)


def server_deploy(pd: bool) -> str:
    return (
        "swacheck: 1\n"
        "server:\n"
        "  model-path: models/v4\n"
        "  speculative-algorithm: EAGLE\n"
        "  speculative-num-steps: 3\n"
        "  speculative-eagle-topk: 1\n"
        + ("  disaggregation-mode: decode\n" if pd else "")
        + "draft:\n"
        "  geometry:\n"
        "    unified: true\n"
    )


def only(run, code="SWA103"):
    return the_only(run, code)


def test_same_explicit_unified_flag_passes(lint):
    deploy = (
        "swacheck: 1\n"
        "target: {geometry: {unified: true, window: 128}}\n"
        "draft: {geometry: {unified: true, window: 128}}\n"
    )
    run = lint({"d.yaml": deploy})
    assert run.exit_code == 0
    assert "SWA103" not in run.codes()


def test_derived_flags_never_differ(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: prefill\n"},
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert run.exit_code == 0
    assert "SWA103" not in run.codes()


def test_docstring_example_is_an_error_at_the_draft_flag(lint):
    run = lint({"d.yaml": DOC_EXAMPLE})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == MODE_MSG + " (target unified=True, draft unified=False)"
    assert loc(f) == ("d.yaml", 3, 29)
    assert edits(f) == [("d.yaml", 3, 29, 3, 34, "true")]
    assert [(r["line"], r["column"]) for r in f["related"]] == [(2, 30)]


def test_block_style_fix_sets_the_draft_flag_to_the_targets(lint):
    run = lint({"d.yaml": BLOCK})
    f = only(run)
    assert loc(f) == ("d.yaml", 8, 14)
    assert edits(f) == [("d.yaml", 8, 14, 8, 19, "true")]


def test_align_to_draft_edits_the_target_flag(lint):
    run = lint({"d.yaml": BLOCK}, "--align-to", "draft")
    f = only(run)
    assert loc(f) == ("d.yaml", 4, 14)
    assert edits(f) == [("d.yaml", 4, 14, 4, 18, "false")]


def test_server_without_pd_makes_it_a_note(lint):
    run = lint({"d.yaml": server_deploy(pd=False)})
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "note"
    assert (
        f["message"]
        == "not checked without PD disaggregation: "
        + MODE_MSG
        + " (target unified=False, draft unified=True)"
    )
    assert loc(f) == ("d.yaml", 9, 14)
    assert edits(f) == [("d.yaml", 9, 14, 9, 18, "false")]


def test_server_with_pd_makes_it_an_error(lint):
    run = lint({"d.yaml": server_deploy(pd=True)})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(MODE_MSG)
    assert loc(f) == ("d.yaml", 10, 14)


def test_mode_mismatch_suppresses_the_geometry_comparison(lint):
    deploy = (
        "swacheck: 1\n"
        "target: {geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}}\n"
        "draft: {geometry: {unified: false, window: 256, ring_size: 259, pages: 66563}}\n"
    )
    run = lint({"d.yaml": deploy})
    assert "SWA103" in run.codes()
    assert "SWA101" not in run.codes() and "SWA102" not in run.codes()
