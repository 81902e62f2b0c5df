"""SWA241 context-length-over-limit: --context-length above the checkpoint's derived length.

Run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/context-length.yaml: 10 of 10 agree in
each): the target refuses a longer context-length, a draft whose limit is below the target's
context length refuses it when the draft worker builds its ModelConfig, the environment switch
allows both.
"""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, loc, only

EAGLE = (
    "model-path: models/t\ntp-size: 8\nspeculative-algorithm: EAGLE\n"
    "speculative-num-steps: 3\nspeculative-eagle-topk: 1\n"
)


def config(**keys) -> str:
    return json.dumps({**json.loads(V4_FLASH), **keys})


def files(server: str, target: int | None = 1048576, draft: int | None = None) -> dict[str, str]:
    out = {"server.yaml": server, "models/t/config.json": config(max_position_embeddings=target)}
    if target is None:
        out["models/t/config.json"] = V4_FLASH
    out["models/d/config.json"] = (
        V4_FLASH if draft is None else config(max_position_embeddings=draft)
    )
    return out


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 1314), ("0.5.22", 1205)])
def test_context_length_above_the_targets_limit(lint, version, line):
    run = lint(files(EAGLE + "context-length: 2000000\n"), "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA241")
    assert f["message"] == (
        "context-length 2000000 is above the target's 1048576 (max_position_embeddings 1048576 in "
        "models/t/config.json): ValueError: Warning: User-specified context_length (2000000) is "
        "greater than the derived context_length (1048576). ... To allow overriding this maximum, "
        "set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (reading the model config, "
        f"configs/model_config.py:{line} ModelConfig._derive_context_length, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 6, 17)


def test_at_the_limit_passes(lint):
    assert lint(files(EAGLE + "context-length: 1048576\n")).findings("SWA241") == []


def test_the_environment_switch_allows_it(lint):
    run = lint(
        files(EAGLE + "context-length: 2000000\n"),
        "--env",
        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
    )
    assert run.findings("SWA241") == []


def test_a_draft_with_a_smaller_limit_fails_in_the_draft_worker(lint):
    run = lint(files(EAGLE + "speculative-draft-model-path: models/d\n", draft=32768))
    f = only(run, "SWA241")
    assert (
        "Target model's context_length (1048576) is greater than the derived context_length (32768)"
        in f["message"]
    )
    assert "starting the draft worker" in f["message"]


def test_a_draft_without_a_context_key_has_the_config_class_default(lint):
    # DeepseekV4Config.max_position_embeddings = 65536 (configs/deepseek_v4.py:64)
    run = lint(files(EAGLE + "speculative-draft-model-path: models/d\n"))
    assert "derived context_length (65536)" in only(run, "SWA241")["message"]
    # neither names a limit: both 65536, nothing to report
    assert (
        lint(files(EAGLE + "speculative-draft-model-path: models/d\n", target=None)).findings(
            "SWA241"
        )
        == []
    )


def test_a_context_length_the_draft_can_hold_passes(lint):
    run = lint(
        files(
            EAGLE + "context-length: 32768\nspeculative-draft-model-path: models/d\n", draft=32768
        )
    )
    assert run.findings("SWA241") == []


def test_rope_scaling_factor_multiplies_the_limit(lint):
    server = "model-path: models/t\ntp-size: 8\ncontext-length: 100000\n"
    out = {"server.yaml": server}
    out["models/t/config.json"] = config(
        max_position_embeddings=65536, rope_scaling={"type": "yarn", "factor": 2}
    )
    assert lint(out).findings("SWA241") == []
    out["models/t/config.json"] = config(
        max_position_embeddings=65536,
        rope_scaling={"type": "yarn", "factor": 2, "original_max_position_embeddings": 4096},
    )
    assert len(lint(out).findings("SWA241")) == 1
