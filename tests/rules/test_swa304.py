"""SWA304 bad-value: values argparse rejects, and dp-size together with attn-dp-size."""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc
from conftest import only as the_only


def only(run, code="SWA304"):
    return the_only(run, code)


@pytest.mark.parametrize(
    "line",
    [
        'max-running-requests: "128"',
        "max-running-requests: ' 128 '",
        "page-size: 256",
        "disaggregation-mode: 'null'",
        "disaggregation-mode: decode",
        "dp-size: 2",
        "attn-dp-size: 2\ntp-size: 2",  # tp-size a multiple of it (SWA240)
    ],
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
    assert f["message"] == (
        "page-size: SGLang's argument parser rejects the number 256.0; expected an integer"
        " (argparse: error: argument --page-size: invalid int value: '256.0')"
    )
    assert loc(f) == ("server.yaml", 5, 12)
    assert f["fix"] == {"description": "Give page-size an integer.", "safe": True, "edits": []}


def test_boolean_for_an_int_flag_is_refused(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: true\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "max-running-requests: SGLang's argument parser rejects the boolean true; expected an integer"
        " (argparse: error: argument --max-running-requests: invalid int value: 'true')"
    )
    assert loc(f) == ("server.yaml", 5, 23)


def test_null_for_an_int_flag_is_refused(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: null\n"})
    assert only(run)["message"] == (
        "max-running-requests: SGLang's argument parser rejects null; expected an integer"
        " (argparse: error: argument --max-running-requests: invalid int value: 'None')"
    )


@pytest.mark.parametrize("value", ["[16]", "\n  - 16", "['16']"])
def test_one_item_list_for_a_single_value_flag_is_its_item(lint, value):
    # SGLang's --config merger emits --max-running-requests 16 for a one-item list
    # (_add_list_arg, utils/server_args_config_parser.py 0.5.23:199-203)
    unified = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
    run = lint({"server.yaml": EAGLE + f"max-running-requests: {value}\n"}, *unified)
    assert run.exit_code == 0
    assert "SWA304" not in run.codes()
    # the unified tuple's pages are request slots x ring: 16 requests + 1 padding row, ring 131
    assert run.deployments[0]["target"]["tuple"] == [128, 131, 17 * 131]


def test_one_item_list_value_keeps_its_position(lint):
    run = lint({"server.yaml": EAGLE + "page-size: [128.5]\n"})
    f = only(run)
    assert f["message"] == (
        "page-size: SGLang's argument parser rejects the number 128.5; expected an integer "
        "(SGLang's --config loader passes the list on as --page-size 128.5: argparse: error: "
        "argument --page-size: invalid int value: '128.5')"
    )
    assert loc(f) == ("server.yaml", 5, 13)  # the item, inside the brackets


def test_one_item_list_of_a_boolean_is_its_python_text(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: [true]\n"})
    assert only(run)["message"] == (
        "max-running-requests: SGLang's argument parser rejects the string 'True'; expected an "
        "integer (SGLang's --config loader passes the list on as --max-running-requests True: "
        "argparse: error: argument --max-running-requests: invalid int value: 'True')"
    )


def test_several_items_for_a_single_value_flag_are_refused(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: [8, 16]\n"})
    f = only(run)
    assert f["message"] == (
        "max-running-requests: SGLang's argument parser rejects a list; expected a single value "
        "(SGLang's --config loader passes it on as --max-running-requests 8 16: error: "
        "unrecognized arguments: 16)"
    )
    assert loc(f) == ("server.yaml", 5, 23)


@pytest.mark.parametrize("key", ["max-running-requests", "enable-mixed-chunk", "no-such-flag"])
def test_empty_list_is_never_passed_on(lint, key):
    # _add_list_arg emits nothing for []: argparse never sees the key
    run = lint({"server.yaml": EAGLE + f"{key}: []\n"})
    assert run.exit_code == 0
    assert run.codes() == []


def test_choice_is_case_sensitive(lint):
    run = lint({"server.yaml": EAGLE + "disaggregation-mode: Decode\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "disaggregation-mode: SGLang's argument parser rejects the string "
        "'Decode'; expected one of null, prefill, decode"
        " (argparse: error: argument --disaggregation-mode: invalid choice: "
        "'Decode' (choose from 'null', 'prefill', 'decode'))"
    )
    assert loc(f) == ("server.yaml", 5, 22)
    assert run.deployments[0]["pd"] is False  # the refused value does not count as PD


@pytest.mark.parametrize("value", ["null", "~", ""])
def test_unquoted_yaml_null_mode_is_refused_with_a_quoting_hint(lint, value):
    run = lint({"server.yaml": EAGLE + f"disaggregation-mode: {value}\n".replace(": \n", ":\n")})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "disaggregation-mode: SGLang's argument parser rejects null; expected one of null, prefill, decode"
    )
    assert "quote 'null': an unquoted YAML null reaches SGLang as the text None" in f["message"]
    assert loc(f)[:2] == ("server.yaml", 5)


def test_json_model_override_args_must_be_a_json_object(lint):
    run = lint({"server.yaml": EAGLE + "json-model-override-args: '[1]'\n"})
    f = only(run)
    assert (
        f["message"]
        == "json-model-override-args: SGLang's argument parser rejects the string '[1]'; expected a JSON object"
    )
    assert loc(f) == ("server.yaml", 5, 27)


def test_json_model_override_args_that_is_not_json(lint):
    run = lint({"server.yaml": EAGLE + "json-model-override-args: '{bad'\n"})
    assert (
        "expected a JSON object (Expecting property name enclosed in double quotes"
        in only(run)["message"]
    )


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


# --- every flag's type and choices, not only the flags the resolver reads (issue 14) ---------
RELEASES = ("0.5.17", "0.5.20", "0.5.22", "0.5.23")


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "tp-size: eight",
            "tp-size: SGLang's argument parser rejects the string 'eight'; expected an integer"
            " (argparse: error: argument --tp-size: invalid int value: 'eight')",
        ),
        (
            "tensor-parallel-size: 8.0",
            "tensor-parallel-size: SGLang's argument parser rejects the number 8.0; expected an integer"
            " (argparse: error: argument --tp-size: invalid int value: '8.0')",
        ),
        (
            "mem-fraction-static: high",
            "mem-fraction-static: SGLang's argument parser rejects the string 'high'; expected a number"
            " (argparse: error: argument --mem-fraction-static: invalid float value: 'high')",
        ),
        (
            "max-total-tokens: 1.5Ki",
            "max-total-tokens: SGLang's argument parser rejects the string '1.5Ki'; expected an integer"
            " (or 1k, 1M, 1Ki, ...) (argparse: error: argument --max-total-tokens: Invalid integer value: '1.5Ki')",
        ),
    ],
)
def test_any_flag_of_the_wrong_type_is_refused(lint, version, line, message):
    run = lint({"server.yaml": EAGLE + line + "\n"}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == message
    assert loc(f) == ("server.yaml", 5, line.index(":") + 3)


@pytest.mark.parametrize(
    "line",
    [
        "tp-size: '8'",
        "tp-size: ' 8 '",
        "mem-fraction-static: 0.85",
        "mem-fraction-static: '1e-1'",
        "mem-fraction-static: 1",
        "max-total-tokens: 25.6k",
        "max-total-tokens: 1Ki",
        "trust-remote-code: true",
        "trust-remote-code: false",
        "enable-metrics: []",
    ],
)
def test_values_argparse_takes_pass_for_every_flag(lint, line):
    run = lint({"server.yaml": EAGLE + line + "\n"})
    assert run.exit_code == 0, run.stdout
    assert "SWA304" not in run.codes()


@pytest.mark.parametrize(
    ("version", "code"),
    [("0.5.17", "SWA303"), ("0.5.20", "SWA303"), ("0.5.22", "SWA304"), ("0.5.23", "SWA304")],
)
def test_a_choice_of_a_flag_read_by_no_resolver_is_checked_per_release(lint, version, code):
    # --disaggregation-decode-allocation-policy (choices early, prefill_complete) appears in 0.5.22
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-decode-allocation-policy: eager\n"},
        "--sglang-version",
        version,
    )
    assert run.exit_code == 1
    f = only(run, code)
    if code == "SWA304":
        assert f["message"].endswith(
            "(argparse: error: argument --disaggregation-decode-allocation-policy: invalid choice: 'eager' "
            "(choose from 'early', 'prefill_complete'))"
        )
    else:
        assert "unknown server argument 'disaggregation-decode-allocation-policy'" in f["message"]


def test_int_choices_compare_the_converted_value(lint):
    # argparse converts first (type=int), then checks choices: '02' is 2
    assert lint({"server.yaml": EAGLE + "dsa-triton-union: '02'\n"}).exit_code == 0
    f = only(lint({"server.yaml": EAGLE + "dsa-triton-union: 3\n"}))
    assert f["message"].endswith("invalid choice: 3 (choose from 0, 2, 4))")


def test_each_item_of_a_list_flag_is_typed(lint):
    run = lint({"server.yaml": EAGLE + "cuda-graph-bs-decode: [1, 2, four]\n"})
    f = only(run)
    assert f["message"].startswith(
        "cuda-graph-bs-decode: SGLang's argument parser rejects the string 'four'; expected an integer"
    )
    assert loc(f) == ("server.yaml", 5, 30)


def test_wrong_type_on_a_command_line_is_refused(lint):
    compose = (
        "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.23\n    command: >-\n"
        "      python -m sglang.launch_server --model-path models/v4 --speculative-algorithm EAGLE\n"
        "      --speculative-num-steps 3 --speculative-eagle-topk 1 --tp-size eight\n"
    )
    run = lint({"docker-compose.yml": compose})
    f = only(run)
    assert f["message"].endswith(
        "(argparse: error: argument --tp-size: invalid int value: 'eight')"
    )


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize(
    ("line", "emitted"),
    [
        ('trust-remote-code: "true"', "true"),
        ("enable-metrics: 1", "1"),
        ("enable-metrics: null", "None"),
        ("enable-metrics: [yes, no]", "True False"),
    ],
)
def test_store_true_flag_with_a_value_in_a_config_file_is_refused(lint, version, line, emitted):
    # the merger (server_args_config_parser.py _convert_config_to_args, same 0.5.17-0.5.23) emits a
    # store_true key bare only for a YAML boolean; any other value follows it as an argument
    run = lint({"server.yaml": EAGLE + line + "\n"}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run)
    key = line.split(":")[0]
    assert f["message"].endswith(
        f"expected true or false (SGLang's --config loader passes it on as --{key} {emitted}: "
        f"error: unrecognized arguments: {emitted})"
    )
    assert f["fix"]["description"] == f"Give {key} true or false."


# The SGLang type functions swacheck runs itself, each in the releases whose table names it:
# json.loads, json_list_type (srt/utils/common.py 0.5.23:4818), parse_cuda_graph_config_arg and
# parse_cuda_graph_backend_arg (srt/model_executor/cuda_graph_config.py 0.5.23:237-259).
@pytest.mark.parametrize(
    "versions, line, message",
    [
        (
            ("0.5.12", "0.5.23"),
            "preferred-sampling-params: not json",
            "preferred-sampling-params: SGLang's argument parser rejects the string 'not json'; "
            "expected JSON (argparse: error: argument --preferred-sampling-params: invalid loads "
            "value: 'not json')",
        ),
        (
            ("0.5.12", "0.5.23"),
            "forward-hooks: '[1, 2'",
            "forward-hooks: SGLang's argument parser rejects the string '[1, 2'; expected a JSON "
            "list (argparse: error: argument --forward-hooks: Invalid JSON list: [1, 2. Please "
            "provide a valid JSON list.)",
        ),
        (
            ("0.5.14", "0.5.20", "0.5.23"),
            "cuda-graph-config: '[1]'",
            "cuda-graph-config: SGLang's argument parser rejects the string '[1]'; expected a JSON "
            "object (argparse: error: argument --cuda-graph-config: --cuda-graph-config must be a "
            "JSON object, got list)",
        ),
        (
            ("0.5.23",),
            "cuda-graph-config: '{'",
            "cuda-graph-config: SGLang's argument parser rejects the string '{'; expected a JSON "
            "object (argparse: error: argument --cuda-graph-config: --cuda-graph-config must be "
            "JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        ),
        (
            ("0.5.22", "0.5.23"),
            "cuda-graph-backend-decode: tc_piecewise",
            "cuda-graph-backend-decode: SGLang's argument parser rejects the string 'tc_piecewise'; "
            "expected a backend other than tc_piecewise (argparse: error: argument "
            "--cuda-graph-backend-decode: tc_piecewise was removed; select breakable, full, or "
            "disabled)",
        ),
    ],
)
def test_sglang_type_functions_are_run(lint, versions, line, message):
    for version in versions:
        run = lint({"server.yaml": EAGLE + line + "\n"}, "--sglang-version", version)
        assert only(run)["message"] == message, version


@pytest.mark.parametrize(
    "line",
    [
        "preferred-sampling-params: '{\"temperature\": 0.5}'",
        "mm-process-config: {a: 1}",  # a mapping reaches SGLang as json.dumps(mapping)
        "extra-metric-labels: 3",
        "forward-hooks: '[]'",
        'cuda-graph-config: \'{"decode": {"max_bs": 8}}\'',
        "cuda-graph-backend-decode: full",
    ],
)
def test_values_sglang_type_functions_accept_pass(lint, line):
    assert "SWA304" not in lint({"server.yaml": EAGLE + line + "\n"}).codes()


def test_forward_hooks_refuses_nan_as_orjson_does(lint):
    # orjson.loads refuses NaN, which Python's json.loads would take
    assert (
        "Invalid JSON list: NaN"
        in only(lint({"server.yaml": EAGLE + "forward-hooks: NaN\n"}))["message"]
    )
