"""The preflight inputs (GPU table, checkpoint facts, --gpu / gpu:) and one test per field-report shape.

Each report shape from issue 16 is written here as a launch of our own with the facts of the
report; next to it, the working launch a user would have run instead must pass.
"""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from swacheck.loading import FileCache
from swacheck.sglang import checkpoint as ckpt
from swacheck.sglang.gpus import GPUS, lookup
from swacheck.sglang.models import ModelStore

GIB = 1 << 30


# ---------------------------------------------------------------- the GPU table


@pytest.mark.parametrize(
    "name,canonical",
    [
        ("H100", "H100"),
        ("NVIDIA-H100-80GB-HBM3", "H100"),  # Kubernetes nvidia.com/gpu.product
        ("NVIDIA H200", "H200"),
        ("h20", "H20"),
        ("NVIDIA-A100-SXM4-80GB", "A100"),
        ("NVIDIA-A100-SXM4-40GB", "A100-40GB"),
        ("A800", "A800"),
        ("L40S", "L40S"),
        ("NVIDIA GeForce RTX 4090", "RTX 4090"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000"),
        ("B200", "B200"),
        ("B300", "B300"),
        ("GB200", "GB200"),
        ("GB300", "GB300"),
        ("AMD Instinct MI300X", "MI300X"),
        ("MI325X", "MI325X"),
        ("mi355x", "MI355X"),
    ],
)
def test_lookup_names_users_write(name, canonical):
    gpu = lookup(name)
    assert gpu is not None and gpu.name == canonical


@pytest.mark.parametrize(
    "name",
    [
        "T4",
        "V100",
        "",
        "H100-MIG-1g.10gb",
        "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb",
        "x" * 1000,
        "H1000",
    ],
)
def test_unknown_names_are_not_guessed(name):
    assert lookup(name) is None


def test_every_gpu_has_its_facts_and_sources():
    for gpu in GPUS:
        assert (
            gpu.memory_bytes > 16 * GIB and gpu.memory_source and gpu.source.startswith("https://")
        )
        assert (gpu.sm is None) == (gpu.vendor == "amd") and (gpu.gfx is None) == (
            gpu.vendor == "nvidia"
        )
        assert not gpu.fp4 or gpu.fp8  # every FP4 GPU has FP8
        assert gpu.fp8 == (gpu.sm is None or gpu.sm >= 89)


# ---------------------------------------------------------------- checkpoint facts


def _model(tmp_path, cfg: dict, index: str | None = None, name: str = "m"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    if index is not None:
        (folder / "model.safetensors.index.json").write_text(index)
    return ModelStore(FileCache(), {}).from_path(str(folder), str(tmp_path), None)


def test_expert_format_sources(tmp_path):
    base = json.loads(V4_FLASH)
    m = _model(
        tmp_path,
        {
            **base,
            "quantization_config": {"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"},
        },
        name="a",
    )
    facts = ckpt.read(m, {}, None)
    assert (
        facts.experts.value == "mxfp4"
        and not facts.experts_assumed
        and facts.experts.location is not None
    )
    m = _model(
        tmp_path,
        {
            **base,
            "quantization_config": {
                "quant_algo": "MIXED_PRECISION",
                "moe_quant_algo": "NVFP4",
                "group_size": 16,
            },
        },
        name="b",
    )
    assert ckpt.read(m, {}, None).experts.value == "nvfp4"
    m = _model(tmp_path, base, name="c")
    facts = ckpt.read(m, {}, None)
    assert facts.experts.value == "mxfp4" and facts.experts_assumed
    from swacheck.model.records import Val

    assert ckpt.read(m, {"SGLANG_DSV4_FP4_EXPERTS": Val("0", "--env")}, None).experts.value == "fp8"


def test_weight_bytes_from_the_index_with_its_position(tmp_path):
    index = '{\n  "metadata": {\n    "total_size": 171798691840\n  },\n  "weight_map": {}\n}\n'
    facts = ckpt.read(_model(tmp_path, json.loads(V4_FLASH), index), {}, None)
    assert facts.weight_bytes is not None and facts.weight_bytes.value == 171798691840
    loc = facts.weight_bytes.location
    assert (loc.line, loc.column) == (3, 19)
    assert not facts.weights_approximate
    assert (facts.num_layers, facts.nextn_layers) == (43, 1)


@pytest.mark.parametrize(
    "index",
    [
        "{}",
        '{"metadata": {"total_size": -1}}',
        '{"metadata": {"total_size": true}}',
        "[]",
        "not json",
        '{"metadata": 3}',
    ],
)
def test_bad_indexes_give_no_size(tmp_path, index):
    facts = ckpt.read(_model(tmp_path, json.loads(V4_FLASH), index), {}, None)
    assert facts.weight_bytes is None


def test_catalogue_by_folder_name(tmp_path):
    facts = ckpt.read(
        _model(tmp_path, json.loads(V4_FLASH), name="DeepSeek-V4-Pro"),
        {},
        "/models/DeepSeek-V4-Pro",
    )
    assert (
        facts.weights_approximate
        and facts.weight_bytes is not None
        and facts.weight_bytes.value == 865 * 1000**3
    )


# ---------------------------------------------------------------- --gpu and gpu:


def _lint(tree, files, *args):
    root = tree(files)
    return run_cli(
        "--format", "json", *args, *[n for n in files if not n.startswith("models/")], cwd=root
    )


def test_deployment_file_gpu_wins_over_the_option(tree):
    deploy = "swacheck: 1\ngpu: B200\nserver:\n  model-path: models/v4\n  moe-a2a-backend: deepep\n"
    run = _lint(tree, {"d.yaml": deploy}, "--gpu", "H100")
    assert run.findings("SWA501") == []  # B200 runs DeepGEMM FP4 experts


@pytest.mark.parametrize("value", ["[H100]", "true", "''", "null"])
def test_deployment_file_gpu_must_be_a_name(tree, value):
    run = _lint(tree, {"d.yaml": f"swacheck: 1\ngpu: {value}\nserver:\n  model-path: models/v4\n"})
    assert run.exit_code == 2
    assert "d.yaml:2:6: gpu must be a GPU name" in run.stderr


def test_empty_gpu_option_is_a_usage_error(tree):
    run = _lint(tree, {"s.yaml": "model-path: models/v4\n"}, "--gpu", " ")
    assert run.exit_code == 2


# ---------------------------------------------------------------- field report shapes

_fp4 = json.loads(V4_FLASH)
_fp4["quantization_config"] = {"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"}
FP4_MODEL = {
    "models/v4/config.json": json.dumps(_fp4, indent=1)
}  # replaces the tree's models/v4: declared MXFP4 experts


def pro_checkpoint(total_gib: float) -> dict[str, str]:
    cfg = json.loads(V4_FLASH)
    # one compress ratio per layer and the NextN layer (fewer: SWA260, validate_layer_type)
    ratios = [128, 128] + [4, 128] * 29 + [4, 0]
    cfg.update({"hidden_size": 7168, "num_hidden_layers": 61, "compress_ratios": ratios})
    return {
        "models/pro/config.json": json.dumps(cfg),
        "models/pro/model.safetensors.index.json": json.dumps(
            {"metadata": {"total_size": int(total_gib * GIB)}}
        ),
    }


SHAPES = [
    # (name, files, args, rule that must fire, the working launch's files)
    (
        "fp4 experts on hopper with deepep (deepgemm arch_major == 10)",
        {
            **FP4_MODEL,
            "s.yaml": "model-path: models/v4\ntp-size: 8\nep-size: 8\nmoe-a2a-backend: deepep\n",
        },
        ("--gpu", "H200"),
        "SWA501",
        {
            "s.yaml": "model-path: models/v4\ntp-size: 8\nep-size: 8\nmoe-a2a-backend: "
            "deepep\nmoe-runner-backend: flashinfer_mxfp4\n"
        },
    ),
    (
        "fp4 experts on hopper, release without auto selection (triton hidden size mismatch)",
        {**FP4_MODEL, "s.yaml": "model-path: models/v4\ntp-size: 8\n"},
        ("--gpu", "H100", "--sglang-version", "0.5.17"),
        "SWA501",
        {"s.yaml": "model-path: models/v4\ntp-size: 8\nmoe-runner-backend: marlin\n"},
    ),
    (
        "explicit triton runner on fp4 experts",
        {**FP4_MODEL, "s.yaml": "model-path: models/v4\nmoe-runner-backend: triton\n"},
        ("--gpu", "H20"),
        "SWA501",
        {"s.yaml": "model-path: models/v4\nmoe-runner-backend: flashinfer_mxfp4\n"},
    ),
    (
        "flashinfer_trtllm refused for fp4 experts",
        {**FP4_MODEL, "s.yaml": "model-path: models/v4\nmoe-runner-backend: flashinfer_trtllm\n"},
        ("--gpu", "B200"),
        "SWA501",
        {"s.yaml": "model-path: models/v4\nmoe-runner-backend: flashinfer_mxfp4\n"},
    ),
    (
        "decode attention backend aiter on rocm",
        {"s.yaml": "model-path: models/v4\ndecode-attention-backend: aiter\n"},
        ("--platform", "rocm", "--gpu", "MI355X"),
        "SWA502",
        {"s.yaml": "model-path: models/v4\n"},
    ),
    (
        "prefill attention backend flashinfer on cuda",
        {"s.yaml": "model-path: models/v4\nprefill-attention-backend: flashinfer\n"},
        ("--gpu", "H200"),
        "SWA502",
        {"s.yaml": "model-path: models/v4\ndsv4-attn-backend: flashmla\n"},
    ),
    (
        "bfloat16 kv cache on cuda (store_dtype assertion)",
        {"s.yaml": "model-path: models/v4\nkv-cache-dtype: bfloat16\n"},
        ("--gpu", "H100"),
        "SWA503",
        {"s.yaml": "model-path: models/v4\nkv-cache-dtype: fp8_e4m3\n"},
    ),
    (
        "default fp8 kv cache on an A800 (fp8e4nv)",
        {"s.yaml": "model-path: models/v4\n"},
        ("--gpu", "A800"),
        "SWA503",
        {"s.yaml": "model-path: models/v4\n"},  # the same launch on an H800
    ),
    (
        "pro fp8 tp8 on h200 with mem-fraction-static 0.88",
        {
            **pro_checkpoint(1005.2),
            "s.yaml": "model-path: models/pro\ntp-size: 8\nmoe-runner-backend: marlin\nmem-fraction-static: 0.88\n",
        },
        ("--gpu", "H200"),
        "SWA504",
        {
            **pro_checkpoint(1005.2),
            "s.yaml": "model-path: models/pro\ntp-size: 8\nmoe-runner-backend: marlin\nmem-fraction-static: 0.93\n",
        },
    ),
    (
        "prefill cp without a strategy on 0.5.16",
        {
            "s.yaml": "model-path: models/v4\ndisaggregation-mode: prefill\ntp-size: 8\nenable-prefill-cp: true\n"
        },
        ("--gpu", "H200", "--sglang-version", "0.5.16"),
        "SWA505",
        {
            "s.yaml": "model-path: models/v4\ndisaggregation-mode: prefill\ntp-size: "
            "8\nenable-prefill-cp: true\ncp-strategy: interleave\nmoe-runner-backend: "
            "flashinfer_mxfp4\n"
        },
    ),
]


@pytest.mark.parametrize("name,files,args,code,working", SHAPES, ids=[s[0] for s in SHAPES])
def test_field_report_shape_is_named_before_the_launch(
    tree, tmp_path, name, files, args, code, working
):
    run = _lint(tree, files, *args)
    assert run.exit_code == 1, run.stdout
    found = run.findings(code)
    assert found and found[0]["severity"] == "error"
    assert found[0]["fix"]["description"]


@pytest.mark.parametrize("name,files,args,code,working", SHAPES, ids=[s[0] for s in SHAPES])
def test_the_working_launch_passes(tree, name, files, args, code, working):
    args = tuple("H800" if a == "A800" else a for a in args)
    run = _lint(tree, working, *args)
    assert run.exit_code == 0, run.stdout
    assert [
        f["code"] for d in run.deployments for f in d["findings"] if f["severity"] != "note"
    ] == []


# ---------------------------------------------------------------- the GPU from Kubernetes node labels

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: dsv4}}
spec:
  template:
    spec:
{placement}
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --model-path, models/v4, --moe-a2a-backend, deepep]
          resources: {{limits: {{nvidia.com/gpu: 8}}}}
"""


@pytest.mark.parametrize(
    "placement,line",
    [
        ("      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3", 8),
        ("      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h200-141gb}", 7),
        (
            "      affinity:\n        nodeAffinity:\n          "
            "requiredDuringSchedulingIgnoredDuringExecution:\n            "
            "nodeSelectorTerms:\n"
            "              - matchExpressions:\n                  - {key: "
            "nvidia.com/gpu.product, operator: In, values: [NVIDIA-H800]}",
            12,
        ),
    ],
)
def test_gpu_inferred_from_node_labels_with_the_evidence(tree, placement, line):
    run = _lint(tree, {**FP4_MODEL, "k8s.yaml": MANIFEST.format(placement=placement)})
    f = run.findings("SWA501")[0]
    assert f["severity"] == "error" and "Hopper, SM90" in f["message"]
    assert [(r["file"], r["line"], r["message"]) for r in f["related"]] == [
        ("models/v4/config.json", 69, "the FP4 expert format comes from here"),
        ("k8s.yaml", line, "the GPU is named here"),
    ]


def test_node_affinity_with_several_gpus_names_none(tree):
    placement = (
        "      affinity:\n        nodeAffinity:\n          "
        "requiredDuringSchedulingIgnoredDuringExecution:\n            "
        "nodeSelectorTerms:\n"
        "              - matchExpressions:\n                  - {key: "
        "nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3, "
        "NVIDIA-B200]}"
    )
    run = _lint(tree, {"k8s.yaml": MANIFEST.format(placement=placement)})
    assert run.findings("SWA501")[0]["severity"] == "note"  # needs the GPU: not guessed


def test_node_label_wins_over_the_gpu_option(tree):
    placement = "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-B200}"
    run = _lint(tree, {"k8s.yaml": MANIFEST.format(placement=placement)}, "--gpu", "H100")
    assert run.findings("SWA501") == []


# ---------------------------------------------------------------- releases 0.5.12 and 0.5.13 (no false alarms)


@pytest.mark.parametrize("version", ["0.5.12", "0.5.13"])
def test_a_working_0_5_12_launch_passes(tree, version):
    # enable-dp-attention: a plain store_true in those releases' --config loader (refused from 0.5.22)
    server = (
        "model-path: models/v4\ntp-size: 8\ndp-size: 8\nenable-dp-attention: true\n"
        "moe-runner-backend: flashinfer_mxfp4\n"
        "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    run = _lint(tree, {"s.yaml": server}, "--sglang-version", version, "--gpu", "H200")
    assert run.exit_code == 0, run.stdout
    assert [f["code"] for f in run.deployments[0]["findings"]] == []


def test_0_5_12_refuses_bfloat16_kv_in_the_hook(tree):
    run = _lint(
        tree,
        {"s.yaml": "model-path: models/v4\nkv-cache-dtype: bfloat16\n"},
        "--sglang-version",
        "0.5.12",
        "--ignore",
        "SWA501",  # auto is triton on every GPU there (tests/rules/test_swa501.py)
    )
    assert [f["code"] for f in run.deployments[0]["findings"]] == ["SWA205"]


def test_0_5_12_picks_no_fp4_runner_on_hopper(tree):
    run = _lint(
        tree, {"s.yaml": "model-path: models/v4\n"}, "--sglang-version", "0.5.12", "--gpu", "H100"
    )
    f = run.findings("SWA501")[0]
    assert "SGLang 0.5.12 picks no FP4-capable runner for DeepSeek-V4 on any GPU" in f["message"]


def test_0_5_13_has_no_prefill_cp_flag(tree):
    run = _lint(
        tree,
        {"s.yaml": "model-path: models/v4\nenable-prefill-cp: true\n"},
        "--sglang-version",
        "0.5.13",
        "--ignore",
        "SWA501",
    )
    assert [f["code"] for f in run.deployments[0]["findings"]] == ["SWA303"]


def test_index_outside_the_root_is_not_read(tree, tmp_path):
    files = pro_checkpoint(1005.2)
    root = tree(
        {
            "repo/s.yaml": "model-path: ../models/pro\ntp-size: 8\nmoe-runner-backend: "
            "marlin\nmem-fraction-static: 0.5\n",
            **files,
        }
    )
    run = run_cli(
        "--format", "json", "--root", str(root / "repo"), "--gpu", "H200", "repo/s.yaml", cwd=root
    )
    assert run.findings("SWA504") == []  # the index beside an outside config.json is never opened
    inside = run_cli(
        "--format", "json", "--root", str(root), "--gpu", "H200", "repo/s.yaml", cwd=root
    )
    assert inside.findings("SWA504")[0]["severity"] == "error"


# ---------------------------------------------------------------- SGLang-KT (KTransformers) launches


def test_sglang_kt_flags_are_a_note_and_the_experts_are_not_judged(tree):
    cmd = (
        "python -m sglang.launch_server --model-path models/v4 --kt-method MXFP4 --kt-num-gpu-experts 10 "
        "--kt-enable-dynamic-expert-update --kt-gpu-prefill-token-threshold 2048 "
        "--moe-runner-backend triton --mem-fraction-static 0.3 --tp 1"
    )
    root = tree({})
    run = run_cli("--format", "json", "--gpu", "RTX 5090", "--command", cmd, cwd=root)
    assert run.exit_code == 0, run.stdout
    (f,) = run.deployments[0]["findings"]
    assert (f["code"], f["severity"]) == ("SWA303", "note")
    assert "kt-enable-dynamic-expert-update, kt-gpu-prefill-token-threshold" in f["message"]


def test_a_misspelt_upstream_flag_is_still_an_error(tree):
    run = _lint(tree, {"s.yaml": "model-path: models/v4\nmax-runing-requests: 4\n"})
    assert [(f["code"], f["severity"]) for f in run.deployments[0]["findings"]] == [
        ("SWA303", "error")
    ]


# ---------------------------------------------------------------- --config-only refusals stay in --config files


@pytest.mark.parametrize("version", ["0.5.12", "0.5.14", "0.5.16"])  # the flag is gone by 0.5.22
def test_config_loader_refusals_do_not_apply_to_command_line_flags(tree, version):
    root = tree({})
    cmd = "python -m sglang.launch_server --model-path models/v4 --collect-tokens-histogram --disable-cuda-graph --tp 2"
    run = run_cli(
        "--format",
        "json",
        "--sglang-version",
        version,
        "--ignore",
        "SWA501",
        "--command",
        cmd,
        cwd=root,
    )
    assert run.exit_code == 0, run.stdout
    assert run.deployments[0]["findings"] == []


def test_the_same_key_in_a_config_file_is_still_refused(tree):
    run = _lint(
        tree,
        {"s.yaml": "model-path: models/v4\ncollect-tokens-histogram: true\n"},
        "--sglang-version",
        "0.5.14",
    )
    (f,) = run.deployments[0]["findings"]
    assert (
        f["code"] == "SWA303"
        and "Unsupported config option 'collect_tokens_histogram'" in f["message"]
    )


# ---------------------------------------------------------------- hostile GPU names and server values


@settings(max_examples=examples(0.03), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.text(min_size=1, max_size=200),
    runner=st.sampled_from(["auto", "triton", "deep_gemm", "flashinfer_mxfp4", "marlin", "x", ""]),
    a2a=st.sampled_from(["none", "deepep", "mooncake", "bogus"]),
    mfs=st.sampled_from(["0.5", "0.95", "1e400", "nan", "-1", "abc"]),
    tp=st.sampled_from(["1", "8", "0", "-4", "x"]),
)
def test_any_gpu_name_and_values_never_crash(tree, name, runner, a2a, mfs, tp):
    import json as _json

    server = {
        "model-path": "models/v4",
        "moe-runner-backend": runner,
        "moe-a2a-backend": a2a,
        "mem-fraction-static": mfs,
        "tp-size": tp,
        "kv-cache-dtype": "auto",
    }
    deploy = "swacheck: 1\ngpu: " + _json.dumps(name) + "\nserver: " + _json.dumps(server) + "\n"
    run = _lint(tree, {"d.yaml": deploy})
    assert run.exit_code in (0, 1, 2)
    assert "Traceback" not in run.stderr
    if run.exit_code != 2:
        for d in run.deployments:
            for f in d["findings"]:
                assert "\x1b" not in f["message"]


def test_gpu_in_the_configuration_file(tree):
    root = tree(
        {
            **FP4_MODEL,
            "s.yaml": "model-path: models/v4\nmoe-a2a-backend: deepep\n",
            "swacheck.toml": 'gpu = "H100"\n',
        }
    )
    run = run_cli("--format", "json", "s.yaml", cwd=root)
    assert run.findings("SWA501")[0]["severity"] == "error"
    assert (
        'gpu               "H100"  (swacheck.toml)' in run_cli("--show-settings", cwd=root).stdout
    )
    assert (
        run_cli("--format", "json", "--gpu", "B200", "s.yaml", cwd=root).findings("SWA501") == []
    )  # the command line wins


def test_gpu_setting_must_be_a_name(tree):
    root = tree({"s.yaml": "model-path: models/v4\n", "swacheck.toml": "gpu = 3\n"})
    run = run_cli("s.yaml", cwd=root)
    assert run.exit_code == 2 and "gpu must be a GPU name" in run.stderr


def test_explain_shows_the_preflight_facts_only_with_a_gpu(tree):
    from conftest import ROOT

    run = run_cli("explain", "--format", "json", "examples/preflight-memory/server.yaml", cwd=ROOT)
    pre = run.data["deployments"][0]["preflight"]
    assert pre["gpu"]["name"] == "H100" and pre["gpu"]["location"]["line"] == 8
    assert pre["checkpoint"] == {
        "experts": "mxfp4",
        "experts_origin": "the published DeepSeek-V4-Flash (FP4 experts) checkpoint",
        "experts_assumed": False,
        "weight_bytes": 160 * 1000**3,
        "weights_origin": pre["checkpoint"]["weights_origin"],
        "weights_approximate": True,
    }
    human = run_cli(
        "explain", "--color", "never", "examples/preflight-memory/server.yaml", cwd=ROOT
    ).stdout
    assert "preflight (SWA5xx)" in human and "routed experts = MXFP4" in human
    plain = run_cli("explain", "--format", "json", "examples/cuda-paged/prefill.yaml", cwd=ROOT)
    assert "preflight" not in plain.data["deployments"][0]
