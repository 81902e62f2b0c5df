"""SWA504 gpu-memory-budget: per-GPU weights vs mem-fraction-static x GPU memory."""

from __future__ import annotations

import json

from conftest import V4_FLASH, edits, loc, only

GIB = 1 << 30


def pro(total_gib: float = 125.65 * 8) -> dict[str, str]:
    """A DeepSeek-V4-Pro-shaped checkpoint folder with a safetensors index (61 + 1 NextN layers)."""
    cfg = json.loads(V4_FLASH)
    # one compress ratio per layer and the NextN layer, as DeepSeek-V4-Pro's config.json has
    # (transformers' validate_layer_type refuses fewer: SWA260)
    ratios = [128, 128] + [4, 128] * 29 + [4, 0]
    cfg.update({"hidden_size": 7168, "num_hidden_layers": 61, "compress_ratios": ratios})
    index = {"metadata": {"total_size": int(total_gib * GIB)}, "weight_map": {}}
    return {
        "models/pro/config.json": json.dumps(cfg, indent=1),
        "models/pro/model.safetensors.index.json": json.dumps(index, indent=1),
    }


SERVER = "model-path: models/pro\ntp-size: 8\nmoe-runner-backend: marlin\nmem-fraction-static: {}\n"


def test_field_report_pro_fp8_tp8_on_h200_at_0_88_fails_with_the_minimum(lint):
    run = lint({**pro(), "server.yaml": SERVER.format(0.88)}, "--gpu", "H200")
    f = only(run, "SWA504")
    assert f["severity"] == "error"
    assert "125.65 GiB of weights per GPU" in f["message"]
    assert (
        "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88"
        in f["message"]
    )
    assert "the minimum is 0.8949" in f["message"]
    assert loc(f) == ("server.yaml", 4, 22)
    assert edits(f) == [("server.yaml", 4, 22, 4, 26, "0.92")]
    assert f["related"][0]["message"] == "the checkpoint's size comes from here"


def test_with_mtp_the_draft_layer_counts(lint):
    spec = "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    run = lint({**pro(), "server.yaml": SERVER.format(0.91) + spec}, "--gpu", "H200")
    f = only(run, "SWA504")
    assert "MTP draft: 1 NextN layer(s) of 62" in f["message"]
    assert "the minimum is 0.9094" in f["message"]


def test_enough_fraction_passes(lint):
    run = lint({**pro(), "server.yaml": SERVER.format(0.93)}, "--gpu", "H200")
    assert run.findings("SWA504") == []
    assert run.exit_code == 0


def test_a_tight_fit_is_a_warning(lint):
    run = lint({**pro(), "server.yaml": SERVER.format(0.9)}, "--gpu", "H200")
    f = only(run, "SWA504")
    assert f["severity"] == "warning"


def test_weights_larger_than_the_gpu(lint):
    run = lint({**pro(), "server.yaml": SERVER.format(0.9)}, "--gpu", "H100")
    f = only(run, "SWA504")
    assert f["severity"] == "error"
    assert "exceed the memory of one H100" in f["message"]


def test_pipeline_parallelism_divides_the_weights(lint):
    run = lint({**pro(), "server.yaml": SERVER.format(0.9) + "pp-size: 2\n"}, "--gpu", "H100")
    assert run.findings("SWA504") == []


def test_no_gpu_no_finding(lint):
    run = lint({**pro(), "server.yaml": SERVER.format(0.5)})
    assert run.findings("SWA504") == []


def test_unset_fraction_with_a_big_minimum_is_a_note(lint):
    run = lint(
        {
            **pro(),
            "server.yaml": "model-path: models/pro\ntp-size: 8\nmoe-runner-backend: marlin\n",
        },
        "--gpu",
        "H200",
    )
    f = only(run, "SWA504")
    assert f["severity"] == "note"
    assert run.exit_code == 0


def test_catalogue_when_there_is_no_index(lint):
    run = lint(
        {
            "models/DeepSeek-V4-Flash/config.json": V4_FLASH,
            "server.yaml": "model-path: models/DeepSeek-V4-Flash\nmem-fraction-static: 0.5\n",
        },
        "--gpu",
        "H100",
    )
    f = only(run, "SWA504")
    assert "exceed the memory of one H100" in f["message"]
    assert "approximate: from swacheck's catalogue" in f["message"]


def test_unknown_checkpoint_size_is_silent(lint):
    run = lint(
        {"server.yaml": "model-path: models/v4\nmem-fraction-static: 0.1\n"}, "--gpu", "H100"
    )
    assert run.findings("SWA504") == []


def test_hostile_index_is_ignored(lint):
    files = pro()
    files["models/pro/model.safetensors.index.json"] = '{"metadata": {"total_size": "1e400"}}'
    run = lint({**files, "server.yaml": SERVER.format(0.1)}, "--gpu", "H200")
    assert run.findings("SWA504") == []
    files["models/pro/model.safetensors.index.json"] = "[" * 100000
    run = lint({**files, "server.yaml": SERVER.format(0.1)}, "--gpu", "H200")
    assert run.findings("SWA504") == []
    assert run.stderr == ""
