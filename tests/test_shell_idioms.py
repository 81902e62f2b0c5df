"""Shell as people write SGLang launches: one test per idiom (swacheck/inputs/shell/, recognise.py)."""

from __future__ import annotations

from conftest import run_cli

from swacheck.inputs.recognise import LaunchContext, launches
from swacheck.inputs.shell import Chars, Source, Walker, lex


def commands(text: str) -> list[list[str]]:
    src = Source("t.sh", text)
    return [[w.text for w in c.argv] for c in Walker({}, "t.sh").walk(lex(Chars.of_source(src)))]


def launched(text: str) -> list[list[str]]:
    """The server arguments of every launch in ``text``."""
    src = Source("t.sh", text)
    ctx = LaunchContext("t.sh", ".")
    out = []
    for c in Walker({}, "t.sh").walk(lex(Chars.of_source(src))):
        for launch in launches(c.argv, c.env, ctx):
            out.append([launch.program] + [w.text for w in launch.args])
    return out


SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"


def test_array_expands_one_word_per_element_when_quoted():
    assert commands('A=(--x "1 2" --y)\nrun "${A[@]}"\n') == [["run", "--x", "1 2", "--y"]]


def test_array_unquoted_elements_are_split():
    assert commands('A=(--x "1 2")\nrun ${A[@]}\n') == [["run", "--x", "1", "2"]]


def test_array_star_joins_and_index_picks():
    assert commands('A=(a b c)\nrun "${A[*]}" ${A[1]} $A\n') == [["run", "a b c", "b", "a"]]


def test_array_append_and_multiline_literal_with_comments():
    text = 'A=(\n  --a 1   # first\n  --b 2\n)\nA+=(--c 3)\nrun "${A[@]}"\n'
    assert commands(text) == [["run", "--a", "1", "--b", "2", "--c", "3"]]


def test_an_unset_array_is_empty():
    assert commands('run "${NOPE[@]}" x\n') == [["run", "x"]]


def test_string_append():
    assert commands('A="--a 1"\nA+=" --b 2"\nrun $A\n') == [["run", "--a", "1", "--b", "2"]]


def test_declare_and_local_arrays():
    assert commands('declare -a A=(x y)\nlocal B=(z)\nrun "${A[@]}" "${B[@]}"\n') == [
        ["run", "x", "y", "z"]
    ]


def test_whole_command_in_an_array_with_the_interpreter_in_a_variable():
    text = f'PY=python3\nCMD=("$PY" -m sglang.launch_server --model-path m {SPEC})\n"${{CMD[@]}}"\n'
    assert launched(text) == [
        ["python3 -m sglang.launch_server", "--model-path", "m", *SPEC.split()]
    ]


def test_interpreter_only_known_at_run_time():
    assert launched('"$(which python3)" -m sglang.launch_server --model-path m\n') == [
        ["python3 -m sglang.launch_server", "--model-path", "m"]
    ]


def test_command_in_a_string_run_unquoted():
    assert launched('CMD="python3 -m sglang.launch_server --model-path m"\n$CMD --tp 8\n') == [
        ["python3 -m sglang.launch_server", "--model-path", "m", "--tp", "8"]
    ]


def test_command_in_a_string_run_with_eval():
    text = 'CMD="python3 -m sglang.launch_server --model-path \'/a b\'"\nCMD="$CMD --tp 8"\neval "$CMD"\n'
    assert launched(text) == [
        ["python3 -m sglang.launch_server", "--model-path", "/a b", "--tp", "8"]
    ]


def test_launch_lines_inside_a_heredoc():
    text = "M=m\ncat > run.sh <<EOF\npython3 -m sglang.launch_server --model-path $M \\\n  --tp 8\nEOF\n"
    assert launched(text) == [["python3 -m sglang.launch_server", "--model-path", "m", "--tp", "8"]]


def test_docker_run_takes_options_image_and_the_launch():
    text = (
        "docker run --gpus all -it --rm --shm-size 32g -v /d:/d -p 30000:30000 "
        "--ipc=host lmsysorg/sglang:v0.5.23 sglang serve m --tp 8\n"
    )
    assert launched(text) == [["sglang serve", "m", "--tp", "8"]]


def test_docker_run_environment_is_only_its_e_options():
    src = Source(
        "t.sh",
        "export A=host\ndocker run -e SGLANG_X=1 --env B=2 img python3 -m sglang.launch_server --model-path m\n",
    )
    ctx = LaunchContext("t.sh", ".")
    cmds = list(Walker({}, "t.sh").walk(lex(Chars.of_source(src))))
    (launch,) = launches(cmds[-1].argv, cmds[-1].env, ctx)
    assert {k: v.value.text for k, v in launch.env.items()} == {"SGLANG_X": "1", "B": "2"}


def test_docker_run_platform_from_the_image():
    src = Source("t.sh", "docker run lmsysorg/sglang:v0.5.23-rocm700-mi35x sglang serve m\n")
    (cmd,) = Walker({}, "t.sh").walk(lex(Chars.of_source(src)))
    (launch,) = launches(cmd.argv, cmd.env, LaunchContext("t.sh", "."))
    assert launch.hint is not None and launch.hint.value == "rocm"


def test_docker_run_without_a_command_runs_the_image_cmd():
    assert launched("docker run -d lmsysorg/sglang:latest\n") == []


def test_wrappers():
    base = "python3 -m sglang.launch_server --model-path m"
    for prefix in (
        "exec",
        "nohup",
        "time",
        "env A=1",
        "numactl --cpunodebind=0 --membind=0",
        "numactl -N 0 -m 0",
        "taskset -c 0-7",
        "taskset 0xff",
        "timeout 1h",
        "timeout -s KILL 10m",
        "setsid -f",
        "stdbuf -oL -eL",
        "srun --nodes=1 -N 1",
        "srun --container-image=lmsysorg/sglang:latest",
        "uv run --with sglang",
        "conda run -n sgl",
        "nice -n 5",
        "sudo -E",
        "nohup numactl -C 0-63 timeout 12h env X=1",
    ):
        assert launched(f"{prefix} {base}\n") == [
            ["python3 -m sglang.launch_server", "--model-path", "m"]
        ], prefix


def test_sglang_serve_takes_the_model_as_its_first_argument():
    assert launched("sglang serve deepseek-ai/DeepSeek-V4-Flash --tp 8\n") == [
        ["sglang serve", "deepseek-ai/DeepSeek-V4-Flash", "--tp", "8"]
    ]


def test_dynamo_sglang_is_a_launch():
    assert launched("python3 -m dynamo.sglang --model-path m --migration-limit 3\n") == [
        ["python3 -m dynamo.sglang", "--model-path", "m", "--migration-limit", "3"]
    ]


def test_bash_lc_double_dash_script():
    assert launched("bash -lc -- 'python3 -m sglang.launch_server --model-path m'\n") == [
        ["python3 -m sglang.launch_server", "--model-path", "m"]
    ]


# --------------------------------------------------------------------------- through the CLI


def test_a_launch_assembled_at_run_time_is_a_note_at_its_line(tmp_path):
    (tmp_path / "run.sh").write_text(
        "#!/bin/bash\n# starts sglang.launch_server\nL=$(cat launcher)\n\n$L --model-path m\n"
    )
    run = run_cli("--format", "json", "run.sh", cwd=tmp_path)
    assert run.exit_code == 0
    (f,) = run.findings("SWA307")
    assert (
        f["message"].startswith("launch assembled at runtime; not evaluated")
        and f["location"]["line"] == 5
    )


def test_eval_of_unknown_text_that_holds_a_launch_is_a_note(tmp_path):
    (tmp_path / "run.sh").write_text('eval "python3 -m sglang.launch_server $(cat flags)"\n')
    run = run_cli("--format", "json", "run.sh", cwd=tmp_path)
    assert [f["code"] for f in run.findings("SWA307")] == ["SWA307"]


def test_comment_inside_a_continued_launch_is_a_pitfall(tree):
    root = tree(
        {
            "s.sh": f"python3 -m sglang.launch_server --model-path models/v4 \\\n  # --tp 8 \\\n  {SPEC}\n"
        }
    )
    run = run_cli("--format", "json", "s.sh", cwd=root)
    (f,) = run.findings("SWA306")
    assert f["severity"] == "warning" and f["location"]["line"] == 2 and "comment" in f["message"]


def test_blank_line_inside_a_continued_launch_is_a_pitfall(tree):
    root = tree(
        {"s.sh": f"python3 -m sglang.launch_server --model-path models/v4 \\\n\n  {SPEC}\n"}
    )
    run = run_cli("--format", "json", "s.sh", cwd=root)
    (f,) = run.findings("SWA306")
    assert f["location"]["line"] == 2 and "blank line" in f["message"]


def test_backslash_with_trailing_spaces_is_an_error(tree):
    root = tree(
        {"s.sh": f"python3 -m sglang.launch_server --model-path models/v4 {SPEC} \\  \n  --tp 8\n"}
    )
    run = run_cli("--format", "json", "s.sh", cwd=root)
    (f,) = run.findings("SWA306")
    assert f["severity"] == "error" and f["location"]["line"] == 1 and run.exit_code == 1


def test_single_dash_long_flag_is_a_pitfall(tree):
    root = tree(
        {"s.sh": f"python3 -m sglang.launch_server --model-path models/v4 -tp-size 8 {SPEC}\n"}
    )
    run = run_cli("--format", "json", "s.sh", cwd=root)
    (f,) = run.findings("SWA306")
    assert "--tp-size" in f["message"] and f["location"]["column"] == 56
    assert (
        f["severity"] == "error" and run.findings("SWA303") == []
    )  # argparse exits; one finding, with the right fix


def test_a_continued_launch_with_a_commented_flag_at_its_end_is_fine(tree):
    root = tree(
        {
            "s.sh": f"python3 -m sglang.launch_server --model-path models/v4 {SPEC}\n# --tp 8\n\necho done\n"
        }
    )
    run = run_cli("--format", "json", "s.sh", cwd=root)
    assert run.findings("SWA306") == [] and run.exit_code == 0


def test_platform_from_a_rocm_variable_the_script_exports(tree):
    root = tree(
        {
            "s.sh": f"export HIP_VISIBLE_DEVICES=0,1\nexport "
            f"SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\npython3 -m "
            f"sglang.launch_server --model-path models/v4 {SPEC}\n"
        }
    )
    run = run_cli("--format", "json", "s.sh", cwd=root)
    (dep,) = run.deployments
    assert dep["platform"] == "rocm" and dep["mode"] == "unified"


def test_flags_behind_a_switch_set_nowhere_are_a_pitfall(tree):
    text = (
        f"python3 -m sglang.launch_server --model-path models/v4 "
        f"${{ENABLE_MTP:+{SPEC}}} --disaggregation-mode decode\n"
    )
    root = tree({"s.sh": text})
    (f,) = run_cli("--format", "json", "s.sh", cwd=root).findings("SWA306")
    assert "ENABLE_MTP is set nowhere" in f["message"] and f["location"]["column"] == 56
    assert (
        run_cli("--format", "json", "--env", "ENABLE_MTP=1", "s.sh", cwd=root).findings("SWA306")
        == []
    )
    root = tree(
        {"s.sh": "ENABLE_MTP=${ENABLE_MTP:-}\n" + text}
    )  # set in the file: the walker decides
    assert run_cli("--format", "json", "s.sh", cwd=root).findings("SWA306") == []


# --------------------------------------------------------------------------- arithmetic in launches


def test_a_pd_server_whose_command_string_holds_arithmetic_is_checked(tree):
    # once the decode server vanished without a word: its string held $((STEPS + 1))
    script = (
        "STEPS=3\n"
        'PREFILL="python3 -m sglang.launch_server --model-path models/v4 --disaggregation-mode prefill'
        ' --speculative-algorithm EAGLE --speculative-num-steps $STEPS --speculative-eagle-topk 1"\n'
        'DECODE="python3 -m sglang.launch_server --model-path models/v4 --disaggregation-mode decode'
        " --speculative-algorithm EAGLE --speculative-num-steps $STEPS --speculative-eagle-topk 1"
        ' --speculative-num-draft-tokens $((STEPS + 1))"\n'
        'eval "$PREFILL" &\n'
        "$DECODE\n"
    )
    run = run_cli("--format", "json", "pd.sh", cwd=tree({"pd.sh": script}))
    assert run.exit_code == 0 and run.stderr == ""
    assert [d["pd"] for d in run.deployments] == [True, True]
    assert len(run.data["pairs"]) == 1 and run.findings("SWA305") == []


def test_flags_around_arithmetic_the_files_do_not_say_are_still_read(tree):
    # once the whole flag string was one unknown word: no speculative decoding, tp 1
    script = (
        'FLAGS="--disaggregation-mode decode --port $((30000 + NODE_RANK)) ' + SPEC + '"\n'
        "python3 -m sglang.launch_server --model-path models/v4 $FLAGS\n"
    )
    run = run_cli("--format", "json", "run.sh", cwd=tree({"run.sh": script}))
    (dep,) = run.deployments
    assert dep["pd"] and dep["draft"] is not None
    (f,) = run.findings("SWA305")
    assert f["message"].startswith("--port $((30000 + NODE_RANK)) cannot be resolved")
    assert (f["location"]["line"], f["location"]["column"]) == (
        1,
        44,
    )  # where the arithmetic is written


# --------------------------------------------------------------------------- shell functions


def test_a_function_is_launched_with_the_arguments_of_each_call():
    text = (
        "launch_sglang() {\n"
        '  python3 -m sglang.launch_server --model-path m --tp 8 "$@"\n'
        "}\n"
        "launch_sglang --disaggregation-mode prefill --port 30000\n"
        "launch_sglang --disaggregation-mode decode\n"
    )
    assert launched(text) == [
        ["python3 -m sglang.launch_server", "--model-path", "m", "--tp", "8"]
        + ["--disaggregation-mode", "prefill", "--port", "30000"],
        ["python3 -m sglang.launch_server", "--model-path", "m", "--tp", "8"]
        + ["--disaggregation-mode", "decode"],
    ]


def test_function_keyword_and_numbered_arguments():
    text = (
        'function serve {\n  python3 -m sglang.launch_server --model-path $1 --port "$2" $3\n}\n'
        "serve /models/v4 30000 '--tp 4'\n"
    )
    assert launched(text) == [
        ["python3 -m sglang.launch_server", "--model-path", "/models/v4", "--port", "30000"]
        + ["--tp", "4"]
    ]


def test_a_function_never_called_still_counts_as_written():
    text = 'run() { python3 -m sglang.launch_server --model-path m "$@"; }\n'
    assert launched(text) == [["python3 -m sglang.launch_server", "--model-path", "m", "$@"]]


def test_a_function_that_calls_itself_is_followed_a_bounded_number_of_times():
    text = "f() {\n  f\n  f\n  python3 -m sglang.launch_server --model-path m\n}\nf\n"
    assert 0 < len(launched(text)) <= 64


def test_a_pd_pair_launched_through_a_function_is_paired(tree):
    # once one "no PD" server with an unknown "$@": the calls were not followed
    script = (
        "#!/bin/bash\n"
        "launch_sglang() {\n"
        f'  python3 -m sglang.launch_server --model-path models/v4 {SPEC} "$@"\n'
        "}\n"
        'case "$ROLE" in\n'
        "  prefill) launch_sglang --disaggregation-mode prefill ;;\n"
        "  decode) launch_sglang --disaggregation-mode decode --page-size 64 ;;\n"
        "esac\n"
    )
    run = run_cli("--format", "json", "start.sh", cwd=tree({"start.sh": script}))
    assert [d["pd"] for d in run.deployments] == [True, True]
    assert len(run.data["pairs"]) == 1
    (page,) = run.findings("SWA201")
    assert (page["location"]["line"], page["location"]["column"]) == (7, 56)  # at the call
