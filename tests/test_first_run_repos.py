"""Acceptance for issue 26: three repositories of the kinds that launch SGLang in public (a
Kubernetes guide with launch scripts, a SkyPilot project with docs, an operator repository with
custom resources, Helm charts and tokenizer/dataset JSON), written here from scratch after
reading such repositories (none of their files is copied). Each is walked with ``swacheck .``
and checked by the pre-commit hook (``pre-commit try-repo --all-files``); each must exit with
the verdict of its DeepSeek-V4 deployments alone and print nothing but the findings (each with
its deployment's table) and the summary line: no line for a passing deployment, a skipped file,
an unrelated JSON or a chart.

Shell conditionals and dstack are being read by another change (issue 26 items 5-6); these
repositories leave them out."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

pytest.importorskip("pre_commit", reason="pre-commit is in the test extra")
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git is not installed", allow_module_level=True)

from test_pre_commit import _git, _pre_commit, hook_repo  # noqa: F401  (the hook, committed)

V4 = (ROOT / "examples" / "models" / "DeepSeek-V4-Flash" / "config.json").read_text()
MTP_W256 = (ROOT / "examples" / "models" / "DeepSeek-V4-Flash-MTP-w256" / "config.json").read_text()


def _container(name: str, args: list[str], env: str = "") -> str:
    lines = "\n".join(f"            - {a}" for a in args)
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app: dsv4, role: {name}}}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: dsv4, role: {name}}}
  template:
    metadata:
      labels: {{app: dsv4, role: {name}}}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23-cu129
          command: ["python3", "-m", "sglang.launch_server"]
          args:
{lines}
{env}          resources:
            limits: {{nvidia.com/gpu: 8}}
          volumeMounts:
            - {{name: models, mountPath: /models}}
      volumes:
        - name: models
          persistentVolumeClaim: {{claimName: dsv4-models}}
"""


PD_ARGS = [
    "--model-path=/models/DeepSeek-V4-Flash",
    "--tp-size=8",
    "--host=0.0.0.0",
    "--port=30000",
    "--speculative-algorithm=EAGLE",
    "--speculative-num-steps=3",
    "--speculative-eagle-topk=1",
    "--disaggregation-transfer-backend=mooncake",
    "--trust-remote-code",
]
LAUNCH_SCRIPT = """\
#!/usr/bin/env bash
# {role} server for bare-metal nodes (the same flags as k8s/)
set -euo pipefail
MODEL=/models/DeepSeek-V4-Flash
python3 -m sglang.launch_server \\
  --model-path "$MODEL" \\
  --tp-size 8 \\
  --disaggregation-mode {role} \\
  --disaggregation-transfer-backend mooncake \\
  --speculative-algorithm EAGLE \\
  --speculative-num-steps 3 \\
  --speculative-eagle-topk 1 \\
  --host 0.0.0.0 --port {port}
"""
KUBERNETES_GUIDE = {
    "README.md": """\
# DeepSeek-V4 on Kubernetes with SGLang

Prefill/decode disaggregation on two 8-GPU nodes. Apply the manifests:

```bash
kubectl create namespace dsv4
kubectl apply -n dsv4 -f k8s/
```

Then query the router:

```bash
curl http://dsv4-router:8000/v1/models
```
""",
    ".gitignore": "venv/\n__pycache__/\n*.log\nscratch/\n",
    "swacheck.toml": 'model-config = { "/models/DeepSeek-V4-Flash" = "checkpoints/DeepSeek-V4-Flash", '
    '"/models/DeepSeek-V4-Flash-MTP-w256" = "checkpoints/DeepSeek-V4-Flash-MTP-w256" }\n',
    "checkpoints/DeepSeek-V4-Flash/config.json": V4,
    "checkpoints/DeepSeek-V4-Flash-MTP-w256/config.json": MTP_W256,
    "k8s/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: dsv4}\n",
    "k8s/pvc.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: dsv4-models}\n"
    "spec:\n  accessModes: [ReadWriteMany]\n  resources: {requests: {storage: 2Ti}}\n",
    "k8s/service.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: dsv4-router}\nspec:\n"
    "  selector: {app: dsv4-router}\n  ports: [{port: 8000, targetPort: 8000}]\n",
    "k8s/prefill.yaml": _container("prefill", [*PD_ARGS, "--disaggregation-mode=prefill"]),
    # the decode side loads a separately published draft whose window is 256: SWA102
    "k8s/decode.yaml": _container(
        "decode",
        [
            *PD_ARGS,
            "--disaggregation-mode=decode",
            "--speculative-draft-model-path=/models/DeepSeek-V4-Flash-MTP-w256",
        ],
    ),
    "scripts/launch_prefill.sh": LAUNCH_SCRIPT.format(role="prefill", port=30000),
    "scripts/launch_decode.sh": LAUNCH_SCRIPT.format(role="decode", port=30001),
    # a smoke test of another model, no speculative decoding: not swacheck's business
    "scripts/smoke_llama.sh": "#!/bin/sh\npython3 -m sglang.launch_server --model-path "
    "meta-llama/Llama-3.1-8B-Instruct --port 30002\n",
    "scripts/bench.sh": "#!/bin/sh\npython3 -m sglang.bench_serving --backend sglang "
    "--num-prompts 512 --dataset-name random\n",
    # a fine-tune on the node only (no published name the catalogue knows): its config.json is
    # nowhere here (SWA308 warning)
    "scripts/launch_v4_pro.sh": "#!/bin/sh\npython3 -m sglang.launch_server --model-path "
    "/data/DeepSeek-V4-Pro-ours-sft --tp-size 8 --speculative-algorithm EAGLE "
    "--speculative-num-steps 3 --speculative-eagle-topk 1\n",
    "benchmarks/matrix.yaml": "model: deepseek-ai/DeepSeek-V4-Flash\nspeculative-algorithm: EAGLE\n"
    "tasks: [gsm8k, humaneval]\nconcurrency: [1, 16, 64]\nnum_prompts: 256\n",
    ".github/workflows/lint.yml": "name: lint\non: [push, pull_request]\njobs:\n  lint:\n"
    "    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
    "      - run: pip install yamllint && yamllint k8s/\n",
    "scratch/notes.yaml": "todo: [\n",  # ignored by .gitignore
}
KUBERNETES_GUIDE_VERDICT = (1, {"SWA102": 1, "SWA308": 1})

SKYPILOT_TASK = """\
name: dsv4-flash
resources:
  accelerators: H200:8
  disk_size: 1024
  ports: 30000
envs:
  MODEL_NAME: deepseek-ai/DeepSeek-V4-Flash
  HF_TOKEN: ""
setup: |
  pip install "sglang[all]==0.5.23"
run: |
  python3 -m sglang.launch_server \\
    --model-path $MODEL_NAME \\
    --tp-size 8 \\
    --speculative-algorithm EAGLE \\
    --speculative-num-steps 3 \\
    --speculative-eagle-topk 1 \\
    --speculative-num-draft-tokens 4 \\
    --host 0.0.0.0 --port 30000
"""
SKYPILOT_PROJECT = {
    "README.md": "# Serving DeepSeek-V4-Flash with SkyPilot\n\n```bash\nsky launch -c dsv4 sky/dsv4.yaml\n"
    "sky serve up -n dsv4 sky/service.yaml\n```\n\nSee [the docs](docs/serving.md).\n",
    "docs/serving.md": """\
# Serving

The task runs this command on the cluster:

```bash
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 \\
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 \\
  --speculative-num-draft-tokens 4
```

Benchmark it with:

```bash
python3 -m sglang.bench_serving --backend sglang --dataset-path data/prompts.json
```
""",
    "mkdocs.yml": "site_name: dsv4 on SkyPilot\nnav:\n  - Serving: docs/serving.md\n"
    "theme: {name: material}\n",
    "swacheck.toml": 'model-config = { "deepseek-ai/DeepSeek-V4-Flash" = "ckpt/config.json" }\n',
    "ckpt/config.json": V4,
    "sky/dsv4.yaml": SKYPILOT_TASK,
    "sky/service.yaml": "service:\n  readiness_probe: /health\n  replicas: 2\n" + SKYPILOT_TASK,
    "sky/llama.yaml": "resources:\n  accelerators: L4:1\nrun: |\n  python3 -m sglang.launch_server "
    "--model-path meta-llama/Llama-3.1-8B-Instruct --port 30000\n",
    ".gitignore": ".venv/\nsite/\n",
    "site/index.yaml": "broken: [\n",  # the built docs: ignored
}
SKYPILOT_VERDICT = (0, {})

OME_RUNTIME = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-deepseek-v4-flash-pd
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors}
      modelArchitecture: DeepseekV4ForCausalLM
      autoSelect: true
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.23-rocm700-mi35x
      command: ["python3", "-m", "sglang.launch_server"]
      args:
        - --model-path=/mnt/models/deepseek-v4-flash
        - --tp-size=8
        - --disaggregation-mode=prefill
        - --speculative-algorithm=EAGLE
        - --speculative-num-steps=3
        - --speculative-eagle-topk=1
      env:
        - {name: SGLANG_HACK_FLASHMLA_BACKEND, value: unified_kv_triton}
  decoderConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.23-rocm700-mi35x
      command: ["python3", "-m", "sglang.launch_server"]
      args:
        - --model-path=/mnt/models/deepseek-v4-flash
        - --tp-size=8
        - --disaggregation-mode=decode
        - --speculative-algorithm=EAGLE
        - --speculative-num-steps=3
        - --speculative-eagle-topk=1
{decode_env}"""
OPERATOR_REPO = {
    "README.md": "# model-operator\n\nCustom resources for serving models.\n\n"
    "```bash\nmake install && kubectl apply -f config/runtimes/\n```\n",
    "swacheck.toml": 'model-config = { "/mnt/models/deepseek-v4-flash" = "hack/ckpt/config.json" }\n',
    "hack/ckpt/config.json": V4,
    "hack/kind-config.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n"
    "  - role: control-plane\n",
    # the decode engine leaves out the unified-KV backend the prefill engine uses: SWA404
    "config/runtimes/srt-deepseek-v4-flash-pd.yaml": OME_RUNTIME.replace("{decode_env}", ""),
    "config/runtimes/srt-llama-3-1-8b.yaml": """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: srt-llama-3-1-8b}
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors}
      modelArchitecture: LlamaForCausalLM
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.23-cu129
      command: ["python3", "-m", "sglang.launch_server"]
      args: [--model-path=/mnt/models/llama-3-1-8b, --tp-size=1]
""",
    "config/models/deepseek-v4-flash.yaml": "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\n"
    "metadata: {name: deepseek-v4-flash}\nspec:\n  vendor: deepseek-ai\n"
    "  storage: {storageUri: 'hf://deepseek-ai/DeepSeek-V4-Flash', path: /mnt/models/deepseek-v4-flash}\n",
    "charts/model-operator/Chart.yaml": "apiVersion: v2\nname: model-operator\nversion: 0.3.0\n",
    "charts/model-operator/values.yaml": "replicaCount: 1\nimage:\n  repository: ghcr.io/example/"
    "model-operator\n  tag: v0.3.0\nmodel: deepseek-ai/DeepSeek-V4-Flash\nresources: {}\n",
    "charts/model-operator/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\n"
    'metadata:\n  name: {{ include "model-operator.fullname" . }}\nspec:\n'
    "  replicas: {{ .Values.replicaCount }}\n  template:\n    spec:\n      containers:\n"
    '        - name: manager\n          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"\n',
    "charts/model-operator/templates/_helpers.tpl": '{{- define "model-operator.fullname" -}}\n'
    "{{ .Release.Name }}\n{{- end }}\n",
}
OPERATOR_VERDICT = (1, {"SWA404": 1})


def big_json(root: Path) -> None:
    """The operator's test data: a tokenizer over the node budget, a dataset over the size one."""
    data = root / "pkg" / "testdata"
    data.mkdir(parents=True)
    vocab = ",".join(f'"tok{i}":{i}' for i in range(260_000))
    (data / "tokenizer.json").write_text(
        '{"version":"1.0","model":{"type":"BPE","vocab":{' + vocab + "}}}"
    )
    row = json.dumps({"instruction": "summarise " * 10, "output": "a summary " * 10})
    with open(data / "dataset.json", "w") as fh:
        fh.write("[" + ",".join([row] * 60_000) + "]")


REPOS = {
    "kubernetes-guide": (KUBERNETES_GUIDE, KUBERNETES_GUIDE_VERDICT),
    "skypilot-project": (SKYPILOT_PROJECT, SKYPILOT_VERDICT),
    "operator-crd": (OPERATOR_REPO, OPERATOR_VERDICT),
}


def build(root: Path, files: dict[str, str], hook: Path | None = None) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if files is OPERATOR_REPO:
        big_json(root)
    (root / "venv" / "lib").mkdir(parents=True, exist_ok=True)  # ignored where .gitignore says so
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "init")
    return root


def codes(data: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in data["deployments"]:
        for f in d["findings"]:
            out[f["code"]] = out.get(f["code"], 0) + 1
    return out


FINDING = re.compile(r"^\S.*:\d+:\d+: SWA\d{3} (error|warning|note): ")


def assert_only_findings(text: str, data: dict) -> None:
    """The human report holds one block per deployment with findings (its heading, table and
    findings) and the summary line: nothing for a passing deployment or a skipped file."""
    lines = text.rstrip("\n").split("\n")
    assert lines[-1].startswith("Checked "), lines
    blocks = [b for b in "\n".join(lines[:-1]).split("\n\n") if b.strip()]
    pairs = [b for b in blocks if b.startswith("PD pair: ")]  # the differing values of a pair
    blocks = [b for b in blocks if not b.startswith("PD pair: ")]
    failing = [d for d in data["deployments"] if d["findings"]]
    assert len(blocks) == len(failing), text
    for block, dep in zip(blocks, failing):
        assert block.split("\n")[0].startswith(dep["file"]), block
        assert any(FINDING.match(line) for line in block.split("\n")), block
    assert len(pairs) == sum(1 for p in data["pairs"] if p["findings"]), text
    assert not any(line.startswith("skipped ") for line in lines), text


@pytest.mark.parametrize("name", list(REPOS))
def test_a_walk_gives_the_verdict_of_the_dsv4_deployments_alone(tmp_path, name):
    files, (exit_code, expected) = REPOS[name]
    root = build(tmp_path / name, files)
    data = json.loads(run_cli("--format", "json", ".", cwd=root).stdout)
    assert data["errors"] == [] and data["summary"]["exit_code"] == exit_code
    assert codes(data) == expected
    run = run_cli(".", cwd=root)
    assert (run.exit_code, run.stderr) == (exit_code, "")
    assert_only_findings(run.stdout, data)
    if not expected:
        assert run.stdout.count("\n") == 1  # a clean repository prints one line


@pytest.mark.parametrize("name", list(REPOS))
def test_pre_commit_try_repo_gives_the_same_verdict(tmp_path, name, hook_repo):  # noqa: F811
    files, (exit_code, expected) = REPOS[name]
    root = build(tmp_path / name, files)
    repo, _ = hook_repo
    done = _pre_commit(hook_repo, root, "try-repo", str(repo), "swacheck", "--all-files")
    assert done.returncode == exit_code, done.stdout + done.stderr
    out = done.stdout
    # pre-commit's own lines, then the hook's output: only findings and a summary line
    hook = out[out.index("\n\n", out.index("- hook id: swacheck")) + 2 :] if exit_code else ""
    summaries = [line for line in out.split("\n") if line.startswith("Checked ")]
    if exit_code:
        assert len(summaries) == 1, out
        assert not any(line.startswith("skipped ") for line in hook.split("\n")), out
        for code in expected:
            assert f" {code} " in hook, out
        assert len(hook.strip().split("\n")) < 40, out
    else:
        assert "Passed" in out, out
