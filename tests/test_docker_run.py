"""`docker run [OPTIONS] IMAGE <launch>` is a launch, with the container's -e/--env variables."""

from __future__ import annotations

from conftest import EAGLE, run_cli

LAUNCH = (
    "python3 -m sglang.launch_server --model-path models/v4 "
    "--speculative-algorithm EAGLE --speculative-eagle-topk 1 "
    "--speculative-num-steps 3"
)


def _run(tree, script: str, *args: str):
    root = tree({"run.sh": "#!/bin/sh\n" + script + "\n"})
    return run_cli("--format", "json", *args, "run.sh", cwd=root)


def test_docker_run_with_options_is_a_launch(tree):
    run = _run(
        tree,
        f"docker run --gpus all --shm-size 32g -p 30000:30000 -v /m:/m --ipc=host "
        f"--rm -it lmsysorg/sglang:v0.5.23 {LAUNCH}",
    )
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert dep["target"]["tuple"] == [256, 128, None]


def test_env_variables_reach_the_server(tree):
    script = (
        f"docker run -e SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton --env=FOO=1 "
        f"--gpus all img {LAUNCH} --disaggregation-mode prefill"
    )
    run = _run(tree, script, "--platform", "rocm")
    (dep,) = run.deployments
    assert dep["mode"] == "unified"


def test_rocm_image_gives_the_platform(tree):
    script = (
        f"docker run -e SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton "
        f"lmsysorg/sglang:v0.5.23-rocm700-mi35x {LAUNCH}"
    )
    (dep,) = _run(tree, script).deployments
    assert dep["mode"] == "unified"


def test_host_environment_is_not_the_containers(tree):
    # -e NAME copies the host's value at run time: unknown to swacheck, never swacheck's own environment
    script = f"docker run -e SGLANG_DSV4_FP4_EXPERTS img {LAUNCH} --moe-runner-backend triton"
    run = _run(tree, script)
    (f,) = run.deployments[0]["findings"]
    assert (f["code"], f["severity"]) == ("SWA501", "note")
    assert "set only at run time" in f["message"]


def test_docker_run_without_a_command_is_not_a_launch(tree):
    root = tree({"run.sh": "#!/bin/sh\ndocker run --gpus all lmsysorg/sglang:v0.5.23\n"})
    run = run_cli("--format", "json", "run.sh", cwd=root)
    assert run.exit_code == 2  # skipped with a note, and the run found no deployment
    assert run.data["notes"][0] == {
        "file": "run.sh",
        "message": "skipped, not a deployment: no SGLang launch command (python -m "
        "sglang.launch_server or sglang serve)",
    }
    assert run.data["errors"][0]["message"].startswith("no deployments found")


def test_podman_and_docker_container_run(tree):
    for head in ("podman run", "docker container run"):
        run = _run(tree, f"{head} --rm img {LAUNCH}")
        assert len(run.deployments) == 1, head


def test_fp4_runner_failure_found_inside_docker_run(tree):
    run = _run(tree, f"docker run --gpus all img {LAUNCH} --moe-runner-backend triton")
    assert [f["code"] for f in run.deployments[0]["findings"]] == ["SWA501"]


def test_server_config_example_unchanged(lint):
    assert lint({"server.yaml": EAGLE}).exit_code == 0
