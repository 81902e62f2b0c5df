"""Kubernetes manifests: every workload kind, containers, $(VAR), env, GPU platform, positions."""

from __future__ import annotations

import textwrap

import pytest
from conftest import run_cli

ARGS = [
    "--model-path",
    "models/v4",
    "--disaggregation-mode",
    "prefill",
    "--speculative-algorithm",
    "EAGLE",
    "--speculative-num-steps",
    "3",
    "--speculative-eagle-topk",
    "1",
]
ROCM_ENV = [{"name": "SGLANG_HACK_FLASHMLA_BACKEND", "value": "unified_kv_triton"}]


def container(name="sglang", args=None, env=None, gpu="amd.com/gpu", command=None, extra=""):
    """A container as YAML text (flow style keeps the templates short)."""
    import json

    c = {
        "name": name,
        "image": "lmsysorg/sglang:latest",
        "command": command or ["python3", "-m", "sglang.launch_server"],
        "args": args if args is not None else ARGS,
    }
    if env is not None:
        c["env"] = env
    if gpu:
        c["resources"] = {"limits": {gpu: 8}}
    return json.dumps(c) + extra


def pod_spec(*containers: str) -> str:
    return "{containers: [" + ", ".join(containers) + "]}"


TEMPLATES = {
    "Pod": ("v1", "spec: {spec}"),
    "Deployment": ("apps/v1", "spec: {{template: {{spec: {spec}}}}}"),
    "StatefulSet": ("apps/v1", "spec: {{template: {{spec: {spec}}}}}"),
    "DaemonSet": ("apps/v1", "spec: {{template: {{spec: {spec}}}}}"),
    "Job": ("batch/v1", "spec: {{template: {{spec: {spec}}}}}"),
    "CronJob": (
        "batch/v1",
        "spec: {{schedule: '@daily', jobTemplate: {{spec: {{template: {{spec: {spec}}}}}}}}}",
    ),
}


def manifest(kind: str, spec: str, name: str = "srv") -> str:
    api, body = TEMPLATES[kind]
    return (
        f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}}}\n"
        + body.format(spec=spec)
        + "\n"
    )


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_every_workload_kind(lint, kind):
    run = lint({"m.yaml": manifest(kind, pod_spec(container(env=ROCM_ENV)))})
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert (dep["file"], dep["name"], dep["platform"], dep["mode"]) == (
        "m.yaml",
        f"{kind}/srv/sglang",
        "rocm",
        "unified",
    )
    assert dep["target"]["tuple"] == [128, 131, 33667]


def test_leader_worker_set_has_a_leader_and_a_worker(lint):
    text = (
        "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: "
        "LeaderWorkerSet\nmetadata: {name: prefill}\nspec:\n  "
        "leaderWorkerTemplate:\n"
        f"    size: 2\n    leaderTemplate: {{spec: {pod_spec(container(env=ROCM_ENV))}}}\n"
        f"    workerTemplate: {{spec: "
        f"{pod_spec(container(env=ROCM_ENV, args=ARGS + ['--node-rank', '$(LWS_WORKER_INDEX)']))}}}\n"
    )
    run = lint({"lws.yaml": text})
    assert [d["name"] for d in run.deployments] == [
        "LeaderWorkerSet/prefill/leader/sglang",
        "LeaderWorkerSet/prefill/worker/sglang",
    ]
    (f,) = run.findings("SWA305")
    assert "LWS_WORKER_INDEX is set by the LeaderWorkerSet controller" in f["message"]


def test_only_sglang_containers_become_deployments(lint):
    spec = pod_spec(
        container(name="init-model", command=["sh", "-c", "cp -r /src /models"], args=[], gpu=""),
        container(name="prefill", env=ROCM_ENV),
        container(
            name="router",
            command=["python3", "-m", "sglang_router.launch_router"],
            args=["--pd-disaggregation"],
            gpu="",
        ),
        container(
            name="decode",
            env=ROCM_ENV,
            args=[a.replace("prefill", "decode") for a in ARGS] + ["--max-running-requests", "16"],
        ),
    )
    run = lint({"m.yaml": manifest("Pod", spec, "pd")})
    assert [(d["name"], d["target"]["tuple"]) for d in run.deployments] == [
        ("Pod/pd/prefill", [128, 131, 33667]),
        ("Pod/pd/decode", [128, 131, 6419]),
    ]


def test_other_kinds_and_documents_are_ignored(lint):
    svc = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n"
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {model-path: x}\n"
    run = lint(
        {"m.yaml": svc + "---\n" + cm + "---\n" + manifest("Deployment", pod_spec(container()))}
    )
    assert [d["name"] for d in run.deployments] == ["Deployment/srv/sglang"]


def test_dollar_paren_expansion(lint):
    env = ROCM_ENV + [
        {"name": "DIR", "value": "models"},
        {"name": "MODEL", "value": "$(DIR)/v4"},
        {"name": "ESC", "value": "$$(DIR)"},
    ]
    args = ["--model-path", "$(MODEL)", "--served-model-name", "$(ESC)"] + ARGS[2:]
    run = lint({"m.yaml": manifest("Pod", pod_spec(container(env=env, args=args)))})
    assert run.exit_code == 0, run.stderr
    assert run.deployments[0]["target"]["model_config"] == "models/v4/config.json"


def test_unknown_reference_stays_literal_and_is_unresolved(lint):
    args = ARGS + ["--speculative-draft-model-path", "$(DRAFT)"]
    run = lint({"m.yaml": manifest("Pod", pod_spec(container(env=ROCM_ENV, args=args)))})
    (f,) = run.findings("SWA305")
    assert f["message"].startswith(
        "--speculative-draft-model-path $(DRAFT) cannot be resolved (DRAFT is not in the container's env"
    )
    assert run.deployments[0]["draft"]["tuple"] == [
        128,
        131,
        33667,
    ]  # the draft path is treated as unset


def test_a_model_path_the_cluster_gives_is_a_note_until_it_is_given(lint):
    # an OME ClusterServingRuntime's --model-path ${MODEL_PATH} is injected by the operator: once
    # an input error (exit 2), so a folder of valid runtimes always failed
    pod = manifest("Pod", pod_spec(container(args=["--model-path", "$(MODEL)"])))
    run = lint({"m.yaml": pod})
    assert run.exit_code == 0 and run.data["errors"] == []
    (note,) = run.findings("SWA307")
    assert note["message"] == (
        "the model path comes from MODEL, which the cluster gives (an operator, envFrom or "
        "valueFrom): check the launch with --env MODEL=VALUE --model-config VALUE=PATH"
    )
    given = lint({"m.yaml": pod}, "--env", "MODEL=/m/v4", "--model-config", "/m/v4=models/v4")
    assert given.findings("SWA307") == [] and given.deployments[0]["target"] is not None


def test_value_from_is_unknown_and_reported_when_used(lint):
    env = [
        {
            "name": "SGLANG_HACK_FLASHMLA_BACKEND",
            "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "backend"}},
        }
    ]
    run = lint({"m.yaml": manifest("Pod", pod_spec(container(env=env)))})
    (f,) = run.findings("SWA305")
    assert "comes from valueFrom (configMapKeyRef): only known in the cluster" in f["message"]
    assert run.deployments[0]["mode"] == "paged"  # treated as unset
    cuda = lint({"m.yaml": manifest("Pod", pod_spec(container(env=env, gpu="nvidia.com/gpu")))})
    assert cuda.findings("SWA305") == []  # the backend does not matter on CUDA
    answered = lint(
        {"m.yaml": manifest("Pod", pod_spec(container(env=env)))},
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert answered.codes() == [] and answered.deployments[0]["mode"] == "unified"


@pytest.mark.parametrize(
    "resources, given, platform",
    [
        ({"limits": {"amd.com/gpu": 8}}, "cuda", "rocm"),
        ({"requests": {"nvidia.com/gpu": "8"}}, "rocm", "cuda"),
        ({"limits": {"cpu": 4}}, "rocm", "rocm"),
        ({}, "npu", "npu"),
    ],
)
def test_platform_from_the_gpu_resource(lint, resources, given, platform):
    import json

    c = json.loads(container(env=ROCM_ENV, gpu=""))
    c["resources"] = resources
    c["image"] = "registry.local/sglang:latest"
    run = lint({"m.yaml": manifest("Pod", pod_spec(json.dumps(c)))}, "--platform", given)
    assert run.deployments[0]["platform"] == platform


def test_sh_c_block_scalar_positions_point_into_the_manifest(lint):
    text = textwrap.dedent(
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: decode}
        spec:
          template:
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23-rocm700-mi35x
                  env:
                    - {name: SGLANG_HACK_FLASHMLA_BACKEND, value: unified_kv_triton}
                  command: ["/bin/sh", "-c"]
                  args:
                    - |
                      exec python3 -m sglang.launch_server \\
                        --model-path models/v4 --disaggregation-mode decode \\
                        --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 \\
                        --page-size 64 --node-rank $POD_RANK
        """
    )
    run = lint({"m.yaml": text})
    f = run.findings("SWA201")[0]
    assert (f["location"]["line"], f["location"]["column"]) == (
        18,
        19,
    )  # `page-size` inside the block scalar
    assert [
        (e["line"], e["column"], e["end_column"], e["replacement"]) for e in f["fix"]["edits"]
    ] == [(18, 29, 31, "256")]
    (u,) = run.findings("SWA305")
    assert (u["location"]["line"], u["location"]["column"]) == (18, 44)
    assert run.deployments[0]["platform"] == "rocm"  # from the image name: no GPU resource


def test_args_item_positions_and_fix(lint, tree):
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: s\n      image: x\n"
        "      command: [python3, -m, sglang.launch_server]\n"
        '      args:\n        - --model-path=models/v4\n        - --page-size\n        - "64"\n'
        "        - --speculative-algorithm=EAGLE\n        - "
        "--speculative-num-steps=3\n        - --speculative-eagle-topk=1\n"
    )
    run = lint({"m.yaml": text})
    f = run.findings("SWA201")[0]
    assert (f["location"]["line"], f["location"]["column"]) == (11, 13)
    assert [(e["line"], e["column"], e["end_column"]) for e in f["fix"]["edits"]] == [
        (12, 12, 14)
    ]  # inside the quotes
    root = tree({"m.yaml": text})
    run_cli("--fix", "m.yaml", cwd=root)
    assert '- "256"' in (root / "m.yaml").read_text()


def test_non_string_args_are_refused_as_kubernetes_does(lint):
    run = lint(
        {
            "m.yaml": manifest(
                "Pod",
                "{containers: [{name: s, image: x, command: [python3, -m, "
                "sglang.launch_server], args: [--model-path, models/v4, --tp, 8]}]}",
            )
        }
    )
    assert run.exit_code == 2
    assert (
        "Kubernetes requires strings, got the integer 8 (quote it)"
        in run.data["errors"][0]["message"]
    )


def test_manifest_without_sglang(tree):
    text = manifest("Deployment", "{containers: [{name: web, image: nginx}]}")
    root = tree({"k/web.yaml": text, "k/srv.yaml": manifest("Pod", pod_spec(container()))})
    walked = run_cli("--format", "json", "-v", "k", cwd=root)
    assert walked.exit_code == 0 and [d["file"] for d in walked.deployments] == ["k/srv.yaml"]
    assert "k/web.yaml" in run_cli("-v", "--color", "never", "k", cwd=root).stdout
    named = run_cli("--format", "json", "k/web.yaml", "k/srv.yaml", cwd=root)
    assert named.exit_code == 0 and [d["file"] for d in named.deployments] == ["k/srv.yaml"]
    assert named.data["notes"][0]["message"].startswith(
        "skipped, not a deployment: a Kubernetes manifest in which no container"
    )
    assert named.data["summary"]["skipped_files"] == 1


def test_prefill_and_decode_deployments_in_one_file(lint):
    decode_args = [a.replace("prefill", "decode") for a in ARGS] + ["--max-running-requests", "16"]
    text = (
        manifest("Deployment", pod_spec(container(env=ROCM_ENV)), "prefill")
        + "---\n"
        + manifest("Deployment", pod_spec(container(env=ROCM_ENV, args=decode_args)), "decode")
    )
    run = lint({"pd.yaml": text})
    assert [(d["name"], d["target"]["tuple"]) for d in run.deployments] == [
        ("Deployment/prefill/sglang", [128, 131, 33667]),
        ("Deployment/decode/sglang", [128, 131, 6419]),
    ]
