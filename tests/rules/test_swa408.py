"""SWA408 pd-parallelism: decode context/pipeline parallelism or KV sharding the PD handshake refuses."""

from __future__ import annotations

from conftest import check_pair, edits, loc, only_on_decode, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
DIES = "the decode server dies at the first request"


def server(role: str, extra: str = "") -> str:
    # line 1 model-path, line 2 disaggregation-mode, extras from line 3
    # tp-size last: a multiple of any attn-cp-size the tests give (SWA240)
    tp = "" if "tp-size" in extra else "tp-size: 8\n"
    return f"model-path: ../models/v4\ndisaggregation-mode: {role}\n{extra}{tp}"


check = check_pair


def only(run, code="SWA408"):
    found = run.findings(code)
    assert len(found) == 1, run.stdout
    f = found[0]
    by_file = {d["file"]: d for d in run.deployments}
    assert f in by_file[D]["findings"]
    assert [g for g in run.data["pairs"][0]["findings"] if g["code"] == code] == [f]
    return f


# --- attention context parallelism -------------------------------------------------------


def test_decode_cp_1_passes_whatever_the_prefill_cp(tree):
    run = check(tree, server("prefill", "attn-cp-size: 2\n"), server("decode", "attn-cp-size: 1\n"))
    assert run.findings("SWA408") == []
    assert run.exit_code == 0


def test_decode_cp_2_is_an_error_at_the_decode_value(tree):
    run = check(tree, server("prefill"), server("decode", "attn-cp-size: 2\n"))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == f"Decode cp size (2) should be equal to 1: {DIES} {TAG}"
    assert loc(f) == (D, 3, 15)
    assert related(f) == []  # the prefill's cp is the default
    assert f["fix"]["description"] == "Run the decode server with attn-cp-size 1."


def test_decode_cp_2_relates_an_explicit_prefill_cp(tree):
    run = check(tree, server("prefill", "attn-cp-size: 1\n"), server("decode", "attn-cp-size: 2\n"))
    f = only(run)
    assert loc(f) == (D, 3, 15)
    assert related(f) == [(P, 3, 15, "prefill attn_cp_size 1 comes from here")]


def test_decode_cp_fix_sets_1_not_the_prefill_cp(tree):
    run = check(tree, server("prefill", "attn-cp-size: 4\n"), server("decode", "attn-cp-size: 2\n"))
    f = only(run)
    assert edits(f) == [(D, 3, 15, 3, 16, "1")]


# --- pipeline parallelism -----------------------------------------------------------------


def test_decode_pp_2_with_prefill_pp_4_is_an_error(tree):
    run = check(tree, server("prefill", "pp-size: 4\n"), server("decode", "pp-size: 2\n"))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert (
        f["message"]
        == f"Decode pp size (2) should be equal to prefill pp size (4) or 1: {DIES} {TAG}"
    )
    assert loc(f) == (D, 3, 10)
    assert related(f) == [(P, 3, 10, "prefill pp_size 4 comes from here")]
    assert edits(f) == [(D, 3, 10, 3, 11, "4")]  # the prefill's pp is one of the two allowed values


def test_decode_pp_2_with_default_prefill_pp_is_an_error(tree):
    run = check(tree, server("prefill"), server("decode", "pp-size: 2\n"))
    f = only(run)
    assert f["message"].startswith("Decode pp size (2) should be equal to prefill pp size (1) or 1")


def test_decode_pp_1_with_prefill_pp_4_passes(tree):
    run = check(tree, server("prefill", "pp-size: 4\n"), server("decode", "pp-size: 1\n"))
    assert run.findings("SWA408") == []


def test_equal_pp_passes(tree):
    run = check(tree, server("prefill", "pp-size: 4\n"), server("decode", "pp-size: 4\n"))
    assert run.findings("SWA408") == []


def test_cp_and_pp_are_two_findings(tree):
    run = check(
        tree, server("prefill", "pp-size: 4\n"), server("decode", "attn-cp-size: 2\npp-size: 2\n")
    )
    found = run.findings("SWA408")
    assert [loc(f) for f in found] == [(D, 3, 15), (D, 4, 10)]
    assert [f["code"] for f in run.data["pairs"][0]["findings"]] == ["SWA408", "SWA408"]


# --- prefill KV cache sharding ------------------------------------------------------------
# A DeepSeek-V4 prefill server refuses KV sharding on its own (SWA246: the KV-sharding hook, else
# the pool configurator), so with SWA246 on the pair never reaches the handshake. The tests of
# the handshake's check below ignore SWA246 (``shard_check``).


def shard_check(tree, prefill, decode):
    return check(tree, prefill, decode, "--ignore", "SWA246")


def test_a_dsv4_sharded_prefill_fails_alone_so_no_pair_finding(tree):
    run = check(
        tree,
        server("prefill", "enable-kv-cache-sharding: true\ntp-size: 8\n"),
        server("decode", "tp-size: 4\n"),
    )
    assert run.exit_code == 1
    assert [f["file"] for f in run.deployments if f["findings"]] == [P]
    assert [f["code"] for f in run.deployments[0]["findings"] + run.deployments[1]["findings"]] == [
        "SWA246"
    ]
    assert run.findings("SWA408") == []


def test_kv_sharding_with_different_tp_is_an_error(tree):
    run = shard_check(
        tree,
        server("prefill", "enable-kv-cache-sharding: true\ntp-size: 8\n"),
        server("decode", "tp-size: 4\n"),
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        f"MLA KV cache sharding requires equal prefill/decode attn TP sizes "
        f"(prefill 8, decode 4; attention TP = tp-size / attn-dp-size): {DIES} "
        f"{TAG}"
    )
    assert loc(f) == (D, 3, 10)
    assert related(f) == [(P, 4, 10, "prefill attn_tp_size 8 comes from here")]


def test_kv_sharding_with_equal_tp_passes(tree):
    run = shard_check(
        tree,
        server("prefill", "enable-kv-cache-sharding: true\ntp-size: 8\n"),
        server("decode", "tp-size: 8\n"),
    )
    assert run.findings("SWA408") == []


def test_different_tp_without_kv_sharding_is_not_swa408(tree):
    run = check(tree, server("prefill", "tp-size: 8\n"), server("decode", "tp-size: 4\n"))
    assert run.findings("SWA408") == []


def test_kv_sharding_on_the_decode_only_does_not_matter(tree):
    run = check(
        tree,
        server("prefill", "tp-size: 8\n"),
        server("decode", "enable-kv-cache-sharding: true\ntp-size: 4\n"),
    )
    assert run.findings("SWA408") == []


def test_kv_sharding_tp_difference_is_not_also_called_tolerated(tree):
    run = shard_check(
        tree,
        server("prefill", "enable-kv-cache-sharding: true\ntp-size: 8\n"),
        server("decode", "tp-size: 4\n"),
    )
    assert len(run.findings("SWA408")) == 1
    assert run.findings("SWA410") == []


def test_kv_sharding_compares_attention_tp_not_tp_size(tree):
    run = shard_check(
        tree,
        server("prefill", "enable-kv-cache-sharding: true\ntp-size: 8\nattn-dp-size: 8\n"),
        server("decode", "tp-size: 8\n"),
    )
    assert len(run.findings("SWA408")) == 1


def test_sharding_attention_tp_one_against_two(tree):
    # attention TP is tp-size / attn-dp-size, at least 1: 2 against 1 differs
    shard = "enable-kv-cache-sharding: true\ntp-size: 2\n"
    run = check_pair(
        tree, pd_server("prefill", shard), pd_server("decode", "tp-size: 1\n"), "--ignore", "SWA246"
    )
    f = only_on_decode(run, "SWA408")
    assert "(prefill 2, decode 1;" in f["message"]
