"""Units checked in worker processes (swacheck/workers.py): the same report, byte for byte, as
one process writes; a worker's error is an internal error; what cannot use workers does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from swacheck import runner, workers
from swacheck.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")

SERVER = """\
# {name}
model-path: {model}
tp-size: 8
{extra}"""

MODEL = (EXAMPLES / "models" / "DeepSeek-V4-Flash" / "config.json").read_text()


def _repo(root: Path, folders: int = 6, per_folder: int = 9) -> Path:
    """Folders of server configs: passes, findings with fixes, PD pairs, an input error, a file
    that is no deployment, a mistyped key (a note-free run would test less)."""
    (root / "models" / "v4").mkdir(parents=True)
    (root / "models" / "v4" / "config.json").write_text(MODEL)
    extras = [
        "",
        "speculative-algorithm: NEXTN\nspeculative-num-steps: 1\nspeculative-eagle-topk: 1\n",
        "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 4\nspeculative-num-steps: 2\n",
        "chunked_prefill_size: 4096\n",
        "speculative-num-setps: 2\n",
    ]
    for f in range(folders):
        folder = root / "configs" / f"team-{f:02d}"
        folder.mkdir(parents=True)
        for i in range(per_folder):
            extra = extras[(f + i) % len(extras)]
            (folder / f"svc-{i:02d}.yaml").write_text(
                SERVER.format(name=f"{f}/{i}", model="../../models/v4", extra=extra)
            )
        pd = "disaggregation-transfer-backend: mooncake\nspeculative-algorithm: EAGLE\n"
        pd += (
            "speculative-num-steps: 1\nspeculative-eagle-topk: 1\nspeculative-num-draft-tokens: 2\n"
        )
        for role in ("prefill", "decode"):
            (folder / f"svc-pd-{role}.yaml").write_text(
                SERVER.format(
                    name=role,
                    model="../../models/v4",
                    extra=f"disaggregation-mode: {role}\n{pd}"
                    + ("page-size: 128\n" if role == "decode" and f % 2 else ""),
                )
            )
    (root / "configs" / "team-01" / "broken.yaml").write_text("model-path: [unclosed\n")
    (root / "configs" / "team-02" / "values.yaml").write_text("name: lint settings\n")
    (root / "configs" / "team-03" / "missing.yaml").write_text("model-path: ../../models/nope\n")
    return root


def _swacheck(jobs: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SWACHECK_JOBS": jobs}
    env.pop("FORCE_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "swacheck", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _repo(tmp_path_factory.mktemp("workers"))


@pytest.mark.parametrize(
    "args",
    [
        ("configs",),
        ("-v", "configs"),
        ("-q", "configs"),
        ("--statistics", "configs"),
        ("--color", "always", "configs"),
        ("--format", "concise", "configs"),
        ("--format", "json", "configs"),
        ("--format", "json", "--output", "OUT", "configs"),
        ("--select", "SWA3", "--format", "concise", "configs"),
    ],
    ids=lambda a: " ".join(a),
)
def test_workers_write_what_one_process_writes(repo: Path, args: tuple[str, ...]):
    runs = []
    for jobs in ("1", "3"):
        out = repo / "out.json"
        given = [str(out) if a == "OUT" else a for a in args]
        done = _swacheck(jobs, *given, cwd=repo)
        report = out.read_bytes() if out.exists() else b""
        out.unlink(missing_ok=True)
        runs.append((done.returncode, done.stdout, done.stderr, report))
    one, three = runs
    assert one[0] in (1, 2), one[2]
    assert three == one


def test_the_bundled_examples_read_the_same_with_workers():
    one = _swacheck("1", "--format", "json", "examples", cwd=ROOT)
    four = _swacheck("4", "--format", "json", "examples", cwd=ROOT)
    assert (four.returncode, four.stdout, four.stderr) == (one.returncode, one.stdout, one.stderr)
    assert one.returncode == 1


def test_a_closed_pipe_ends_the_workers(repo: Path):
    """``swacheck configs | head -1``: exit 1 as in one process, no worker left behind."""
    env = {**os.environ, "SWACHECK_JOBS": "3"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "swacheck", "-v", "configs"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 1


def _settings(repo: Path, **given) -> Settings:
    from swacheck.clisettings import CHECK_DEFAULTS, check_settings

    return check_settings({**CHECK_DEFAULTS, "paths": [str(repo / "configs")], **given})


@pytest.mark.parametrize("folder", ["team-02", "team-03"], ids=["this process", "a worker"])
def test_an_error_in_a_worker_is_an_internal_error(folder, repo, monkeypatch, capsys):
    """Of two processes the run checks units 0, 2, 4 (team-02 among them) and the worker 1, 3, 5:
    either way the error is the one-line internal error of one process."""
    from swacheck import engine, workers

    real = engine.check_unit

    def boom(job, candidates, *rest, **kw):
        if any(folder in c.path for c in candidates):
            raise RuntimeError("boom in a unit")
        return real(job, candidates, *rest, **kw)

    monkeypatch.setattr(engine, "check_unit", boom)
    monkeypatch.setattr(workers, "check_unit", boom)
    monkeypatch.setenv("SWACHECK_JOBS", "2")
    code = runner.check_paths({"paths": [str(repo / "configs")]})
    err = capsys.readouterr().err
    assert code == 2
    assert (
        "swacheck: internal error: RuntimeError: boom in a unit (please report it; exit 2)" in err
    )


def test_one_process_when_told_or_when_the_run_cannot_be_split(repo, monkeypatch):
    """SWACHECK_JOBS=1, --fix, a baseline, a small run without SWACHECK_JOBS: never forked."""

    class Stream:
        parts = True

    units = [[SimpleNamespace(path=f"{n}.yaml")] for n in range(3)]
    monkeypatch.setenv("SWACHECK_JOBS", "1")
    assert workers.jobs(_settings(repo), units, Stream()) == 1
    monkeypatch.setenv("SWACHECK_JOBS", "3")
    assert workers.jobs(_settings(repo, fix=True), units, Stream()) == 1  # a check's split
    assert workers.jobs(_settings(repo, fix=True), units, Stream(), fixing=True) == 3
    assert (
        workers.jobs(_settings(repo, fix=True, show_pairs=True), units, Stream(), fixing=True) == 1
    )
    assert workers.jobs(_settings(repo), units, object()) == 1  # a format without parts
    monkeypatch.delenv("SWACHECK_JOBS")
    assert workers.jobs(_settings(repo), units, Stream()) == 1  # 3 files: not worth a fork
    monkeypatch.setenv("SWACHECK_JOBS", "3")
    assert workers.jobs(_settings(repo), units, Stream()) == 3
    assert workers.jobs(_settings(repo), [*units, [SimpleNamespace(path="-")]], Stream()) == 1
    monkeypatch.setenv("SWACHECK_JOBS", "9")
    assert workers.jobs(_settings(repo), units * 3, Stream()) == workers.MAX_WORKERS


def test_a_diff_run_never_forks(monkeypatch, tmp_path, capsys):
    """``--diff`` is one process (``--fix`` is split by fixworkers.py: tests/fix/)."""
    repo = _repo(tmp_path)

    def no_fork():
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setenv("SWACHECK_JOBS", "4")
    code = runner.check_paths({"paths": [str(repo / "configs")], "diff": True})
    assert code in (1, 2)
    assert "would change" in capsys.readouterr().err


def test_a_split_run_forks_a_worker_per_process_asked_but_its_own(repo, monkeypatch, capsys):
    forks = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    outputs = []
    for jobs in ("1", "3"):
        monkeypatch.setenv("SWACHECK_JOBS", jobs)
        code = runner.check_paths({"paths": [str(repo / "configs")]})
        outputs.append((code, capsys.readouterr()))
    assert len(forks) == 2  # this process checks a third of the units
    assert outputs[0] == outputs[1]
    assert "Checked 67 deployments in 67 files" in outputs[0][1].out


def test_a_system_that_cannot_fork_checks_in_one_process(repo, monkeypatch, capsys):
    """A process limit (fork raises) after one worker started: that one is stopped, and the run
    is checked here, with the report one process writes."""
    real_fork = os.fork
    started = []

    def fork():
        if started:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        pid = real_fork()
        if pid:
            started.append(pid)
        return pid

    monkeypatch.setenv("SWACHECK_JOBS", "1")
    one = runner.check_paths({"paths": [str(repo / "configs")]}), capsys.readouterr()
    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setenv("SWACHECK_JOBS", "3")
    limited = runner.check_paths({"paths": [str(repo / "configs")]}), capsys.readouterr()
    assert len(started) == 1
    assert limited == one
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0], os.WNOHANG)  # reaped
