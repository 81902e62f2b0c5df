"""SWA204 unified-fp8-with-pd: SGLANG_DSV4_UNIFIED_KV_FP8 under PD with pp-size > 1 or HiSparse."""

from __future__ import annotations

from conftest import EAGLE, edits, loc
from conftest import only as the_only

UNIFIED = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
FP8 = UNIFIED + ("--env", "SGLANG_DSV4_UNIFIED_KV_FP8=1")
PP_MSG = (
    "ValueError: SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with pp_size=2"
)


def only(run, code="SWA204"):
    return the_only(run, code)


def test_fp8_pd_with_pp_size_1_passes(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: decode\npp-size: 1\n"}, *FP8)
    assert run.exit_code == 0
    assert run.codes() == []


def test_fp8_pd_with_pp_size_2_is_an_error_at_pp_size(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: decode\npp-size: 2\n"}, *FP8)
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(PP_MSG)
    assert loc(f) == ("server.yaml", 6, 1)  # the pp-size key
    assert edits(f) == [("server.yaml", 6, 10, 6, 11, "1")]
    assert f["related"] == []  # the variable came from --env: no position


def test_docstring_example_points_at_pp_size_with_the_env_value_related(lint):
    deploy = (
        "swacheck: 1\n"
        "platform: rocm\n"
        'env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton, SGLANG_DSV4_UNIFIED_KV_FP8: "1"}\n'
        "server: {model-path: models/v4, disaggregation-mode: decode, pp-size: 2}\n"
    )
    run = lint({"d.yaml": deploy})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(PP_MSG)
    assert loc(f) == ("d.yaml", 4, 62)
    assert edits(f) == [("d.yaml", 4, 71, 4, 72, "1")]
    assert [(r["line"], r["column"], r["message"]) for r in f["related"]] == [
        (3, 84, "SGLANG_DSV4_UNIFIED_KV_FP8 set here")
    ]


def test_fp8_pd_with_hisparse_is_an_error(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: prefill\nenable-hisparse: true\n"}, *FP8
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(
        "ValueError: SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with --enable-hisparse"
    )


def test_hisparse_finding_points_at_the_enable_hisparse_key_and_deletes_it(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: prefill\nenable-hisparse: true\n"}, *FP8
    )
    f = only(run)
    assert loc(f) == ("server.yaml", 6, 1)
    assert edits(f) == [("server.yaml", 6, 1, 7, 1, "")]


def test_fp8_without_pd_passes(lint):
    run = lint({"server.yaml": EAGLE + "pp-size: 2\n"}, *FP8)
    assert run.codes() == [
        "SWA207"
    ]  # only the pipeline-with-MTP refusal (validation_hook.py 0.5.23:161)


def test_fp8_disabled_passes(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: decode\npp-size: 2\n"},
        *UNIFIED,
        "--env",
        "SGLANG_DSV4_UNIFIED_KV_FP8=0",
    )
    assert "SWA204" not in run.codes()


def test_fp8_unset_passes(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: decode\npp-size: 2\n"}, *UNIFIED)
    assert "SWA204" not in run.codes()


def test_paged_rocm_ignores_the_fp8_variable(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: decode\npp-size: 2\n"},
        "--platform",
        "rocm",
        "--env",
        "SGLANG_DSV4_UNIFIED_KV_FP8=1",
    )
    assert run.codes() == ["SWA207"]  # pp-size 2 with MTP on a decode server, not the fp8 refusal
