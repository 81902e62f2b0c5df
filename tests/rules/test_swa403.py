"""SWA403 pd-kv-layout: prefill and decode servers use different DSV4 KV layouts."""

from __future__ import annotations

from conftest import check_pair, loc, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
AUTO_NOTE = " (an `auto` layout depends on the GPU: SM100 or gfx950 choose V4.1)"


server = pd_server


def deployment(role: str, env: str) -> str:
    # line 2: env (flow mapping); the server block from line 3
    return (
        "swacheck: 1\n"
        f"env: {{{env}}}\n"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
    )


check = check_pair


def only(run, code="SWA403"):
    found = run.findings(code)
    assert len(found) == 1, run.stdout
    f = found[0]
    by_file = {d["file"]: d for d in run.deployments}
    assert f in by_file[D]["findings"]
    assert [g for g in run.data["pairs"][0]["findings"] if g["code"] == code] == [f]
    return f


def layout(run):
    c = run.data["pairs"][0]["compared"]["kv_layout"]
    return c["prefill"], c["decode"], c["differs"]


def test_default_layouts_pass(tree):
    run = check(tree, server("prefill"), server("decode"))
    assert run.exit_code == 0
    assert run.findings("SWA403") == []
    assert layout(run) == ("v4/auto", "v4/auto", False)


def test_flashmla_mega_on_both_sides_passes(tree):
    mega = "dsv4-attn-backend: flashmla_mega\n"
    run = check(tree, server("prefill", mega), server("decode", mega))
    assert run.findings("SWA403") == []
    assert layout(run) == ("v41/auto", "v41/auto", False)


def test_v41_env_on_the_decode_only_is_an_error_at_its_value(tree):
    run = check(tree, deployment("prefill", ""), deployment("decode", "SGLANG_DSV4_KV_LAYOUT: v41"))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert (
        f["message"]
        == "KV layout mismatch: prefill server has kv_layout=v4/auto, but decode server has "
        f"kv_layout=v41/auto: the decode server dies at the first request {TAG}"
    )
    assert loc(f) == (D, 2, 30)
    assert related(f) == []  # the prefill's layout is all defaults
    assert layout(run) == ("v4/auto", "v41/auto", True)


def test_v41_env_on_the_prefill_only_relates_the_prefill_value(tree):
    run = check(tree, deployment("prefill", "SGLANG_DSV4_KV_LAYOUT: v41"), deployment("decode", ""))
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "KV layout mismatch: prefill server has kv_layout=v41/auto, but decode server has kv_layout=v4/auto"
    )
    assert loc(f) == (D, 1, 1)
    assert related(f)[0] == (P, 2, 30, "prefill kv_layout v41/auto comes from here")


def test_before_0_5_23_the_layout_is_not_compared_but_the_swa_state_lengths_are(tree):
    """0.5.22 compares no layout, but a V4 row and a V4.1 row make SWA state entries of other
    lengths, which Mooncake's _validate_peer_state_layout compares when the decode registers
    (mooncake/conn.py 0.5.22:883; "Rejecting state transfers", :2933): every request fails
    (conformance pair matrix seed 2002, pair 13: prefill=149760 decode=135168)."""
    run = check(
        tree,
        deployment("prefill", ""),
        deployment("decode", "SGLANG_DSV4_KV_LAYOUT: v41"),
        "--sglang-version",
        "0.5.22",
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(
        "KV layout differs (prefill v4/auto, decode v41/auto): SGLang 0.5.22 does not compare it "
        "(the check came in 0.5.23), but the SWA state entries it sizes differ in item length: "
        "the prefill rejects the decode session when it registers"
    )
    assert f["message"].endswith(f"every request to that decode fails {TAG}")


def test_before_0_5_22_nothing_compares_the_state_either(tree):
    run = check(
        tree,
        deployment("prefill", ""),
        deployment("decode", "SGLANG_DSV4_KV_LAYOUT: v41"),
        "--sglang-version",
        "0.5.21",
    )
    f = only(run)
    assert "compares no state layout" in f["message"] and "silently wrong" in f["message"]
    assert f["severity"] == "error"


def test_flashmla_mega_on_a_v4_checkpoint_fails_alone_not_as_a_pair(tree):
    # SGLang refuses flashmla_mega with a DeepSeek-V4 (not V4.1) checkpoint on that server at
    # start-up: the decode never reaches the handshake, so no pair finding
    run = check(tree, server("prefill"), server("decode", "dsv4-attn-backend: flashmla_mega\n"))
    assert run.exit_code == 1
    assert run.findings("SWA403") == []
    assert [f["code"] for f in run.findings("SWA502")] == ["SWA502"]
    assert layout(run) == ("v4/auto", "v41/auto", True)  # still shown in the pair's table
    assert run.data["pairs"][0]["findings"] == []


def test_env_layout_auto_on_one_side_is_a_warning_not_an_error(tree):
    run = check(
        tree, deployment("prefill", ""), deployment("decode", "SGLANG_DSV4_KV_LAYOUT: auto")
    )
    assert run.exit_code == 0  # a warning does not fail by default
    f = only(run)
    assert f["severity"] == "warning"
    assert (
        f["message"]
        == "KV layout mismatch: prefill server has kv_layout=v4/auto, but decode server "
        f"has kv_layout=auto/auto: the decode server "
        f"dies at the first request{AUTO_NOTE} {TAG}"
    )
    assert loc(f) == (D, 2, 30)  # the env value
    assert layout(run) == ("v4/auto", "auto/auto", True)


def test_env_layout_auto_fails_with_fail_on_warning(tree):
    run = check(
        tree,
        deployment("prefill", ""),
        deployment("decode", "SGLANG_DSV4_KV_LAYOUT: auto"),
        "--fail-on",
        "warning",
    )
    assert run.exit_code == 1


def test_env_layout_explicit_v4_equals_the_default(tree):
    run = check(tree, deployment("prefill", "SGLANG_DSV4_KV_LAYOUT: v4"), deployment("decode", ""))
    assert run.findings("SWA403") == []


def test_trtllm_under_pd_fails_alone_not_as_a_pair(tree):
    run = check(tree, server("prefill"), server("decode", "dsv4-attn-backend: trtllm\n"))
    assert run.exit_code == 1
    assert run.findings("SWA403") == []
    assert len(run.findings("SWA205")) == 1
    assert layout(run) == ("v4/auto", "uniform_fp8", True)


def gpu_deployment(role: str, env: str, gpu: str, platform: str = "cuda", extra: str = "") -> str:
    return (
        "swacheck: 1\n"
        f"platform: {platform}\n"
        f"gpu: {gpu}\n"
        f"env: {{{env}}}\n"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n" + extra
    )


def test_auto_is_resolved_for_the_gpu_each_side_names(tree):
    # select_dsv4_kv_layout (mem_cache/deepseek_v4_memory_pool.py 0.5.23:231, 0.5.22:195): auto on
    # a GPU below SM100 is the V4 layout, which equals an explicit v4: nothing to report
    run = check(
        tree,
        gpu_deployment("prefill", "", "H200"),
        gpu_deployment("decode", "SGLANG_DSV4_KV_LAYOUT: auto", "H200"),
    )
    assert run.findings("SWA403") == []
    assert layout(run) == ("v4/auto", "v4/auto", False)


def test_auto_on_gpus_that_choose_differently_is_an_error(tree):
    # HIP: gfx950 with aiter_sparse (the MI355X default) holds V4.1, gfx942 does not (0.5.23:220-224)
    env = "SGLANG_DSV4_KV_LAYOUT: auto"
    run = check(
        tree,
        gpu_deployment("prefill", env, "MI355X", "rocm"),
        gpu_deployment("decode", env, "MI300X", "rocm"),
    )
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(
        "KV layout mismatch: prefill server has kv_layout=v41/auto, but decode server has kv_layout=v4/auto: the decode"
    )
    assert layout(run) == ("v41/auto", "v4/auto", True)


def test_auto_on_a_gpu_swacheck_does_not_know_stays_a_warning(tree):
    env = "SGLANG_DSV4_KV_LAYOUT: auto"
    run = check(
        tree,
        gpu_deployment("prefill", "", "H200"),
        gpu_deployment("decode", env, "NoSuchGPU-9000"),
    )
    assert only(run)["severity"] == "warning"
    assert layout(run) == ("v4/auto", "auto/auto", True)


def test_a_v41_checkpoint_picks_flashmla_mega_on_sm100_only(tree):
    # _default_dsv4_attention_backend (arg_groups/deepseek_v4_hook.py 0.5.23:45-59): DeepSeek-V4.1,
    # CUDA SM100, an fp8_e4m3 KV cache -> flashmla_mega, whose pools use the V4.1 layout; on an
    # H200 the default is flashmla (V4): the pair's layouts differ
    import json

    from test_v41 import V41

    fp8 = "  kv-cache-dtype: fp8_e4m3\n"
    prefill = gpu_deployment("prefill", "", "B200", extra=fp8).replace("models/v4", "models/v41")
    decode = gpu_deployment("decode", "", "H200", extra=fp8).replace("models/v4", "models/v41")
    root = tree(
        {
            "d/prefill.yaml": prefill,
            "d/decode.yaml": decode,
            "models/v41/config.json": json.dumps(V41),
        }
    )
    from conftest import run_cli

    run = run_cli("--format", "json", "d", cwd=root)
    assert layout(run) == ("v41/auto", "v4/auto", True)
    assert only(run)["severity"] == "error"
    same = tree({"d/prefill.yaml": prefill, "d/decode.yaml": decode.replace("H200", "B200")})
    run = run_cli("--format", "json", "d", cwd=same)
    assert layout(run) == ("v41/auto", "v41/auto", False)


def test_a_compressed_option_that_changes_no_layout_is_the_same_layout(tree):
    # resolve_compressed_kv_layout (0.5.23:189-191): a V4 main cache keeps its compressed caches V4,
    # fp8 or auto: pd_kv_layout is v4,c4:v4,c128:v4 on both servers, and SGLang starts them
    run = check(
        tree,
        deployment("prefill", ""),
        deployment("decode", "SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp8"),
    )
    assert run.findings("SWA403") == []
    assert layout(run) == ("v4/auto", "v4/auto", False)


def test_a_v41_main_cache_with_fp4_compressed_caches_differs_from_auto(tree):
    # resolve_compressed_kv_layout (0.5.23:193-195): with V4.1, fp4 makes the c4/c128 caches
    # v41_fp4 where auto keeps them v41 (a V4 checkpoint has no ratio 1 or 2); fp8 equals auto
    v41 = "SGLANG_DSV4_KV_LAYOUT: v41"
    run = check(
        tree,
        gpu_deployment("prefill", v41, "B200"),
        gpu_deployment("decode", v41 + ", SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp4", "B200"),
    )
    assert layout(run) == ("v41/auto", "v41/fp4", True)
    assert only(run)["severity"] == "error"
    run = check(
        tree,
        gpu_deployment("prefill", v41, "B200"),
        gpu_deployment("decode", v41 + ", SGLANG_DSV4_COMPRESSED_KV_LAYOUT: fp8", "B200"),
    )
    assert layout(run) == ("v41/auto", "v41/auto", False)
