"""SWA401 pd-page-size: prefill and decode servers resolve different page sizes.

DeepSeek-V4 forces the page size (256; 128 on NPU), so only a pair across platforms differs.
``--platform`` applies to every file of a run, so the platforms come from deployment files.
"""

from __future__ import annotations

from conftest import check_pair, loc

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"


def deployment(role: str, platform: str, extra: str = "") -> str:
    # line 2: platform (value at column 11); the server block starts at line 3
    return (
        "swacheck: 1\n"
        f"platform: {platform}\n"
        "server:\n"
        "  model-path: ../models/v4\n"
        f"  disaggregation-mode: {role}\n"
        "  kv-cache-dtype: bfloat16\n"  # the same dtype on every platform: only the page size differs
        f"{extra}"
    )


def check(tree, prefill, decode, *args):
    # bfloat16 KV on CUDA is a start-up failure of its own (SWA503, the DSV4 pool's uint8
    # assertion); these tests are about the pair's page sizes only
    return check_pair(tree, prefill, decode, "--ignore", "SWA503", *args)


def only(run, code="SWA401"):
    found = run.findings(code)
    assert len(found) == 1, run.stdout
    f = found[0]
    by_file = {d["file"]: d for d in run.deployments}
    assert f in by_file[D]["findings"]  # attached to the decode server
    assert [g for g in run.data["pairs"][0]["findings"] if g["code"] == code] == [f]
    return f


def test_same_platform_passes(tree):
    run = check(tree, deployment("prefill", "npu"), deployment("decode", "npu"))
    assert run.exit_code == 0
    assert run.findings("SWA401") == []
    assert run.data["pairs"][0]["compared"]["page_size"]["prefill"] == 128
    assert run.data["pairs"][0]["compared"]["page_size"]["differs"] is False


def test_configured_page_sizes_differ_but_dsv4_forces_256_so_it_passes(tree):
    run = check(
        tree,
        deployment("prefill", "cuda", "  page-size: 64\n"),
        deployment("decode", "cuda"),
    )
    assert run.findings("SWA401") == []
    compared = run.data["pairs"][0]["compared"]["page_size"]
    assert (compared["prefill"], compared["decode"], compared["differs"]) == (256, 256, False)


def test_prefill_on_cuda_decode_on_npu_is_an_error(tree):
    run = check(tree, deployment("prefill", "cuda"), deployment("decode", "npu"))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        "Page size mismatch: prefill server has page_size=256, but decode server has page_size=128: "
        f"the decode server dies at the first request {TAG}"
    )
    assert loc(f)[0] == D  # reported on the decode side
    assert f["fix"]["edits"] == []  # nothing to edit: the platform decides
    assert run.findings("SWA402") == []  # both bfloat16
    compared = run.data["pairs"][0]["compared"]["page_size"]
    assert (compared["prefill"], compared["decode"], compared["differs"]) == (256, 128, True)


def test_prefill_on_npu_decode_on_cuda_is_an_error_too(tree):
    run = check(tree, deployment("prefill", "npu"), deployment("decode", "cuda"))
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "Page size mismatch: prefill server has page_size=128, but decode server has page_size=256"
    )


def test_page_size_mismatch_is_not_reported_on_the_prefill_server(tree):
    run = check(tree, deployment("prefill", "cuda"), deployment("decode", "npu"))
    by_file = {d["file"]: d for d in run.deployments}
    assert by_file[P]["findings"] == []


def test_ignore_switches_it_off(tree):
    run = check(
        tree, deployment("prefill", "cuda"), deployment("decode", "npu"), "--ignore", "SWA401"
    )
    assert run.findings("SWA401") == []
    assert run.exit_code == 0


def test_points_at_the_decode_platform_and_relates_the_prefill_platform(tree):
    run = check(tree, deployment("prefill", "cuda"), deployment("decode", "npu"))
    f = only(run)
    assert loc(f) == (D, 2, 11)
    assert [(r["file"], r["line"], r["column"]) for r in f["related"]] == [(P, 2, 11)]
