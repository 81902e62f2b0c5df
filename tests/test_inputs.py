"""The two input kinds and how a deployment is assembled from them."""

from __future__ import annotations

from conftest import EAGLE, V4_FLASH, run_cli

PD = "disaggregation-mode: prefill\n"
ROCM_ENV = "env:\n  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"


def test_json_model_override_args_applies_to_target_and_draft(lint):
    run = lint({"server.yaml": EAGLE + PD + "json-model-override-args: {sliding_window: 64}\n"})
    dep = run.deployments[0]
    assert dep["target"]["tuple"] == [256, 64, None] and dep["draft"]["tuple"] == [256, 64, None]
    assert dep["target"]["sources"]["sliding_window"].startswith("server.yaml:6:")


def test_json_model_override_args_as_a_json_string(lint):
    run = lint(
        {"server.yaml": EAGLE + PD + "json-model-override-args: '{\"sliding_window\": 64}'\n"}
    )
    assert run.deployments[0]["draft"]["tuple"] == [256, 64, None]


def test_multi_document_deployment_file(lint):
    doc = (
        "swacheck: 1\nplatform: rocm\n"
        + ROCM_ENV
        + "server:\n  model-path: models/v4\n  speculative-algorithm: EAGLE\n  "
        "speculative-num-steps: {n}\n  speculative-eagle-topk: 1\n  "
        "disaggregation-mode: prefill\n"
    )
    run = lint(
        {
            "d.yaml": doc.format(n=3)
            + "---\n"
            + doc.format(n=1).replace("swacheck: 1", "swacheck: 1\nname: short")
        }
    )
    assert [d["name"] for d in run.deployments] == ["d", "short"]
    assert [d["target"]["tuple"] for d in run.deployments] == [[128, 131, 33667], [128, 129, 33153]]


def test_deployment_file_platform_wins_over_the_command_line(lint):
    deploy = "swacheck: 1\nplatform: rocm\n" + ROCM_ENV + "server: server.yaml\n"
    run = lint({"d.yaml": deploy, "server.yaml": EAGLE + PD}, "--platform", "cuda", target="d.yaml")
    assert run.deployments[0]["mode"] == "unified"


def test_command_line_env_applies_to_plain_server_configs(lint):
    run = lint(
        {"server.yaml": EAGLE + PD},
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert run.deployments[0]["target"]["tuple"] == [128, 131, 33667]


def test_swachecks_own_environment_is_never_the_servers(lint, monkeypatch):
    monkeypatch.setenv("SGLANG_HACK_FLASHMLA_BACKEND", "unified_kv_triton")
    run = lint({"server.yaml": EAGLE + PD}, "--platform", "rocm")
    assert run.deployments[0]["mode"] == "paged"


def test_inline_model_configs(lint):
    deploy = (
        "swacheck: 1\nplatform: rocm\n"
        + ROCM_ENV
        + "server: {disaggregation-mode: decode, max-running-requests: 16, "
        "speculative-algorithm: EAGLE, speculative-num-steps: 3, speculative-eagle-topk: 1}\n"
        "target: {model_config: {sliding_window: 128}}\ndraft: {model_config: {sliding_window: 256}}\n"
    )
    run = lint({"d.yaml": deploy})
    assert run.codes() == ["SWA101"]
    assert run.deployments[0]["draft"]["tuple"] == [256, 259, 12691]  # 49 x 259


def test_server_config_used_by_a_deployment_file_is_checked_once_through_it(tree):
    root = tree(
        {
            "d.yaml": "swacheck: 1\nplatform: rocm\n" + ROCM_ENV + "server: server.yaml\n",
            "server.yaml": EAGLE + PD,
        }
    )
    run = run_cli("--format", "json", ".", cwd=root)
    assert [d["file"] for d in run.deployments] == ["d.yaml"]


def test_hub_id_found_in_the_hugging_face_cache(tree, monkeypatch):
    root = tree({"server.yaml": EAGLE.replace("models/v4", "deepseek-ai/DeepSeek-V4-Flash") + PD})
    repo = root / "hub" / "models--deepseek-ai--DeepSeek-V4-Flash"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abc\n")
    (repo / "snapshots" / "0123abc").mkdir(parents=True)
    (repo / "snapshots" / "0123abc" / "config.json").write_text(V4_FLASH)
    monkeypatch.setenv("HF_HUB_CACHE", str(root / "hub"))
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stderr
    assert run.deployments[0]["target"]["model_config"].endswith("snapshots/0123abc/config.json")


def test_non_dsv4_target_is_skipped_not_failed(lint):
    files = {
        "server.yaml": "model-path: models/llama\n" + PD,
        "models/llama/config.json": '{"architectures": ["LlamaForCausalLM"]}',
    }
    run = lint(files)
    dep = run.deployments[0]
    assert dep["mode"] == "skipped" and "not a DeepSeek-V4 target" in dep["skip_reason"]
    assert run.exit_code == 0


def test_missing_sliding_window_is_an_input_error_naming_the_file(lint):
    files = {
        "server.yaml": "model-path: models/x\n" + PD,
        "models/x/config.json": '{"architectures": ["DeepseekV4ForCausalLM"]}',
    }
    run = lint(files)
    assert run.exit_code == 2
    assert "models/x/config.json:1:1: models/x/config.json has no 'sliding_window'" in run.stderr
