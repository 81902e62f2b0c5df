"""SWA260 checkpoint-key-refused: config.json keys SGLang's config loading stops on."""

from __future__ import annotations

import json

import pytest
from conftest import EAGLE, V4_FLASH, loc, only

DRAFT = EAGLE + "speculative-draft-model-path: models/draft\n"
RESOLVE = "SGLang {v} stops while it resolves the server arguments (it loads the config.json there)"


def config(**changes) -> str:
    data = json.loads(V4_FLASH)
    for key, value in changes.items():
        if value is KeyError:
            data.pop(key)
        else:
            data[key] = value
    return json.dumps(data, indent=1)


def files(target: str = V4_FLASH, draft: str = V4_FLASH) -> dict[str, str]:
    return {
        "models/v4/config.json": target,
        "models/draft/config.json": draft,
        "server.yaml": DRAFT,
    }


def line_of(text: str, key: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if f'"{key}"' in line)


@pytest.mark.parametrize(
    ("version", "site"),
    [("0.5.23", "config.py:228"), ("0.5.22", "config.py:223")],
)
def test_null_nextn_layers_is_transformers_refusal_at_resolution(lint, version, site):
    target = config(num_nextn_predict_layers=None)
    run = lint(files(target), "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA260")
    assert f["message"] == (
        "models/v4/config.json (target): num_nextn_predict_layers is null, not an integer: "
        + RESOLVE.format(v=version)
        + f", sglang/srt/utils/hf_transformers/{site}: StrictDataclassFieldValidationError: "
        "Validation error for field 'num_nextn_predict_layers': TypeError: Field "
        "'num_nextn_predict_layers' expected int, got NoneType (value: None)"
    )
    assert loc(f)[:2] == ("models/v4/config.json", line_of(target, "num_nextn_predict_layers"))
    assert f["fix"]["edits"] == []
    assert run.deployments[0]["mode"] == "skipped"


def test_null_window_of_the_draft(lint):
    draft = config(sliding_window=None)
    f = only(lint(files(draft=draft)), "SWA260")
    assert f["message"].startswith(
        "models/draft/config.json (draft): sliding_window is null, not an integer: "
    )
    assert f["message"].endswith("Field 'sliding_window' expected int, got NoneType (value: None)")
    assert loc(f)[0] == "models/draft/config.json"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("float8", "AttributeError: module 'torch' has no attribute 'float8'"),
        ("bf16", "AttributeError: module 'torch' has no attribute 'bf16'"),
        (["bfloat16"], "IndexError: list index out of range"),
    ],
)
def test_torch_dtype_that_is_no_torch_dtype(lint, value, said):
    f = only(lint(files(config(torch_dtype=value))), "SWA260")
    assert f["message"].endswith(f"config.py:228: {said}")


@pytest.mark.parametrize(
    "changes",
    [
        {"torch_dtype": "float16"},
        {"torch_dtype": None},
        {"torch_dtype": KeyError},
        {"num_nextn_predict_layers": KeyError},
        {"num_nextn_predict_layers": 0},
        {"x_unknown_key": [1, 2]},
        {"n_group": None},  # int | None in SGLang's alias class
    ],
)
def test_what_sglang_loads_passes(lint, changes):
    run = lint(files(config(**changes)))
    assert run.findings("SWA260") == [] and run.findings("SWA261") == []
    assert run.exit_code == 0, run.stdout


@pytest.mark.parametrize(
    ("changes", "reason", "said"),
    [
        (
            {"rms_norm_eps": 0},
            "rms_norm_eps is 0, not a float",
            "Field 'rms_norm_eps' expected float, got int (value: 0)",
        ),
        (
            {"num_attention_heads": True},
            "num_attention_heads is true, not an integer",
            "Field 'num_attention_heads' expected int, got bool (value: True)",
        ),
        (
            {"compress_ratios": [0, 0, 4, 128]},
            "compress_ratios is [0, 0, 4, 128]",
            "StrictDataclassClassValidationError: Class validation error for validator "
            "'validate_layer_type': ValueError: `num_hidden_layers` (43) must equal "
            "`len(layer_types)` (4).",
        ),
        ({"compress_ratios": [8] * 43}, "compress_ratios is [8, ", "KeyError: 8"),
        (
            {"num_hash_layers": 2.5},
            "num_hash_layers is 2.5",
            "TypeError: can't multiply sequence by non-int of type 'float'",
        ),
        (
            {"qk_rope_head_dim": "64"},
            'qk_rope_head_dim is "64"',
            "TypeError: unsupported operand type(s) for /: 'str' and 'int'",
        ),
        (
            {"quantization_config": "fp8"},
            'quantization_config is "fp8"',
            "AttributeError: 'str' object has no attribute 'to_dict'",
        ),
    ],
)
def test_the_family_names_sglang_exception(lint, changes, reason, said):
    f = only(lint(files(config(**changes))), "SWA260")
    assert f"(target): {reason}" in f["message"]
    assert f["message"].endswith(said)


def test_the_alias_class_refuses_what_transformers_took(lint):
    f = only(lint(files(config(n_group="8"))), "SWA260")
    assert "sglang/srt/utils/hf_transformers/config.py:293:" in f["message"]
    assert f["message"].endswith(
        "Validation error for field 'n_group': TypeError: Field 'n_group' with a str doesn't "
        "match any type in int | None"
    )


@pytest.mark.parametrize(("role", "stage"), [("target", RESOLVE.format(v="0.5.23")), ("draft", "")])
def test_no_index_head_dim_is_modelconfigs_attribute_error(lint, role, stage):
    odd = config(index_head_dim=KeyError)
    run = lint(files(odd) if role == "target" else files(draft=odd))
    f = only(run, "SWA260")
    where = stage or "SGLang 0.5.23 stops building the draft's ModelConfig"
    assert f["message"] == (
        f"models/{'v4' if role == 'target' else 'draft'}/config.json ({role}): index_head_dim is "
        f"missing: {where}, sglang/srt/configs/model_config.py:1428: AttributeError: "
        "'_DeepseekV4ConfigAlias' object has no attribute 'index_head_dim'"
    )
    assert loc(f)[1:] == (1, 1)


def test_missing_window_stays_swa208(lint):
    run = lint(files(config(sliding_window=KeyError, index_head_dim=KeyError)))
    assert run.findings("SWA260") == []
    assert len(run.findings("SWA208")) == 1


def test_older_releases_are_not_checked(lint):
    run = lint(files(config(num_nextn_predict_layers=None)), "--sglang-version", "0.5.21")
    assert run.findings("SWA260") == []


def test_a_private_config_is_named_by_type(lint, tmp_path_factory):
    outside = tmp_path_factory.mktemp("hub") / "config.json"
    outside.write_text(config(sliding_window="secret-128"))
    run = lint(
        {"models/draft/config.json": V4_FLASH, "server.yaml": DRAFT},
        "--model-config",
        f"models/v4={outside}",
    )
    f = only(run, "SWA260")
    assert "secret" not in f["message"]
    assert "sliding_window is a str, not an integer" in f["message"]


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_the_pd_hook_refusal_is_still_said(lint, version):
    # 0.5.22 runs handle_pd_disaggregation (arg_groups/pipeline.py 0.5.22:138) before it first
    # loads the config (0.5.22:175): the PD hook's refusal is what it stops on there
    text = files(config(num_nextn_predict_layers=None))
    text["server.yaml"] += "disaggregation-mode: prefill\ndisaggregation-transfer-backend: fake\n"
    run = lint(text, "--sglang-version", version)
    assert len(run.findings("SWA260")) == 1
    assert "Prefill server does not support 'fake'" in only(run, "SWA230")["message"]


def test_a_list_under_compress_rates_is_transformers_type_refusal(lint):
    # compress_rates is DeepseekV4Config's mapping of layer type -> rate (dict | None)
    data = config(compress_ratios=KeyError)
    data = data.replace('"num_hidden_layers"', '"compress_rates": [4, 128],\n "num_hidden_layers"')
    f = only(lint(files(data)), "SWA260")
    assert f["message"].endswith(
        "Validation error for field 'compress_rates': TypeError: Field 'compress_rates' with a "
        "list doesn't match any type in dict | None"
    )


def test_an_override_gives_index_head_dim(lint):
    text = files(config(index_head_dim=KeyError))
    text["server.yaml"] += "json-model-override-args: '{\"index_head_dim\": 128}'\n"
    run = lint(text)
    assert run.findings("SWA260") == []


@pytest.mark.parametrize(
    ("changes", "mode", "pd"),
    [
        ({"sliding_window": None}, "prefill", True),  # refused where the config is loaded
        ({"sliding_window": None}, None, False),
        ({"sliding_window": KeyError}, "decode", True),  # refused when ModelConfig reads it
        ({"sliding_window": KeyError}, None, False),
    ],
)
def test_a_refused_checkpoint_still_says_whether_the_server_is_pd(lint, changes, mode, pd):
    server = EAGLE + (f"disaggregation-mode: {mode}\n" if mode else "")
    run = lint({**files(target=config(**changes)), "server.yaml": server})
    (dep,) = run.deployments
    assert dep["mode"] == "skipped" and dep["pd"] is pd
