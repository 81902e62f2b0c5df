"""SWA220 ragged-verify-mode-refused: SGLANG_RAGGED_VERIFY_MODE, run against real SGLang 0.5.23
and 0.5.22 (conformance/cases/ragged-verify.yaml)."""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc, only


def deployment(mode: str, server: str) -> str:
    return (
        "swacheck: 1\nplatform: cuda\n"
        f"env: {{SGLANG_RAGGED_VERIFY_MODE: {mode}}}\n"
        "server:\n" + "".join("  " + line + "\n" for line in server.splitlines())
    )


@pytest.mark.parametrize("version", ["0.5.23", "0.5.22"])
def test_a_mode_in_another_case_is_refused(lint, version):
    run = lint({"deploy.yaml": deployment("Static", EAGLE)}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA220")
    assert f["message"] == (
        "SGLANG_RAGGED_VERIFY_MODE=Static: ValueError: invalid SGLANG_RAGGED_VERIFY_MODE='Static'; "
        "expected one of 'static', 'cap-accept', 'compact' (speculative/ragged_verify.py:24 "
        f"read_ragged_verify_mode, SGLang {version})"
    )
    assert loc(f) == ("deploy.yaml", 3, 34)


@pytest.mark.parametrize(
    ("mode", "server"),
    [
        ("static", EAGLE),
        ("cap-accept", EAGLE),
        ("compact", EAGLE),
        ("bogus", "model-path: models/v4\n"),  # not read without speculative decoding
    ],
)
def test_modes_it_takes_pass(lint, mode, server):
    assert lint({"deploy.yaml": deployment(mode, server)}).findings("SWA220") == []


def test_older_releases_are_not_judged(lint):
    run = lint({"deploy.yaml": deployment("bogus", EAGLE)}, "--sglang-version", "0.5.21")
    assert run.findings("SWA220") == []
