"""SWA412 pd-transfer-backend: prefill and decode servers use different transfer backends."""

from __future__ import annotations

import pytest
from conftest import check_pair, edits, loc, only_on_decode, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
BACKEND = "disaggregation-transfer-backend: {}\n"  # line 3


def backends(tree, prefill, decode, *args):
    p = BACKEND.format(prefill) if prefill else ""
    d = BACKEND.format(decode) if decode else ""
    return check_pair(tree, pd_server("prefill", p), pd_server("decode", d), *args)


@pytest.mark.parametrize(
    ("prefill", "decode"),
    [("mooncake", "mooncake"), (None, "mooncake"), ("nixl", "nixl"), ("mori", "mori")],
)
def test_the_same_backend_passes(tree, prefill, decode):
    assert backends(tree, prefill, decode).findings("SWA412") == []


@pytest.mark.parametrize(
    ("prefill", "decode", "said"),
    [
        # mooncake/conn.py start_prefill_thread: int(waiting_req_bytes[7]) on a NIXL frame
        ("mooncake", "nixl", "the Mooncake prefill's bootstrap thread reads the decode's NIXL"),
        (None, "mori", "the Mooncake prefill's bootstrap thread reads the decode's Mori"),
        ("mooncake_tcp", "nixl", "the Mooncake prefill's bootstrap thread reads the decode's NIXL"),
        # nixl/conn.py: assert waiting_req_bytes[0] == GUARD
        ("nixl", None, "asserts \"First message should be b'NixlMsgGuard'. Foreign traffic?\""),
        ("nixl", "mori", "on the decode's Mori registration"),
        # mori/conn.py _validate_message
        (
            "mori",
            "mooncake",
            "the Mori prefill drops the decode's Mooncake registration (\"Received",
        ),
    ],
)
def test_different_wire_formats_fail_every_request(tree, prefill, decode, said):
    run = backends(tree, prefill, decode)
    assert run.exit_code == 1
    f = only_on_decode(run, "SWA412")
    assert f["severity"] == "error"
    shown = (prefill or "mooncake", decode or "mooncake")
    assert f["message"].startswith(
        f"Transfer backends differ: prefill {shown[0]}, decode {shown[1]}; nothing compares them "
        "at start-up or in the first-request handshake, and "
    )
    assert said in f["message"]
    assert (
        f["message"].endswith(
            f"every request to that prefill times out in KVPoll.Bootstrapping {TAG}"
        )
        or "drops" in said
    )


def test_the_finding_points_at_the_decode_value_and_relates_the_prefill(tree):
    f = only_on_decode(backends(tree, "mooncake", "nixl"), "SWA412")
    assert loc(f) == (D, 3, 34)
    assert related(f) == [
        (P, 3, 34, "prefill disaggregation_transfer_backend mooncake comes from here")
    ]
    assert edits(f) == [(D, 3, 34, 3, 38, "mooncake")]
    f = only_on_decode(backends(tree, None, "nixl"), "SWA412")
    assert edits(f) == []  # the prefill's value is SGLang's default: no edit to copy


def test_a_fake_decode_never_receives_kv(tree):
    f = only_on_decode(backends(tree, "mooncake", "fake"), "SWA412")
    assert f["severity"] == "error"
    assert "the fake decode never registers with the prefill" in f["message"]
    assert "every request waits until it times out" in f["message"]


@pytest.mark.parametrize(
    ("prefill", "decode"), [("mooncake", "mooncake_tcp"), ("ascend", "mooncake")]
)
def test_one_wire_format_through_other_transfer_engines_is_a_warning(tree, prefill, decode):
    run = backends(tree, prefill, decode)
    f = only_on_decode(run, "SWA412")
    assert f["severity"] == "warning"
    assert "whether the KV arrives is decided by the transfer engine" in f["message"]


def test_a_fake_prefill_fails_alone_not_as_a_pair(tree):
    run = backends(tree, "fake", "mooncake")
    assert run.findings("SWA412") == []
    assert len(run.findings("SWA230")) == 1
