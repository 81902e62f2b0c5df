"""Work that grew faster than the input (issue 23): each attack here is a small file that once
kept swacheck busy for minutes; now the run ends, with the outcome a file of its kind gets.
The timings are benchmarks/hostile.py's; these tests only bound the run (a child with a
wall-clock timeout far above the time it takes) and check what it reports."""

from __future__ import annotations

from budgets_common import run_child, write_tree

from swacheck import grouping


def test_one_long_line_of_launch_marks_in_a_walk(tmp_path):
    """The walk asks of every YAML file whether a key could make it a launch kind that reads
    other files (apiVersion:, services:, run:...). For each mark found, the test went back to the
    start of its line: one 325 KB line of 'xapiVersion: ' took more than 200 s; now 0.3 s."""
    line = 'a: "' + "xapiVersion: " * 25_000 + '"\n'
    root = write_tree(tmp_path, {"big.yaml": line})
    run = run_child(["--format", "json", "."], root, timeout=60)
    assert run.exit_code == 0, run.stderr
    assert [d["name"] for d in run.data["deployments"]] == ["good"]
    assert run.data["summary"]["skipped_files"] == 3  # big.yaml and the two model configs


def test_the_launch_key_test_is_the_regular_expression_it_replaces():
    """_has_launch_key is _LAUNCH_KEYS.search, without its cost: the same answer on every
    short text of marks, blanks, dashes, quotes, braces, commas and line breaks."""
    import itertools

    pieces = ["run", "apiVersion", ":", " ", "-", "\n", "{", ",", "'", "x"]
    for n in range(1, 6):
        for combo in itertools.product(pieces, repeat=n):
            text = "".join(combo)
            assert grouping._has_launch_key(text) == bool(grouping._LAUNCH_KEYS.search(text)), text
