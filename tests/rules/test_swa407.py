"""SWA407 pd-online-compress: SGLANG_OPT_USE_ONLINE_COMPRESS on one side of a CUDA PD pair only."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
TAIL = (
    "the request-state item lengths differ; "
    'the prefill rejects the decode session when it registers ("Rejecting state transfers to '
    'decode session ...", Mooncake) and every request to that decode fails'
)


def deployment(role: str, platform: str = "cuda", online: str | None = None) -> str:
    # line 3: env, line 4: the switch (value at column 35)
    env = f"env:\n  SGLANG_OPT_USE_ONLINE_COMPRESS: {online}\n" if online is not None else ""
    return (
        "swacheck: 1\n"
        f"platform: {platform}\n"
        f"{env}"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
    )


check = check_pair


def only(run, code="SWA407"):
    return only_on_decode(run, code)


def test_both_online_passes(tree):
    run = check(tree, deployment("prefill", online='"1"'), deployment("decode", online="yes"))
    assert run.exit_code == 0
    assert run.findings("SWA407") == []


def test_neither_online_passes(tree):
    run = check(tree, deployment("prefill"), deployment("decode", online='"0"'))
    assert run.exit_code == 0
    assert run.findings("SWA407") == []


def test_online_on_the_decode_only_is_an_error_at_the_decode_value(tree):
    run = check(tree, deployment("prefill"), deployment("decode", online='"1"'))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert (
        f["message"]
        == f"SGLANG_OPT_USE_ONLINE_COMPRESS differs (prefill False, decode True): {TAIL} {TAG}"
    )
    assert loc(f) == (D, 4, 35)
    assert related(f) == []
    c = run.data["pairs"][0]["compared"]["online_compress"]
    assert (c["prefill"], c["decode"], c["differs"]) == (False, True, True)


def test_online_on_the_prefill_only_relates_the_prefill_value(tree):
    run = check(tree, deployment("prefill", online="true"), deployment("decode", online="false"))
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "SGLANG_OPT_USE_ONLINE_COMPRESS differs (prefill True, decode False)"
    )
    assert loc(f) == (D, 4, 35)
    assert related(f) == [(P, 4, 35, "prefill online_compress True comes from here")]


def test_rocm_pair_is_silent(tree):
    run = check(tree, deployment("prefill", "rocm"), deployment("decode", "rocm", online='"1"'))
    assert run.findings("SWA407") == []
    assert run.exit_code == 0


def test_env_from_the_command_line_on_both_sides_passes(tree):
    run = check(
        tree,
        deployment("prefill"),
        deployment("decode"),
        "--env",
        "SGLANG_OPT_USE_ONLINE_COMPRESS=1",
    )
    assert run.findings("SWA407") == []


def test_a_rocm_prefill_with_a_cuda_decode_is_not_a_cuda_pair(tree):
    run = check(tree, deployment("prefill", "rocm"), deployment("decode", online='"1"'))
    assert run.findings("SWA407") == []


def test_under_mori_only_the_component_count_is_compared_so_it_is_silently_wrong(tree):
    mori = "  disaggregation-transfer-backend: mori\n"
    run = check(tree, deployment("prefill") + mori, deployment("decode", online='"1"') + mori)
    f = only(run)
    assert f["message"] == (
        "SGLANG_OPT_USE_ONLINE_COMPRESS differs (prefill False, decode True): the request-state "
        "item lengths differ; mori compares only the number of state components: the state is "
        f"written with the prefill's item lengths, silently wrong {TAG}"
    )
