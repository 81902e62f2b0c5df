"""SWA210 dspark-dp-lm-head: DSPARK with attention data parallelism but no enable-dp-lm-head."""

from __future__ import annotations

import pytest
from conftest import loc, only

DSPARK = "model-path: models/v4\nspeculative-algorithm: DSPARK\nspeculative-draft-model-path: models/v4\ntp-size: 8\n"
MESSAGE = "ValueError: DSpark with dp attention requires --enable-dp-lm-head."


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_attn_dp_without_dp_lm_head_is_refused(lint, version):
    # arg_groups/speculative_hook.py _handle_dspark: 0.5.22:612-615, 0.5.23:674-676
    run = lint({"server.yaml": DSPARK + "attn-dp-size: 2\n"}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA210")
    assert f["severity"] == "error"
    assert f["message"] == (
        f"speculative-algorithm DSPARK with attention DP size 2 and no enable-dp-lm-head: {MESSAGE} "
        "(argument resolution, arg_groups/speculative_hook.py _handle_dspark)"
    )
    assert loc(f) == ("server.yaml", 5, 1)


def test_dp_lm_head_passes(lint):
    run = lint({"server.yaml": DSPARK + "attn-dp-size: 2\nenable-dp-lm-head: true\n"})
    assert run.findings("SWA210") == []


def test_no_attention_dp_passes(lint):
    assert lint({"server.yaml": DSPARK}).findings("SWA210") == []


def test_eagle_with_attention_dp_is_not_ours(lint):
    eagle = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
    run = lint({"server.yaml": eagle + "speculative-eagle-topk: 1\ntp-size: 8\nattn-dp-size: 2\n"})
    assert run.findings("SWA210") == []


@pytest.mark.parametrize(("dp", "refused"), [(2, True), (1, False)])
def test_0_5_20_needs_dp_size_above_one(lint, dp, refused):
    # speculative_hook.py 0.5.20:527: enable_dp_attention and dp_size > 1
    text = DSPARK + f"enable-dp-attention: true\ndp-size: {dp}\n"
    run = lint({"server.yaml": text}, "--sglang-version", "0.5.20")
    assert bool(run.findings("SWA210")) is refused


def test_0_5_17_refuses_enable_dp_attention_whatever_dp_size(lint):
    # speculative_hook.py 0.5.17:282: enable_dp_attention alone
    text = DSPARK + "enable-dp-attention: true\n"
    f = only(lint({"server.yaml": text}, "--sglang-version", "0.5.17"), "SWA210")
    assert "DSPARK with enable-dp-attention and no enable-dp-lm-head" in f["message"]
