"""dstack configurations, Helm values of SGLang charts and Python launch harnesses
(inputs/dstack.py, helm_values.py, python_argv.py), each modelled on how they are written."""

from __future__ import annotations

import json
import os

from conftest import run_cli

MODEL = os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "examples", "models", "DeepSeek-V4-Flash")
)


def findings(run) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    data = json.loads(run.stdout)
    return sorted(
        (f["code"], os.path.basename(f["location"]["file"]), f["location"]["line"])
        for d in data["deployments"]
        for f in d["findings"]
    )


def deployments(run) -> list[str]:  # type: ignore[no-untyped-def]
    """The deployments read (a chart's template, reported as not checked, left out)."""
    return sorted(
        d["name"] for d in json.loads(run.stdout)["deployments"] if "templates" not in d["file"]
    )


# --------------------------------------------------------------------------- dstack

DSTACK_PD = f"""type: service
name: dsv4-pd
env:
  - HF_TOKEN
  - MODEL_ID={MODEL}
image: lmsysorg/sglang:v0.5.23
replicas:
  - count: 1..2
    commands:
      - |
        python -m sglang.launch_server \\
          --model-path $MODEL_ID \\
          --tp 8 \\
          --disaggregation-mode prefill \\
          --disaggregation-transfer-backend mooncake \\
          --page-size 64 \\
          --host 0.0.0.0 --port 8000
    resources:
      gpu: H200:8
  - count: 1..4
    commands:
      - |
        python -m sglang.launch_server \\
          --model-path $MODEL_ID \\
          --tp 8 \\
          --disaggregation-mode decode \\
          --disaggregation-transfer-backend mooncake \\
          --host 0.0.0.0 --port 8000
    resources:
      gpu: H200:8
port: 8000
router:
  type: sglang
  pd_disaggregation: true
"""


def test_dstack_service_with_pd_replica_groups(tmp_path):
    (tmp_path / "service.dstack.yml").write_text(DSTACK_PD)
    run = run_cli("--format", "json", str(tmp_path))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert deployments(run) == ["dstack/dsv4-pd/replicas[0]", "dstack/dsv4-pd/replicas[1]"]
    assert findings(run) == [("SWA201", "service.dstack.yml", 16)]  # --page-size 64
    assert len(json.loads(run.stdout)["pairs"]) == 1


def test_dstack_in_a_markdown_block_and_the_fix_edits_the_doc(tmp_path):
    doc = tmp_path / "README.md"
    doc.write_text(
        f"# Serving\n\n```yaml\n{DSTACK_PD}```\n\nRun `dstack apply -f service.dstack.yml`.\n"
    )
    run = run_cli("--format", "json", str(doc))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert findings(run) == [("SWA201", "README.md", 19)]
    fixed = run_cli("--fix", str(doc), cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert "--page-size 256" in doc.read_text()


def test_dstack_task_with_run_time_variables(tmp_path):
    (tmp_path / "task.dstack.yml").write_text(
        f"""type: task
name: dsv4-2node
nodes: 2
env:
  MODEL: {MODEL}
commands:
  - pip install sglang==0.5.23
  - python3 -m sglang.launch_server --model-path $MODEL --tp 16 --nnodes $DSTACK_NODES_NUM
      --node-rank $DSTACK_NODE_RANK --dist-init-addr $DSTACK_MASTER_NODE_IP:5000 --page-size 64
resources:
  gpu: MI300X:8
"""
    )
    run = run_cli("--format", "json", str(tmp_path))
    assert run.exit_code == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert [d["platform"] for d in data["deployments"]] == ["rocm"]
    codes = [c for c, _, _ in findings(run)]
    assert "SWA305" in codes and "SWA201" in codes  # node rank etc. only known at run time


# --------------------------------------------------------------------------- Helm values


def _chart(tmp_path, values: str):  # type: ignore[no-untyped-def]
    chart = tmp_path / "sglang-dsv4"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: sglang-dsv4\nversion: 0.1.0\n")
    (chart / "templates" / "deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
        '        - image: "{{ .Values.image.repository }}"\n'
        '          command: ["python3", "-m", "sglang.launch_server"]\n'
        "          args: [--model-path, {{ .Values.modelPath }}]\n"
    )
    (chart / "values.yaml").write_text(values)
    return chart


def test_helm_values_with_an_extra_args_list(tmp_path):
    chart = _chart(
        tmp_path,
        f"image:\n  repository: lmsysorg/sglang\n  tag: v0.5.23-cu129\nmodelPath: {MODEL}\n"
        'extraArgs:\n  - "--tp"\n  - "8"\n  - "--page-size"\n  - "64"\n'
        'resources:\n  limits:\n    nvidia.com/gpu: "8"\n',
    )
    run = run_cli("--format", "json", str(chart / "values.yaml"))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert deployments(run) == ["helm/values"]
    assert findings(run) == [("SWA201", "values.yaml", 8)]
    assert run_cli("--fix", str(chart / "values.yaml"), cwd=tmp_path).exit_code == 0
    assert '- "256"' in (chart / "values.yaml").read_text()


def test_helm_values_with_prefill_and_decode_arg_strings(tmp_path):
    chart = _chart(
        tmp_path,
        f"image: {{repository: lmsysorg/sglang, tag: v0.5.23}}\nmodel:\n  path: {MODEL}\n"
        "prefill:\n  extraArgs: --tp 8 --disaggregation-mode prefill --disaggregation-transfer-backend mooncake\n"
        "decode:\n  extraArgs: >-\n    --tp 8 --disaggregation-mode decode\n"
        "    --disaggregation-transfer-backend mooncake --page-size 32\n",
    )
    run = run_cli("--format", "json", str(chart))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert deployments(run) == ["helm/decode", "helm/prefill"]
    assert ("SWA201", "values.yaml", 9) in findings(run)
    assert len(json.loads(run.stdout)["pairs"]) == 1


def test_values_of_another_server_are_not_read(tmp_path):
    chart = _chart(tmp_path, "image: {repository: vllm/vllm-openai}\nextraArgs: [--tp, '8']\n")
    run = run_cli("--format", "json", "--allow-empty", str(chart / "values.yaml"))
    assert deployments(run) == []


# --------------------------------------------------------------------------- Python harnesses

MODAL = f'''"""Modal app serving DeepSeek-V4-Flash with SGLang."""
import subprocess
import sys

import modal

MODEL_PATH = "{MODEL}"
TP = 8
app = modal.App("dsv4")


@app.function(gpu="H200:8", timeout=3600)
@modal.web_server(port=30000, startup_timeout=1800)
def serve():
    cmd = [
        sys.executable, "-m", "sglang.launch_server",
        "--model-path", MODEL_PATH,
        "--tp", str(TP),
        "--page-size", "64",
        "--host", "0.0.0.0",
    ]
    if modal.is_local():
        cmd += ["--port", "30000"]
    subprocess.Popen(" ".join(cmd), shell=True)


def bench():
    subprocess.run(["python3", "-m", "sglang.bench_serving", "--backend", "sglang"])
    print("then run: python -m sglang.launch_server --model-path x --page-size 1")
'''

HARNESS = f"""import unittest

from sglang.test.test_utils import DEFAULT_URL_FOR_TEST, popen_launch_server

MODEL = "{MODEL}"


class TestDSV4MTP(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.process = popen_launch_server(
            MODEL,
            DEFAULT_URL_FOR_TEST,
            timeout=600,
            other_args=[
                "--tp", "8",
                "--speculative-algorithm", "EAGLE",
                "--speculative-num-steps", "3",
                "--speculative-eagle-topk", "1",
                "--page-size", "128",
                *EXTRA,
            ],
        )
"""


def test_python_argv_list_read_statically_and_fixed_in_place(tmp_path):
    app = tmp_path / "serve_modal.py"
    app.write_text(MODAL)
    run = run_cli("--format", "json", str(app))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert deployments(run) == ["serve_modal"]  # the bench call and the print are no launches
    assert findings(run) == [("SWA201", "serve_modal.py", 19)]
    assert run_cli("--fix", str(app), cwd=tmp_path).exit_code == 0
    assert '"--page-size", "256",' in app.read_text()


def test_popen_launch_server_harness_and_os_system(tmp_path):
    (tmp_path / "test_dsv4.py").write_text(HARNESS)
    (tmp_path / "launch.py").write_text(
        f'import os\nos.system("python3 -m sglang.launch_server --model-path {MODEL} --tp 8 --page-size 32")\n'
    )
    run = run_cli("--format", "json", str(tmp_path))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert deployments(run) == ["launch", "test_dsv4"]
    got = findings(run)
    assert ("SWA201", "test_dsv4.py", 20) in got and ("SWA201", "launch.py", 2) in got
    assert ("SWA305", "test_dsv4.py", 21) in got  # *EXTRA: not known until the test runs


def test_python_files_that_are_not_launches_are_skipped(tmp_path):
    (tmp_path / "util.py").write_text("def f():\n    return 1\n")
    (tmp_path / "broken.py").write_text("cmd = ['python3', '-m', 'sglang.launch_server'\n")
    (tmp_path / "deep.py").write_text(
        "x = " + "[" * 5000 + "]" * 5000 + "  # sglang.launch_server\n"
    )
    run = run_cli("--format", "json", "--allow-empty", str(tmp_path))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert deployments(run) == []
