"""SWA402 pd-kv-cache-dtype: prefill and decode servers resolve different KV cache dtypes."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
UNIFIED_ENV = "env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"


def server(role: str, extra: str = "") -> str:
    # line 1 model-path, line 2 disaggregation-mode, extras from line 3
    return f"model-path: ../models/v4\ndisaggregation-mode: {role}\n{extra}"


def deployment(role: str, platform: str, top: str = "", extra: str = "") -> str:
    return (
        "swacheck: 1\n"
        f"platform: {platform}\n"
        f"{top}"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
        f"{extra}"
    )


def check(tree, prefill, decode, *args):
    # bfloat16 KV on CUDA fails on its own (SWA503, the DSV4 pool's uint8 assertion); these
    # tests are about the pair agreeing on a dtype
    return check_pair(tree, prefill, decode, "--ignore", "SWA503", *args)


def only(run, code="SWA402"):
    return only_on_decode(run, code)


def dtype(run):
    c = run.data["pairs"][0]["compared"]["kv_cache_dtype"]
    return c["prefill"], c["decode"], c["differs"]


def test_same_dtype_passes(tree):
    run = check(
        tree,
        server("prefill", "kv-cache-dtype: bfloat16\n"),
        server("decode", "kv-cache-dtype: bfloat16\n"),
    )
    assert run.exit_code == 0
    assert run.findings("SWA402") == []
    assert dtype(run) == ("bfloat16", "bfloat16", False)


def test_auto_equals_an_explicit_fp8_e4m3_on_cuda(tree):
    run = check(tree, server("prefill", "kv-cache-dtype: fp8_e4m3\n"), server("decode"))
    assert run.exit_code == 0
    assert run.findings("SWA402") == []
    assert dtype(run) == ("fp8_e4m3", "fp8_e4m3", False)


def test_bfloat16_vs_auto_is_an_error_at_the_decode_value(tree):
    run = check(
        tree,
        server("prefill", "kv-cache-dtype: bfloat16\n"),
        server("decode", "kv-cache-dtype: auto\n"),
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        "KV cache dtype mismatch: prefill bfloat16, decode fp8_e4m3: the decode server dies at the first request "
        + TAG
    )
    assert loc(f) == (D, 3, 17)  # the decode's `auto`
    assert related(f) == [(P, 3, 17, "prefill kv_cache_dtype bfloat16 comes from here")]
    assert [
        (e["file"], e["line"], e["column"], e["end_line"], e["end_column"], e["replacement"])
        for e in f["fix"]["edits"]
    ] == [(D, 3, 17, 3, 21, "bfloat16")]
    assert dtype(run) == ("bfloat16", "fp8_e4m3", True)


def test_decode_default_auto_points_at_the_decode_server_and_relates_the_prefill_value(tree):
    run = check(tree, server("prefill", "kv-cache-dtype: bfloat16\n"), server("decode"))
    assert run.exit_code == 1
    f = only(run)
    assert loc(f) == (D, 1, 1)  # nothing written on the decode side: its document
    assert related(f)[0] == (P, 3, 17, "prefill kv_cache_dtype bfloat16 comes from here")
    assert f["fix"]["edits"] == []


def test_npu_auto_resolves_to_bfloat16(tree):
    run = check(
        tree,
        deployment("prefill", "npu"),
        deployment("decode", "npu", extra="  kv-cache-dtype: bfloat16\n"),
    )
    assert run.exit_code == 0
    assert run.findings("SWA402") == []
    assert dtype(run) == ("bfloat16", "bfloat16", False)


def test_npu_auto_vs_fp8_e4m3_is_an_error(tree):
    run = check(
        tree,
        deployment("prefill", "npu"),
        deployment("decode", "npu", extra="  kv-cache-dtype: fp8_e4m3\n"),
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith("KV cache dtype mismatch: prefill bfloat16, decode fp8_e4m3")
    assert loc(f) == (D, 6, 19)


def test_both_unified_servers_are_still_compared_by_their_dtype_strings(tree):
    # conn.py try_ensure_parallel_info compares the resolved strings; the unified pools ignore
    # the flag, so equal bytes are rejected all the same
    run = check(
        tree,
        deployment("prefill", "rocm", UNIFIED_ENV, "  kv-cache-dtype: bfloat16\n"),
        deployment("decode", "rocm", UNIFIED_ENV),
    )
    (f,) = run.findings("SWA402")
    assert f["message"].startswith(
        "KV cache dtype mismatch: prefill bfloat16, decode fp8_e4m3: the decode server dies at the first request "
        "(the unified pools ignore the flag, but SGLang compares the strings)"
    )
    assert run.exit_code == 1
    assert dtype(run) == ("bfloat16", "fp8_e4m3", True)


def test_one_unified_side_still_compares_the_dtype(tree):
    run = check(
        tree,
        deployment("prefill", "rocm", "", "  kv-cache-dtype: bfloat16\n"),
        deployment("decode", "rocm", UNIFIED_ENV),
    )
    (f,) = run.findings("SWA402")
    assert "the unified pools ignore the flag" not in f["message"]  # only one side is unified
    assert len(run.findings("SWA404")) == 1


def test_select_only_pair_rules_keeps_it(tree):
    run = check(
        tree,
        server("prefill", "kv-cache-dtype: bfloat16\n"),
        server("decode"),
        "--select",
        "SWA402",
    )
    assert [f["code"] for d in run.deployments for f in d["findings"]] == ["SWA402"]
