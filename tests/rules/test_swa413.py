"""SWA413 pd-checkpoint: prefill and decode servers serve different checkpoints."""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, check_pair, only_on_decode, pd_server

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"


def other(**changes) -> str:
    config = json.loads(V4_FLASH)
    config.update(changes)
    return json.dumps(config, indent=1)


def pair_on(tree, decode_config: str, *args):
    files = {
        P: pd_server("prefill"),
        D: pd_server("decode").replace("../models/v4", "../models/other"),
        "models/other/config.json": decode_config,
    }
    from conftest import run_cli

    # servers of different checkpoints are paired when named as a pair (auto-pairing wants one model)
    return run_cli("pair", "--format", "json", *args, P, D, cwd=tree(files))


def test_the_same_checkpoint_passes(tree):
    run = check_pair(tree, pd_server("prefill"), pd_server("decode"))
    assert run.findings("SWA413") == []
    # another folder with the same config.json is the same checkpoint
    assert pair_on(tree, V4_FLASH).findings("SWA413") == []


def test_a_key_that_shapes_the_state_fails_every_request(tree):
    ratios = json.loads(V4_FLASH)["compress_ratios"]
    swapped = [{4: 128, 128: 4}.get(r, r) for r in ratios]
    run = pair_on(tree, other(compress_ratios=swapped))
    assert run.exit_code == 1
    f = only_on_decode(run, "SWA413")
    assert f["severity"] == "error"
    assert f["message"].startswith("The two servers serve different checkpoints (compress_ratios ")
    assert "every request to that decode fails" in f["message"] and f["message"].endswith(TAG)
    assert f["fix"]["edits"] == []


def test_a_state_key_on_a_release_that_compares_no_state_is_silent_and_a_warning(tree):
    run = pair_on(tree, other(num_hidden_layers=42), "--sglang-version", "0.5.21")
    f = only_on_decode(run, "SWA413")
    assert f["severity"] == "warning" and "silently wrong" in f["message"]


@pytest.mark.parametrize("changes", [{"sliding_window": 256}, {"torch_dtype": "float16"}])
def test_any_other_key_is_silently_wrong_a_warning(tree, changes):
    run = pair_on(tree, other(**changes))
    assert run.exit_code == 0
    f = only_on_decode(run, "SWA413")
    assert f["severity"] == "warning"
    key, value = next(iter(changes.items()))
    assert f"({key} " in f["message"] and "silently wrong" in f["message"]


def test_unified_kv_state_is_left_to_the_send_path_a_warning(tree):
    # the conformance pair pair-pm-1000-0009: with unified KV the prefill's registration check
    # defers the state components (fully_checked False), so SGLang starts and the send path decides
    ratios = json.loads(V4_FLASH)["compress_ratios"]
    swapped = [{4: 128, 128: 4}.get(r, r) for r in ratios]

    def side(role, model):
        return (
            "swacheck: 1\nplatform: rocm\nenv: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"
            f"server:\n  model-path: ../models/{model}\n  disaggregation-mode: {role}\n"
        )

    from conftest import run_cli

    root = tree(
        {
            P: side("prefill", "v4"),
            D: side("decode", "other"),
            "models/other/config.json": other(compress_ratios=swapped),
        }
    )
    run = run_cli("pair", "--format", "json", P, D, cwd=root)
    f = only_on_decode(run, "SWA413")
    assert f["severity"] == "warning"
    assert "leaves to the send path" in f["message"]


def test_more_than_three_differing_keys_are_counted_not_listed(tree):
    run = pair_on(
        tree, other(sliding_window=256, torch_dtype="float16", vocab_size=1, rope_theta=1)
    )
    f = only_on_decode(run, "SWA413")
    assert f["message"].split(" [prefill ")[0].count(" vs ") == 3 and " and 1 more" in f["message"]
    three = pair_on(tree, other(sliding_window=256, torch_dtype="float16", vocab_size=1))
    assert " more" not in only_on_decode(three, "SWA413")["message"]


def test_a_state_key_under_mori_is_silently_wrong_a_warning(tree):
    # mori compares the number of state components only (sglang.pd.state_layout_outcome):
    # a different item length is written silently
    run = pair_on(tree, other(num_hidden_layers=42), "--sglang-version", "0.5.23")
    assert only_on_decode(run, "SWA413")["severity"] == "error"
    files = {
        P: pd_server("prefill", "disaggregation-transfer-backend: mori\n"),
        D: pd_server("decode", "disaggregation-transfer-backend: mori\n").replace(
            "../models/v4", "../models/other"
        ),
        "models/other/config.json": other(num_hidden_layers=42),
    }
    from conftest import run_cli

    mori = run_cli("pair", "--format", "json", P, D, cwd=tree(files))
    f = only_on_decode(mori, "SWA413")
    assert f["severity"] == "warning"
    assert "mori compares only the number of state components" in f["message"]


def test_a_key_only_one_checkpoint_writes_is_named_as_missing_on_the_other(tree):
    run = pair_on(tree, other(extra_key=1))
    f = only_on_decode(run, "SWA413")
    assert "(extra_key None vs 1)" in f["message"]
    assert f["location"]["file"] == "models/other/config.json"  # the decode's key
    dropped = json.loads(V4_FLASH)
    vocab = dropped.pop("vocab_size")
    run = pair_on(tree, json.dumps(dropped, indent=1))
    f = only_on_decode(run, "SWA413")
    assert f"(vocab_size {vocab} vs None)" in f["message"]
