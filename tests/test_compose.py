"""Docker Compose files: command forms, environment forms, env_file, interpolation, GPU platform."""

from __future__ import annotations

import pytest
from conftest import run_cli

SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"
CMD = f"python3 -m sglang.launch_server --model-path models/v4 --disaggregation-mode prefill {SPEC}"
AMD = "    devices: [/dev/kfd, /dev/dri]\n"


def service(body: str, name: str = "server") -> str:
    return f"services:\n  {name}:\n    image: lmsysorg/sglang:latest\n{body}"


def test_command_string(lint):
    run = lint({"docker-compose.yaml": service(f"    command: {CMD}\n")})
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert (dep["name"], dep["platform"], dep["mode"]) == ("compose/server", "cuda", "paged")


def test_command_list_and_entrypoint(lint):
    body = (
        '    entrypoint: ["python3", "-m", "sglang.launch_server"]\n    command: '
        '["--model-path", "models/v4", "--speculative-algorithm", "EAGLE", '
        '"--speculative-num-steps", "3", "--speculative-eagle-topk", "1"]\n'
    )
    run = lint({"compose.yaml": service(body)})
    assert run.exit_code == 0, run.stderr
    assert run.deployments[0]["target"]["tuple"] == [256, 128, None]


def test_entrypoint_shell_with_command_script(lint):
    body = (
        f'    entrypoint: ["/bin/bash", "-c"]\n    environment: [MODEL=models/v4]\n '
        f'   command: ["exec python3 -m sglang.launch_server --model-path $$MODEL '
        f'{SPEC}"]\n'
    )
    run = lint({"compose.yaml": service(body)})
    assert run.exit_code == 0, run.stderr


def test_services_that_merge_an_extension_field(lint):
    # Compose's own pattern (x-... anchors merged with <<); once refused, exit 2
    text = (
        "x-sglang: &sglang\n  image: lmsysorg/sglang:latest\n"
        "  environment: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"
        "  devices: [/dev/kfd, /dev/dri]\n"
        "services:\n"
        f"  prefill:\n    <<: *sglang\n    command: {CMD}\n"
        f"  decode:\n    <<: *sglang\n    command: {CMD.replace('prefill', 'decode')}\n"
    )
    run = lint({"compose.yaml": text})
    assert run.exit_code == 0, run.stderr
    assert [(d["name"], d["mode"]) for d in run.deployments] == [
        ("compose/prefill", "unified"),
        ("compose/decode", "unified"),
    ]
    assert len(run.data["pairs"]) == 1


@pytest.mark.parametrize(
    "environment",
    [
        "    environment:\n      - SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\n",
        "    environment:\n      SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n",
    ],
)
def test_environment_list_and_map_forms(lint, environment):
    run = lint({"compose.yaml": service(environment + AMD + f"    command: {CMD}\n")})
    (dep,) = run.deployments
    assert (dep["platform"], dep["mode"], dep["target"]["tuple"]) == (
        "rocm",
        "unified",
        [128, 131, 33667],
    )


def test_env_file_and_environment_wins(lint):
    files = {
        "deploy/compose.yaml": service(
            "    env_file: [rocm.env]\n    environment:\n      SGLANG_DSV4_UNIFIED_KV_FP8: '0'\n"
            + AMD
            + f"    command: {CMD.replace('models/v4', '../models/v4').replace('prefill', 'decode')} --pp-size 2\n"
        ),
        "deploy/rocm.env": "# the ROCm settings\nexport "
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\nSGLANG_DSV4_UNIFIED_KV_FP8=1 "
        " # fp8 KV\n",
    }
    run = lint(files, target="deploy/compose.yaml")
    (dep,) = run.deployments
    assert dep["mode"] == "unified"
    # FP8=0 from environment wins over the env_file's 1 (else SWA204); SWA207: pp-size 2 with MTP on decode
    assert run.codes() == ["SWA207"], run.stderr


def test_env_file_value_feeds_the_environment(lint):
    files = {
        "compose.yaml": service(
            "    env_file: rocm.env\n"
            + AMD
            + f"    command: {CMD.replace('prefill', 'decode')} --pp-size 2\n"
        ),
        "rocm.env": 'SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\nSGLANG_DSV4_UNIFIED_KV_FP8="1"\n',
    }
    run = lint(files, target="compose.yaml")
    (f,) = run.findings("SWA204")
    assert f["related"][0]["file"] == "rocm.env" and f["related"][0]["line"] == 2


def test_missing_env_file_is_an_input_error(lint):
    run = lint({"compose.yaml": service(f"    env_file: nope.env\n    command: {CMD}\n")})
    assert run.exit_code == 2
    assert "env_file nope.env: no such file" in run.data["errors"][0]["message"]


def test_interpolation_from_the_project_env_file_and_defaults(lint):
    body = (
        "    command: python3 -m sglang.launch_server --model-path ${MODELS}/v4 "
        "--speculative-draft-model-path ${DRAFT:-models/mtp256} "
        + SPEC
        + " --disaggregation-mode decode\n"
    )
    run = lint({"compose.yaml": service(body), ".env": "MODELS=models\n"}, target="compose.yaml")
    (dep,) = run.deployments
    assert run.codes() == ["SWA102"]
    assert dep["draft"]["tuple"] == [256, 256, None]


def test_service_environment_does_not_interpolate_the_compose_file(lint):
    body = "    environment: [MODEL=models/v4]\n    command: python3 -m sglang.launch_server --model-path ${MODEL}\n"
    run = lint({"compose.yaml": service(body)})
    assert run.exit_code == 2
    message = run.data["errors"][0]["message"]
    assert (
        "MODEL is not set in the project's .env file" in message and "--env MODEL=VALUE" in message
    )


def test_unresolved_argument_in_compose_is_swa305(lint):
    body = f"    command: {CMD} --speculative-draft-model-path ${{DRAFT}}\n"
    run = lint({"compose.yaml": service(body)})
    (f,) = run.findings("SWA305")
    assert f["message"].startswith("--speculative-draft-model-path ${DRAFT} cannot be resolved")
    assert (f["location"]["line"], f["location"]["column"]) == (
        4,
        len(f"    command: {CMD} --speculative-draft-model-path ") + 1,
    )


@pytest.mark.parametrize(
    "gpu, given, platform",
    [
        (
            "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}\n",
            "rocm",
            "cuda",
        ),
        (
            "    deploy: {resources: {reservations: {devices: [{driver: amd, count: all, capabilities: [gpu]}]}}}\n",
            "cuda",
            "rocm",
        ),
        ("    devices: ['/dev/kfd', '/dev/dri']\n", "cuda", "rocm"),
        ("    runtime: nvidia\n", "rocm", "cuda"),
        ("", "rocm", "rocm"),
    ],
)
def test_platform_from_gpu_reservations(lint, gpu, given, platform):
    run = lint({"compose.yaml": service(gpu + f"    command: {CMD}\n")}, "--platform", given)
    assert run.deployments[0]["platform"] == platform


def test_folded_command_positions_and_fix(lint, tree):
    text = service(f"    command: >\n      {CMD}\n      --page-size 64\n")
    run = lint({"compose.yaml": text})
    (f,) = run.findings("SWA201")
    assert (f["location"]["line"], f["location"]["column"]) == (6, 9)
    assert [(e["line"], e["column"], e["end_column"]) for e in f["fix"]["edits"]] == [(6, 19, 21)]
    root = tree({"compose.yaml": text})
    run_cli("--fix", "compose.yaml", cwd=root)
    assert "      --page-size 256\n" in (root / "compose.yaml").read_text()


def test_only_sglang_services_become_deployments(lint):
    text = (
        "services:\n  redis: {image: redis}\n  router: {image: x, command: python3 -m sglang_router.launch_router}\n"
        + f"  prefill:\n    image: x\n    command: {CMD}\n  decode:\n    image: x\n  "
        f"  command: {CMD.replace('prefill', 'decode')}\n"
    )
    run = lint({"compose.yaml": text})
    assert [d["name"] for d in run.deployments] == ["compose/prefill", "compose/decode"]


def test_compose_file_without_sglang(tree):
    text = "services:\n  web: {image: nginx}\n"
    root = tree({"c/docker-compose.yaml": text})
    walked = run_cli("--format", "json", "--allow-empty", "c", cwd=root)
    assert walked.exit_code == 0 and walked.deployments == [] and walked.data["errors"] == []
    assert walked.data["summary"]["skipped_files"] == 1
    named = run_cli("--format", "json", "c/docker-compose.yaml", cwd=root)
    assert named.exit_code == 2  # skipped with a note, and the run found no deployment
    assert named.data["notes"][0]["message"].startswith(
        "skipped, not a deployment: a Compose file in which no container or service runs"
    )
    assert [e["message"] for e in named.data["errors"]] == [
        "no deployments found (--allow-empty allows a run without any)"
    ]
    assert run_cli("--allow-empty", "c/docker-compose.yaml", cwd=root).exit_code == 0
