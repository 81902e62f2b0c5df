"""SWA404 pd-unified-kv: unified KV (ROCm unified_kv_triton) on one side of a PD pair only."""

from __future__ import annotations

from conftest import ROOT, check_pair, loc, only_on_decode, related, run_cli

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
UNIFIED_ENV = (
    "env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"  # value at line 3, column 37
)
TAIL = (
    "the handshake does not compare it; the state components differ; "
    'the prefill rejects the decode session when it registers ("Rejecting state transfers to '
    'decode session ...", Mooncake) and every request to that decode fails'
)


def deployment(role: str, platform: str = "rocm", env: str = "") -> str:
    # line 2: platform (value at column 11); line 3: env when given
    return (
        "swacheck: 1\n"
        f"platform: {platform}\n"
        f"{env}"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
    )


check = check_pair


def only(run, code="SWA404"):
    return only_on_decode(run, code)


def test_both_paged_passes(tree):
    run = check(tree, deployment("prefill"), deployment("decode"))
    assert run.exit_code == 0
    assert run.findings("SWA404") == []


def test_both_unified_passes(tree):
    run = check(tree, deployment("prefill", env=UNIFIED_ENV), deployment("decode", env=UNIFIED_ENV))
    assert run.exit_code == 0
    assert run.findings("SWA404") == []


def test_the_variable_on_one_side_under_cuda_is_not_unified(tree):
    run = check(tree, deployment("prefill", "cuda"), deployment("decode", "cuda", UNIFIED_ENV))
    assert run.findings("SWA404") == []
    c = run.data["pairs"][0]["compared"]["unified_kv"]
    assert (c["prefill"], c["decode"]) == (False, False)


def test_unified_decode_only_points_at_the_decode_env_value(tree):
    run = check(tree, deployment("prefill"), deployment("decode", env=UNIFIED_ENV))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert (
        f["message"]
        == f"unified KV on the decode server only (prefill unified=False, decode unified=True): {TAIL} {TAG}"
    )
    assert loc(f) == (D, 3, 37)  # `unified_kv_triton` in the decode's env
    assert f["location"]["end_column"] == 54
    assert related(f) == [
        (P, 2, 11, "prefill unified_kv False comes from here")
    ]  # the prefill's platform
    assert (
        f["fix"]["description"]
        == "Set SGLANG_HACK_FLASHMLA_BACKEND the same (unified_kv_triton or unset) on both servers."
    )
    c = run.data["pairs"][0]["compared"]["unified_kv"]
    assert (c["prefill"], c["decode"], c["differs"]) == (False, True, True)


def test_unified_prefill_only_is_an_error_on_the_decode_server(tree):
    run = check(tree, deployment("prefill", env=UNIFIED_ENV), deployment("decode"))
    assert run.exit_code == 1
    f = only(run)
    assert (
        f["message"]
        == f"unified KV on the prefill server only (prefill unified=True, decode unified=False): {TAIL} {TAG}"
    )


def test_unified_prefill_only_is_located_on_the_decode_side_with_the_prefill_env_related(tree):
    run = check(tree, deployment("prefill", env=UNIFIED_ENV), deployment("decode"))
    f = only(run)
    assert f["location"]["file"] == D
    assert (P, 3, 37) in [r[:3] for r in related(f)]


def test_unified_prefill_only_can_be_suppressed_on_the_decode_side(tree):
    # the decode's unified_kv value (False) comes from its platform line
    decode = deployment("decode").replace(
        "platform: rocm\n",
        "platform: rocm  # swacheck: ignore[SWA404] the launcher sets the backend\n",
    )
    run = check(tree, deployment("prefill", env=UNIFIED_ENV), decode)
    assert run.findings("SWA404") == []


def test_ignore_switches_it_off(tree):
    run = check(
        tree, deployment("prefill"), deployment("decode", env=UNIFIED_ENV), "--ignore", "SWA404"
    )
    assert run.exit_code == 0
    assert run.findings("SWA404") == []


def test_bundled_example(tree):
    run = run_cli("--format", "json", "examples/pd-unified-one-side/", cwd=ROOT)
    assert run.exit_code == 1
    found = run.findings("SWA404")
    assert len(found) == 1
    f = found[0]
    assert loc(f) == ("examples/pd-unified-one-side/decode.yaml", 9, 33)
    assert related(f) == [
        (
            "examples/pd-unified-one-side/prefill.yaml",
            6,
            11,
            "prefill unified_kv False comes from here",
        )
    ]


def test_unified_on_one_side_under_mori_fails_every_request_on_the_component_count(tree):
    mori = "  disaggregation-transfer-backend: mori\n"
    run = check(
        tree,
        deployment("prefill") + mori,
        deployment("decode", env=UNIFIED_ENV) + mori,
    )
    f = only(run)
    assert f["message"].endswith(
        'every request fails ("PD state transfer failed: state component count mismatch", Mori) '
        + TAG
    )
