"""SWA406 pd-speculative: speculative decoding on one side of a PD pair only (every request fails)."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
TAIL = "the SWA state item lengths differ, so the prefill rejects the decode session and every request fails"
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
