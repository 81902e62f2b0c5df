"""SWA245 swa-cache-args-refused: handle_cache_compatibility's range checks of the SWA pool args."""

from __future__ import annotations

import pytest
from conftest import loc, only

BASE = "model-path: models/v4\ntp-size: 8\n"


def lint_server(lint, extra, version="0.5.23"):
    return lint({"server.yaml": BASE + extra}, "--sglang-version", version)


@pytest.mark.parametrize("version", ["0.5.23", "0.5.22"])
@pytest.mark.parametrize("ratio", ["0", "-0.5", "1.5", "nan", "inf"])
def test_ratio_outside_zero_one(lint, version, ratio):
    run = lint_server(lint, f"swa-full-tokens-ratio: {ratio}\n", version)
    assert run.exit_code == 1
    f = only(run, "SWA245")
    assert f["message"] == (
        f"swa-full-tokens-ratio: {ratio}: ValueError: --swa-full-tokens-ratio should be in range "
        f"(0, 1.0]. (arg_groups/kv_cache_hook.py:428 handle_cache_compatibility, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 3, 24)


def test_negative_prefix_tails(lint):
    run = lint_server(lint, "swa-prefix-tails: -1\n")
    f = only(run, "SWA245")
    assert f["message"] == (
        "swa-prefix-tails: -1: ValueError: --swa-prefix-tails should be a non-negative integer. "
        "(arg_groups/kv_cache_hook.py:431 handle_cache_compatibility, SGLang 0.5.23)"
    )
    assert f["fix"]["description"] == "Set swa-prefix-tails to 0 or more, or remove it."


def test_sglang_stops_at_the_ratio(lint):
    run = lint_server(lint, "swa-full-tokens-ratio: 2\nswa-prefix-tails: -1\n")
    assert "swa-full-tokens-ratio" in only(run, "SWA245")["message"]


@pytest.mark.parametrize(
    "extra",
    ["swa-full-tokens-ratio: 1.0\n", "swa-full-tokens-ratio: 0.05\n", "swa-prefix-tails: 0\n"],
)
def test_values_in_range_pass(lint, extra):
    assert lint_server(lint, extra).findings("SWA245") == []


def test_releases_not_read_stay_silent(lint):
    assert lint_server(lint, "swa-full-tokens-ratio: 0\n", "0.5.21").findings("SWA245") == []
