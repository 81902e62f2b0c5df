"""SWA305 unresolved-variable: launch-command values the files do not give."""

from __future__ import annotations

from conftest import run_cli

SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"
LAUNCH = (
    f"python3 -m sglang.launch_server --model-path models/v4 {SPEC} --disaggregation-mode decode"
)


def only(run, code="SWA305"):
    found = run.findings(code)
    assert len(found) == 1, run.stdout + run.stderr
    return found[0]


def where(f):
    return (f["location"]["file"], f["location"]["line"], f["location"]["column"])


def test_unset_variable_is_a_warning_and_the_argument_is_treated_as_unset(lint):
    run = lint({"s.sh": f'{LAUNCH} \\\n  --speculative-draft-model-path "$DRAFT"\n'})
    assert run.exit_code == 0  # a warning
    f = only(run)
    assert f["severity"] == "warning"
    assert f["message"] == (
        "--speculative-draft-model-path $DRAFT cannot be resolved (DRAFT is not set in s.sh nor given with --env); "
        "swacheck treats the argument as unset"
    )
    assert where(f) == ("s.sh", 2, 35)
    assert (
        f["fix"]["description"]
        == "Set DRAFT in the file (or give it a default, ${DRAFT:-VALUE}), or tell "
        "swacheck its value with --env DRAFT=VALUE."
    )
    assert f["fix"]["edits"] == []
    # treated as unset: the draft is the target's own NextN layer
    assert run.deployments[0]["draft"]["tuple"] == [256, 128, None]


def test_the_env_option_answers_it(lint):
    run = lint(
        {"s.sh": f"{LAUNCH} --speculative-draft-model-path $DRAFT\n"},
        "--env",
        "DRAFT=models/mtp256",
    )
    assert run.findings("SWA305") == []
    assert run.codes() == ["SWA102"]


def test_a_default_resolves(lint):
    run = lint({"s.sh": f"{LAUNCH} --speculative-draft-model-path ${{DRAFT:-models/mtp256}}\n"})
    assert run.codes() == ["SWA102"]


def test_command_substitution_and_script_arguments(lint):
    run = lint({"s.sh": f'{LAUNCH} --host "$(hostname -i)" "$@"\n'})
    found = run.findings("SWA305")
    assert [f["message"].split(" cannot")[0].split(" may")[0] for f in found] == [
        "--host $(hostname -i)",
        "$@",
    ]
    assert found[1]["message"].endswith(
        "may add server arguments swacheck cannot see (the script's own "
        "arguments: only known when it is run); they are not checked"
    )
    assert (
        found[0]["fix"]["description"]
        == "Write the value in the file: swacheck does not run commands."
    )


def test_a_variable_the_launch_computes_is_not_to_be_set_in_the_file(lint):
    # once "Set R in the file": it is set there, from a command
    run = lint({"s.sh": f"R=$(cat /etc/rank)\n{LAUNCH} --node-rank $R\n"})
    f = only(run)
    assert f["message"].startswith("--node-rank $R cannot be resolved")
    assert f["fix"]["description"] == (
        "Tell swacheck its value with --env R=VALUE: it is only known when the launch runs."
    )


def test_a_kubernetes_reference_is_set_in_the_containers_env(lint):
    # once the advice was shell syntax, ${NODE_RANK:-VALUE}, which Kubernetes never expands
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: d}\nspec:\n  containers:\n  - name: s\n"
        "    image: lmsysorg/sglang:latest\n    command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, models/v4, --speculative-algorithm, EAGLE, --speculative-num-steps,"
        " '3', --speculative-eagle-topk, '1', --node-rank, $(NODE_RANK)]\n"
    )
    f = only(lint({"pod.yaml": pod}))
    assert f["fix"]["description"] == (
        "Set NODE_RANK in the container's env, or tell swacheck its value with --env "
        "NODE_RANK=VALUE."
    )


def test_backend_variable_matters_only_on_rocm(lint):
    script = f"export SGLANG_HACK_FLASHMLA_BACKEND=$BACKEND\n{LAUNCH}\n"
    rocm = lint({"s.sh": script}, "--platform", "rocm")
    f = only(rocm)
    assert f["message"].startswith(
        "environment variable SGLANG_HACK_FLASHMLA_BACKEND cannot be resolved ($BACKEND: BACKEND is not set in s.sh"
    )
    assert where(f) == ("s.sh", 1, 37)
    assert rocm.deployments[0]["mode"] == "paged"
    assert lint({"s.sh": script}).findings("SWA305") == []  # CUDA: the backend variable is not read


def test_fp8_variable_matters_with_unified_kv_under_pd(lint):
    script = (
        f"export SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\nexport "
        f"SGLANG_DSV4_UNIFIED_KV_FP8=$(cat /etc/fp8)\n{LAUNCH} --pp-size 2\n"
    )
    run = lint({"s.sh": script}, "--platform", "rocm")
    f = only(run)
    assert "SGLANG_DSV4_UNIFIED_KV_FP8" in f["message"]
    assert run.findings("SWA204") == []  # treated as unset


def test_other_unknown_environment_is_not_reported(lint):
    run = lint({"s.sh": f"export NCCL_SOCKET_IFNAME=$IFACE\n{LAUNCH}\n"}, "--platform", "rocm")
    assert run.findings("SWA305") == []


def test_can_be_ignored_like_any_rule(lint):
    run = lint({"s.sh": f"{LAUNCH} --speculative-draft-model-path $DRAFT\n"}, "--ignore", "SWA305")
    assert run.codes() == []


def test_documentation():
    run = run_cli("rule", "SWA305")
    assert run.exit_code == 0
    assert run.stdout.startswith("SWA305 (unresolved-variable), default severity: warning")
    for heading in ("## What it does", "## Why it matters", "## Example", "## Fix"):
        assert heading in run.stdout
