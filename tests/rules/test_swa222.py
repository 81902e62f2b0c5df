"""SWA222 dsv4-prefill-complete: prefill_complete on a DeepSeek-V4 PD server (its KV manager refuses it)."""

from __future__ import annotations

import pytest
from conftest import loc, only

MESSAGE = "ValueError: prefill_complete currently supports full-attention and DSA KV pools only"


def server(mode: str, extra: str = "") -> str:
    return (
        "model-path: models/v4\n"
        "tp-size: 1\n"
        f"disaggregation-mode: {mode}\n"
        "disaggregation-decode-allocation-policy: prefill_complete\n" + extra
    )


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize("mode", ["prefill", "decode"])
def test_prefill_complete_on_a_dsv4_pd_server(lint, version, mode):
    # disaggregation/common/conn.py CommonKVManager.__init__: 0.5.22:376-379, 0.5.23:421-424
    run = lint({"server.yaml": server(mode)}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA222")
    assert f["message"] == (
        f"disaggregation-decode-allocation-policy prefill_complete on a DeepSeek-V4 {mode} server: "
        f"{MESSAGE} (starting the KV manager, disaggregation/common/conn.py CommonKVManager.__init__: "
        "a DSV4 pool registers SWA state)"
    )
    assert loc(f) == ("server.yaml", 4, 42)
    assert run.findings("SWA207") == []


def test_what_the_argument_checks_refuse_first_is_swa207s(lint):
    run = lint({"server.yaml": server("decode").replace("tp-size: 1", "tp-size: 8")})
    assert run.findings("SWA222") == []
    assert len(run.findings("SWA207")) == 1


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (server("decode").replace("prefill_complete", "early"), ()),
        (server("decode"), ("--sglang-version", "0.5.20")),  # no such policy yet
    ],
)
def test_what_is_not_refused(lint, text, args):
    assert lint({"server.yaml": text}, *args).findings("SWA222") == []
