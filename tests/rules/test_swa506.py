"""SWA506 dsv4-pd-pipeline-refused: pp-size > 1 on a DeepSeek-V4 PD server in SGLang 0.5.12."""

from __future__ import annotations

import pytest
from conftest import EAGLE, edits, loc, only


def test_pd_with_pp_is_refused_on_0_5_12(lint):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: prefill\npp-size: 2\n"},
        "--sglang-version",
        "0.5.12",
    )
    f = only(run, "SWA506")
    assert f["message"].startswith(
        "ValueError: V4 PD disaggregation requires pp_size=1, got pp_size=2."
    )
    assert loc(f) == ("server.yaml", 6, 1)
    assert edits(f) == [("server.yaml", 6, 10, 6, 11, "1")]
    assert run.exit_code == 1


@pytest.mark.parametrize("version", ["0.5.13", "0.5.16", "0.5.23"])
def test_later_releases_accept_it(lint, version):
    run = lint(
        {"server.yaml": EAGLE + "disaggregation-mode: prefill\npp-size: 2\n"},
        "--sglang-version",
        version,
    )
    assert run.findings("SWA506") == []


@pytest.mark.parametrize("extra", ["pp-size: 1\ndisaggregation-mode: prefill\n"])
def test_pp_1_or_no_pd_passes_on_0_5_12(lint, extra):
    # pp-size 2 without PD is not SWA506's, but 0.5.12 refuses it with MTP (SWA207, server_args.py:7253)
    run = lint({"server.yaml": EAGLE + extra}, "--sglang-version", "0.5.12")
    assert run.findings("SWA506") == []
    assert run.exit_code == 0
