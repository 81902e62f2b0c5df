"""What a server printed as inputs (inputs/server_output.py): its start-up log's ``server_args=``
line and a saved ``/server_info`` answer, read as deployments of SGLang's resolved arguments;
``why --from-log`` with that line, and ``pair`` against a running side.

The logs and answers here are written by these tests, in the shape SGLang prints them
(``srt/entrypoints/engine.py``: ``server_args={resolved dict}`` from 0.5.19 on,
``server_args=ServerArgs(...)`` before; ``srt/entrypoints/http_server.py`` ``/server_info``).
"""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

ROCM = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
ERROR = (
    "RuntimeError: DSV4 target and draft pools must share SWA ring geometry: "
    "target=(128, 131, 33667), draft=(256, 259, 66563)"
)


def resolved(**changes: object) -> dict:
    """A ROCm prefill server's resolved arguments, as resolved_dict() gives them (a few of the
    ~500 fields, with the None/False ones SGLang writes for what nobody asked for)."""
    values: dict = {
        "model_path": "models/v4",
        "tokenizer_path": "models/v4",
        "tokenizer_mode": "auto",
        "context_length": None,
        "quantization": None,
        "kv_cache_dtype": "fp8_e4m3",
        "mem_fraction_static": 0.85,
        "max_running_requests": 256,
        "page_size": 256,
        "tp_size": 8,
        "dp_size": 1,
        "enable_dp_attention": False,
        "api_key": None,
        "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": "models/mtp256",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
        "disaggregation_mode": "prefill",
        "disaggregation_transfer_backend": "mooncake",
        "cuda_graph_bs": [1, 2, 4, 8],
        "json_model_override_args": "{}",
    }
    values.update(changes)
    return values


def log_text(values: dict, old: bool = False, prefix: str = "[2026-11-30 10:00:01 TP0] ") -> str:
    if old:  # <= 0.5.18: the dataclass repr
        args = ", ".join(f"{k}={v!r}" for k, v in values.items())
        line = f"server_args=ServerArgs({args})"
    else:
        line = f"server_args={values!r}"
    return (
        "[2026-11-30 10:00:00] Launching the SGLang server\n"
        f"{prefix}{line}\n"
        "[2026-11-30 10:00:02] Load weight begin.\n"
    )


def info_text(values: dict) -> str:
    return json.dumps(
        {
            **values,
            "launch_command": "python3 -m sglang.launch_server --model-path models/v4 --tp 8",
            "version": "0.5.23",
            "internal_states": [{"avg_spec_accept_length": 2.1}],
        },
        indent=2,
    )


@pytest.mark.parametrize("old", [False, True], ids=["resolved-dict", "dataclass-repr"])
def test_log_line_is_a_deployment_of_the_resolved_arguments(tree, old):
    root = tree({"server.log": log_text(resolved(), old=old)})
    run = run_cli("--format", "json", *ROCM, "server.log", cwd=root)
    assert run.exit_code == 1, run.stdout + run.stderr
    (dep,) = run.deployments
    assert dep["evidence"] == "the server_args line of its log, line 2"
    assert dep["target"]["tuple"] == [128, 131, 33667]
    assert dep["draft"]["tuple"] == [256, 259, 66563]
    (f,) = run.findings("SWA101")
    # the finding points into the log line, at the draft path the server really had
    assert (f["location"]["file"], f["location"]["line"]) == ("server.log", 2)
    line = log_text(resolved(), old=old).splitlines()[1]
    col = f["location"]["column"]
    assert line[col - 1 :].lstrip("'").startswith("speculative_draft_model_path")
    # None and False are what SGLang writes for what was not asked for: no finding about them
    assert {g["code"] for d in run.deployments for g in d["findings"]} == {"SWA101"}


def test_human_heading_says_the_values_are_the_servers(tree):
    root = tree({"server.log": log_text(resolved())})
    run = run_cli(*ROCM, "server.log", cwd=root)
    assert "as resolved: the server_args line of its log, line 2" in run.stdout


def test_the_same_line_again_is_one_server_and_a_restart_with_other_values_another(tree):
    same = log_text(resolved()) + log_text(resolved(), prefix="[2026-11-30 10:00:01 TP1] ")
    root = tree({"same.log": same})
    run = run_cli("--format", "json", *ROCM, "same.log", cwd=root)
    assert [d["name"] for d in run.deployments] == ["same"]
    restarted = log_text(resolved()) + log_text(resolved(speculative_draft_model_path=None))
    root = tree({"restart.log": restarted})
    run = run_cli("--format", "json", *ROCM, "restart.log", cwd=root)
    assert [d["name"] for d in run.deployments] == ["restart", "restart@5"]
    assert run.codes(0) == ["SWA101"] and run.codes(1) == []


def test_server_info_answer_is_a_deployment_and_not_a_server_config(tree):
    root = tree({"info.json": info_text(resolved())})
    run = run_cli("--format", "json", *ROCM, "info.json", cwd=root)
    (dep,) = run.deployments
    assert dep["evidence"] == "SGLang 0.5.23's /server_info answer"
    # a JSON server config would be SWA303 ("--config accepts only .yaml"), and its ~500
    # underscored keys SWA303 each: an answer is read as what the server resolved
    assert run.codes() == ["SWA101"]
    assert run.findings("SWA101")[0]["location"]["file"] == "info.json"


def test_server_info_found_by_a_walk(tree):
    root = tree({"running/info.json": info_text(resolved(speculative_draft_model_path=None))})
    run = run_cli("--format", "json", *ROCM, "running", cwd=root)
    assert [d["file"] for d in run.deployments] == ["running/info.json"]
    assert run.exit_code == 0, run.stdout


def test_fix_never_edits_what_the_server_printed(tree):
    log, info = log_text(resolved()), info_text(resolved())
    root = tree({"server.log": log, "info.json": info})
    run = run_cli("--fix", "--unsafe-fixes", *ROCM, "server.log", "info.json", cwd=root)
    assert (root / "server.log").read_text() == log
    assert (root / "info.json").read_text() == info
    assert run.exit_code == 1
    data = run_cli("--format", "json", *ROCM, "server.log", "info.json", cwd=root).data
    fixes = [f["fix"] for d in data["deployments"] for f in d["findings"] if f["fix"]]
    assert fixes and all(fix["edits"] == [] for fix in fixes)


def test_pair_of_a_running_prefill_and_a_decode_about_to_roll_out(tree):
    decode = "model-path: models/v4\ndisaggregation-mode: decode\ntp-size: 8\n"  # no MTP
    info = info_text(resolved(speculative_draft_model_path=None))
    root = tree({"prefill_info.json": info, "decode.yaml": decode})
    run = run_cli("pair", "--format", "json", *ROCM, "prefill_info.json", "decode.yaml", cwd=root)
    (pair,) = run.data["pairs"]
    assert pair["prefill"]["file"] == "prefill_info.json"
    compared = pair["compared"]["speculative"]
    assert (compared["prefill"], compared["decode"], compared["differs"]) == (True, False, True)
    assert compared["prefill_from"].startswith("prefill_info.json:")
    assert [f["code"] for f in pair["findings"]] == ["SWA406"]
    assert run.exit_code == 1  # speculative decoding on one side only: every request fails


def test_why_from_a_log_explains_with_the_values_the_server_had(tree):
    root = tree({"server.log": log_text(resolved()) + f"[2026-11-30 10:05:00] {ERROR}\n"})
    run = run_cli("why", "--format", "json", "--from-log", "server.log", *ROCM, cwd=root)
    assert run.exit_code == 0, run.stdout + run.stderr
    (item,) = run.data["errors"]
    (dep,) = item["deployments"]
    assert (dep["file"], dep["matches"]) == ("server.log", True)
    assert any(k["file"] == "server.log" and k["line"] == 2 for k in dep["keys"])


def test_why_says_when_the_files_are_not_what_the_server_ran(tree):
    deploy = (
        "model-path: ../models/v4\nspeculative-draft-model-path: ../models/mtp256\ntp-size: 8\n"
        "disaggregation-mode: prefill\nspeculative-algorithm: EAGLE\n"
        "speculative-num-steps: 2\nspeculative-eagle-topk: 1\n"
    )
    root = tree(
        {
            "server.log": log_text(resolved()) + f"{ERROR}\n",
            "deploy/prefill.yaml": deploy,
        }
    )
    run = run_cli("why", "--format", "json", "--from-log", "server.log", *ROCM, "deploy", cwd=root)
    (item,) = run.data["errors"]
    by_file = {d["file"]: d for d in item["deployments"]}
    assert by_file["server.log"]["matches"] is True
    files = by_file["deploy/prefill.yaml"]
    assert files["matches"] is False
    assert "ran something else than these files" in files["note"]
    assert "speculative_num_steps 3 (server.log:2:" in files["note"]
    assert "vs 2 (deploy/prefill.yaml:6:24)" in files["note"]
    # the same folder named from two places is no difference; the fix is said where to edit
    assert "speculative_draft_model_path" not in files["note"]
    assert "the edit in these files: deploy/prefill.yaml:2:1 (Remove" in files["note"]


def test_secrets_in_the_log_stay_redacted(tree):
    secret = "sk-live-0123456789abcdefSECRET"
    values = resolved(api_key=secret, page_size=64)  # page size 64: a finding at the line
    root = tree({"server.log": log_text(values)})
    for fmt in ("human", "json", "sarif", "github", "concise"):
        run = run_cli("--format", fmt, *ROCM, "server.log", cwd=root)
        assert secret not in run.stdout + run.stderr, fmt


@pytest.mark.parametrize(
    "line, message",
    [
        ("server_args={'model_path': 'x', 'tp_size': " + "[" * 300 + "]" * 300 + "}", "nested"),
        ("server_args={'model_path': 'x', 'tp_size': " + "9" * 5000 + "}", "digits"),
        ("server_args={'model_path': 'x, 'tp_size': 8}", "expected ','"),
        ("server_args={'model_path': 'unterminated", "does not end"),
        ("server_args={'model_path': 'x', 'tp_size': 8", "ends before"),
    ],
)
def test_a_bad_line_is_one_error_with_its_position(tree, line, message):
    root = tree({"bad.log": "[ts] start\n[ts] " + line + "\n"})
    run = run_cli("--format", "json", "bad.log", cwd=root)
    assert run.exit_code == 2
    (err,) = run.data["errors"]
    assert (err["file"], err["line"]) == ("bad.log", 2) and err["column"] > 5
    assert message in err["message"] and "Traceback" not in run.stderr


def test_a_log_without_the_line_is_not_a_deployment(tree):
    root = tree({"app.log": "[ts] GET /health 200\n", "server.yaml": "model-path: models/v4\n"})
    run = run_cli("--format", "json", ".", cwd=root)
    assert [d["file"] for d in run.deployments] == ["server.yaml"]
    assert (run.exit_code, run.data["errors"]) == (0, [])
    named = run_cli("-v", "app.log", "server.yaml", cwd=root)  # skipped files: counted, -v lists
    assert named.exit_code == 0
    assert "skipped app.log: no server_args= line" in named.stdout + named.stderr


def test_why_still_explains_when_the_logged_server_cannot_be_checked(tree):
    shortened = (  # a DeepSeek-V4 checkpoint that is not on this machine (nor published)
        "[ts] server_args=ServerArgs(model_path='/cluster/DeepSeek-V4-Flash-ours', tp_size=8, "
        "speculative_algorithm='EAGLE', disaggregation_mode='prefill', ...)\n"
    )
    root = tree({"server.log": shortened + ERROR + "\n", "server.yaml": "model-path: models/v4\n"})
    alone = run_cli("why", "--from-log", "server.log", *ROCM, cwd=root)
    assert (alone.exit_code, alone.stderr) == (0, "")  # the error is explained as before
    # the logged server is listed as not checked (SWA308: its config.json is found nowhere)
    assert "server.log  (ROCm, skipped, PD prefill, as resolved:" in alone.stdout
    assert "not checked: config.json for model '/cluster/DeepSeek-V4-Flash-ours'" in alone.stdout
    given = run_cli("why", "--from-log", "server.log", *ROCM, "server.yaml", cwd=root)
    assert (given.exit_code, given.stderr) == (0, "")
    assert "Deployments (0 of 2 match)" in given.stdout


def test_a_hostile_log_is_read_in_one_pass_and_bounded(tree):
    # every line looked at once: the same line repeated (a log of ranks), many server_args= on
    # one line, and lines that do not parse each cost one read; before, each match counted the
    # log's lines from its start and parsed before comparing (over 120 s on 3-8 MB of these)
    same = "[ts] server_args={'model_path': 'models/v4', 'tp_size': 8}\n" * 20_000
    root = tree({"same.log": same, "one.log": "server_args={" * 50_000 + "\n"})
    run = run_cli("--format", "json", "same.log", cwd=root)
    assert [d["name"] for d in run.deployments] == ["same"]
    run = run_cli("--format", "json", "one.log", cwd=root)
    assert len(run.data["errors"]) == 1 and run.data["errors"][0]["line"] == 1
    bad = "".join(f"server_args={{'a{n}'\n" for n in range(1_000))  # distinct, none parses
    root = tree({"bad.log": bad})
    errors = run_cli("--format", "json", "bad.log", cwd=root).data["errors"]
    assert len(errors) == 64 + 1  # MAX_LOG_SERVERS lines read, then one line saying the rest is not
    assert errors[-1]["message"].startswith("more than 64 servers' arguments in one log")
    assert errors[-1]["line"] == 65
