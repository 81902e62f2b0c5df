"""Variable expansion cannot grow without bound: one word is at most limits.MAX_WORD characters and
one file's substitutions at most limits.MAX_EXPANSION, in every language swacheck expands.

Once each of these few-hundred-byte files took 2.3-2.8 GB and 8-18 s, then died with
"internal error: MemoryError" (benchmarks/hostile.py). Each now answers with one input error line
for the file, the other file named alongside is still checked, and the child stays small.
"""

from __future__ import annotations

import pytest
from budgets_common import GOOD, MiB, assert_error_lines, run_child, write_tree

from swacheck import limits

LAUNCH = (
    "python -m sglang.launch_server --model-path models/v4 "
    "--speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1"
)
WORD = f"a word expands to more than {limits.MAX_WORD} characters here (the limit on one word)"
STEPS = 40  # 2**40 characters if nothing stopped it


def shell_doubling() -> dict[str, str]:
    return {
        "double.sh": "\n".join(
            ["#!/bin/sh", "A=x"] + ['A="$A$A"'] * STEPS + [f'{LAUNCH} --served-model-name "$A"']
        )
        + "\n"
    }


def dockerfile_doubling() -> dict[str, str]:
    lines = ["FROM lmsysorg/sglang:latest", "ARG A0=x"] + [
        f"ARG A{i}=${{A{i - 1}}}${{A{i - 1}}}" for i in range(1, STEPS + 1)
    ]
    return {
        "Dockerfile": "\n".join(
            lines + [f"ENV NAME=${{A{STEPS}}}", f'CMD {LAUNCH} --served-model-name "$NAME"']
        )
        + "\n"
    }


def kubernetes_doubling() -> dict[str, str]:
    env = ["        - {name: V0, value: x}"] + [
        f'        - {{name: V{i}, value: "$(V{i - 1})$(V{i - 1})"}}' for i in range(1, STEPS + 1)
    ]
    args = ", ".join(f'"{a}"' for a in LAUNCH.split()[1:])
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: double}\nspec:\n  containers:\n    - name: server\n"
        "      image: lmsysorg/sglang:latest\n      env:\n" + "\n".join(env) + "\n"
        f'      command: ["python"]\n      args: [{args}, "--served-model-name", "$(V{STEPS})"]\n'
    )
    return {"pod.yaml": text}


def compose_doubling() -> dict[str, str]:
    dotenv = (
        "\n".join(["V0=x"] + [f"V{i}=${{V{i - 1}}}${{V{i - 1}}}" for i in range(1, STEPS + 1)])
        + "\n"
    )
    compose = (
        f"services:\n  server:\n    image: lmsysorg/sglang:latest\n    command: "
        f"{LAUNCH} --served-model-name ${{V{STEPS}}}\n"
    )
    return {".env": dotenv, "compose.yaml": compose}


# 2**20 characters still fit in a word; the 21st doubling (line 2 + 21, or its ${...}) passes it
@pytest.mark.parametrize(
    "files, named, line",
    [
        (shell_doubling(), "double.sh", "double.sh:23:4"),  # the value of the 21st A="$A$A"
        (dockerfile_doubling(), "Dockerfile", "Dockerfile:23:9"),  # ${A20} in ARG A21=${A20}${A20}
        (kubernetes_doubling(), "pod.yaml", "pod.yaml:29:37"),  # $(V20) in V21's value
        (compose_doubling(), "compose.yaml", ".env:21:5"),  # ${V20} in V21= of the project's .env
    ],
    ids=["shell", "dockerfile", "kubernetes", "compose"],
)
def test_doubling_stops_at_the_word_limit(tmp_path, files, named, line):
    root = write_tree(tmp_path, files)
    run = run_child(["--format", "json", named, GOOD], root, timeout=60, memory=1024 * MiB)
    assert_error_lines(run, f"{line}: {WORD}")
    assert run.peak_rss < 200 * MiB, run.peak_rss  # once 2.3-2.8 GB, then MemoryError


def test_total_expansion_per_file_is_bounded(tmp_path):
    """Each value below the word limit, but together past the file's budget."""
    big = "y" * (512 * 1024)
    refs = limits.MAX_EXPANSION // len(big) + 1  # the substitution that passes the budget
    script = "#!/bin/sh\n" + f"A={big}\n" + 'B="$A"\n' * (refs + 5) + LAUNCH + "\n"
    root = write_tree(tmp_path, {"total.sh": script})
    run = run_child(["--format", "json", "total.sh", GOOD], root, timeout=60)
    assert_error_lines(
        run,
        f"total.sh:{2 + refs}:4: variable expansion passes {limits.MAX_EXPANSION} "
        f"characters in total.sh here (the limit per file)",
    )


def test_a_partly_known_value_counts_against_the_budget_too(tmp_path):
    """A value holding something unknown ($((X))) keeps its known text (expansion.Var.partial):
    that text is charged as any other, so fanning it out stops at the same budget."""
    big = "$((X)) " + "y" * (512 * 1024)
    refs = limits.MAX_EXPANSION // len(big) + 1
    script = "#!/bin/sh\n" + f'A="{big}"\n' + 'B="$A"\n' * (refs + 5) + LAUNCH + "\n"
    root = write_tree(tmp_path, {"partial.sh": script})
    run = run_child(["--format", "json", "partial.sh", GOOD], root, timeout=60)
    assert_error_lines(
        run,
        f"partial.sh:{2 + refs}:4: variable expansion passes {limits.MAX_EXPANSION} "
        f"characters in partial.sh here (the limit per file)",
    )


def test_a_long_word_below_the_limit_is_fine(tmp_path):
    """The limit is not a guess at what is reasonable: 2**19 characters through variables still work."""
    script = (
        "\n".join(["#!/bin/sh", "A=x"] + ['A="$A$A"'] * 19 + [f'{LAUNCH} --served-model-name "$A"'])
        + "\n"
    )
    root = write_tree(tmp_path, {"long.sh": script})
    run = run_child(["--format", "json", "long.sh", GOOD], root)
    assert run.stderr == "" and run.exit_code == 0
    assert sorted(d["name"] for d in run.data["deployments"]) == ["good", "long"]


def test_a_word_of_escapes_longer_than_a_word_may_be(tmp_path):
    """Each escaped character was an object of its own: 8 MB of \\a once took 1.1 GB and 40 s."""
    script = (
        "#!/bin/sh\n"
        + LAUNCH
        + " --served-model-name "
        + "\\a" * (limits.MAX_WORD // 2 + 10)
        + "\n"
    )
    root = write_tree(tmp_path, {"escapes.sh": script})
    run = run_child(["--format", "json", "escapes.sh", GOOD], root, timeout=60)
    column = len(LAUNCH) + len(" --served-model-name ") + 1
    assert_error_lines(
        run,
        f"escapes.sh:2:{column}: a word is more than {limits.MAX_WORD} characters long here (the limit on one word)",
    )
    assert run.peak_rss < 300 * MiB


def test_an_array_that_doubles_itself_stops_at_the_item_limit(tmp_path):
    """``A=("${A[@]}" "${A[@]}")`` forty times: 2**40 one-letter items, none of them long, so no
    word budget ever saw them (once MemoryError after ~20 s, 1.5 GB at a 2-minute timeout).
    Each element counts against limits.MAX_ITEMS and its characters against MAX_EXPANSION."""
    script = "\n".join(
        ["#!/bin/bash", "A=(x)"] + ['A=("${A[@]}" "${A[@]}")'] * STEPS + [f'{LAUNCH} "${{A[@]}}"']
    )
    root = write_tree(tmp_path, {"array.sh": script + "\n"})
    run = run_child(["--format", "json", "array.sh", GOOD], root, timeout=60, memory=1024 * MiB)
    assert_error_lines(  # the 16th doubling (line 18) brings the items made to 131,070
        run,
        f"array.sh:18:14: array and argument expansion passes {limits.MAX_ITEMS} items in "
        "array.sh here (the limit per file)",
    )
    assert run.peak_rss < 200 * MiB, run.peak_rss


def test_a_function_that_doubles_its_arguments_stops_at_the_item_limit(tmp_path):
    """``f() { f "$@" "$@"; }``: each of the 64 calls followed doubles "$@" (2**64 arguments)."""
    script = f'#!/bin/bash\nf() {{ f "$@" "$@"; }}\nf x\n{LAUNCH}\n'
    root = write_tree(tmp_path, {"args.sh": script})
    run = run_child(["--format", "json", "args.sh", GOOD], root, timeout=60, memory=1024 * MiB)
    assert_error_lines(
        run,
        f"args.sh:2:14: array and argument expansion passes {limits.MAX_ITEMS} items in "
        "args.sh here (the limit per file)",
    )
    assert run.peak_rss < 200 * MiB, run.peak_rss


def test_an_array_of_long_items_is_charged_by_its_characters(tmp_path):
    """Few items, each long: the characters "${A[@]}" copies count against MAX_EXPANSION."""
    big = "y" * (512 * 1024)
    refs = limits.MAX_EXPANSION // len(big) + 1
    script = "#!/bin/bash\n" + f"A=({big})\n" + 'B=("${A[@]}")\n' * (refs + 5) + LAUNCH + "\n"
    root = write_tree(tmp_path, {"items.sh": script})
    run = run_child(["--format", "json", "items.sh", GOOD], root, timeout=60)
    assert_error_lines(
        run,
        f"items.sh:{2 + refs}:4: variable expansion passes {limits.MAX_EXPANSION} "
        f"characters in items.sh here (the limit per file)",
    )


def test_real_arrays_and_arguments_still_expand(tmp_path):
    script = (
        "#!/bin/bash\nSPEC=(--speculative-algorithm EAGLE --speculative-num-steps 3)\n"
        'serve() { python -m sglang.launch_server --model-path models/v4 "$@"; }\n'
        'serve "${SPEC[@]}" --speculative-eagle-topk 1 --served-model-name arr\n'
    )
    root = write_tree(tmp_path, {"arr.sh": script})
    run = run_child(["--format", "json", "arr.sh", GOOD], root)
    assert run.stderr == "" and run.exit_code == 0, run.stderr
    assert sorted(d["name"] for d in run.data["deployments"]) == ["arr", "good"]
