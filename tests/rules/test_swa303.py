"""SWA303 config-key-refused: server-config keys SGLang's --config loader or argparse refuses."""

from __future__ import annotations

import pytest
from conftest import EAGLE, edits, loc
from conftest import only as the_only


def only(run, code="SWA303"):
    return the_only(run, code)


def test_known_dash_keys_pass(lint):
    run = lint({"server.yaml": EAGLE + "tp-size: 8\nmax-running-requests: 64\n"})
    assert run.exit_code == 0
    assert run.codes() == []


def test_unknown_key_is_refused_with_did_you_mean_and_rename_fix(lint):
    run = lint({"server.yaml": EAGLE + "max-runing-requests: 64\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        "unknown server argument 'max-runing-requests': error: unrecognized "
        "arguments (did you mean 'max-running-requests'?)"
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert edits(f) == [("server.yaml", 5, 1, 5, 20, "max-running-requests")]


def test_unknown_key_without_a_near_match_has_no_edit(lint):
    run = lint({"server.yaml": EAGLE + "frobnicate: 1\n"})
    f = only(run)
    assert f["message"] == "unknown server argument 'frobnicate': error: unrecognized arguments"
    assert f["fix"]["edits"] == []


def test_underscore_key_is_refused_and_respelled(lint):
    run = lint({"server.yaml": EAGLE + "page_size: 256\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "'page_size' is spelled with underscores: SGLang's argument parser gets --page_size: "
        "error: unrecognized arguments"
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert edits(f) == [("server.yaml", 5, 1, 5, 10, "page-size")]


def test_underscore_store_true_key_set_to_false_is_not_reported(lint):
    run = lint({"server.yaml": EAGLE + "disable_hybrid_swa_memory: false\n"})
    assert run.exit_code == 0
    assert run.codes() == []


def test_underscore_store_true_key_set_to_true_is_reported(lint):
    run = lint({"server.yaml": EAGLE + "disable_hybrid_swa_memory: true\n"})
    assert edits(only(run)) == [("server.yaml", 5, 1, 5, 26, "disable-hybrid-swa-memory")]


def test_underscore_model_path_is_refused_but_still_resolved(lint):
    run = lint({"server.yaml": "model_path: models/v4\n"})
    f = only(run)
    assert edits(f) == [("server.yaml", 1, 1, 1, 11, "model-path")]
    assert run.deployments[0]["target"]["sliding_window"] == 128


def test_aliases_are_accepted(lint):
    server = "model: models/v4\ntensor-parallel-size: 8\n" + EAGLE.split("\n", 1)[1]
    run = lint({"server.yaml": server})
    assert run.exit_code == 0
    assert run.codes() == []


def test_unique_prefix_is_accepted_and_resolved(lint):
    run = lint({"server.yaml": EAGLE.replace("speculative-algorithm:", "speculative-algo:")})
    assert run.exit_code == 0
    assert run.codes() == []
    assert run.deployments[0]["draft"] is not None


def test_ambiguous_prefix_is_refused_with_candidates(lint):
    run = lint({"server.yaml": EAGLE + "speculative-draft-model-: models/v4\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "'speculative-draft-model-' is an ambiguous abbreviation: argparse refuses it"
    )
    assert (
        "--speculative-draft-model-path" in f["message"]
        and "--speculative-draft-model-revision" in f["message"]
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert f["fix"]["edits"] == []


@pytest.mark.parametrize("value", ["true", "false"])
def test_enable_dp_attention_is_refused_whatever_the_value(lint, value):
    run = lint({"server.yaml": EAGLE + f"enable-dp-attention: {value}\n"})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "SGLang's --config loader refuses 'enable-dp-attention': ValueError: Unsupported config option "
        "'enable_dp_attention' with action 'DeprecatedStoreTrueAction'"
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_enable_dp_attention_fix_turns_dp_size_into_attn_dp_size(lint):
    run = lint({"server.yaml": EAGLE + "dp-size: 2\nenable-dp-attention: true\n"})
    f = only(run)
    assert loc(f) == ("server.yaml", 6, 1)
    assert edits(f) == [
        ("server.yaml", 5, 1, 5, 8, "attn-dp-size"),
        ("server.yaml", 6, 1, 7, 1, ""),
    ]


def test_enable_dp_attention_is_resolved_as_attention_dp(lint):
    server = (
        EAGLE
        + "dp-size: 2\nenable-dp-attention: true\ndisaggregation-mode: decode\nmax-running-requests: 64\n"
        + "tp-size: 8\n"
    )
    run = lint(
        {"server.yaml": server},
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert run.codes() == ["SWA303"]
    assert run.deployments[0]["target"]["tuple"] == [128, 131, 12707]


@pytest.mark.parametrize(
    ("line", "action", "replacement"),
    [
        (
            "disable-cuda-graph: true",
            "DeprecatedStoreTrueAction",
            "cuda-graph-backend-decode: disabled\ncuda-graph-backend-prefill: disabled\n",
        ),
        ("lora-paths: [a]", "LoRAPathAction", ""),
    ],
)
def test_other_refused_actions_are_removed(lint, line, action, replacement):
    # disable-cuda-graph: replaced by what SGLang 0.5.23's deprecation table names (server_args.py new_flag)
    run = lint({"server.yaml": EAGLE + line + "\n"})
    f = only(run)
    assert f["message"].endswith(f"with action '{action}'")
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, replacement)]
    assert f["fix"]["safe"] is bool(replacement)


def test_json_server_config_is_refused(lint):
    text = (
        '{"model-path": "models/v4", "speculative-algorithm": "EAGLE", '
        '"speculative-num-steps": 3, "speculative-eagle-topk": 1}\n'
    )
    run = lint({"server.json": text})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "SGLang's --config accepts only .yaml/.yml files: ValueError: Config file must be YAML format, got: .json"
    )
    assert loc(f) == ("server.json", 1, 1)
    assert f["fix"]["edits"] == []


def test_json_server_config_referenced_by_a_deployment_is_refused(lint):
    run = lint({"d.yaml": "swacheck: 1\nserver: s.json\n", "s.json": '{"model-path": "models/v4"}'})
    assert loc(only(run)) == ("s.json", 1, 1)


def test_inline_server_in_a_json_deployment_file_is_not_a_config_file(lint):
    text = (
        '{"swacheck": 1, "server": {"model-path": "models/v4", '
        '"speculative-algorithm": "EAGLE", "speculative-num-steps": 3, '
        '"speculative-eagle-topk": 1}}'
    )
    run = lint({"d.json": text})
    assert run.exit_code == 0
    assert "SWA303" not in run.codes()


def test_yml_extension_is_accepted(lint):
    run = lint({"server.yml": EAGLE})
    assert run.exit_code == 0
    assert run.codes() == []


def test_unknown_key_in_an_inline_deployment_server(lint):
    run = lint(
        {"d.yaml": "swacheck: 1\nserver:\n  model-path: models/v4\n  max-runing-requests: 64\n"}
    )
    f = only(run)
    assert loc(f) == ("d.yaml", 4, 3)
    assert edits(f) == [("d.yaml", 4, 3, 4, 22, "max-running-requests")]


def test_underscore_refused_key_is_not_renamed_to_another_refused_key(lint):
    run = lint({"server.yaml": EAGLE + "enable_dp_attention: false\n"})
    assert run.exit_code == 1
    replacements = [e["replacement"] for f in run.findings("SWA303") for e in f["fix"]["edits"]]
    assert "enable-dp-attention" not in replacements
