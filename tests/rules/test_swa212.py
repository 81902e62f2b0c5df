"""SWA212 dspark-gamma-refused: DSPARK draft tokens other than gamma + 1, or a block size below 1."""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, edits, loc, only

DSPARK = "model-path: models/v4\nspeculative-algorithm: DSPARK\nspeculative-draft-model-path: models/draft\n"
_draft = json.loads(V4_FLASH)
_draft["dspark_block_size"] = 5
DRAFT = {"models/draft/config.json": json.dumps(_draft, indent=1)}
WHERE = "(argument resolution, arg_groups/speculative_hook.py _handle_dspark)"


@pytest.fixture
def lint(lint):
    return lambda files, *args, **kw: lint({**DRAFT, **files}, *args, **kw)


@pytest.mark.parametrize("version", ["0.5.17", "0.5.20", "0.5.22", "0.5.23"])
def test_draft_tokens_other_than_the_block_size_plus_one_are_refused(lint, version):
    # _handle_dspark: 0.5.17:376-382, 0.5.20:664-670, 0.5.22:753-759, 0.5.23:827-833
    text = DSPARK + "speculative-dspark-block-size: 7\nspeculative-num-draft-tokens: 4\n"
    run = lint({"server.yaml": text}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA212")
    assert f["severity"] == "error"
    assert f["message"] == (
        "ValueError: DSpark speculative_num_draft_tokens must equal gamma + 1 (= 8 for gamma=7), "
        f"but got speculative_num_draft_tokens=4. {WHERE}"
    )
    assert loc(f) == ("server.yaml", 5, 31)
    assert edits(f) == [("server.yaml", 5, 31, 5, 32, "8")]
    assert f["fix"]["safe"] is True


def test_gamma_from_the_draft_checkpoint(lint):
    run = lint({"server.yaml": DSPARK + "speculative-num-draft-tokens: 4\n"})
    f = only(run, "SWA212")
    assert "(= 6 for gamma=5)" in f["message"]
    assert edits(f) == [("server.yaml", 4, 31, 4, 32, "6")]


def test_gamma_plus_one_passes_and_gives_the_ring(lint):
    run = lint({"server.yaml": DSPARK + "speculative-num-draft-tokens: 6\n"})
    assert run.findings("SWA212") == []
    run = lint({"server.yaml": DSPARK})  # SGLang sets gamma + 1 itself
    assert run.findings("SWA212") == []


def test_draft_tokens_without_a_known_gamma_are_taken_as_written(lint):
    # no block size and a draft config without one: SGLang has no gamma to compare with
    text = DSPARK.replace("models/draft", "models/v4") + "speculative-num-draft-tokens: 4\n"
    assert lint({"server.yaml": text}).findings("SWA212") == []


def test_a_block_size_below_one_is_refused(lint):
    run = lint({"server.yaml": DSPARK + "speculative-dspark-block-size: 0\n"})
    f = only(run, "SWA212")
    assert f["message"] == (
        f"ValueError: DSpark requires --speculative-dspark-block-size to be positive, got 0. {WHERE}"
    )
    assert loc(f)[:2] == ("server.yaml", 4)
    assert edits(f) == []


def test_eagle_is_not_ours(lint):
    text = (
        "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        "speculative-eagle-topk: 1\nspeculative-num-draft-tokens: 4\n"
    )
    assert lint({"server.yaml": text}).findings("SWA212") == []
