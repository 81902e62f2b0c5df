"""SWA209 kv-cache-sharding-refused: enable-kv-cache-sharding off a PD prefill server, or with speculative decoding."""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc, only

SHARD = "enable-kv-cache-sharding: true\n"
NOT_PREFILL = (
    "ValueError: --enable-kv-cache-sharding is only supported on PD prefill workers: a rank's pool "
    "holds only its stripe of every cached page, which is incompatible with local decode."
)


def server(mode: str, spec: bool = False) -> str:
    base = EAGLE if spec else "model-path: models/v4\n"
    return base + f"disaggregation-mode: {mode}\n" + SHARD


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize(("mode", "said"), [("decode", "a PD decode"), ("'null'", "a non-PD")])
def test_sharding_off_a_prefill_server_is_refused(lint, version, mode, said):
    # arg_groups/kv_shard_hook.py 0.5.22:60-64, 0.5.23:99-104
    run = lint({"server.yaml": server(mode)}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA209")
    assert f["severity"] == "error"
    assert f["message"] == (
        f"enable-kv-cache-sharding on {said} server: {NOT_PREFILL} "
        "(argument resolution, arg_groups/kv_shard_hook.py)"
    )
    assert loc(f) == ("server.yaml", 3, 1)
    assert f["fix"]["edits"] == []


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("0.5.22", "ValueError: --enable-kv-cache-sharding does not support speculative decoding."),
        (
            "0.5.23",
            "ValueError: KV sharding supports speculative decoding only for GLM DSA single-layer "
            "NextN MTP with EAGLE and topk=1.",
        ),
    ],
)
def test_sharding_with_speculative_decoding_is_refused(lint, version, message):
    run = lint({"server.yaml": server("prefill", spec=True)}, "--sglang-version", version)
    f = only(run, "SWA209")
    assert f["message"].startswith(
        f"enable-kv-cache-sharding with speculative-algorithm EAGLE: {message}"
    )
    assert loc(f) == ("server.yaml", 6, 1)


def test_sharding_on_a_prefill_server_without_speculative_decoding_passes(lint):
    run = lint({"server.yaml": server("prefill")})
    assert run.findings("SWA209") == []


def test_sharding_off_or_unknown_to_the_release_is_not_ours(lint):
    off = "model-path: models/v4\ndisaggregation-mode: decode\nenable-kv-cache-sharding: false\n"
    assert lint({"server.yaml": off}).findings("SWA209") == []
    # 0.5.20 has no such option: SWA303's business, not a refusal of this hook
    run = lint({"server.yaml": server("decode")}, "--sglang-version", "0.5.20")
    assert run.findings("SWA209") == []
    assert run.exit_code == 1
