"""Checking a run unit by unit (swacheck/grouping.py) gives the report of checking it all at once.

The human and JSON formats stream: each unit is checked, written and dropped before the next
one is read. The units must therefore hold everything a finding depends on: a deployment file
and the server config it names, every deployment file naming one server config (its
suppressions), and both files of an explicit pair, whatever folders they sit in.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import EAGLE, ROOT, run_cli

from swacheck import grouping
from swacheck.inputs import Candidate
from swacheck.loading import FileCache

V4 = "../models/v4"


def server(role: str, model: str = V4, extra: str = "") -> str:
    return EAGLE.replace("models/v4", model) + f"disaggregation-mode: {role}\n{extra}"


# Folders that refer to each other across the tree, in every way swacheck knows.
CROSS = {
    # a deployment file in a/ runs the server config in b/ (so b/ is not checked on its own)
    "a/dep.yaml": "swacheck: 1\nplatform: rocm\nserver: ../b/server.yaml\n",
    "b/server.yaml": server("prefill"),
    # two deployment files in f1/ and f2/ share shared/server.yaml and its suppression
    "f1/dep.yaml": "swacheck: 1\nserver: ../shared/server.yaml\n",
    "f2/dep.yaml": "swacheck: 1\nserver: ../shared/server.yaml\nplatform: rocm\n",
    "shared/server.yaml": server(
        "decode", extra="page-size: 64  # swacheck: ignore[SWA201] pinned by the template\n"
    ),
    # an explicit pair across folders, named by a pairs: document at the top
    "pairs.yaml": "swacheck: 1\npairs:\n  - {prefill: c/p.yaml, decode: d/q.yaml}\n",
    "c/p.yaml": server("prefill"),
    "d/q.yaml": server("decode", extra="page-size: 64\n"),
    # an ordinary folder with its own PD pair
    "e/prefill.yaml": server("prefill"),
    "e/decode.yaml": server("decode", model="../models/v4/"),
}


def _one_unit(monkeypatch):
    """Make grouping.plan put the whole run in one unit (how swacheck checked before units)."""
    real_plan = grouping.plan

    def single(*args, **kwargs):
        found = real_plan(*args, **kwargs)
        found.units = [[c for unit in found.units for c in unit]] if found.units else []
        return found

    monkeypatch.setattr(grouping, "plan", single)


@pytest.mark.parametrize("fmt", ["json", "human", "sarif"])
def test_units_report_what_one_unit_reports_on_the_cross_folder_tree(tree, monkeypatch, fmt):
    root = tree(CROSS)
    streamed = run_cli("--format", fmt, "--color", "never", ".", cwd=root)
    _one_unit(monkeypatch)
    whole = run_cli("--format", fmt, "--color", "never", ".", cwd=root)
    assert (streamed.exit_code, streamed.stderr) == (whole.exit_code, whole.stderr)
    assert streamed.stdout == whole.stdout


@pytest.mark.parametrize("fmt", ["json", "human"])
def test_units_report_what_one_unit_reports_on_the_examples(monkeypatch, fmt):
    streamed = run_cli("--format", fmt, "--color", "never", "examples/", cwd=ROOT)
    _one_unit(monkeypatch)
    whole = run_cli("--format", fmt, "--color", "never", "examples/", cwd=ROOT)
    assert streamed.exit_code == whole.exit_code == 1
    assert streamed.stdout == whole.stdout


def test_the_cross_folder_tree_is_checked_as_the_user_expects(tree):
    run = run_cli("--format", "json", ".", cwd=tree(CROSS))
    files = [d["file"] for d in run.deployments]
    # b/server.yaml and shared/server.yaml are checked through their deployment files only
    assert files == [
        "a/dep.yaml",
        "c/p.yaml",
        "d/q.yaml",
        "e/decode.yaml",
        "e/prefill.yaml",
        "f1/dep.yaml",
        "f2/dep.yaml",
    ]
    pairs = {(p["prefill"]["file"], p["decode"]["file"]): p["how"] for p in run.data["pairs"]}
    assert pairs["c/p.yaml", "d/q.yaml"].startswith("named as a pair")
    assert ("e/prefill.yaml", "e/decode.yaml") in pairs
    # the shared suppression is used by both deployment files: suppressed twice, never unused
    assert run.data["summary"]["suppressed"] == 2
    assert run.findings("SWA902") == []
    (page_size,) = run.findings("SWA201")  # the unsuppressed one
    assert page_size["location"]["file"] == "d/q.yaml"


def _plan(root, names):
    files = FileCache()
    return grouping.plan([Candidate(str(root / n), False) for n in names], files, [])


def test_plan_unites_folders_that_refer_to_each_other(tree):
    root = tree(CROSS)
    names = sorted(CROSS)
    found = _plan(root, names)
    got = sorted(
        sorted(str(c.path).removeprefix(str(root) + "/") for c in unit) for unit in found.units
    )
    assert got == sorted(
        [
            ["a/dep.yaml", "b/server.yaml"],
            ["c/p.yaml", "d/q.yaml"],
            ["e/decode.yaml", "e/prefill.yaml"],
            ["f1/dep.yaml", "f2/dep.yaml", "shared/server.yaml"],
            ["pairs.yaml"],
        ]
    )
    assert found.pairs == [(str(root / "c/p.yaml"), str(root / "d/q.yaml"))]


def test_plan_adds_the_files_a_pairs_document_names(tree):
    root = tree(CROSS)
    found = _plan(root, ["pairs.yaml"])
    checked = [str(c.path) for unit in found.units for c in unit]
    assert checked == [str(root / "pairs.yaml"), str(root / "c/p.yaml"), str(root / "d/q.yaml")]


@pytest.mark.parametrize(
    "extra",
    [
        {"run/launch.sh": "python -m sglang.launch_server --config ../b/server.yaml\n"},
        {"k8s/pod.yaml": "apiVersion: v1\nkind: Pod\nspec: {containers: []}\n"},
    ],
)
def test_a_run_with_launch_commands_is_one_unit(tree, extra):
    """A launch command can read any file with --config: its run is never split."""
    root = tree({**CROSS, **extra})
    found = _plan(root, sorted(CROSS) + sorted(extra))
    assert len(found.units) == 1


def test_an_unreadable_deployment_file_is_reported_in_its_unit(tree):
    root = tree({**CROSS, "g/dep.yaml": "swacheck: 1\nserver: [\n"})
    run = run_cli("--format", "json", ".", cwd=root)
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        "g/dep.yaml:3:1: invalid YAML: did not find expected node content (while parsing a flow node)"
    ]
    data = json.loads(run.stdout)
    assert (
        data["summary"]["input_errors"] == 1 and len(data["deployments"]) == 7
    )  # the others are checked


def test_the_json_stream_writes_the_same_bytes_when_its_pairs_wait_on_disk(tree, monkeypatch):
    import tempfile

    from swacheck.report import json_format

    root = tree(CROSS)
    in_memory = run_cli("--format", "json", ".", cwd=root)
    monkeypatch.setattr(json_format, "PAIRS_IN_MEMORY", 10)  # spill after the first pair
    opened = []
    real_file = tempfile.TemporaryFile

    def temporary_file(*args, **kwargs):
        opened.append(real_file(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(tempfile, "TemporaryFile", temporary_file)
    spilled = run_cli("--format", "json", ".", cwd=root)
    assert len(in_memory.data["pairs"]) == 2
    assert spilled.stdout == in_memory.stdout
    assert len(opened) == 1 and opened[0].closed  # the pairs waited on disk, and the file is gone


@pytest.mark.parametrize("fmt", ["json", "human", "sarif"])
def test_the_report_file_inside_the_checked_folder_is_not_read_as_an_input(tree, fmt):
    """`swacheck -o report.json .` in CI: the report is written while the folder is walked."""
    root = tree(CROSS)
    first = run_cli("--format", fmt, "-o", "report.json", ".", cwd=root)
    again = run_cli("--format", fmt, "-o", "report.json", ".", cwd=root)
    assert first.exit_code == again.exit_code == 0, again.stderr
    assert first.stderr == again.stderr == ""
    assert (root / "report.json").stat().st_size > 0


def test_server_configs_whose_keys_contain_a_launch_kinds_mark_stay_in_their_own_units(tree):
    """`max-running-requests`, `speculative-num-steps: 3 # setup` hold `run`/`setup`, SkyPilot's
    keys, as text; only a key makes a document a launch kind that may read any file."""
    server = "model-path: ../models/v4\nmax-running-requests: 64\n# run this with setup.sh\n"
    root = tree({"a/s.yaml": server, "b/s.yaml": server})
    assert len(_plan(root, ["a/s.yaml", "b/s.yaml"]).units) == 2
    root = tree(
        {
            "c/task.yaml": "resources: {accelerators: H100:8}\nrun: |\n  python -m "
            "sglang.launch_server --model-path m\n"
        }
    )
    assert (
        len(_plan(root, ["a/s.yaml", "b/s.yaml", "c/task.yaml"]).units) == 1
    )  # a SkyPilot task: one unit


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: Pod\n",
        "items:\n  - apiVersion: v1\n",
        '{"services": {}}',
        "services:\n  a: {}\n",
    ],
)
def test_a_launch_kinds_key_makes_the_run_one_unit(tree, text):
    root = tree({"a/s.yaml": "model-path: ../models/v4\n", "b/k.yaml": text})
    assert len(_plan(root, ["a/s.yaml", "b/k.yaml"]).units) == 1


def _walked_units(root, *paths):
    """The units of a run over ``paths`` (walked or named, as the CLI discovers them)."""
    from swacheck.inputs import discover
    from swacheck.paths import forget

    forget()
    candidates, errors = discover(list(paths), root=str(root.resolve()))
    assert errors == []
    found = grouping.plan(candidates, FileCache(), [])
    return sorted(
        sorted(os.path.relpath(os.path.realpath(c.path), root) for c in unit)
        for unit in found.units
    )


def test_a_walk_unites_a_server_config_named_through_a_linked_folder(tree, monkeypatch):
    """The walk keeps no real path of its own for each file it takes (paths.Walked): a
    deployment file that names its server config by another path (through a link to the
    folder) still puts both folders in one unit."""
    root = tree(
        {
            "a/dep.yaml": "swacheck: 1\nplatform: rocm\nserver: ../b-link/server.yaml\n",
            "b/server.yaml": server("prefill"),
            "e/prefill.yaml": server("prefill"),
        }
    )
    os.symlink("b", root / "b-link")  # a folder link: not walked, only named
    monkeypatch.chdir(root)  # named relative: no path as named is a real path
    assert _walked_units(root, "a", "b", "e") == [
        ["a/dep.yaml", "b/server.yaml"],
        ["e/prefill.yaml"],
    ]


def test_a_file_named_walked_and_linked_to_is_one_candidate(tree, monkeypatch):
    from swacheck.inputs import discover
    from swacheck.paths import forget

    root = tree({"a/x.yaml": server("prefill"), "a/y.yaml": server("decode")})
    os.symlink("x.yaml", root / "a" / "z.yaml")  # a file link the walk takes: the same file
    os.symlink("a", root / "a-link")
    monkeypatch.chdir(root)
    forget()
    candidates, errors = discover(["a/y.yaml", "a", "a-link"], root=str(root.resolve()))
    assert errors == []
    assert sorted(c.path for c in candidates) == ["a/x.yaml", "a/y.yaml"]
    assert [c.explicit for c in candidates if c.path.endswith("y.yaml")] == [True]
