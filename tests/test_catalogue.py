"""swacheck's built-in catalogue of the published DeepSeek-V4 checkpoints (swacheck/sglang/catalogue.py):
in step with the shared research data, matched by hub id, revision and folder name (and nothing
near them), used only when no config.json is found, visible as the values' source in every format,
and off with --no-builtin-models / builtin-models = false."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import V4_FLASH, run_cli

from swacheck.sglang import catalogue

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data" / "dsv4-published-checkpoints.json"
FLASH = "deepseek-ai/DeepSeek-V4-Flash"
FLASH_REV = "60d8d70770c6776ff598c94bb586a859a38244f1"
EAGLE_DECODE = (
    "python3 -m sglang.launch_server --model-path {model} {extra}--tp-size 8 "
    "--disaggregation-mode decode --speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1\n"
)


@pytest.mark.skipif(
    not SHARED.is_file(), reason=f"the shared research data is not beside the repository ({SHARED})"
)
def test_package_data_is_built_from_the_shared_research_file():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import build_catalogue
    finally:
        sys.path.pop(0)
    expected = build_catalogue.render(build_catalogue.build(SHARED.read_bytes()))
    assert Path(catalogue.DATA).read_text(encoding="utf-8") == expected, (
        "swacheck/sglang/data/checkpoints.json is out of step: run scripts/build_catalogue.py"
    )
    out = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_catalogue.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stdout


def test_every_entry_holds_only_what_the_research_confirms():
    data = json.loads(Path(catalogue.DATA).read_text(encoding="utf-8"))
    for e in data["entries"]:
        # an uncertain key is never given a value
        flat = {**e["config"], **e["config"].get("text_config", {})}
        for key in e["uncertain"]:
            assert key.split(".")[0] not in flat or "." in key, (e["id"], key)
    by = {e.id: e for e in catalogue.entries()}
    assert by["deepseek-ai/DeepSeek-V4-Pro-Base"].config == {}
    assert by["deepseek-ai/DeepSeek-V4-Flash-Base"].expert_format == "fp8"
    assert by["deepseek-ai/DeepSeek-V4-Pro"].total_size is None  # one record only: unknown


@pytest.mark.parametrize(
    ("path", "revision", "expected"),
    [
        (FLASH, None, FLASH),
        ("DeepSeek-AI/deepseek-v4-flash", None, FLASH),
        (FLASH, "main", FLASH),
        (FLASH, FLASH_REV, FLASH),
        (FLASH, FLASH_REV[:8], FLASH),
        ("deepseek-ai/DeepSeek-V4-Flash-0731", "7872f01b", "deepseek-ai/DeepSeek-V4-Flash-0731"),
        ("/models/DeepSeek-V4-Flash", None, FLASH),
        ("/models/deepseek-v4-flash/", None, FLASH),
        ("/mnt/ckpt/DeepSeek-V4-Flash-0731", None, "deepseek-ai/DeepSeek-V4-Flash-0731"),
        ("/models/DeepSeek-V4-Flash-Base", None, "deepseek-ai/DeepSeek-V4-Flash-Base"),
        ("./DeepSeek-V4-Flash-FP8", None, "sgl-project/DeepSeek-V4-Flash-FP8"),
        ("/models/DeepSeek-V4.1-Flash", None, "deepseek-ai/DeepSeek-V4.1-Flash"),
        ("nvidia/DeepSeek-V4-Pro-NVFP4", None, "nvidia/DeepSeek-V4-Pro-NVFP4"),
        # near misses
        (FLASH, "0123abcd", None),  # a revision the catalogue does not reflect
        (FLASH, "v2", None),
        ("sgl-project/DeepSeek-V4-Flash-FP8", "ae01d80c", None),  # revision unknown to it
        ("someone/DeepSeek-V4-Flash", None, None),  # a fork on the Hub
        ("deepseek-ai/DeepSeek-V4-Flash-Instruct", None, None),
        ("/models/DeepSeek-V4-Flash-w256", None, None),
        ("/models/my-DeepSeek-V4-Flash", None, None),
        ("/models/DeepSeek-V4-Flash/mtp", None, None),
        ("/models/DeepSeek-V4", None, None),
        ("", None, None),
    ],
)
def test_match(path, revision, expected):
    entry = catalogue.match(path, revision)
    assert (entry.id if entry else None) == expected


def test_base_folder_never_gets_the_instruct_entry():
    entry = catalogue.match("/models/DeepSeek-V4-Pro-Base")
    assert entry is not None and entry.id == "deepseek-ai/DeepSeek-V4-Pro-Base"
    assert entry.expert_format == "fp8" and entry.config == {}


def _scratch(tmp_path: Path, models: list[str], extra: str = "") -> Path:
    for i, model in enumerate(models):
        (tmp_path / f"launch{i}.sh").write_text(EAGLE_DECODE.format(model=model, extra=extra))
    return tmp_path


def test_hub_id_launch_gets_its_tuple_from_the_catalogue(tmp_path):
    root = _scratch(tmp_path, [FLASH])
    run = run_cli("--format", "json", "launch0.sh", cwd=root)
    assert run.exit_code == 0, run.stdout + run.stderr
    dep = run.deployments[0]
    assert dep["target"]["tuple"] == [256, 128, None] == dep["draft"]["tuple"]
    assert dep["target"]["source"] == "catalogue"
    assert dep["target"]["catalogue"] == {
        "id": FLASH,
        "revision": FLASH_REV,
        "status": "confirmed",
        "label": "swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash @60d8d707",
    }
    assert dep["target"]["sources"]["sliding_window"] == (
        "sliding_window from swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash @60d8d707"
    )
    human = run_cli("launch0.sh", cwd=root)  # quiet by default: a passing deployment is counted
    assert human.stdout.startswith("Checked 1 deployment in 1 file: 0 errors, 0 warnings")
    verbose = run_cli("-v", "launch0.sh", cwd=root)
    assert (
        "model values from swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash @60d8d707 "
        "(no config.json found)" in verbose.stdout
    )
    explain = run_cli("explain", "launch0.sh", cwd=root)
    assert (
        "sliding_window from swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash" in explain.stdout
    )


def test_a_local_config_json_always_wins(tmp_path):
    folder = tmp_path / "models" / "DeepSeek-V4-Flash"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(
        V4_FLASH.replace('"sliding_window": 128', '"sliding_window": 256')
    )
    root = _scratch(tmp_path, ["models/DeepSeek-V4-Flash"])
    run = run_cli("--format", "json", "launch0.sh", cwd=root)
    dep = run.deployments[0]
    assert dep["target"]["source"] == "config.json"
    assert "catalogue" not in dep["target"]
    assert dep["target"]["tuple"] == [256, 256, None]


def test_no_builtin_models_and_the_config_key_restore_the_lookup_error(tmp_path):
    # without the catalogue, the launch is what it was before it: its config.json is found
    # nowhere, a SWA308 warning (issue 26: no longer exit 2)
    root = _scratch(tmp_path, ["/models/DeepSeek-V4-Flash"])
    off = run_cli("--format", "json", "--no-builtin-models", "launch0.sh", cwd=root)
    (found,) = off.findings("SWA308")
    assert "config.json for model '/models/DeepSeek-V4-Flash' not found" in found["message"]
    (root / "swacheck.toml").write_text("builtin-models = false\n")
    assert run_cli("--format", "json", "launch0.sh", cwd=root).codes() == ["SWA308"]
    (root / "swacheck.toml").write_text("builtin-models = true\n")
    on = run_cli("--format", "json", "launch0.sh", cwd=root)
    assert (on.exit_code, on.codes()) == (0, [])


def test_a_pinned_revision_the_catalogue_does_not_reflect_is_not_guessed(tmp_path):
    root = _scratch(tmp_path, [FLASH], extra="--revision 0123abcd ")
    run = run_cli("--format", "json", "launch0.sh", cwd=root)
    (found,) = run.findings("SWA308")  # not checked, and the finding says why
    assert (
        "swacheck's catalogue holds deepseek-ai/DeepSeek-V4-Flash at 60d8d707 only"
        in found["message"]
    )


def test_unconfirmed_window_is_named_unknown(tmp_path):
    root = _scratch(tmp_path, ["deepseek-ai/DeepSeek-V4-Pro-0813", "nvidia/DeepSeek-V4-Pro-NVFP4"])
    for name in ("launch0.sh", "launch1.sh"):
        run = run_cli(name, cwd=root)
        assert run.exit_code == 2
        assert "does not confirm sliding_window" in run.stderr
        assert "it is unknown" in run.stderr


def test_sarif_names_the_catalogue_as_the_model_source(tmp_path):
    root = _scratch(tmp_path, [FLASH])
    (root / "launch0.sh").write_text(
        EAGLE_DECODE.format(model=FLASH, extra="").replace(
            "--speculative-num-steps 3", "--speculative-num-steps 3 --page-size 64"
        )
        + "\n"
    )
    run = run_cli("--format", "sarif", "launch0.sh", cwd=root)
    sarif = json.loads(run.stdout)["runs"][0]
    assert sarif["properties"]["modelSources"] == [
        {
            "deployment": "launch0.sh",
            "name": "launch0",
            "modelSource": ["swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash @60d8d707"],
        }
    ]
    for result in sarif["results"]:
        assert result["properties"]["modelSource"] == [
            "swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash @60d8d707"
        ]
