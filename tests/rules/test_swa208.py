"""SWA208 model-config-refused: a deepseek_v4 config.json without sliding_window."""

from __future__ import annotations

import json

import pytest
from conftest import EAGLE, V4_FLASH, only

NO_WINDOW = json.dumps({k: v for k, v in json.loads(V4_FLASH).items() if k != "sliding_window"})
MESSAGE = "AttributeError: '_DeepseekV4ConfigAlias' object has no attribute 'sliding_window'"


@pytest.mark.parametrize("version", ["0.5.17", "0.5.20", "0.5.22", "0.5.23"])
def test_draft_without_sliding_window_is_the_failure_sglang_hits(lint, version):
    # configs/model_config.py DSV4 branch: 0.5.23:1425, 0.5.22:1316, 0.5.20:1149, 0.5.17:880
    files = {
        "models/nowin/config.json": NO_WINDOW,
        "server.yaml": EAGLE + "speculative-draft-model-path: models/nowin\n",
    }
    run = lint(files, "--sglang-version", version)
    assert run.exit_code == 1, run.stderr
    f = only(run, "SWA208")
    assert f["severity"] == "error"
    assert (
        f["message"]
        == f"models/nowin/config.json (draft) has no 'sliding_window': SGLang's ModelConfig fails: {MESSAGE}"
    )
    assert f["location"]["file"] == "models/nowin/config.json"
    dep = run.deployments[0]
    assert dep["mode"] == "skipped" and "draft model config" in dep["skip_reason"]


@pytest.mark.parametrize(
    "extra, code",
    [
        ("swa-full-tokens-ratio: 2\n", "SWA245"),  # arg_groups/kv_cache_hook.py 0.5.23:428
        ("enable-deterministic-inference: true\n", "SWA223"),  # arg_groups/overrides.py 0.5.23:1119
    ],
)
def test_a_draft_sglang_cannot_load_does_not_hide_what_the_hooks_refuse_first(lint, extra, code):
    """SGLang builds an EAGLE draft's ModelConfig with the draft worker, after the argument hooks
    and the target's pool (conformance case draft-refused-hooks: SGLang stops on the hook's
    ValueError): the target's pool and the rules that read it stand beside SWA208."""
    files = {
        "models/nowin/config.json": NO_WINDOW,
        "server.yaml": EAGLE + "speculative-draft-model-path: models/nowin\n" + extra,
    }
    run = lint(files)
    assert run.exit_code == 1
    assert only(run, "SWA208")["severity"] == "error"
    assert only(run, code)["location"]["file"] == "server.yaml"
    dep = run.deployments[0]
    assert dep["draft"] is None and dep["target"]["sliding_window"] == 128
    assert dep["skip_reason"] == (
        "SGLang cannot load the draft model config (no sliding_window): no draft pool"
    )


NO_WINDOW_DSPARK = json.dumps(
    {**json.loads(NO_WINDOW), "markov_rank": 2, "markov_head_type": "gated"}
)
DSPARK = (
    "model-path: models/v4\nmax-running-requests: 8\nspeculative-algorithm: DSPARK\n"
    "speculative-draft-model-path: models/nowin\n"
)


def test_a_dspark_draft_sglang_cannot_load_does_not_hide_the_hooks_either(lint):
    """_handle_dspark takes the draft's DSpark keys while the arguments are resolved; the draft
    worker's ModelConfig fails later (conformance case draft-refused-hooks-dspark, 3 of 3 in
    0.5.23 and 0.5.22): the target's pool is built with the draft's tokens, its rules run."""
    files = {"models/nowin/config.json": NO_WINDOW_DSPARK, "server.yaml": DSPARK}
    plain = lint(files)
    assert [f["code"] for d in plain.deployments for f in d["findings"]] == ["SWA208"]
    run = lint({**files, "server.yaml": DSPARK + "swa-full-tokens-ratio: 2\n"})
    assert {f["code"] for d in run.deployments for f in d["findings"]} == {"SWA208", "SWA245"}
    dep = run.deployments[0]
    assert dep["draft"] is None and dep["target"]["sliding_window"] == 128
    assert dep["target"] == plain.deployments[0]["target"]


def test_target_without_sliding_window_too(lint):
    run = lint({"models/v4/config.json": NO_WINDOW, "server.yaml": EAGLE})
    assert "(target) has no 'sliding_window'" in only(run, "SWA208")["message"]
    assert run.exit_code == 1


def test_an_override_gives_the_window(lint):
    files = {
        "models/nowin/config.json": NO_WINDOW,
        "server.yaml": EAGLE
        + "speculative-draft-model-path: models/nowin\njson-model-override-args: '{\"sliding_window\": 128}'\n",
    }
    run = lint(files)
    assert run.findings("SWA208") == []
    assert run.exit_code == 0


def test_without_model_type_it_stays_an_input_error(lint):
    files = {
        "models/x/config.json": '{"architectures": ["DeepseekV4ForCausalLM"]}',
        "server.yaml": EAGLE + "speculative-draft-model-path: models/x\n",
    }
    run = lint(files)
    assert run.exit_code == 2
    assert run.findings("SWA208") == []
