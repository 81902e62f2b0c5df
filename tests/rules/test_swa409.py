"""SWA409 pd-metadata-buffers: PD metadata-buffer switches differ (checksum, sampling mask)."""

from __future__ import annotations

from conftest import check_pair, loc, only_on_decode, pd_server, related

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
TAIL = "the metadata buffers are counted differently and silently misaligned"
CHECKSUM = (
    "disaggregation-enable-kv-checksum: true\n"  # at line 3 of a server config, value at column 36
)


server = pd_server


def deployment(role: str, mask: str | None = None) -> str:
    # line 2: env with the sampling mask (value at column 43)
    env = f"env: {{SGLANG_ENABLE_DISAGG_SAMPLING_MASK: {mask}}}\n" if mask is not None else ""
    return f"swacheck: 1\n{env}server:\n  model-path: ../models/v4\n  disaggregation-mode: {role}\n"


check = check_pair


def only(run, code="SWA409"):
    return only_on_decode(run, code)


def test_checksum_on_both_sides_passes(tree):
    run = check(tree, server("prefill", CHECKSUM), server("decode", CHECKSUM))
    assert run.exit_code == 0
    assert run.findings("SWA409") == []


def test_checksum_false_equals_unset(tree):
    run = check(
        tree, server("prefill", "disaggregation-enable-kv-checksum: false\n"), server("decode")
    )
    assert run.findings("SWA409") == []


def test_checksum_on_the_decode_only_is_a_warning_at_the_decode_value(tree):
    run = check(tree, server("prefill"), server("decode", CHECKSUM))
    assert run.exit_code == 0  # a warning
    f = only(run)
    assert f["severity"] == "warning"
    assert (
        f["message"]
        == f"disaggregation-enable-kv-checksum differs (prefill False, decode True): {TAIL} {TAG}"
    )
    assert loc(f) == (D, 3, 36)
    assert related(f) == []
    assert f["fix"]["edits"] == []
    c = run.data["pairs"][0]["compared"]["kv_checksum"]
    assert (c["prefill"], c["decode"], c["differs"]) == (False, True, True)


def test_checksum_on_the_prefill_only_relates_the_prefill_value(tree):
    run = check(
        tree,
        server("prefill", CHECKSUM),
        server("decode", "disaggregation-enable-kv-checksum: false\n"),
    )
    f = only(run)
    assert f["message"].startswith(
        "disaggregation-enable-kv-checksum differs (prefill True, decode False)"
    )
    assert loc(f) == (D, 3, 36)
    assert related(f) == [(P, 3, 36, "prefill kv_checksum True comes from here")]


def test_checksum_difference_fails_with_fail_on_warning(tree):
    run = check(tree, server("prefill"), server("decode", CHECKSUM), "--fail-on", "warning")
    assert run.exit_code == 1


def test_sampling_mask_on_both_sides_passes(tree):
    run = check(tree, deployment("prefill", '"1"'), deployment("decode", "true"))
    assert run.findings("SWA409") == []


def test_sampling_mask_on_the_decode_only_is_a_warning_at_the_env_value(tree):
    run = check(tree, deployment("prefill"), deployment("decode", '"1"'))
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "warning"
    assert (
        f["message"]
        == f"SGLANG_ENABLE_DISAGG_SAMPLING_MASK differs (prefill False, decode True): {TAIL} {TAG}"
    )
    assert loc(f) == (D, 2, 43)
    assert related(f) == []


def test_sampling_mask_on_the_prefill_only(tree):
    run = check(tree, deployment("prefill", "yes"), deployment("decode", "no"))
    f = only(run)
    assert f["message"].startswith(
        "SGLANG_ENABLE_DISAGG_SAMPLING_MASK differs (prefill True, decode False)"
    )
    assert loc(f) == (D, 2, 43)
    assert related(f) == [(P, 2, 43, "prefill sampling_mask True comes from here")]


def test_both_switches_differing_are_two_warnings(tree):
    prefill = deployment("prefill")
    decode = deployment("decode", '"1"') + "  disaggregation-enable-kv-checksum: true\n"
    run = check(tree, prefill, decode)
    found = run.findings("SWA409")
    assert sorted(f["message"].split(" ")[0] for f in found) == [
        "SGLANG_ENABLE_DISAGG_SAMPLING_MASK",
        "disaggregation-enable-kv-checksum",
    ]
    assert all(f["location"]["file"] == D for f in found)
