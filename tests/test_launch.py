"""Launch commands: the shell tokenizer, recognising launches, argument parsing, scripts,
Dockerfiles, ``--config`` merging and ``--command``."""

from __future__ import annotations

import pytest
from conftest import run_cli

from swacheck.inputs import read_inputs
from swacheck.inputs.argv import parse_args
from swacheck.inputs.recognise import LaunchContext, launches
from swacheck.inputs.shell import Chars, Source, Var, Walker, Word, lex
from swacheck.loading import FileCache
from swacheck.model.records import Val

SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"
LAUNCH = f"python3 -m sglang.launch_server --model-path models/v4 {SPEC}"
ROCM = "export SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\n"


# --------------------------------------------------------------------------- tokenizer


def commands(text: str, env: dict[str, str] | None = None, fallback: dict[str, str] | None = None):
    """(argv texts, exported env texts) of every simple command of a script."""
    src = Source("t.sh", text)
    seed = {k: Var(Word.plain(v), True) for k, v in (env or {}).items()}
    fb = {k: Var(Word.plain(v), True, "--env") for k, v in (fallback or {}).items()}
    walker = Walker(seed, "t.sh", fb)
    return list(walker.walk(lex(Chars.of_source(src))))


def argv(text: str, **kw) -> list[list[str]]:
    return [[w.text for w in c.argv] for c in commands(text, **kw)]


def words(text: str) -> list[Word]:
    (cmd,) = commands(text)
    return cmd.argv


def loc(word: Word, start: int = 0, end: int | None = None) -> tuple[int, int, int, int]:
    l = word.loc(start, end)
    return (l.line, l.column, l.end_line, l.end_column)


def test_quotes_and_escapes():
    assert argv("""echo 'a b' "c d" e\\ f "g\\"h" 'i\\j' "k\\l" "$"x""") == [
        ["echo", "a b", "c d", "e f", 'g"h', "i\\j", "k\\l", "$x"]
    ]


def test_adjacent_quoted_parts_make_one_word():
    assert argv("""echo --x="a b"'c'd""") == [["echo", "--x=a bcd"]]


def test_empty_quotes_are_an_empty_word():
    assert argv('echo "" x') == [["echo", "", "x"]]


def test_line_continuations_join_lines_also_inside_a_word():
    assert argv("echo a \\\n  b --page-\\\nsize") == [["echo", "a", "b", "--page-size"]]


def test_comments_end_at_the_line_but_hash_inside_a_word_is_text():
    assert argv("echo a # b c\necho d#e '#f'") == [["echo", "a"], ["echo", "d#e", "#f"]]


def test_operators_separate_commands():
    assert argv("a 1; b 2 && c 3 || d | e & f\ng") == [
        ["a", "1"],
        ["b", "2"],
        ["c", "3"],
        ["d"],
        ["e"],
        ["f"],
        ["g"],
    ]


def test_redirections_and_their_targets_are_dropped():
    assert argv("python3 x > log 2>&1 < in >>app.log &>all") == [["python3", "x"]]
    assert argv("echo 2 >x") == [["echo", "2"]]  # `2 >x`: the 2 is an argument, not an IO number


def test_heredoc_bodies_are_skipped_unless_they_hold_a_launch():
    text = "cat > c.yaml <<EOF\nmodel-path: x\nEOF\necho after\ncat <<-'X'\n\tbody\n\tX\n"
    assert argv(text) == [["cat"], ["echo", "after"], ["cat"]]
    # a script written by a heredoc: its launch lines are read, after the command that writes it
    text = "cat > run.sh <<EOF\npython3 -m sglang.launch_server\nEOF\necho after\n"
    assert argv(text) == [["cat"], ["python3", "-m", "sglang.launch_server"], ["echo", "after"]]


def test_reserved_words_and_compound_commands():
    # the test is decided (`-n x` is true): only its branch runs; a loop's body is walked once
    text = "if [ -n x ]; then\n  python3 a\nelse\n  python3 b\nfi\nfor i in 1 2; do echo $i; done\n"
    assert argv(text) == [["python3", "a"], ["echo", "$i"]]
    # undecided (`$X` is set nowhere): both branches
    assert argv(text.replace("-n x", '-n "$X"'))[:2] == [["python3", "a"], ["python3", "b"]]


def test_word_positions_are_the_script_positions():
    ws = words("python3 -m x \\\n    --page-size   '64'\n")
    assert loc(ws[3]) == (2, 5, 2, 16)
    assert loc(ws[4]) == (2, 20, 2, 22)  # the value, quotes excluded
    assert ws[4].location.column == 19  # the token, quotes included


def test_variables_and_their_positions():
    ws = words('PS=64\nM="models/v4"\necho $PS ${M} "${M}/x"')
    assert [w.text for w in ws] == ["echo", "64", "models/v4", "models/v4/x"]
    assert loc(ws[1]) == (1, 4, 1, 6)  # points at the assignment's value
    assert loc(ws[2]) == (2, 4, 2, 13)
    assert ws[3].location.line == 3  # characters from two places: the whole token


@pytest.mark.parametrize(
    "expr, env, expected",
    [
        ("${X:-d}", {}, "d"),
        ("${X:-d}", {"X": ""}, "d"),
        ("${X-d}", {"X": ""}, ""),
        ("${X:-d}", {"X": "v"}, "v"),
        ("${X:+alt}", {"X": "v"}, "alt"),
        ("${X:+alt}", {}, ""),
        ("${X:-${Y:-inner}}", {}, "inner"),
        ("${X:=set}$X", {}, "setset"),
    ],
)
def test_parameter_operators(expr, env, expected):
    (cmd,) = commands(f'echo "{expr}"', env=env)
    assert cmd.argv[1].text == expected and cmd.argv[1].resolved


@pytest.mark.parametrize(
    "expr, shown",
    [
        ("$NOPE", "$NOPE"),
        ("${NOPE}", "${NOPE}"),
        ("$(hostname)", "$(hostname)"),
        ("`hostname`", "`hostname`"),
        ('"$@"', "$@"),
        ("$1", "$1"),
        ("$((RANK + 2))", "$((RANK + 2))"),  # RANK is set nowhere: bash would read 0, never guessed
        ("$((X + 1))", "$((X + 1))"),  # X is "a/", no integer
        ("$((1 << 2))", "$((1 << 2))"),  # an operator not worked out
        ("${X%/}", "${X%/}"),
        ("${NOPE:?need it}", "${NOPE:?need it}"),
    ],
)
def test_unknown_expansions_are_kept_as_written_and_listed(expr, shown):
    (cmd,) = commands(f"echo {expr}", env={"X": "a/"})
    word = cmd.argv[1]
    assert not word.resolved and [u.shown for u in word.unknown] == [shown]


@pytest.mark.parametrize(
    "script, expected",
    [
        ("echo $((1+2))", "3"),
        ("STEPS=3\necho $((STEPS + 1))", "4"),
        ('DP=2\necho "$(( $DP * 32 ))"', "64"),
        ("TP=8\necho $((${TP} / 3)) $((-7 / 2)) $((-7 % 2))", "2 -3 -1"),
        ("echo $((-2 ** 2)) $((2 ** 3 ** 2)) $((010 + 0x10))", "4 512 24"),
        ("echo $((9223372036854775807 + 1))", "-9223372036854775808"),  # 64-bit, as bash
    ],
)
def test_arithmetic_over_what_the_file_says_is_worked_out(script, expected):
    *_, cmd = commands(script)
    assert " ".join(w.text for w in cmd.argv[1:]) == expected
    assert all(w.resolved for w in cmd.argv)


@pytest.mark.parametrize(
    "expression",
    [
        "1 / 0",
        "2 ** -1",
        "08",
        "2 ** (" + "(" * 30 + "1" + ")" * 30 + ")",  # nested deeper than worked out
        "9" * 5000,  # int() of it would raise: never read
        "-" * 300 + "1",  # more tokens than worked out
    ],
)
def test_arithmetic_bash_refuses_or_that_is_too_deep_stays_unknown(expression):
    (cmd,) = commands(f"echo $(({expression}))")
    assert not cmd.argv[1].resolved


def test_a_flag_string_with_one_unknown_word_keeps_the_flags_around_it():
    # once the whole string became one unknown word: every flag in it was lost
    text = 'FLAGS="--tp 8 --port $((30000 + RANK)) --page-size 64"\necho $FLAGS'
    (*_, cmd) = commands(text)
    assert [w.text for w in cmd.argv] == [
        "echo",
        "--tp",
        "8",
        "--port",
        "$((30000 + RANK))",
        "--page-size",
        "64",
    ]
    assert [bool(w.unknown) for w in cmd.argv] == [False, False, False, False, True, False, False]


def test_unquoted_expansions_are_split_quoted_ones_are_not():
    text = 'ARGS="--tp 8  --page-size 64"\necho $ARGS "$ARGS"'
    ws = words(text)
    assert [w.text for w in ws] == [
        "echo",
        "--tp",
        "8",
        "--page-size",
        "64",
        "--tp 8  --page-size 64",
    ]
    assert loc(ws[4]) == (1, 27, 1, 29)  # `64` inside the assignment


def test_unquoted_empty_expansion_is_no_word():
    assert argv('E=\necho $E "$E" x') == [["echo", "", "x"]]


def test_exports_and_prefix_assignments_make_the_environment():
    cmds = commands("export A=1\nB=2\nexport C\nC=3\nD=4 python3 x\n")
    (cmd,) = cmds
    assert {k: v.value.text for k, v in cmd.env.items()} == {"A": "1", "C": "3", "D": "4"}


def test_assignments_count_in_script_order_and_unset_removes():
    cmds = commands("export A=1\necho $A\nexport A=2\necho $A\nunset A\necho ${A:-gone}\n")
    assert [c.argv[1].text for c in cmds] == ["1", "2", "gone"]


def test_prefix_assignment_does_not_change_the_expansion_of_its_own_command():
    assert argv("A=1\nA=2 echo $A") == [["echo", "1"]]


def test_fallback_answers_unknown_variables():
    assert argv("echo $MODEL", fallback={"MODEL": "/m"}) == [["echo", "/m"]]
    assert argv("export M=$(cat f)\necho $M", fallback={"M": "/m"}) == [["echo", "/m"]]


def test_set_a_exports_plain_assignments():
    (cmd,) = commands("set -a\nA=1\nset +a\nB=2\npython3 x\n")
    assert set(cmd.env) == {"A"}


def test_unterminated_quote_is_a_syntax_error_with_position(tree):
    root = tree({"s.sh": "python3 -m sglang.launch_server --model-path 'models/v4\n"})
    run = run_cli("--format", "json", "s.sh", cwd=root)
    assert run.exit_code == 2
    assert run.data["errors"][0]["message"] == "shell syntax: unterminated single quote"
    assert (run.data["errors"][0]["line"], run.data["errors"][0]["column"]) == (1, 46)


# --------------------------------------------------------------------------- recognising launches


def recognise(text: str) -> list[tuple[str, list[str], dict[str, str]]]:
    out = []
    for cmd in commands(text):
        for launch in launches(cmd.argv, cmd.env, LaunchContext("t.sh", ".")):
            out.append(
                (
                    launch.program,
                    [w.text for w in launch.args],
                    {k: v.value.text for k, v in launch.env.items() if v.value},
                )
            )
    return out


@pytest.mark.parametrize(
    "line, program",
    [
        ("python -m sglang.launch_server --tp 8", "python -m sglang.launch_server"),
        ("python3 -m sglang.launch_server --tp 8", "python3 -m sglang.launch_server"),
        ("python3.11 -m sglang.launch_server --tp 8", "python3.11 -m sglang.launch_server"),
        (
            "/opt/venv/bin/python3 -u -X dev -m sglang.launch_server --tp 8",
            "python3 -m sglang.launch_server",
        ),
        ("python3 -msglang.launch_server --tp 8", "python3 -m sglang.launch_server"),
        ("exec python3 -m sglang.launch_server --tp 8", "python3 -m sglang.launch_server"),
        (
            "nohup python3 -m sglang.launch_server --tp 8 > log 2>&1 &",
            "python3 -m sglang.launch_server",
        ),
        (
            "exec nohup time python3 -m sglang.launch_server --tp 8",
            "python3 -m sglang.launch_server",
        ),
        ("env -u X A=1 python3 -m sglang.launch_server --tp 8", "python3 -m sglang.launch_server"),
        ("sglang serve --tp 8", "sglang serve"),
        ("bash -ec 'python3 -m sglang.launch_server --tp 8'", "python3 -m sglang.launch_server"),
    ],
)
def test_launch_forms(line, program):
    (found,) = recognise(line)
    assert found[0] == program and found[1] == ["--tp", "8"]


@pytest.mark.parametrize(
    "line",
    [
        "python3 -m sglang_router.launch_router --tp 8",
        "python3 -m sglang.bench_serving",
        "python3 server.py",
        "echo python3 -m sglang.launch_server",
        "sglang version",
        "bash start.sh",
    ],
)
def test_other_commands_are_not_launches(line):
    assert recognise(line) == []


def test_env_prefixes_and_env_command_reach_the_server():
    ((_, _, env),) = recognise("export A=1\nB=2 env C=3 python3 -m sglang.launch_server\n")
    assert env == {"A": "1", "B": "2", "C": "3"}
    ((_, _, env),) = recognise("export A=1\nenv -i C=3 python3 -m sglang.launch_server\n")
    assert env == {"C": "3"}


def test_sh_c_sees_only_exported_variables():
    ((_, args, _),) = recognise(
        'export A=1\nB=2\nsh -c \'python3 -m sglang.launch_server --x "$A" --y "${B:-unset}"\'\n'
    )
    assert args == ["--x", "1", "--y", "unset"]


def parsed(line: str, text_before: str = ""):
    (cmd,) = [
        c for c in commands(text_before + line) if c.argv[0].text.startswith(("python", "sglang"))
    ]
    (launch,) = launches(cmd.argv, cmd.env, LaunchContext("t.sh", "."))
    return parse_args(launch)


def test_equals_and_space_forms_store_true_and_lists():
    p = parsed(
        "python3 -m sglang.launch_server --tp=8 --page-size 64 --enable-metrics "
        "--cuda-graph-bs-decode 1 2 4 --disaggregation-mode=decode"
    )
    got = {a.name: a.value for a in p.entries}
    assert got == {
        "tp-size": "8",
        "page-size": "64",
        "enable-metrics": True,
        "cuda-graph-bs-decode": ["1", "2", "4"],
        "disaggregation-mode": "decode",
    }
    tp = p.entries[0]
    assert tp.written == "tp"
    assert (tp.key_loc.column, tp.key_loc.end_column) == (35, 37)  # `tp` after the dashes
    assert (tp.value_loc.column, tp.value_loc.end_column) == (38, 39)


def test_boolean_optional_flags_on_the_command_line():
    p = parsed(
        "python3 -m sglang.launch_server --enable-tf32-matmul --no-lora-strict-loading --enable-dp-attention"
    )
    assert {a.name: (a.value, a.kind) for a in p.entries} == {
        "enable-tf32-matmul": (True, "store_true"),
        "lora-strict-loading": (False, "store_true"),
        "enable-dp-attention": (True, "store_true"),
    }


def test_sglang_serve_positional_model_path():
    p = parsed("sglang serve models/v4 --tp 8")
    assert [(a.name, a.value) for a in p.entries] == [("model-path", "models/v4"), ("tp-size", "8")]


def test_unresolved_values_are_left_unset_and_recorded():
    p = parsed(
        'python3 -m sglang.launch_server --model-path m --speculative-draft-model-path $DRAFT --tp ${TP:-8} "$@"'
    )
    assert [a.name for a in p.entries] == ["model-path", "tp-size"]
    assert [(u.kind, u.name, u.shown, u.variable) for u in p.unresolved] == [
        ("argument", "speculative-draft-model-path", "$DRAFT", "DRAFT"),
        ("arguments", "", "$@", "$@"),
    ]


# --------------------------------------------------------------------------- scripts through the CLI


def only(run, code):
    found = run.findings(code)
    assert len(found) == 1, run.stdout + run.stderr
    return found[0]


def where(finding):
    l = finding["location"]
    return (l["file"], l["line"], l["column"])


def test_script_with_exports_and_continuations(lint):
    script = (
        "#!/bin/bash\n"
        + ROCM
        + "export HIP_VISIBLE_DEVICES=0,1\n"
        + "MODEL=${MODEL:-models/v4}\n"
        + 'python3 -m sglang.launch_server --model-path "$MODEL" \\\n'
        + "    --disaggregation-mode decode --max-running-requests 16 \\\n"
        + f"    {SPEC}\n"
    )
    run = lint({"decode.sh": script})
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert (dep["file"], dep["name"], dep["platform"], dep["mode"]) == (
        "decode.sh",
        "decode",
        "rocm",
        "unified",
    )
    assert dep["target"]["tuple"] == [128, 131, 6419] == dep["draft"]["tuple"]


def test_platform_is_the_command_line_one_unless_the_script_says(lint):
    run = lint({"s.sh": ROCM + LAUNCH + " --disaggregation-mode prefill\n"})
    assert run.deployments[0]["platform"] == "cuda" and run.deployments[0]["mode"] == "paged"
    run = lint({"s.sh": ROCM + LAUNCH + " --disaggregation-mode prefill\n"}, "--platform", "rocm")
    assert run.deployments[0]["mode"] == "unified"


def test_prefix_environment_reaches_the_server_but_plain_variables_do_not(lint):
    run = lint(
        {"s.sh": "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton " + LAUNCH + "\n"},
        "--platform",
        "rocm",
    )
    assert run.deployments[0]["mode"] == "unified"
    run = lint(
        {"s.sh": "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\n" + LAUNCH + "\n"},
        "--platform",
        "rocm",
    )
    assert run.deployments[0]["mode"] == "paged"


def test_findings_point_into_the_script_and_value_fixes_give_valid_shell(lint, tree):
    script = (
        f"PS=64\npython3 -m sglang.launch_server --model-path models/v4 "
        f"--page-size=$PS {SPEC} \\\n  --max-running-requests '16.0'\n"
    )
    run = lint({"s.sh": script})
    f = only(run, "SWA201")
    assert where(f) == ("s.sh", 2, 58)  # `page-size` after the dashes
    assert [
        (e["line"], e["column"], e["end_column"], e["replacement"]) for e in f["fix"]["edits"]
    ] == [(1, 4, 6, "256")]
    bad = only(run, "SWA304")
    assert where(bad) == ("s.sh", 3, 27)  # the value inside the quotes


def test_fix_replaces_the_value_token_only(tree):
    root = tree(
        {
            "s.sh": f'python3 -m sglang.launch_server --model-path models/v4 --page-size "64" '
            f"--speculative-eagle-topk=2 "
            f"{SPEC.replace('--speculative-eagle-topk 1', '')}\n"
        }
    )
    run_cli(
        "--fix", "--unsafe-fixes", "s.sh", cwd=root
    )  # top-k 2 -> 1 changes the drafting: unsafe
    text = (root / "s.sh").read_text()
    assert '--page-size "256"' in text and "--speculative-eagle-topk=1" in text
    assert run_cli("--format", "json", "s.sh", cwd=root).data["summary"]["warnings"] == 0


def test_command_line_enable_dp_attention_is_accepted(lint):
    run = lint(
        {
            "s.sh": f"{LAUNCH} --enable-dp-attention --dp-size 2 --disaggregation-mode decode "
            f"--max-running-requests 64 --tp-size 8\n"
        },
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert run.codes() == []
    assert run.deployments[0]["target"]["tuple"] == [128, 131, 12707]


def test_unknown_and_underscore_flags_are_refused(lint):
    run = lint({"s.sh": f"{LAUNCH} --page_size 64 --max-runing-requests 16\n"})
    assert sorted(run.codes()) == [
        "SWA201",
        "SWA303",
        "SWA303",
    ]  # page_size is still read, as in a --config file
    locs = sorted(where(f) for f in run.findings("SWA303"))
    assert locs == [("s.sh", 1, 141), ("s.sh", 1, 156)]
    fixes = sorted(
        (e["column"], e["end_column"], e["replacement"])
        for f in run.findings("SWA303")
        for e in f["fix"]["edits"]
    )
    assert fixes == [
        (141, 150, "page-size"),
        (156, 175, "max-running-requests"),
    ]  # the name, never the dashes


def test_ambiguous_list_prefix_takes_its_values(lint):
    run = lint({"s.sh": f"{LAUNCH} --cuda-graph-bs 1 2 4\n"})
    f = only(run, "SWA303")
    assert "ambiguous" in f["message"]


@pytest.mark.parametrize(
    "tail, message",
    [
        ("--tp 8 stray", "unrecognized argument 'stray'"),
        ("--enable-metrics true", "unrecognized argument 'true'"),
        ("--tp", "expected one argument"),
        ("--enable-metrics=yes", "argument --enable-metrics: ignored explicit argument 'yes'"),
        ("--config=c.yaml", "never reads the file"),
    ],
)
def test_command_lines_argparse_rejects_are_input_errors(lint, tail, message):
    run = lint({"s.sh": f"{LAUNCH} {tail}\n"})
    assert run.exit_code == 2
    assert message in run.data["errors"][0]["message"]


def test_unresolved_model_path_is_an_input_error_naming_the_variable(lint):
    run = lint({"s.sh": f"python3 -m sglang.launch_server --model-path $MODEL {SPEC}\n"})
    assert run.exit_code == 2
    (err,) = run.data["errors"]
    assert (err["file"], err["line"], err["column"]) == ("s.sh", 1, 46)
    assert "MODEL is not set in s.sh" in err["message"]
    assert "--env MODEL=VALUE" in err["message"] and "--model-config VALUE=PATH" in err["message"]


def test_the_env_option_and_model_config_answer_an_unresolved_model_path(lint):
    files = {"s.sh": f"python3 -m sglang.launch_server --model-path $MODEL {SPEC}\n"}
    run = lint(
        files,
        "--env",
        "MODEL=/models/DeepSeek-V4-Flash",
        "--model-config",
        "/models/DeepSeek-V4-Flash=models/v4",
    )
    assert run.exit_code == 0, run.stderr
    assert run.deployments[0]["target"]["model_config"].endswith("models/v4/config.json")


def test_model_path_hidden_in_script_arguments_is_an_input_error(lint):
    run = lint({"s.sh": 'exec python3 -m sglang.launch_server "$@"\n'})
    assert run.exit_code == 2
    assert (
        "no --model-path is written, so it would come from $@" in run.data["errors"][0]["message"]
    )


def test_several_launches_in_one_script(lint):
    script = (
        f"{LAUNCH} --disaggregation-mode prefill &\n{LAUNCH} --disaggregation-mode decode &\nwait\n"
    )
    run = lint({"pd.sh": script})
    assert [d["name"] for d in run.deployments] == ["pd", "pd[1]"]
    assert [d["target"]["tuple"] for d in run.deployments] == [[256, 128, None], [256, 128, None]]


def test_script_without_a_launch(tree):
    root = tree({"s/setup.sh": "pip install sglang\n", "s/run.sh": LAUNCH + "\n"})
    walked = run_cli("--format", "json", "-v", "s", cwd=root)
    assert walked.exit_code == 0 and [d["file"] for d in walked.deployments] == ["s/run.sh"]
    named = run_cli("--format", "json", "s/setup.sh", cwd=root)
    assert named.exit_code == 2  # skipped with a note, and no deployment found at all
    assert named.data["notes"] == [
        {
            "file": "s/setup.sh",
            "message": "skipped, not a deployment: no SGLang launch command (python -m "
            "sglang.launch_server or sglang serve)",
        }
    ]
    assert named.data["errors"][0]["message"].startswith("no deployments found")


def test_walking_picks_up_scripts_and_dockerfiles_but_not_hidden_folders(tree):
    root = tree(
        {
            "d/a.sh": LAUNCH + "\n",
            "d/Dockerfile": f"FROM x\nCMD {LAUNCH}\n",
            "d/prefill.Dockerfile": f"FROM x\nCMD {LAUNCH}\n",
            "d/Dockerfile.rocm": f"FROM rocm/sgl-dev:latest\nCMD {LAUNCH}\n",
            "d/.hidden/b.sh": LAUNCH + "\n",
            "d/notes.txt": LAUNCH + "\n",
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert sorted((d["file"], d["platform"]) for d in run.deployments) == [
        ("d/Dockerfile", "cuda"),
        ("d/Dockerfile.rocm", "rocm"),
        ("d/a.sh", "cuda"),
        ("d/prefill.Dockerfile", "cuda"),
    ]


def test_explicit_file_with_a_shell_shebang(tree):
    root = tree({"start-server": "#!/usr/bin/env bash\n" + LAUNCH + "\n"})
    run = run_cli("--format", "json", "start-server", cwd=root)
    assert run.exit_code == 0 and run.deployments[0]["name"] == "start-server"


def test_inline_suppression_in_a_script(lint):
    run = lint(
        {
            "s.sh": f"{LAUNCH} \\\n  --page-size 64  # swacheck: ignore[SWA201] kept for the old image\n"
        }
    )
    assert run.codes() == []
    assert run.data["summary"]["suppressed"] == 1


def test_sourced_files_are_read(lint):
    run = lint(
        {
            "env.sh": "export SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\nMODEL=models/v4\n",
            "s.sh": f". ./env.sh\npython3 -m sglang.launch_server --model-path $MODEL {SPEC}\n",
        },
        "--platform",
        "rocm",
        target="s.sh",
    )
    assert run.exit_code == 0, run.stderr
    assert run.deployments[0]["mode"] == "unified"


# --------------------------------------------------------------------------- --config FILE


def test_config_file_merge_command_line_wins(lint):
    files = {
        "sglang/base.yaml": "model-path: models/v4\nmax-running-requests: 64\npage-size: "
        "64\ndisaggregation-mode: decode\n"
        + "speculative-algorithm: EAGLE\nspeculative-num-steps: 3\nspeculative-eagle-topk: 1\n",
        "launch/decode.sh": ROCM
        + "python3 -m sglang.launch_server --config ../sglang/base.yaml --max-running-requests 16\n",
    }
    run = lint(files, "--platform", "rocm", target="launch/decode.sh")
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert dep["target"]["tuple"] == [128, 131, 6419]  # 16 requests from the command line, not 64
    f = only(run, "SWA201")  # the file's key keeps its own position
    assert where(f) == ("sglang/base.yaml", 3, 1)
    assert run.findings("SWA301") == []  # overriding a file key is what --config is for


def test_config_file_relative_to_the_working_directory_as_fallback(lint):
    files = {
        "conf/c.yaml": "model-path: models/v4\n",
        "bin/s.sh": "python3 -m sglang.launch_server --config conf/c.yaml\n",
    }
    run = lint(files, target="bin/s.sh")
    assert run.exit_code == 0, run.stderr


def test_keys_refused_in_the_config_file_are_reported_there(lint):
    files = {
        "c.yaml": "model-path: models/v4\nenable-dp-attention: true\ndp-size: 2\n",
        "s.sh": "python3 -m sglang.launch_server --config c.yaml --enable-dp-attention\n",
    }
    run = lint(files, target="s.sh")
    f = only(run, "SWA303")
    assert where(f) == ("c.yaml", 2, 1)


@pytest.mark.parametrize(
    "arg, files, message",
    [
        ("--config c.json", {"c.json": "{}"}, "Config file must be YAML format, got: .json"),
        ("--config missing.yaml", {}, "--config missing.yaml: no such file"),
        (
            "--config c.yaml --config c.yaml",
            {"c.yaml": "model-path: models/v4\n"},
            "Multiple config files specified",
        ),
        ("--config c.yaml", {"c.yaml": "- a\n"}, "Config file must contain a dictionary"),
        ("--config $CFG", {}, "it would come from the --config file $CFG"),
    ],
)
def test_config_file_problems(lint, arg, files, message):
    run = lint({**files, "s.sh": f"python3 -m sglang.launch_server {arg}\n"}, target="s.sh")
    assert run.exit_code == 2
    assert message in run.data["errors"][0]["message"]


# --------------------------------------------------------------------------- Dockerfiles


def test_dockerfile_shell_form_with_env_and_arg(lint):
    dockerfile = (
        "ARG BASE=lmsysorg/sglang:v0.5.23-rocm700-mi35x\n"
        "FROM ${BASE} AS server\n"
        "ARG MODELS=models\n"
        "ENV MODEL_PATH=${MODELS}/v4 \\\n"
        "    SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\n"
        "# comment lines inside a continued instruction are dropped\n"
        "CMD python3 -m sglang.launch_server --model-path $MODEL_PATH \\\n"
        "  # the flags\n"
        f"  --disaggregation-mode prefill {SPEC} --page-size 64\n"
    )
    run = lint({"Dockerfile": dockerfile})
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert (dep["platform"], dep["mode"], dep["target"]["tuple"]) == (
        "rocm",
        "unified",
        [128, 131, 33667],
    )
    assert where(only(run, "SWA201")) == ("Dockerfile", 9, 118)


def test_dockerfile_exec_form_entrypoint_and_cmd(lint):
    dockerfile = (
        "FROM nvidia/cuda:12.8.0-devel-ubuntu22.04\n"
        'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
        'CMD ["--model-path", "models/v4", "--speculative-draft-model-path", "models/mtp256", \\\n'
        '     "--disaggregation-mode", "decode", "--speculative-algorithm", '
        '"EAGLE", "--speculative-num-steps", "3", "--speculative-eagle-topk", '
        '"1", "--page-size", "64"]\n'
    )
    run = lint({"Dockerfile": dockerfile}, "--platform", "rocm")
    (dep,) = run.deployments
    assert dep["platform"] == "cuda"  # the base image says so
    assert [f["code"] for f in dep["findings"]] == ["SWA102", "SWA201"]
    f = only(run, "SWA201")
    assert where(f) == ("Dockerfile", 4, 145)
    assert [(e["line"], e["column"], e["end_column"]) for e in f["fix"]["edits"]] == [(4, 158, 160)]


def test_dockerfile_exec_form_does_not_expand_variables(lint):
    dockerfile = (
        'FROM x\nENV M=models/v4\nCMD ["python3", "-m", "sglang.launch_server", '
        '"--model-path", "$M", "--speculative-algorithm", "EAGLE"]\n'
    )
    run = lint({"Dockerfile": dockerfile})
    assert run.exit_code == 0  # '$M' names no model swacheck knows: a note, not an error
    assert "config.json for model '$M' not found" in run.data["deployments"][0]["skip_reason"]


def test_dockerfile_exec_form_sh_c(lint):
    dockerfile = 'FROM x\nENV M=models/v4\nCMD ["/bin/sh", "-c", "python3 -m sglang.launch_server --model-path $M"]\n'
    run = lint({"Dockerfile": dockerfile})
    assert run.exit_code == 0, run.stderr


def test_dockerfile_arg_is_not_in_the_runtime_environment(lint):
    dockerfile = "FROM x\nARG M=models/v4\nCMD python3 -m sglang.launch_server --model-path $M\n"
    run = lint({"Dockerfile": dockerfile})
    assert run.exit_code == 2
    assert "M is not set by an ENV line of the Dockerfile" in run.data["errors"][0]["message"]


def test_dockerfile_final_stage_and_inherited_env(lint):
    dockerfile = (
        "FROM rocm/sgl-dev:latest AS base\nENV SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton\n"
        f"CMD python3 -m sglang.launch_server --model-path models/does-not-exist\n"
        f"FROM base\nCMD {LAUNCH} --disaggregation-mode prefill\n"
    )
    run = lint({"Dockerfile": dockerfile})
    assert run.exit_code == 0, run.stderr
    (dep,) = run.deployments
    assert (dep["platform"], dep["mode"]) == ("rocm", "unified")


def test_dockerfile_without_a_launch_named_explicitly(lint):
    run = lint({"Dockerfile": 'FROM python:3.12\nCMD ["python3", "app.py"]\n'})
    assert run.exit_code == 2  # skipped with a note, and no deployment found at all
    assert run.data["notes"][0]["message"].startswith(
        "skipped, not a deployment: no SGLang launch command"
    )
    assert run.data["errors"][0]["message"].startswith("no deployments found")


# --------------------------------------------------------------------------- --command


def read_commands(texts: list[str], env: dict[str, str] | None = None):
    return read_inputs(
        [],
        FileCache(),
        Val("cuda", "default"),
        {k: Val(v, "--env") for k, v in (env or {}).items()},
        commands=texts,
    )


def test_command_text_is_a_deployment_named_command(tree, monkeypatch):
    monkeypatch.chdir(tree({}))
    inputs = read_commands([f"{LAUNCH} --page-size 64"])
    (dep,) = inputs.deployments
    assert (dep.file, dep.name) == ("<command>", "<command>")
    arg = dep.server.get("page-size")
    assert (arg.key_loc.file, arg.key_loc.line, arg.key_loc.column) == ("<command>", 1, 141)


def test_several_commands_are_numbered(tree, monkeypatch):
    monkeypatch.chdir(tree({}))
    inputs = read_commands([LAUNCH, "echo hello"])
    assert [d.file for d in inputs.deployments] == ["--command[1]"]
    assert [str(e) for e in inputs.errors] == [
        "--command[2]: no SGLang launch command found in --command[2] (expected "
        "python -m sglang.launch_server ... or sglang serve ...)"
    ]


def test_command_option_is_accepted_by_the_cli_without_paths(tree):
    run = run_cli("--format", "json", "--command", LAUNCH, cwd=tree({}))
    assert "give at least one file" not in run.stderr  # the option parses and stands in for PATH


def test_command_option_checks_the_command(tree):
    run = run_cli("--format", "json", "--command", f"{LAUNCH} --page-size 64", cwd=tree({}))
    assert [d["file"] for d in run.deployments] == ["<command>"]
    assert where(only(run, "SWA201")) == ("<command>", 1, 141)
