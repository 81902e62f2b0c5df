"""A script cannot make swacheck read without end by sourcing: a file that sources itself (directly
or through others) is one input error, as are chains deeper than limits.MAX_SOURCE_DEPTH and more
than limits.MAX_SOURCES files sourced for one input.

Once a 0.5 KB script that sources itself 20 times ran past a 60 s timeout at 700 MB, and the
issue's 299-byte one made 168,421 deployments in 95 s (benchmarks/hostile.py).
"""

from __future__ import annotations

from budgets_common import GOOD, assert_error_lines, run_child, run_cli, write_tree

from swacheck import limits

LAUNCH = (
    "python -m sglang.launch_server --model-path models/v4 "
    "--speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1"
)
NEVER = "the shell would never finish"


def test_a_script_that_sources_itself(tmp_path):
    root = write_tree(tmp_path, {"self.sh": "#!/bin/sh\n" + ". ./self.sh\n" * 20 + LAUNCH + "\n"})
    run = run_child(["--format", "json", "self.sh", GOOD], root, timeout=30)
    assert_error_lines(run, f"self.sh:2:3: self.sh sources itself (self.sh -> self.sh): {NEVER}")
    assert run.seconds < 30


def test_two_scripts_that_source_each_other(tmp_path):
    root = write_tree(
        tmp_path, {"a.sh": "#!/bin/sh\n. ./b.sh\n" + LAUNCH + "\n", "b.sh": "X=1\n. ./a.sh\n"}
    )
    run = run_cli("--format", "json", "a.sh", GOOD, cwd=root)
    assert_error_lines(run, f"b.sh:2:3: a.sh sources itself (a.sh -> b.sh -> a.sh): {NEVER}")


def test_a_cycle_through_a_variable_and_another_folder(tmp_path):
    root = write_tree(
        tmp_path,
        {"a.sh": '#!/bin/sh\nD=lib\n. "$D/b.sh"\n' + LAUNCH + "\n", "lib/b.sh": ". ../a.sh\n"},
    )
    run = run_cli("--format", "json", "a.sh", GOOD, cwd=root)
    assert_error_lines(run, f"lib/b.sh:1:3: a.sh sources itself (a.sh -> b.sh -> a.sh): {NEVER}")


def test_a_chain_deeper_than_the_limit(tmp_path):
    files = {f"s{i}.sh": f". ./s{i + 1}.sh\n" for i in range(limits.MAX_SOURCE_DEPTH + 3)}
    files[f"s{limits.MAX_SOURCE_DEPTH + 3}.sh"] = LAUNCH + "\n"
    root = write_tree(tmp_path, files)
    run = run_cli("--format", "json", "s0.sh", GOOD, cwd=root)
    # s0.sh is read at depth 0, so s8.sh is the one that would read a ninth level
    assert_error_lines(
        run,
        f"s{limits.MAX_SOURCE_DEPTH}.sh:1:3: sourced files nested more than {limits.MAX_SOURCE_DEPTH} deep (the limit)",
    )


def test_a_fan_out_of_sourced_files(tmp_path):
    """No cycle, but 10 x 10 x 10 x 10 reads (once 10,000 deployments in 11 s)."""
    names = ["a.sh", "b.sh", "c.sh", "d.sh", "e.sh"]
    files = {here: "#!/bin/sh\n" + f". ./{there}\n" * 10 for here, there in zip(names, names[1:])}
    files["e.sh"] = LAUNCH + "\n"
    root = write_tree(tmp_path, files)
    run = run_child(["--format", "json", "a.sh", GOOD], root, timeout=30)
    # b.sh, c.sh, then eight d.sh with ten e.sh each (2 + 88 reads), the ninth d.sh (91) and its
    # e.sh reads: the tenth, on d.sh's line 11, is the 101st
    assert_error_lines(
        run,
        f"d.sh:11:3: more than {limits.MAX_SOURCES} files sourced while reading a.sh (the limit per file)",
    )


def test_sourcing_the_same_file_twice_is_fine(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "run.sh": "#!/bin/sh\n. ./env.sh\n. ./env.sh\n"
            + LAUNCH
            + ' --served-model-name "$NAME"\n',
            "env.sh": "NAME=twice\n",
        },
    )
    run = run_cli("--format", "json", "run.sh", GOOD, cwd=root)
    assert run.stderr == "" and run.exit_code == 0
    assert sorted(d["name"] for d in run.deployments) == ["good", "run"]
