"""The checkpoint facts the catalogue and the files give: expert format from the repository id
(FP8 repacks, NVFP4 conversions, -Base) and expert_dtype, the weight bytes it confirms, and the
DSpark-bundled checkpoints (Flash-0731, Flash-DSpark): the draft SWA504 sizes per algorithm and
the SWA101/102 fix hints that never point at a NextN head they lack."""

from __future__ import annotations

import json

import pytest
from conftest import EAGLE, V4_FLASH, only, run_cli

from swacheck.loading import FileCache
from swacheck.sglang import checkpoint as ckpt
from swacheck.sglang.models import ModelStore

DSPARK_KEYS = {
    "dspark_block_size": 5,
    "dspark_noise_token_id": 128799,
    "dspark_target_layer_ids": [40, 41, 42],
    "dspark_markov_rank": 256,
}


def _facts(tmp_path, model_path: str):
    model = ModelStore(FileCache(), {}).from_path(model_path, str(tmp_path), None)
    return model, ckpt.read(model, {}, model_path)


@pytest.mark.parametrize(
    ("model_path", "experts", "total"),
    [
        ("sgl-project/DeepSeek-V4-Flash-FP8", "fp8", None),
        ("deepseek-ai/DeepSeek-V4-Flash", "mxfp4", 159609485896),
        ("/models/DeepSeek-V4-Flash-0731", "mxfp4", 166878536440),
        ("deepseek-ai/DeepSeek-V4-Flash-DSpark", "mxfp4", 166878536440),
        ("/models/DeepSeek-V4-Flash-Base", "fp8", None),
    ],
)
def test_expert_format_and_bytes_from_the_catalogue(tmp_path, model_path, experts, total):
    model, facts = _facts(tmp_path, model_path)
    assert model.catalogue is not None
    assert facts.experts.value == experts and not facts.experts_assumed
    assert facts.experts.origin.startswith("expert format of swacheck's catalogue: ")
    if total is None:
        assert facts.weight_bytes is None  # unknown, never the Instruct size
    else:
        assert facts.weight_bytes.value == total and not facts.weights_approximate
        assert facts.weight_bytes.origin.startswith("metadata.total_size from swacheck's catalogue")


def test_the_fp8_repack_in_the_hub_cache_is_fp8_by_its_repository_id(tmp_path, monkeypatch):
    repo = tmp_path / "hub" / "models--sgl-project--DeepSeek-V4-Flash-FP8"
    snap = repo / "snapshots" / "abc1234"
    snap.mkdir(parents=True)
    flash = json.loads(V4_FLASH)
    flash.pop("expert_dtype", None)
    (snap / "config.json").write_text(json.dumps(flash))  # no marker in the file
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc1234")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    model, facts = _facts(tmp_path, "sgl-project/DeepSeek-V4-Flash-FP8")
    assert model.file is not None and model.catalogue is None  # the cached file wins
    assert facts.experts.value == "fp8" and not facts.experts_assumed


def test_a_base_folder_with_its_config_is_not_the_instruct_checkpoint(tmp_path):
    folder = tmp_path / "DeepSeek-V4-Pro-Base"
    folder.mkdir()
    (folder / "config.json").write_text(V4_FLASH)
    model = ModelStore(FileCache(), {}).from_path(str(folder), str(tmp_path), None)
    facts = ckpt.read(model, {}, str(folder))
    assert facts.weight_bytes is None  # was 865 GB of the FP4 Instruct checkpoint
    assert facts.experts_assumed


def test_expert_dtype_fp4_says_fp4_experts(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**json.loads(V4_FLASH), "expert_dtype": "fp4"}))
    model = ModelStore(FileCache(), {}).from_path(str(folder), str(tmp_path), None)
    facts = ckpt.read(model, {}, str(folder))
    assert facts.experts.value == "mxfp4" and not facts.experts_assumed
    assert facts.experts.origin == "config.json expert_dtype fp4"


def test_nvfp4_conversion_by_repository_id(tmp_path):
    model, facts = _facts(tmp_path, "nvidia/DeepSeek-V4-Pro-NVFP4")
    assert facts.experts.value == "nvfp4" and facts.weight_bytes is None


def _decode(model: str, algo: str) -> str:
    return (
        f"python3 -m sglang.launch_server --model-path {model} --tp-size 1 "
        f"--disaggregation-mode decode --speculative-algorithm {algo} --speculative-num-steps 3 "
        "--speculative-eagle-topk 1\n"
    )


def test_swa504_sizes_the_bundled_dspark_draft_not_a_nextn_share(tmp_path):
    (tmp_path / "d.sh").write_text(_decode("deepseek-ai/DeepSeek-V4-Flash-0731", "DSPARK"))
    run = run_cli("--format", "json", "--gpu", "H200", "d.sh", cwd=tmp_path)
    f = only(run, "SWA504")
    assert "10.12 GiB (DSpark draft: the bundled DSpark stages' files, 10.12 GiB" in f["message"]
    assert "NextN layer" not in f["message"]
    (tmp_path / "d.sh").write_text(_decode("deepseek-ai/DeepSeek-V4-Flash-0731", "EAGLE"))
    run = run_cli("--format", "json", "--gpu", "H200", "d.sh", cwd=tmp_path)
    f = only(run, "SWA504")
    assert "(+ the MTP draft's weights, which swacheck cannot size)" in f["message"]
    assert "NextN layer" not in f["message"]
    # the Preview has one NextN head: its share stays
    (tmp_path / "d.sh").write_text(_decode("deepseek-ai/DeepSeek-V4-Flash", "EAGLE"))
    run = run_cli("--format", "json", "--gpu", "H200", "d.sh", cwd=tmp_path)
    assert "MTP draft: 1 NextN layer(s) of 44" in only(run, "SWA504")["message"]


def test_window_fix_never_points_at_a_nextn_head_of_a_dspark_bundled_target(tree):
    server = EAGLE + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: decode\n"
    plain = run_cli("--format", "json", "server.yaml", cwd=tree({"server.yaml": server}))
    assert only(plain, "SWA102")["fix"]["description"].startswith("Remove speculative-draft")
    bundled = json.dumps({**json.loads(V4_FLASH), **DSPARK_KEYS})
    root = tree({"server.yaml": server, "models/v4/config.json": bundled})
    f = only(run_cli("--format", "json", "server.yaml", cwd=root), "SWA102")
    assert "NextN" not in f["fix"]["description"]
    assert f["fix"]["description"].startswith("Set the draft model's sliding_window to 128")


def test_eagle_on_a_checkpoint_without_a_nextn_head_is_swa214(tmp_path):
    for model in ("deepseek-ai/DeepSeek-V4-Flash-0731", "/models/DeepSeek-V4-Flash-DSpark"):
        (tmp_path / "d.sh").write_text(_decode(model, "EAGLE"))
        run = run_cli("--format", "json", "d.sh", cwd=tmp_path)
        f = only(run, "SWA214")
        assert "has no NextN head" in f["message"]
        assert f["location"]["line"] == 1
        assert f["fix"]["description"].startswith("Run speculative-algorithm DSPARK")
    # DSPARK, a draft path, or the Preview (one NextN head): no finding
    for model, algo in (
        ("deepseek-ai/DeepSeek-V4-Flash-0731", "DSPARK"),
        ("deepseek-ai/DeepSeek-V4-Flash", "EAGLE"),
    ):
        (tmp_path / "d.sh").write_text(_decode(model, algo))
        assert run_cli("--format", "json", "d.sh", cwd=tmp_path).findings("SWA214") == []
    (tmp_path / "d.sh").write_text(
        _decode("deepseek-ai/DeepSeek-V4-Flash-0731", "EAGLE").replace(
            "--tp-size 1",
            "--tp-size 1 --speculative-draft-model-path deepseek-ai/DeepSeek-V4-Flash",
        )
    )
    assert run_cli("--format", "json", "d.sh", cwd=tmp_path).findings("SWA214") == []


def test_a_local_dspark_folder_with_its_config_is_known_by_name(tree):
    bundled = json.dumps({**json.loads(V4_FLASH), **DSPARK_KEYS})
    root = tree(
        {
            "models/DeepSeek-V4-Flash-0731/config.json": bundled,
            "server.yaml": EAGLE.replace("models/v4", "models/DeepSeek-V4-Flash-0731"),
        }
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert len(run.findings("SWA214")) == 1
    plain = tree({"models/DeepSeek-V4-Flash-0731/config.json": V4_FLASH})  # no dspark_* keys
    assert run_cli("--format", "json", "server.yaml", cwd=plain).findings("SWA214") == []
