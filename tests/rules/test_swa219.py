"""SWA219 dspark-draft-config-refused: parse_dspark_draft_config's refusals of a draft config.json."""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, loc, only

SERVER = (
    "model-path: models/v4\nspeculative-algorithm: DSPARK\n"
    "speculative-draft-model-path: models/draft\n"
)


def draft(**keys) -> str:
    config = json.loads(V4_FLASH)
    config.update(keys)
    return json.dumps(config, indent=1)


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 272), ("0.5.22", 266)])
def test_an_unknown_head_type_is_refused(lint, version, line):
    files = {
        "server.yaml": SERVER,
        "models/draft/config.json": draft(markov_rank=2, markov_head_type="LSTM"),
    }
    run = lint(files, "--sglang-version", version, target="server.yaml")
    assert run.exit_code == 1
    f = only(run, "SWA219")
    assert f["message"] == (
        "models/draft/config.json (markov_head_type): ValueError: Unsupported DSpark "
        "markov_head_type='lstm'. Supported: ('vanilla', 'gated', 'rnn'). "
        f"(speculative/dspark_components/dspark_config.py:{line} parse_dspark_draft_config, "
        f"SGLang {version}; the server stops when the draft model is built)"
    )
    assert loc(f)[0] == "models/draft/config.json"


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"markov_rank": -1}, "DSpark markov_rank must be >= 0, got -1."),
        ({"dspark_config": {"markov_rank": 1}}, "requires markov_head_type when markov_rank > 0"),
        ({"mask_token_id": -3}, "DSpark mask_token_id must be non-negative, got -3."),
        ({"dspark_noise_token_id": -3}, "DSpark mask_token_id must be non-negative, got -3."),
        ({"dspark_target_layer_ids": []}, "must be a non-empty list of ints, got []."),
    ],
)
def test_each_refused_key(lint, keys, message):
    files = {"server.yaml": SERVER, "models/draft/config.json": draft(**keys)}
    run = lint(files, target="server.yaml")
    assert message in only(run, "SWA219")["message"]


@pytest.mark.parametrize(
    "keys",
    [
        {},
        {"markov_rank": 2, "markov_head_type": "Gated"},
        {"dspark_markov_rank": 2},  # the dspark_* keys need no head type
        {"dspark_target_layer_ids": [1, 2]},
        {"dflash_config": {"markov_rank": 1, "markov_head_type": "rnn"}},
    ],
)
def test_drafts_it_takes_pass(lint, keys):
    files = {"server.yaml": SERVER, "models/draft/config.json": draft(**keys)}
    assert lint(files, target="server.yaml").findings("SWA219") == []


def test_not_dspark_is_not_checked(lint):
    files = {
        "server.yaml": "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        "speculative-eagle-topk: 1\nspeculative-draft-model-path: models/draft\n",
        "models/draft/config.json": draft(markov_rank=-1),
    }
    assert lint(files, target="server.yaml").findings("SWA219") == []
