"""SWA202 speculative-args-refused: EAGLE/DSPARK only, EAGLE with explicit top-k 1 and num-steps."""

from __future__ import annotations

import pytest
from conftest import EAGLE, edits, loc
from conftest import only as the_only

ALGO = "AssertionError: Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM"
TOPK = "AssertionError: Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM"


def only(run, code="SWA202"):
    return the_only(run, code)


def test_eagle_with_explicit_topk_1_and_steps_passes(lint):
    run = lint({"server.yaml": EAGLE})
    assert run.exit_code == 0
    assert run.codes() == []


def test_dspark_is_accepted(lint):
    run = lint(
        {
            "server.yaml": "model-path: models/v4\nspeculative-algorithm: "
            "DSPARK\nspeculative-draft-model-path: models/v4\n"
        }
    )
    assert run.exit_code == 0
    assert "SWA202" not in run.codes()


DSPARK_NO_DRAFT = (
    "ValueError: DSpark dense speculative decoding requires setting --speculative-draft-model-path."
)


@pytest.mark.parametrize("version", ["0.5.17", "0.5.20", "0.5.22", "0.5.23"])
def test_dspark_without_a_draft_path_on_a_checkpoint_without_a_draft_is_refused(lint, version):
    # speculative_hook.py _handle_dspark: 0.5.23:752, 0.5.22:677, 0.5.20:588, 0.5.17:320
    run = lint(
        {"server.yaml": "model-path: models/v4\nspeculative-algorithm: DSPARK\n"},
        "--sglang-version",
        version,
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].endswith(DSPARK_NO_DRAFT)
    assert ("no dspark/ subfolder" in f["message"]) == (version == "0.5.23")
    assert loc(f) == ("server.yaml", 2, 1)
    assert f["fix"]["edits"] == []


@pytest.mark.parametrize("version", ["0.5.17", "0.5.23"])
@pytest.mark.parametrize("key", ["dspark_block_size: 7", "dspark_target_layer_ids: [1, 2]"])
def test_dspark_with_a_draft_bundled_in_the_target_passes(lint, version, key):
    import json

    from conftest import V4_FLASH

    config = json.loads(V4_FLASH)
    name, value = key.split(": ")
    config[name] = json.loads(value)
    files = {
        "models/v4/config.json": json.dumps(config),
        "server.yaml": "model-path: models/v4\nspeculative-algorithm: DSPARK\n",
    }
    run = lint(files, "--sglang-version", version)
    assert "SWA202" not in run.codes(), run.stdout


def test_a_null_dspark_key_bundles_nothing(lint):
    import json

    from conftest import V4_FLASH

    config = dict(json.loads(V4_FLASH), dspark_markov_rank=None)
    files = {
        "models/v4/config.json": json.dumps(config),
        "server.yaml": "model-path: models/v4\nspeculative-algorithm: DSPARK\n",
    }
    assert only(lint(files))["message"].endswith(DSPARK_NO_DRAFT)


@pytest.mark.parametrize(("version", "refused"), [("0.5.22", True), ("0.5.23", False)])
def test_a_dspark_subfolder_is_a_draft_only_from_0_5_23(lint, version, refused):
    from conftest import V4_FLASH

    files = {
        "models/v4/dspark/config.json": V4_FLASH,
        "server.yaml": "model-path: models/v4\nspeculative-algorithm: DSPARK\n",
    }
    run = lint(files, "--sglang-version", version)
    assert bool(run.findings("SWA202")) == refused


def test_adaptive_eagle_may_leave_out_num_steps(lint):
    server = (
        "model-path: models/v4\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 1\nspeculative-adaptive: true\n"
    )
    run = lint({"server.yaml": server})
    assert run.exit_code == 0
    assert "SWA202" not in run.codes()


def test_nextn_is_refused_and_fixed_to_eagle_with_topk(lint):
    server = "model-path: models/v4\nspeculative-algorithm: NEXTN\nspeculative-num-steps: 3\n"
    run = lint({"server.yaml": server})
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"].startswith(
        "speculative-algorithm 'NEXTN' is not supported for DeepSeek-V4: " + ALGO
    )
    assert "before NEXTN is mapped to EAGLE" in f["message"]
    assert loc(f) == ("server.yaml", 2, 1)
    assert edits(f) == [
        ("server.yaml", 2, 24, 2, 29, "EAGLE"),
        ("server.yaml", 3, 1, 3, 1, "speculative-eagle-topk: 1\n"),
    ]


def test_nextn_with_topk_and_steps_only_renames_the_algorithm(lint):
    server = EAGLE.replace("EAGLE", "NEXTN")
    run = lint({"server.yaml": server})
    assert edits(only(run)) == [("server.yaml", 2, 24, 2, 29, "EAGLE")]


def test_nextn_is_an_error_under_pd_too(lint):
    run = lint({"server.yaml": EAGLE.replace("EAGLE", "NEXTN") + "disaggregation-mode: prefill\n"})
    assert run.exit_code == 1
    assert only(run)["severity"] == "error"


@pytest.mark.parametrize(
    ("written", "fixed"), [("eagle", "EAGLE"), ("nextn", "EAGLE"), ("dspark", "DSPARK")]
)
def test_algorithm_is_case_sensitive(lint, written, fixed):
    # a draft path: DSPARK without one on this checkpoint is refused too (the next refusal)
    run = lint(
        {
            "server.yaml": EAGLE.replace("EAGLE", written)
            + "speculative-draft-model-path: models/v4\n"
        }
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        f"speculative-algorithm {written!r} is not supported for DeepSeek-V4: {ALGO}"
    )
    assert edits(f)[0][-1] == fixed


def test_algorithm_without_a_dsv4_draft_pool_is_refused(lint):
    run = lint({"server.yaml": EAGLE.replace("EAGLE", "MEDUSA")})
    f = only(run)
    assert "no DeepSeek-V4 draft pool exists for it" in f["message"]
    assert edits(f)[0] == ("server.yaml", 2, 24, 2, 30, "EAGLE")


def test_missing_topk_is_refused_and_inserted(lint):
    server = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
    run = lint({"server.yaml": server})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "EAGLE needs an explicit speculative-eagle-topk: 1 for DeepSeek-V4: " + TOPK
    )
    assert loc(f) == ("server.yaml", 2, 1)
    assert edits(f) == [("server.yaml", 3, 1, 3, 1, "speculative-eagle-topk: 1\n")]


def test_missing_topk_is_an_error_without_pd(lint):
    run = lint(
        {
            "server.yaml": "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        }
    )
    assert run.deployments[0]["pd"] is False
    assert only(run)["severity"] == "error"


def test_topk_2_is_refused_and_set_to_1(lint):
    run = lint({"server.yaml": EAGLE.replace("topk: 1", "topk: 2")})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == "speculative-eagle-topk 2 is not supported for DeepSeek-V4: " + TOPK
    assert loc(f) == ("server.yaml", 4, 1)
    assert edits(f) == [("server.yaml", 4, 25, 4, 26, "1")]


def test_missing_num_steps_with_topk_given_is_refused(lint):
    server = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"
    run = lint({"server.yaml": server})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith(
        "EAGLE with speculative-eagle-topk set needs speculative-num-steps"
    )
    assert loc(f) == ("server.yaml", 3, 1)  # the top-k key
    assert edits(f) == [("server.yaml", 4, 1, 4, 1, "speculative-num-steps: 3\n")]


def _inserted_steps(run) -> int:
    return sum(
        e["replacement"].count("speculative-num-steps:")
        for f in run.findings("SWA202")
        for e in f["fix"]["edits"]
    )


def test_missing_topk_and_steps_is_one_finding_that_inserts_both(lint):
    run = lint({"server.yaml": "model-path: models/v4\nspeculative-algorithm: EAGLE\n"})
    assert run.exit_code == 1
    f = only(run)  # SGLang stops at the top-k assertion; no separate num-steps finding
    assert f["message"].startswith("EAGLE needs an explicit speculative-eagle-topk: 1")
    assert f["fix"]["description"] == "Add speculative-eagle-topk: 1 and speculative-num-steps: 3."
    assert edits(f) == [
        ("server.yaml", 3, 1, 3, 1, "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n")
    ]
    assert _inserted_steps(run) == 1


def test_nextn_alone_fixes_insert_num_steps_once(lint):
    run = lint({"server.yaml": "model-path: models/v4\nspeculative-algorithm: NEXTN\n"})
    assert run.exit_code == 1
    f = only(run)
    assert edits(f) == [
        ("server.yaml", 2, 24, 2, 29, "EAGLE"),
        ("server.yaml", 3, 1, 3, 1, "speculative-eagle-topk: 1\nspeculative-num-steps: 3\n"),
    ]
    assert _inserted_steps(run) == 1


def test_invalid_num_steps_value_is_left_to_swa304_not_reported_as_missing(lint):
    run = lint({"server.yaml": EAGLE.replace("steps: 3", "steps: 3.0")})
    assert run.exit_code == 1
    assert "SWA304" in run.codes()
    assert "SWA202" not in run.codes()
