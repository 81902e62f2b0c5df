"""SWA411 pd-allocation-policy: prefill and decode servers use different decode allocation policies."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
POLICY = "disaggregation-decode-allocation-policy: {}\n"  # line 3
TP1 = "tp-size: 1\n"


def only(run):
    return only_on_decode(run, "SWA411")


def test_same_policy_passes(tree):
    pc = POLICY.format("prefill_complete") + TP1
    run = check_pair(tree, pd_server("prefill", pc), pd_server("decode", pc))
    assert run.findings("SWA411") == []
    run = check_pair(tree, pd_server("prefill"), pd_server("decode", POLICY.format("early")))
    assert run.findings("SWA411") == []


# For DeepSeek-V4 the server with prefill_complete stops at start-up before any request, in its KV
# manager (SWA222, disaggregation/common/conn.py 0.5.23:421-424): a server failing alone is never
# a pair finding. The comparison itself is tested past that refusal (--ignore SWA222).
PAST = ("--ignore", "SWA222")


def test_a_dsv4_side_with_prefill_complete_fails_alone_first(tree):
    for prefill, decode in (
        ("", POLICY.format("prefill_complete") + TP1),
        (POLICY.format("prefill_complete") + TP1, ""),
    ):
        run = check_pair(tree, pd_server("prefill", prefill), pd_server("decode", decode))
        assert run.findings("SWA411") == []
        assert len(run.findings("SWA222")) == 1


def test_prefill_complete_on_the_decode_only_fails_every_request(tree):
    run = check_pair(
        tree,
        pd_server("prefill"),
        pd_server("decode", POLICY.format("prefill_complete") + TP1),
        *PAST,
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        "Disaggregation decode allocation policy mismatch: prefill=early, decode=prefill_complete: "
        f"every request fails when the decode receives it {TAG}"
    )
    assert loc(f) == (D, 3, 42)
    assert related(f) == []
    assert f["fix"]["edits"] == []


def test_prefill_complete_on_the_prefill_only_relates_the_prefill_value(tree):
    run = check_pair(
        tree,
        pd_server("prefill", POLICY.format("prefill_complete") + TP1),
        pd_server("decode"),
        *PAST,
    )
    f = only(run)
    assert f["message"].startswith(
        "Disaggregation decode allocation policy mismatch: prefill=prefill_complete, decode=early"
    )
    assert loc(f) == (D, 1, 1)
    assert related(f)[0] == (
        P,
        3,
        42,
        "prefill decode_allocation_policy prefill_complete comes from here",
    )


def test_the_option_does_not_exist_before_0_5_22(tree):
    run = check_pair(
        tree,
        pd_server("prefill"),
        pd_server("decode", POLICY.format("prefill_complete") + TP1),
        "--sglang-version",
        "0.5.20",
    )
    assert run.findings("SWA411") == []


def test_prefill_complete_with_attention_tp_fails_alone_not_as_a_pair(tree):
    # SGLang refuses prefill_complete with attention TP > 1 at argument resolution (SWA207)
    run = check_pair(
        tree,
        pd_server("prefill"),
        pd_server("decode", POLICY.format("prefill_complete") + "tp-size: 8\n"),
    )
    assert run.findings("SWA411") == []
    assert len(run.findings("SWA207")) == 1


def test_0_5_22_is_the_first_release_with_the_check(tree):
    # common/conn.py 0.5.22:2217 ("Disaggregation decode allocation policy mismatch")
    run = check_pair(
        tree,
        pd_server("prefill"),
        pd_server("decode", POLICY.format("prefill_complete") + TP1),
        "--sglang-version",
        "0.5.22",
        *PAST,
    )
    assert only(run)["message"].startswith("Disaggregation decode allocation policy mismatch")
