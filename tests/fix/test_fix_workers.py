"""``--fix`` split between processes (swacheck/fixworkers.py): the same files written, the same
report and lines, byte for byte, as one process; a split whose rounds are not the whole run's
is dropped and the run fixed in one process; an error in a worker writes nothing."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from test_workers import _repo, _swacheck  # the check's worker tests: the same tree and run

from swacheck import fixworkers, runner

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")

# a value shared through a YAML anchor: its fix is refused with a line about its file
ANCHORED = """\
x-algo: &algo NEXTN
model-path: ../../models/v4
tp-size: 8
speculative-algorithm: *algo
speculative-num-steps: 1
speculative-eagle-topk: 1
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _repo(tmp_path_factory.mktemp("fixworkers"))


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _fix(tree: Path, where: Path, jobs: str, *args: str) -> tuple:
    shutil.copytree(tree, where)
    out = where / "out.json"
    done = _swacheck(jobs, *[out.name if a == "OUT" else a for a in args], cwd=where)
    report = out.read_bytes() if out.exists() else b""
    out.unlink(missing_ok=True)
    return done.returncode, done.stdout, done.stderr, report, _files(where)


@pytest.mark.parametrize(
    "args",
    [
        ("--fix", "configs"),
        ("--fix", "--unsafe-fixes", "configs"),
        ("--fix", "-v", "configs"),
        ("--fix", "-q", "configs"),
        ("--fix", "--format", "concise", "configs"),
        ("--fix", "--format", "json", "--output", "OUT", "configs"),
    ],
    ids=lambda a: " ".join(a),
)
def test_a_split_fix_writes_and_says_what_one_process_does(tree, tmp_path, args):
    one = _fix(tree, tmp_path / "one", "1", *args)
    three = _fix(tree, tmp_path / "three", "3", *args)
    assert one[0] in (1, 2), one[2]
    assert b"swacheck: fixed " in one[2]
    assert one[4] != _files(tree)  # files were fixed ...
    assert three == one  # ... the same ones, the same way, with the same words


def _spy(monkeypatch) -> list[bool]:
    kept: list[bool] = []
    real = fixworkers._one_run

    def one_run(shares):
        kept.append(real(shares))
        return kept[-1]

    monkeypatch.setattr(fixworkers, "_one_run", one_run)
    return kept


def test_the_split_is_kept_for_independent_units(tree, tmp_path, monkeypatch, capsys):
    work = tmp_path / "w"
    shutil.copytree(tree, work)
    kept = _spy(monkeypatch)
    monkeypatch.chdir(work)
    monkeypatch.setenv("SWACHECK_JOBS", "2")
    code = runner.check_paths({"paths": ["configs"], "fix": True})
    assert code == 2  # the tree has a file that does not parse
    assert kept == [True]
    assert "swacheck: fixed " in capsys.readouterr().err


def _count_shares(monkeypatch) -> list[int]:
    """How many shares each split or chunked run's guard (``_one_run``) was given."""
    counts: list[int] = []
    real = fixworkers._one_run
    monkeypatch.setattr(fixworkers, "_one_run", lambda s: counts.append(len(s)) or real(s))
    return counts


def _fix_here(tree: Path, where: Path, monkeypatch, capsys, chunk: int, given: dict) -> tuple:
    """``swacheck --fix configs`` in this process, its share fixed ``chunk`` files at a time."""
    shutil.copytree(tree, where)
    monkeypatch.chdir(where)
    monkeypatch.setattr(fixworkers, "CHUNK_FILES", chunk)
    code = runner.check_paths({"paths": ["configs"], "fix": True, **given})
    out, err = capsys.readouterr()
    return code, out, err, _files(where)  # with the report written to a file in it


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    "given", [{}, {"format": "json", "output": "report.json"}], ids=["human", "json"]
)
def test_a_fix_in_chunks_writes_and_says_what_the_whole_run_does(
    tree, tmp_path, monkeypatch, capsys, jobs, given
):
    """Each process fixes its units a few folders at a time (memory stays flat): the files,
    the report and the lines are those of the units fixed all at once."""
    monkeypatch.setenv("SWACHECK_JOBS", jobs)
    whole = _fix_here(tree, tmp_path / "whole", monkeypatch, capsys, 10**9, given)
    shares = _count_shares(monkeypatch)
    chunked = _fix_here(tree, tmp_path / "chunked", monkeypatch, capsys, 10, given)
    assert given == {} or b'"deployments": [' in chunked[3]["report.json"]
    assert shares == [6]  # six folders of 11 files: a chunk each (two processes: three each)
    assert "swacheck: fixed " in whole[2]
    assert chunked == whole


def test_a_split_with_a_line_to_say_says_it_as_one_process_does(tree, tmp_path, monkeypatch):
    """A fix refused through a YAML anchor is one file's line: the split is kept, and the lines
    are said by file, as one process says them."""
    base = tmp_path / "base"
    shutil.copytree(tree, base)
    (base / "configs" / "team-04" / "anchored.yaml").write_text(ANCHORED)
    one = _fix(base, tmp_path / "one", "1", "--fix", "configs")
    kept = _spy(monkeypatch)
    work = tmp_path / "w"
    shutil.copytree(base, work)
    monkeypatch.chdir(work)
    monkeypatch.setenv("SWACHECK_JOBS", "3")
    runner.check_paths({"paths": ["configs"], "fix": True})
    assert kept == [True]
    three = _fix(base, tmp_path / "three", "3", "--fix", "configs")
    assert b"not fixable automatically: the value is shared through a YAML anchor" in one[2]
    assert three == one


DRAFT_256 = (
    "swacheck: 1\nserver:\n  model-path: ../models/v4\n  disaggregation-mode: prefill\n"
    "  speculative-algorithm: EAGLE\n  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
    "draft:\n  model_config: ../models/mtp256\n"
)


def test_a_file_two_shares_would_edit_drops_the_split(tree, tmp_path, monkeypatch):
    """Both folders' deployments read the same draft config.json, and with --fix-model-configs
    each share's fix edits it: the split is not the run's, and the run is fixed in one process."""
    from conftest import MTP_W256

    base = tmp_path / "base"
    shutil.copytree(tree, base)
    (base / "models" / "mtp256").mkdir()
    (base / "models" / "mtp256" / "config.json").write_text(MTP_W256)
    for team in ("team-00", "team-03"):
        (base / "configs" / team / "draft.yaml").write_text(DRAFT_256.replace("..", "../.."))
    args = ("--fix", "--unsafe-fixes", "--fix-model-configs", "configs")
    one = _fix(base, tmp_path / "one", "1", *args)
    kept = _spy(monkeypatch)
    work = tmp_path / "w"
    shutil.copytree(base, work)
    monkeypatch.chdir(work)
    monkeypatch.setenv("SWACHECK_JOBS", "2")
    runner.check_paths(
        {"paths": ["configs"], "fix": True, "unsafe_fixes": True, "fix_model_configs": True}
    )
    assert kept == [False]
    assert '"sliding_window": 128,' in (work / "models" / "mtp256" / "config.json").read_text()
    assert _fix(base, tmp_path / "two", "2", *args) == one


@pytest.mark.parametrize(
    "shares, kept",
    [
        ([({"a"}, {"a", "m"}), ({"b"}, {"b", "m"})], True),  # a model config read by both
        ([({"a"}, {"a", "s"}), ({"b"}, {"b", "a"})], False),  # share 2 reads what 1 changed
        ([({"a"}, {"m"}), (set(), {"b"})], False),  # an edit of a file the share never read
        ([({"a"}, {"a"}), (set(), {"b"})], True),
    ],
)
def test_the_split_is_the_runs_only_when_no_change_crosses_shares(shares, kept):
    made = [
        fixworkers.Share(
            True, frozenset(), [], [], set(), read, touched, [], (0, 0), [(f"f{n}", "said")]
        )
        for n, (touched, read) in enumerate(shares)
    ]
    assert fixworkers._one_run(made) is kept
    made[1].said = [("f0", "else")]  # two shares say something of one file
    assert fixworkers._one_run(made) is False
    made[1].said = []
    made[0].take_backs = frozenset(range(1, 34))  # more than MAX_TAKE_BACKS over the run
    assert fixworkers._one_run(made) is False
    # 33 shares each taking a round back after round 1: one process takes back one round
    many = [
        *made,
        *(
            fixworkers.Share(True, frozenset({1}), [], [], set(), set(), set(), [], (0, 0), [])
            for _ in range(31)
        ),
    ]
    for share in many:
        share.take_backs = frozenset({1})
    assert fixworkers._one_run(many) is kept


def test_an_error_in_a_fixing_worker_is_an_internal_error_and_writes_nothing(
    tree, tmp_path, monkeypatch, capsys
):
    work = tmp_path / "w"
    shutil.copytree(tree, work)
    before = _files(work)
    real = fixworkers._share

    def boom(settings, job, base, units, mine, checked, stream):
        if mine[0] == 1:  # the worker's share (this process has share 0)
            raise RuntimeError("boom in a share")
        return real(settings, job, base, units, mine, checked, stream)

    monkeypatch.setattr(fixworkers, "_share", boom)
    monkeypatch.chdir(work)
    monkeypatch.setenv("SWACHECK_JOBS", "2")
    code = runner.check_paths({"paths": ["configs"], "fix": True})
    assert code == 2
    assert (
        "swacheck: internal error: RuntimeError: boom in a share (please report it; exit 2)"
        in capsys.readouterr().err
    )
    assert _files(work) == before


def test_a_fix_for_a_terminal_is_not_chunked(tree, tmp_path, monkeypatch, capsys):
    """rich's lines for a terminal wrap to its width: a part made aside cannot stand for them,
    so a run written to a terminal is fixed all at once, as a split is never made for it."""
    import sys

    monkeypatch.setenv("SWACHECK_JOBS", "1")
    monkeypatch.setenv("COLUMNS", "100")
    shares = _count_shares(monkeypatch)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    done = _fix_here(tree, tmp_path / "tty", monkeypatch, capsys, 10, {})
    assert shares == []
    assert "swacheck: fixed " in done[2]


def test_the_parts_wait_in_memory_when_no_temporary_file_can_be_made(
    tree, tmp_path, monkeypatch, capsys
):
    """The report's parts wait on disk (fixworkers.Spool); with no temporary file (a full or
    read-only temporary folder), they wait in memory and the report is the same."""
    import tempfile

    monkeypatch.setenv("SWACHECK_JOBS", "2")
    given = {"format": "json", "output": "report.json"}
    spooled = _fix_here(tree, tmp_path / "spooled", monkeypatch, capsys, 10, given)

    def no_file(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_file)
    in_memory = _fix_here(tree, tmp_path / "in-memory", monkeypatch, capsys, 10, given)
    assert in_memory == spooled
    assert b"swacheck: fixed " in spooled[2].encode()


def test_a_spool_gives_back_each_part_it_was_given():
    spool = fixworkers.Spool(0)
    parts = [(["a" * 70_000], []), ("text", 2), ({"k": [1, None]},)]
    refs = [spool.put(part) for part in parts]
    assert [k for k, _, _ in refs] == [0, 0, 0]
    assert list(fixworkers.Parts(refs, [spool])) == parts
    assert spool.file.closed  # closed once the report has them
