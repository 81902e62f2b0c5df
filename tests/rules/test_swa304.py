"""SWA304 bad-value: values argparse rejects, and dp-size together with attn-dp-size."""

from __future__ import annotations

import pytest

from conftest import EAGLE, loc, only as the_only


def only(run, code="SWA304"):
    return the_only(run, code)


@pytest.mark.parametrize(
    "line",
    ['max-running-requests: "128"', "max-running-requests: ' 128 '", "page-size: 256", "disaggregation-mode: 'null'",
     "disaggregation-mode: decode", "dp-size: 2", "attn-dp-size: 2"],
)
def test_values_argparse_accepts_pass(lint, line):
    run = lint({"server.yaml": EAGLE + line + "\n"})
    assert run.exit_code == 0
    assert "SWA304" not in run.codes()


def test_float_for_an_int_flag_is_refused_at_the_value(lint):
    run = lint({"server.yaml": EAGLE + "page-size: 256.0\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == "page-size: SGLang's argument parser rejects the number 256.0; expected an integer"
    assert loc(f) == ("server.yaml", 5, 12)
    assert f["fix"] == {"description": "Give page-size an integer.", "safe": True, "edits": []}


def test_boolean_for_an_int_flag_is_refused(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: true\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == "max-running-requests: SGLang's argument parser rejects the boolean true; expected an integer"
    assert loc(f) == ("server.yaml", 5, 23)


def test_null_for_an_int_flag_is_refused(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: null\n"})
    assert only(run)["message"] == "max-running-requests: SGLang's argument parser rejects null; expected an integer"


def test_list_for_a_single_value_flag_is_refused(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: [16]\n"})
    assert only(run)["message"].endswith("rejects a list; expected a single value")


def test_choice_is_case_sensitive(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: Decode\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "disaggregation-mode: SGLang's argument parser rejects the string 'Decode'; expected one of null, prefill, decode"
    )
    assert loc(f) == ("server.yaml", 5, 22)
    assert run.deployments[0]["pd"] is False  # the refused value does not count as PD


@pytest.mark.parametrize("value", ["null", "~", ""])
def test_unquoted_yaml_null_mode_is_refused_with_a_quoting_hint(lint, value):
    run = lint({"server.yaml": EAGLE + f"disaggregation-mode: {value}\n".replace(": \n", ":\n")})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith("disaggregation-mode: SGLang's argument parser rejects null; expected one of null, prefill, decode")
    assert "quote 'null': an unquoted YAML null reaches SGLang as the text None" in f["message"]
    assert loc(f)[:2] == ("server.yaml", 5)


def test_json_model_override_args_must_be_a_json_object(lint):
    run = lint({"server.yaml": EAGLE + "json-model-override-args: '[1]'\n"})
    f = only(run)
    assert f["message"] == "json-model-override-args: SGLang's argument parser rejects the string '[1]'; expected a JSON object"
    assert loc(f) == ("server.yaml", 5, 27)


def test_json_model_override_args_that_is_not_json(lint):
    run = lint({"server.yaml": EAGLE + "json-model-override-args: '{bad'\n"})
    assert "expected a JSON object (Expecting property name enclosed in double quotes" in only(run)["message"]


def test_json_model_override_args_object_passes(lint):
    run = lint({"server.yaml": EAGLE + "json-model-override-args: '{\"sliding_window\": 256}'\n"})
    assert run.exit_code == 0
    assert run.deployments[0]["target"]["sliding_window"] == 256


def test_dp_size_with_attn_dp_size_is_refused_at_attn_dp_size(lint):
    run = lint({"server.yaml": EAGLE + "dp-size: 2\nattn-dp-size: 2\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "ValueError: --dp-size 2 with --attn-dp-size 2: data-parallel replicas combined with attention data "
        "parallelism are not supported"
    )
    assert loc(f) == ("server.yaml", 6, 1)


def test_quoted_dp_sizes_are_integers_too(lint):
    run = lint({"server.yaml": EAGLE + "dp-size: '2'\nattn-dp-size: '2'\n"})
    assert only(run)["message"].startswith("ValueError: --dp-size 2 with --attn-dp-size 2")


def test_attn_dp_size_1_with_dp_size_2_passes(lint):
    run = lint({"server.yaml": EAGLE + "dp-size: 2\nattn-dp-size: 1\n"})
    assert run.exit_code == 0
    assert "SWA304" not in run.codes()
