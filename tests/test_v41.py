"""DeepSeek-V4.1 checkpoints read as SGLang reads them (configs/deepseek_v41.py
normalize_deepseek_v41_config: text_config flattened, DeepseekV41ForCausalLM -> DeepseekV4ForCausalLM),
per release (0.5.21+ have the config class), the older layout refused, and compress_rates
(a config.json re-saved by transformers >= 4.57) predicted as SGLang's AttributeError."""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, run_cli

V41_TEXT = {
    "model_type": "deepseek_v41_text",
    "sliding_window": 128,
    "num_hidden_layers": 40,
    "num_nextn_predict_layers": 3,
    "compress_ratios": [0, 0] + [2] * 18 + [1] * 20 + [0, 0, 0],
    "head_dim": 512,
    "qk_rope_head_dim": 64,
    "index_head_dim": 128,
    "dspark_block_size": 5,
    "dspark_noise_token_id": 128799,
    "dspark_target_layer_ids": [37, 38, 39],
    "dspark_markov_rank": 256,
}
V41 = {
    "architectures": ["DeepseekV41ForCausalLM"],
    "model_type": "deepseek_v41",
    "quantization_config": {"quant_method": "fp8", "expert_dtype": "fp4"},
    "text_config": V41_TEXT,
    "vision_config": {"num_hidden_layers": 24},
}
SERVER = (
    "model-path: models/v41\n"
    "disaggregation-mode: decode\n"
    "speculative-algorithm: {algo}\n"
    "speculative-num-steps: 3\n"
    "speculative-eagle-topk: 1\n"
)
DSPARK_SERVER = (
    "model-path: models/v41\ndisaggregation-mode: decode\nspeculative-algorithm: DSPARK\n"
)


def _write(tmp_path, config: dict | str, algo: str = "DSPARK"):
    folder = tmp_path / "models" / "v41"
    folder.mkdir(parents=True, exist_ok=True)
    text = config if isinstance(config, str) else json.dumps(config, indent=1)
    (folder / "config.json").write_text(text)
    server = DSPARK_SERVER if algo == "DSPARK" else SERVER.format(algo=algo)
    (tmp_path / "server.yaml").write_text(server)
    return tmp_path


@pytest.mark.parametrize("version", ["0.5.23", "0.5.22", "0.5.21"])
def test_v41_layout_gets_its_tuples(tmp_path, version):
    root = _write(tmp_path, V41)
    run = run_cli("--format", "json", "--sglang-version", version, "server.yaml", cwd=root)
    assert run.exit_code == 0, run.stdout + run.stderr
    dep = run.deployments[0]
    assert dep["mode"] == "paged" and dep["skip_reason"] is None
    want = [256, 128, None] if version == "0.5.23" else [256, 128]
    assert dep["target"]["tuple"] == want == dep["draft"]["tuple"]
    # the window is read where the file writes it: under text_config
    line = next(
        i
        for i, t in enumerate((root / "models/v41/config.json").read_text().splitlines(), 1)
        if '"sliding_window"' in t
    )
    assert dep["target"]["sources"]["sliding_window"].endswith(f"config.json:{line}:21")


@pytest.mark.parametrize("version", ["0.5.23", "0.5.22", "0.5.21"])
def test_v41_with_eagle_is_refused_as_sglangs_model_hook_refuses_it(tmp_path, version):
    root = _write(tmp_path, V41, algo="EAGLE")
    run = run_cli("--format", "json", "--sglang-version", version, "server.yaml", cwd=root)
    assert run.exit_code == 1
    (f,) = run.findings("SWA213")
    assert f["message"].endswith(
        "ValueError: DeepSeek-V4.1 does not support speculative decoding other than DSpark yet; "
        "disable it to serve this model."
    )
    assert (f["location"]["file"], f["location"]["line"]) == ("server.yaml", 3)
    assert f["fix"]["description"].startswith("Run speculative-algorithm DSPARK")


def test_v41_refuses_pp_hisparse_and_two_batch_overlap(tmp_path):
    root = _write(tmp_path, V41)
    (root / "server.yaml").write_text(
        DSPARK_SERVER + "pp-size: 2\nenable-hisparse: true\nenable-two-batch-overlap: true\n"
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    said = [f["message"].split("support ")[1] for f in run.findings("SWA213")]
    assert said == [  # in the file's order
        "pipeline parallelism yet; disable it to serve this model.",
        "HiSparse yet; disable it to serve this model.",
        "two-batch overlap yet; disable it to serve this model.",
    ]


def test_v41_on_a_release_without_its_config_class_is_refused(tmp_path):
    root = _write(tmp_path, V41)
    run = run_cli("--format", "json", "--sglang-version", "0.5.20", "server.yaml", cwd=root)
    assert run.exit_code == 1
    (f,) = run.findings("SWA208")
    assert "SGLang 0.5.20 has no DeepSeek-V4.1 config class" in f["message"]
    assert "model type `deepseek_v41`" in f["message"]
    assert run.deployments[0]["skip_reason"] == (
        "SGLang cannot load the target model config (DeepSeek-V4.1 needs SGLang 0.5.21 or "
        "later): no pools to compare"
    )


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        (
            {"architectures": ["DeepseekV41ForConditionalGeneration"]},
            "Model architectures ['DeepseekV41ForConditionalGeneration'] are not supported for now.",
        ),
        (
            {
                "architectures": ["DeepseekV41ForConditionalGeneration"],
                "model_type": "deepseek_v4.1",
            },
            "model type `deepseek_v4.1` but Transformers does not recognize this architecture",
        ),
    ],
)
@pytest.mark.parametrize("version", ["0.5.23", "0.5.22"])
def test_the_older_v41_layout_is_refused_as_sglang_refuses_it(tmp_path, changes, needle, version):
    root = _write(tmp_path, {**V41, **changes})
    run = run_cli("--format", "json", "--sglang-version", version, "server.yaml", cwd=root)
    assert run.exit_code == 1, run.stdout + run.stderr
    (f,) = run.findings("SWA208")
    assert needle in f["message"]
    assert f["location"]["file"].endswith("config.json")


def test_top_level_keys_win_over_text_config(tmp_path):
    root = _write(tmp_path, {**V41, "sliding_window": 256})
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert run.deployments[0]["target"]["tuple"] == [256, 256, None]


def test_v41_catalogue_launch_gets_what_is_confirmed(tmp_path):
    (tmp_path / "l.sh").write_text(
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4.1-Flash "
        "--disaggregation-mode decode --speculative-algorithm DSPARK\n"
    )
    run = run_cli("--format", "json", "l.sh", cwd=tmp_path)
    assert run.exit_code == 0, run.stdout + run.stderr
    t = run.deployments[0]["target"]
    assert t["tuple"] == [256, 128, None]
    assert t["catalogue"]["status"] == "partial"
    assert t["sources"]["sliding_window"] == (
        "sliding_window from swacheck's catalogue: deepseek-ai/DeepSeek-V4.1-Flash "
        "(partial, revision not known)"
    )


@pytest.mark.parametrize("version", ["0.5.23", "0.5.22", "0.5.20", "0.5.17"])
def test_compress_rates_is_sglangs_attribute_error_with_the_rename(tmp_path, version):
    # re-saved by transformers: compress_rates is its mapping of layer type -> rate, and
    # compress_ratios is gone (a list under compress_rates: transformers 5.19 refuses its type
    # first, SWA260, tests/rules/test_swa260.py)
    data = json.loads(V4_FLASH)
    data.pop("compress_ratios")
    data["compress_rates"] = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}
    config = json.dumps(data, indent=1)
    root = _write(tmp_path, config, algo="EAGLE")
    (root / "server.yaml").write_text(SERVER.format(algo="EAGLE"))
    run = run_cli("--format", "json", "--sglang-version", version, "server.yaml", cwd=root)
    assert run.exit_code == 1, run.stdout + run.stderr
    (f,) = run.findings("SWA208")
    assert (
        "AttributeError: '_DeepseekV4ConfigAlias' object has no attribute 'compress_ratios'"
        in f["message"]
    )
    assert f["fix"]["description"].startswith("Rename the key compress_rates to compress_ratios")


def test_compress_rates_beside_compress_ratios_or_overridden_is_fine(tmp_path):
    data = json.loads(V4_FLASH)
    data["compress_rates"] = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}
    root = _write(tmp_path, data, algo="EAGLE")
    assert run_cli("server.yaml", cwd=root).exit_code == 0
    ratios = json.dumps({"compress_ratios": data.pop("compress_ratios")})
    root = _write(tmp_path, data, algo="EAGLE")
    (root / "server.yaml").write_text(
        SERVER.format(algo="EAGLE") + f"json-model-override-args: '{ratios}'\n"
    )
    assert run_cli("server.yaml", cwd=root).exit_code == 0
