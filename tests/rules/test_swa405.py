"""SWA405 pd-unified-fp8: SGLANG_DSV4_UNIFIED_KV_FP8 on one side of a unified-KV PD pair."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
TAIL = (
    "the unified SWA ring's item length differs; "
    'the prefill rejects the decode session when it registers ("Rejecting state transfers to '
    'decode session ...", Mooncake) and every request to that decode fails'
)


def deployment(role: str, fp8: str | None = None, unified: bool = True) -> str:
    # line 3 env: line 4 the backend (value at column 33), line 5 the fp8 switch (value at column 31)
    env = "env:\n"
    env += (
        "  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
        if unified
        else "  SGLANG_HACK_FLASHMLA_BACKEND: auto\n"
    )
    if fp8 is not None:
        env += f"  SGLANG_DSV4_UNIFIED_KV_FP8: {fp8}\n"
    return (
        "swacheck: 1\n"
        "platform: rocm\n"
        f"{env}"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
    )


check = check_pair


def only(run, code="SWA405"):
    return only_on_decode(run, code)


def test_both_unified_both_fp8_passes(tree):
    run = check(tree, deployment("prefill", '"1"'), deployment("decode", '"1"'))
    assert run.exit_code == 0
    assert run.findings("SWA405") == []


def test_both_unified_neither_fp8_passes(tree):
    run = check(tree, deployment("prefill"), deployment("decode", '"0"'))
    assert run.exit_code == 0
    assert run.findings("SWA405") == []


def test_true_and_1_are_the_same_switch(tree):
    run = check(tree, deployment("prefill", "true"), deployment("decode", '"1"'))
    assert run.findings("SWA405") == []


def test_fp8_on_the_decode_only_is_an_error_at_the_decode_value(tree):
    run = check(tree, deployment("prefill"), deployment("decode", '"1"'))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert (
        f["message"]
        == f"SGLANG_DSV4_UNIFIED_KV_FP8 differs (prefill False, decode True): {TAIL} {TAG}"
    )
    assert loc(f) == (D, 5, 31)
    assert related(f) == []  # unset on the prefill: nothing to point at
    c = run.data["pairs"][0]["compared"]["unified_kv_fp8"]
    assert (c["prefill"], c["decode"], c["differs"]) == (False, True, True)


def test_fp8_on_the_prefill_only_relates_the_prefill_value(tree):
    run = check(tree, deployment("prefill", '"1"'), deployment("decode", '"0"'))
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "SGLANG_DSV4_UNIFIED_KV_FP8 differs (prefill True, decode False)"
    )
    assert loc(f) == (D, 5, 31)
    assert related(f) == [(P, 5, 31, "prefill unified_kv_fp8 True comes from here")]


def test_paged_pair_ignores_the_fp8_switch(tree):
    run = check(
        tree, deployment("prefill", unified=False), deployment("decode", '"1"', unified=False)
    )
    assert run.findings("SWA405") == []
    assert run.exit_code == 0


def test_one_unified_side_is_swa404_not_swa405(tree):
    run = check(tree, deployment("prefill", unified=False), deployment("decode", '"1"'))
    assert run.findings("SWA405") == []
    assert len(run.findings("SWA404")) == 1


def with_backend(text: str, backend: str) -> str:
    return text + f"  disaggregation-transfer-backend: {backend}\n"


def test_nixl_0_5_23_rejects_at_registration(tree):
    run = check(
        tree,
        with_backend(deployment("prefill"), "nixl"),
        with_backend(deployment("decode", '"1"'), "nixl"),
    )
    f = only(run)
    assert f["severity"] == "error"
    assert (
        '("NIXL state layout rejected ...", NIXL) and every request to that decode fails'
        in (f["message"])
    )


def test_nixl_0_5_22_compares_no_state_layout_silently_wrong(tree):
    run = check(
        tree,
        with_backend(deployment("prefill"), "nixl"),
        with_backend(deployment("decode", '"1"'), "nixl"),
        "--sglang-version",
        "0.5.22",
    )
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].endswith(
        "nixl in SGLang 0.5.22 compares no state layout (the check came in 0.5.23): the state is "
        f"written by position with the prefill's item lengths, silently wrong {TAG}"
    )


def test_mori_same_component_count_is_silent(tree):
    run = check(
        tree,
        with_backend(deployment("prefill"), "mori"),
        with_backend(deployment("decode", '"1"'), "mori"),
    )
    assert "mori compares only the number of state components" in only(run)["message"]


def test_unmodelled_backend_is_a_warning(tree):
    run = check(
        tree,
        with_backend(deployment("prefill"), "ascend"),  # (a fake prefill is refused alone, SWA230)
        with_backend(deployment("decode", '"1"'), "ascend"),
    )
    f = only(run)
    assert f["severity"] == "warning"
    assert "what the ascend transfer backend does with it is not modelled" in f["message"]


def test_0_5_20_refuses_fp8_on_a_pd_server_alone_not_as_a_pair(tree):
    # 0.5.20-0.5.21: SGLANG_DSV4_UNIFIED_KV_FP8=1 on any PD server fails that server at start-up
    run = check(
        tree, deployment("prefill"), deployment("decode", '"1"'), "--sglang-version", "0.5.20"
    )
    assert run.exit_code == 1
    assert run.findings("SWA405") == []
    assert run.data["pairs"][0]["findings"] == []


def test_before_0_5_20_the_switch_does_not_exist(tree):
    run = check(
        tree, deployment("prefill"), deployment("decode", '"1"'), "--sglang-version", "0.5.17"
    )
    assert run.findings("SWA405") == []
