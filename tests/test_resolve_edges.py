"""Edges of the resolver's stages a mutation run found unguarded (SGLang 0.5.23 unless named).

Each is a server config run through the CLI and read as a user reads the report: which rule
fires, where, and with which words; ``human_int`` is checked against what SGLang's own
``human_readable_int`` returned for the same texts.
"""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, run_cli

from swacheck.sglang.stages.memory_pool import human_int

EAGLE = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"


def check(tree, server: str, **models: dict):
    files = {"server.yaml": server}
    for name, config in models.items():
        files[f"models/{name}/config.json"] = json.dumps(config, indent=1)
    return run_cli("--format", "json", "server.yaml", cwd=tree(files))


def findings(run, code: str) -> list[dict]:
    return run.findings(code)


# What SGLang 0.5.23's srt/utils/common.py human_readable_int returned (run in the conformance
# environment, 2026-12-02); None where it raised ArgumentTypeError.
HUMAN_READABLE_INT = {
    "300": 300,
    "1k": 1000,
    "1K": None,
    "2M": 2_000_000,
    "1G": 1_000_000_000,
    "1T": 1_000_000_000_000,
    "1Ki": 1024,
    "2Mi": 2_097_152,
    "1Gi": 1_073_741_824,
    "1Ti": 1_099_511_627_776,
    "1.5k": 1500,
    "0.5M": 500_000,
    "1.5Gi": None,
    "1.5": None,
    "-1": -1,
    "1e3": None,
    "64 ": 64,
}


@pytest.mark.parametrize(("text", "tokens"), HUMAN_READABLE_INT.items())
def test_max_total_tokens_is_read_as_sglangs_human_readable_int(text, tokens):
    assert human_int(text) == tokens


def test_the_c128_ring_is_checked_when_the_checkpoint_has_no_c4_layers(tree):
    # no ratio 4: the c128 ring (256 entries) serves 130 draft tokens; 131 overflow it
    no_c4 = json.loads(V4_FLASH)
    no_c4["compress_ratios"] = [0 if r == 4 else r for r in no_c4["compress_ratios"]]
    server = EAGLE.replace("models/v4", "models/no4") + "disaggregation-mode: decode\n"
    over = check(tree, server + "speculative-num-steps: 130\n", no4=no_c4)
    (f,) = findings(over, "SWA243")
    assert "exceeds what the c128 compress state ring can keep resident" in f["message"]
    assert "(ring_size=256 serves at most 130 draft tokens)" in f["message"]
    fits = check(tree, server + "speculative-num-steps: 129\n", no4=no_c4)
    assert findings(fits, "SWA243") == []


def test_dp_replicas_with_attention_dp_point_at_attn_dp_size(tree):
    run = check(tree, "model-path: models/v4\ndp-size: 2\nattn-dp-size: 2\ntp-size: 8\n")
    (f,) = findings(run, "SWA304")
    assert "data-parallel replicas combined with attention data parallelism" in f["message"]
    assert (f["location"]["line"], f["location"]["column"]) == (3, 1)  # attn-dp-size


@pytest.mark.parametrize("value", ["true", "false"])
def test_a_yaml_boolean_for_a_choice_reaches_argparse_as_lower_case_text(tree, value):
    run = check(tree, f"model-path: models/v4\nkv-cache-dtype: {value}\n")
    (f,) = findings(run, "SWA304")
    assert f"rejects the boolean {value};" in f["message"]
    assert f"invalid choice: '{value}'" in f["message"]


def test_only_a_yaml_null_gets_the_quote_null_hint(tree):
    null = check(tree, "model-path: models/v4\nkv-cache-dtype: null\n")
    (f,) = findings(null, "SWA304")
    assert "(quote 'null': an unquoted YAML null reaches SGLang as the text None)" in f["message"]
    assert "invalid choice: 'None'" in f["message"]
    other = check(tree, "model-path: models/v4\nkv-cache-dtype: foo\n")
    (g,) = findings(other, "SWA304")
    assert "quote 'null'" not in g["message"] and "invalid choice: 'foo'" in g["message"]


@pytest.mark.parametrize(("block", "refused"), [(1, False), (0, True)])
def test_a_dspark_block_size_of_one_is_the_smallest_sglang_takes(tree, block, refused):
    server = (
        "model-path: models/v4\nspeculative-algorithm: DSPARK\n"
        f"speculative-draft-model-path: models/v4\nspeculative-dspark-block-size: {block}\n"
    )
    run = check(tree, server)
    got = [f["message"] for f in findings(run, "SWA212")]
    if refused:
        assert got == [
            "ValueError: DSpark requires --speculative-dspark-block-size to be positive, got 0. "
            "(argument resolution, arg_groups/speculative_hook.py _handle_dspark)"
        ]
    else:
        assert got == [] and run.exit_code == 0


def test_an_adaptive_config_written_as_a_mapping_is_refused_not_read(tree):
    # the adaptive stage reads no steps from it: SWA304 says what argparse gets, and the
    # default candidate steps stand
    server = EAGLE + (
        "speculative-num-steps: 3\nspeculative-adaptive: true\nspeculative-adaptive-config: {a: 1}\n"
    )
    run = check(tree, server)
    (f,) = findings(run, "SWA304")
    assert f["message"].startswith("speculative-adaptive-config: ")
    assert (f["location"]["line"], f["location"]["column"]) == (6, 30)
    assert findings(run, "SWA242") == []
