"""SWA406 pd-speculative: speculative decoding on one side of a PD pair only."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
TAIL = (
    "the SWA state item lengths differ and the draft's state exists on one side; "
    'the prefill rejects the decode session when it registers ("Rejecting state transfers to '
    'decode session ...", Mooncake) and every request to that decode fails'
)
SPEC = "speculative-algorithm: EAGLE\nspeculative-num-steps: 3\nspeculative-eagle-topk: 1\n"  # from line 3


server = pd_server


check = check_pair


def only(run, code="SWA406"):
    return only_on_decode(run, code)


def test_both_speculative_passes(tree):
    run = check(tree, server("prefill", SPEC), server("decode", SPEC))
    assert run.exit_code == 0
    assert run.findings("SWA406") == []


def test_neither_speculative_passes(tree):
    run = check(tree, server("prefill"), server("decode"))
    assert run.exit_code == 0
    assert run.findings("SWA406") == []


def test_nextn_and_eagle_are_both_speculative(tree):
    run = check(tree, server("prefill", SPEC), server("decode", SPEC.replace("EAGLE", "NEXTN")))
    assert run.findings("SWA406") == []


def test_speculative_on_the_decode_only_is_an_error_at_its_algorithm(tree):
    run = check(tree, server("prefill"), server("decode", SPEC))
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == f"speculative decoding on the decode server only: {TAIL} {TAG}"
    assert loc(f) == (D, 3, 24)  # EAGLE
    assert related(f) == []  # the prefill simply has none
    assert f["fix"]["edits"] == []
    c = run.data["pairs"][0]["compared"]["speculative"]
    assert (c["prefill"], c["decode"], c["differs"]) == (False, True, True)


def test_speculative_on_the_prefill_only_relates_the_prefill_algorithm(tree):
    run = check(tree, server("prefill", SPEC), server("decode"))
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == f"speculative decoding on the prefill server only: {TAIL} {TAG}"
    assert loc(f) == (D, 1, 1)  # nothing written on the decode side: its document
    assert related(f) == [
        (P, 3, 24, "prefill speculative True comes from here"),
        (D, 1, 1, "decode server decode"),
    ]


def test_no_tolerated_difference_notes_for_the_missing_side(tree):
    run = check(tree, server("prefill", SPEC), server("decode"))
    assert run.findings("SWA410") == []


BACKEND = "disaggregation-transfer-backend: {}\n"


def test_mooncake_before_0_5_22_compares_no_state_layout(tree):
    run = check(tree, server("prefill"), server("decode", SPEC), "--sglang-version", "0.5.20")
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].endswith(
        "mooncake in SGLang 0.5.20 compares no state layout (the check came in 0.5.22): the state "
        f"is written by position with the prefill's item lengths, silently wrong {TAG}"
    )


def test_mori_fails_every_request_on_the_component_count(tree):
    mori = BACKEND.format("mori")
    run = check(tree, server("prefill", mori), server("decode", SPEC + mori))
    f = only(run)
    assert f["message"].endswith(
        'every request fails ("PD state transfer failed: state component count mismatch", Mori) '
        + TAG
    )


def test_the_prefill_backend_decides(tree):
    # the state layout is checked on the prefill side: its backend speaks for the pair
    run = check(tree, server("prefill", BACKEND.format("nixl")), server("decode", SPEC))
    assert '("NIXL state layout rejected ...", NIXL)' in only(run)["message"]


def test_a_decode_that_fails_alone_gets_no_pair_finding(tree):
    # pp-size 2 with speculative decoding on a decode server: refused by that server at start-up
    run = check(tree, server("prefill"), server("decode", SPEC + "pp-size: 2\n"))
    assert run.exit_code == 1
    assert run.findings("SWA406") == []
    assert len(run.findings("SWA207")) == 1
    assert run.data["pairs"][0]["findings"] == []


def test_mooncake_0_5_22_is_the_first_release_that_rejects_at_registration(tree):
    # mooncake/conn.py _validate_peer_state_layout: 0.5.22:911 (absent in 0.5.20)
    run = check(tree, server("prefill"), server("decode", SPEC), "--sglang-version", "0.5.22")
    assert only(run)["message"] == f"speculative decoding on the decode server only: {TAIL} {TAG}"


def test_nixl_before_0_5_23_compares_no_state_layout(tree):
    nixl = BACKEND.format("nixl")
    run = check(
        tree, server("prefill", nixl), server("decode", SPEC + nixl), "--sglang-version", "0.5.22"
    )
    assert (
        "nixl in SGLang 0.5.22 compares no state layout (the check came in 0.5.23)"
        in (only(run)["message"])
    )
