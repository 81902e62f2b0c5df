"""SWA104 draft-compression-ratios: explicit draft compression ratios must all be 0."""

from __future__ import annotations

from conftest import EAGLE, edits, loc
from conftest import only as the_only

RATIO_MSG = "DSV4 draft state transfer expects SWA-only NextN layers"


def deploy(ratios: str) -> str:
    # no server: numbers copied from a (PD) launch; both windows given so the pools resolve
    return (
        "swacheck: 1\n"
        "target: {geometry: {window: 128}}\n"
        f"draft: {{geometry: {{window: 128, compression_ratios: {ratios}}}}}\n"
    )


def server_deploy(pd: bool) -> str:
    return (
        "swacheck: 1\n"
        "server:\n"
        "  model-path: models/v4\n"
        "  speculative-algorithm: EAGLE\n"
        "  speculative-num-steps: 3\n"
        "  speculative-eagle-topk: 1\n"
        + ("  disaggregation-mode: prefill\n" if pd else "")
        + "draft:\n"
        "  geometry:\n"
        "    compression_ratios: [0, 4]\n"
    )


def only(run, code="SWA104"):
    return the_only(run, code)


def test_all_zero_ratios_pass(lint):
    run = lint({"d.yaml": deploy("[0, 0]")})
    assert run.exit_code == 0
    assert run.codes() == []


def test_derived_nextn_draft_is_never_reported(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: prefill\n"})
    assert run.exit_code == 0
    assert "SWA104" not in run.codes()


def test_non_zero_ratios_are_an_error_with_a_zero_fix(lint):
    run = lint({"d.yaml": deploy("[4, 128]")})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == RATIO_MSG + " (draft compression ratios [4, 128])"
    assert loc(f) == ("d.yaml", 3, 53)
    assert edits(f) == [("d.yaml", 3, 53, 3, 61, "[0, 0]")]


def test_empty_ratio_list_is_an_error_fixed_to_one_zero(lint):
    run = lint({"d.yaml": deploy("[]")})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == RATIO_MSG + " (draft compression ratios [])"
    assert edits(f) == [("d.yaml", 3, 53, 3, 55, "[0]")]


def test_draft_falls_back_to_the_target_model_config(lint):
    text = "swacheck: 1\ntarget: {model_config: models/v4}\ndraft: {geometry: {compression_ratios: [4, 128]}}\n"
    run = lint({"d.yaml": text})
    assert run.exit_code == 1
    assert loc(only(run)) == ("d.yaml", 3, 40)


def test_server_without_pd_makes_it_a_note(lint):
    run = lint({"d.yaml": server_deploy(pd=False)})
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "note"
    assert (
        f["message"]
        == "not checked without PD disaggregation: "
        + RATIO_MSG
        + " (draft compression ratios [0, 4])"
    )
    assert loc(f) == ("d.yaml", 9, 25)


def test_server_with_pd_makes_it_an_error(lint):
    run = lint({"d.yaml": server_deploy(pd=True)})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert edits(f) == [("d.yaml", 10, 25, 10, 31, "[0, 0]")]


def test_docstring_example_is_an_error(lint):
    text = (
        "swacheck: 1\n"
        "target: {geometry: {window: 128, ring_size: 131, pages: 33667}}\n"
        "draft: {geometry: {window: 128, ring_size: 131, pages: 33667, compression_ratios: [4, 128]}}\n"
    )
    run = lint({"d.yaml": text})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert loc(f) == ("d.yaml", 3, 83)
    assert edits(f) == [("d.yaml", 3, 83, 3, 91, "[0, 0]")]
