"""SWA203 draft-tokens-adjusted: speculative-num-draft-tokens that SGLang resets to steps + 1."""

from __future__ import annotations

from conftest import EAGLE, edits, loc
from conftest import only as the_only

UNIFIED = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")


def only(run, code="SWA203"):
    return the_only(run, code)


def test_draft_tokens_equal_to_steps_plus_one_pass(lint):
    run = lint({"server.yaml": EAGLE + "speculative-num-draft-tokens: 4\n"})
    assert run.exit_code == 0
    assert run.codes() == []


def test_other_draft_token_count_is_a_warning_with_the_value_sglang_uses(lint):
    run = lint({"server.yaml": EAGLE + "speculative-num-draft-tokens: 8\n"})
    assert run.exit_code == 0  # a warning does not fail by default
    f = only(run)
    assert f["severity"] == "warning"
    assert f["message"] == (
        "speculative-num-draft-tokens 8 is reset to 4 (speculative-num-steps + 1, "
        "because top-k is 1); the SWA ring uses 4"
    )
    assert loc(f) == ("server.yaml", 5, 1)
    assert edits(f) == [("server.yaml", 5, 31, 5, 32, "4")]


def test_fail_on_warning_makes_it_fail(lint):
    run = lint({"server.yaml": EAGLE + "speculative-num-draft-tokens: 8\n"}, "--fail-on", "warning")
    assert run.exit_code == 1


def test_ring_uses_steps_plus_one_not_the_configured_count(lint):
    server = (
        EAGLE.replace("steps: 3", "steps: 2")
        + "speculative-num-draft-tokens: 4\ndisaggregation-mode: prefill\n"
    )
    run = lint({"server.yaml": server}, *UNIFIED)
    f = only(run)
    assert "reset to 3" in f["message"]
    assert edits(f)[0][-1] == "3"
    assert run.deployments[0]["target"]["tuple"] == [128, 130, 33410]


def test_dspark_draft_tokens_are_not_reported(lint):
    run = lint(
        {
            "server.yaml": "model-path: models/v4\nspeculative-algorithm: "
            "DSPARK\nspeculative-draft-model-path: "
            "models/v4\nspeculative-num-draft-tokens: 4\n"
        }
    )
    assert "SWA203" not in run.codes()


def test_no_speculative_decoding_is_not_reported(lint):
    run = lint({"server.yaml": "model-path: models/v4\nspeculative-num-draft-tokens: 8\n"})
    assert run.exit_code == 0
    assert "SWA203" not in run.codes()
