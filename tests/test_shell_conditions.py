"""Shell as bash runs it: if/elif/else, case, &&/|| and [[ ]]/[ ]/test (inputs/shell/control.py,
conditions.py, worlds.py), here-strings and ssh, apptainer, backtick comments."""

from __future__ import annotations

import os

import pytest
from conftest import run_cli

from swacheck.inputs.recognise import LaunchContext, launches
from swacheck.inputs.shell import Chars, Source, Walker, lex
from swacheck.inputs.shell import worlds as worlds_mod
from swacheck.model.records import InputProblem

MODEL = os.path.join(os.path.dirname(__file__), "..", "examples", "models", "DeepSeek-V4-Flash")


def walk(text: str) -> list[list[str]]:
    src = Source("t.sh", text)
    return [[w.text for w in c.argv] for c in Walker({}, "t.sh").walk(lex(Chars.of_source(src)))]


def launched(text: str) -> list[list[str]]:
    src = Source("t.sh", text)
    ctx = LaunchContext("t.sh", ".")
    out = []
    for c in Walker({}, "t.sh").walk(lex(Chars.of_source(src))):
        for launch in launches(c.argv, c.env, ctx, stdin=c.stdin):
            out.append([w.text for w in launch.args])
    return out


# the four launches of a public Kubernetes guide: an optional flag added when a key is set
GUIDE = """#!/bin/bash
EXTRA_ARGS=""
if [[ "$API_KEY" != "" ]]; then
  EXTRA_ARGS="--api-key $API_KEY"
fi
python3 -m sglang.launch_server --model-path {model} --tp 8 $EXTRA_ARGS
"""


def test_conditional_flag_with_the_key_empty_is_not_given(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("API_KEY=\n" + GUIDE.format(model=MODEL))
    r = run_cli(str(script))
    assert r.exit_code == 0, r.stdout
    assert "api-key" not in r.stdout
    assert "Checked 1 deployment" in r.stdout


def test_conditional_flag_decided_by_env(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(GUIDE.format(model=MODEL))
    r = run_cli(str(script), "--env", "API_KEY=")
    assert r.exit_code == 0 and "Checked 1 deployment" in r.stdout, r.stdout
    r = run_cli(str(script), "--env", "API_KEY=k")
    assert r.exit_code == 0 and "Checked 1 deployment" in r.stdout, r.stdout


def test_undecided_condition_reads_both_ways_and_says_which(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(GUIDE.format(model=MODEL))
    r = run_cli(str(script))
    assert r.exit_code == 0, r.stdout  # was: argparse error on `--api-key` with no value, exit 2
    assert "Checked 2 deployments" in r.stdout
    assert r.stdout.count("SWA307") == 2
    assert '`[[ "$API_KEY" != "" ]]` (serve.sh:3) is true (API_KEY is not set' in r.stdout
    assert '`[[ "$API_KEY" != "" ]]` (serve.sh:3) is false' in r.stdout


def test_if_elif_else_taken_by_known_values():
    text = 'R=decode\nif [ "$R" = prefill ]; then M=p\nelif [[ $R == dec* ]]; then M=d\nelse M=x\nfi\nrun $M\n'
    assert walk(text) == [["run", "d"]]
    assert walk(text.replace("R=decode", "R=other")) == [["run", "x"]]
    assert walk(text.replace("R=decode", "R=prefill")) == [["run", "p"]]


def test_test_operators():
    cases = {
        '[ -z "" ]': True,
        '[ -n "" ]': False,
        "[ -n ]": True,  # one argument: a non-empty string, as in bash
        "[[ 8 -eq 8 ]]": True,
        "[[ 8 -ne 8 ]]": False,
        "[ 2 -lt 10 ]": True,
        "[ 2 -ge 10 ]": False,
        "test a != b": True,
        "[[ ! -z x ]]": True,
        '[[ -n x && -z "" ]]': True,
        "[[ -z x || -n x ]]": True,
        "[ a = a -a b = c ]": False,
        "[[ ( a == b ) || ( c == c ) ]]": True,
        '[[ abc == "a*" ]]': False,  # quoted: no pattern
        "[[ abc == a* ]]": True,
        "true": True,
        "false": False,
    }
    for cond, expected in cases.items():
        got = walk(f"if {cond}; then run yes; else run no; fi\n")
        assert got == [["run", "yes" if expected else "no"]], cond


def test_and_or_lists():
    assert walk('K=""\nA=\n[ -n "$K" ] && A="--api-key $K"\nrun $A\n') == [["run"]]
    assert walk('K=x\n[ -n "$K" ] && A="--api-key $K"\nrun $A\n') == [["run", "--api-key", "x"]]
    assert walk("[ -z x ] || A=1\nrun $A\n") == [["run", "1"]]
    assert walk("true && false || A=2\nrun $A\n") == [["run", "2"]]
    assert walk("A=\n! true && A=3\nrun x$A\n") == [["run", "x"]]


def test_case_takes_the_matching_arm():
    text = 'ROLE=decode\ncase "$ROLE" in\n  prefill) M=p ;;\n  decode|dec) M=d ;;\n  *) exit 1 ;;\nesac\nrun $M\n'
    assert walk(text) == [["run", "d"]]
    assert walk(text.replace("ROLE=decode", "ROLE=zzz")) == []  # `*) exit 1`
    one_line = "X=b; case $X in a) run a;; b) run b;; esac\n"
    assert walk(one_line) == [["run", "b"]]
    assert walk("case x in x) ;; esac\nrun after\n") == [["run", "after"]]


def test_undecided_case_gives_each_arm_and_exit_ends_a_way():
    text = (
        'case "$1" in\n  prefill) MODE=prefill ;;\n  decode) MODE=decode ;;\n'
        "  *) echo usage; exit 1 ;;\nesac\n"
        "python3 -m sglang.launch_server --model-path m --disaggregation-mode $MODE\n"
    )
    got = launched(text)
    assert got == [
        ["--model-path", "m", "--disaggregation-mode", "prefill"],
        ["--model-path", "m", "--disaggregation-mode", "decode"],
    ]


def test_worlds_that_agree_are_one_and_a_usage_check_does_not_fork():
    text = 'if [ -z "$MODEL" ]; then echo usage; exit 1; fi\n'
    text += 'if command -v nvidia-smi; then echo gpu; fi\nrun "$MODEL"\n'
    got = walk(text)
    assert got[-1] == ["run", "$MODEL"] and got.count(["run", "$MODEL"]) == 1


def test_branch_combinations_are_capped_and_the_merge_is_said():
    text = "".join(f'if [ -n "$V{k}" ]; then A{k}=1; fi\n' for k in range(12)) + "run $A0 $A11\n"
    src = Source("t.sh", text)
    w = Walker({}, "t.sh")
    cmds = list(w.walk(lex(Chars.of_source(src))))
    assert len(w.worlds) <= worlds_mod.MAX_WORLDS
    assert w.merged and "more than 8" in w.merged[0]
    assert len(cmds) <= worlds_mod.MAX_WORLDS


def test_comparing_ways_is_bounded_and_then_read_as_written():
    n = 3000  # each condition undecided and each changing a variable: the worst case
    text = "".join(f'if [ -n "$V{k}" ]; then A{k}=1; fi\n' for k in range(n)) + "run $A1 x\n"
    src = Source("t.sh", text)
    w = Walker({}, "t.sh")
    cmds = list(w.walk(lex(Chars.of_source(src))))
    assert w.budget.flat and "budget" in w.merged[0]  # said first: a note shows the first two
    assert len(w.worlds) == 1 and [c.argv[-1].text for c in cmds] == ["x"]
    assert len(w.merged) <= 17


def test_nesting_is_bounded():
    deep = "if true; then\n" * 70 + "run x\n" + "fi\n" * 70
    with pytest.raises(InputProblem, match="nested more than 64 deep"):
        walk(deep)


def test_unclosed_and_stray_words_do_not_crash():
    assert walk("if true; then run a\n") == [["run", "a"]]
    assert walk("fi\nrun b\ndone\n") == [["run", "b"]]
    assert walk("case x in\n") == []


def test_here_string_and_ssh_command():
    text = 'M=m\nbash -s <<< "python3 -m sglang.launch_server --model-path $M --tp 8"\n'
    assert launched(text) == [["--model-path", "m", "--tp", "8"]]
    text = 'ssh -p 22 node1 "cd /x && python3 -m sglang.launch_server --model-path m --tp 4"\n'
    assert launched(text) == [["--model-path", "m", "--tp", "4"]]
    text = "ssh node1 python3 -m sglang.launch_server --model-path m --tp 2\n"
    assert launched(text) == [["--model-path", "m", "--tp", "2"]]


def test_heredoc_to_bash_s_through_ssh():
    text = "ssh node1 bash -s <<'EOF'\ncd /opt\npython3 -m sglang.launch_server \\\n  --model-path m --tp 8\nEOF\n"
    assert launched(text) == [["--model-path", "m", "--tp", "8"]]


def test_apptainer_and_singularity():
    assert launched(
        "apptainer exec --nv -B /d:/d sglang.sif python3 -m sglang.launch_server --model-path m\n"
    ) == [["--model-path", "m"]]
    assert launched(
        "singularity run --env A=1 docker://lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path m\n"
    ) == [["--model-path", "m"]]


def test_docker_entrypoint_before_the_image():
    text = "podman run --rm --entrypoint python3 lmsysorg/sglang:v0.5.23 -m sglang.launch_server --model-path m\n"
    assert launched(text) == [["--model-path", "m"]]
    text = "docker run --entrypoint=python3 img -m sglang.launch_server --model-path m\n"
    assert launched(text) == [["--model-path", "m"]]


def test_backtick_comments_in_continuations_are_nothing(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(
        f"python3 -m sglang.launch_server \\\n  --model-path {MODEL} `# the checkpoint` \\\n"
        "  --tp 8 `# tensor parallel` \\\n  --trust-remote-code $(# also a comment)\n"
    )
    r = run_cli(str(script))
    assert r.exit_code == 0 and "SWA305" not in r.stdout, r.stdout
    assert launched("python3 -m sglang.launch_server --tp 8 `# c` --x\n") == [["--tp", "8", "--x"]]
