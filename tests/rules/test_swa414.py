"""SWA414 pd-compress-state-dtype: SGLANG_DSV4_COMPRESS_STATE_DTYPE differs between prefill and decode."""

from __future__ import annotations

import pytest
from conftest import check_pair, only_on_decode

P, D = "d/prefill.yaml", "d/decode.yaml"


def deployment(role: str, env: str) -> str:
    return (
        "swacheck: 1\n"
        f"env: {{{env}}}\n"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
    )


@pytest.mark.parametrize(
    ("prefill", "decode"),
    [
        ("", ""),
        ("", "SGLANG_DSV4_COMPRESS_STATE_DTYPE: fp32"),
        ("SGLANG_DSV4_COMPRESS_STATE_DTYPE: bf16", "SGLANG_DSV4_COMPRESS_STATE_DTYPE: BFloat16"),
    ],
)
def test_the_same_dtype_passes(tree, prefill, decode):
    run = check_pair(tree, deployment("prefill", prefill), deployment("decode", decode))
    assert run.findings("SWA414") == []


def test_bfloat16_on_one_side_fails_every_request(tree):
    # the c4 state entry: 131072 bytes in float32, 65536 in bfloat16 (conformance pair
    # pair-env-state-bf16-decode, Mooncake's _validate_peer_state_layout rejects the session)
    run = check_pair(
        tree,
        deployment("prefill", ""),
        deployment("decode", "SGLANG_DSV4_COMPRESS_STATE_DTYPE: bfloat16"),
    )
    assert run.exit_code == 1
    f = only_on_decode(run, "SWA414")
    assert f["severity"] == "error"
    assert f["message"].startswith(
        "Compress-state dtypes differ (prefill float32, decode bfloat16)"
    )
    assert "every request to that decode fails" in f["message"]
    assert (f["location"]["file"], f["location"]["line"]) == (D, 2)


def test_a_release_before_the_switch_or_a_refused_value_is_not_a_pair_finding(tree):
    env = "SGLANG_DSV4_COMPRESS_STATE_DTYPE: bfloat16"
    run = check_pair(
        tree, deployment("prefill", ""), deployment("decode", env), "--sglang-version", "0.5.21"
    )
    assert run.findings("SWA414") == []
    run = check_pair(
        tree,
        deployment("prefill", ""),
        deployment("decode", "SGLANG_DSV4_COMPRESS_STATE_DTYPE: fp16"),
    )
    assert run.findings("SWA414") == [] and len(run.findings("SWA221")) == 1


def test_the_switch_came_in_0_5_22_where_mooncake_already_rejects_the_session(tree):
    env = "SGLANG_DSV4_COMPRESS_STATE_DTYPE: bfloat16"
    run = check_pair(
        tree, deployment("prefill", ""), deployment("decode", env), "--sglang-version", "0.5.22"
    )
    f = only_on_decode(run, "SWA414")
    assert f["severity"] == "error" and "every request to that decode fails" in f["message"]


def test_under_mori_a_different_item_length_is_silently_wrong_a_warning(tree):
    def mori(role, env):
        return deployment(role, env) + "  disaggregation-transfer-backend: mori\n"

    run = check_pair(
        tree, mori("prefill", ""), mori("decode", "SGLANG_DSV4_COMPRESS_STATE_DTYPE: bfloat16")
    )
    assert run.exit_code == 0
    f = only_on_decode(run, "SWA414")
    assert f["severity"] == "warning"
    assert f["message"].endswith(
        "mori compares only the number of state components: the state is written with the "
        "prefill's item lengths, silently wrong [prefill d/prefill.yaml vs decode d/decode.yaml]"
    )
