"""``swacheck PATH...`` (with ``--format``, ``--output``, ``--fix`` at most) without typer (entry.py): the
same option values, output and exit code as the check command parsed by typer, and everything
else still goes through typer."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swacheck import cli, clisettings, entry

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"

PASSING = """\
model-path: ./target
tp-size: 8
speculative-algorithm: EAGLE
speculative-num-steps: 2
speculative-eagle-topk: 1
"""

FAILING = """\
model-path: ./target
speculative-draft-model-path: ./draft
tp-size: 8
disaggregation-mode: decode
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
"""


def test_the_defaults_are_the_check_commands():
    # every option of `swacheck check`, at the default typer gives it (a list for a tuple)
    given = {k: p.default for k, p in inspect.signature(cli.check).parameters.items()}
    ours = {
        k: list(v) if isinstance(v, tuple) else v for k, v in clisettings.CHECK_DEFAULTS.items()
    }
    assert ours == given


def test_the_command_names_are_the_apps():
    assert sorted(entry.COMMANDS) == sorted(cli.command_names())


@pytest.mark.parametrize(
    ("args", "fast"),
    [
        (["server.yaml"], True),
        (["server.yaml", "missing.yaml"], True),  # only the first could be a mistyped command
        (["."], True),
        (["server.yaml", "--format", "json"], True),
        (["--format=json", "server.yaml", "-o", "out.json"], True),
        (["-f", "sarif", "--output=r.sarif", "server.yaml"], True),
        (["--output-format", "github", "missing.yaml"], True),  # not first: no command meant
        (["--format", "nonsense", "server.yaml"], True),  # typer says so (check_paths: None)
        ([], False),
        (["-"], False),  # standard input
        (["--", "server.yaml"], False),
        (["server.yaml", "-q"], False),
        (["server.yaml", "-f", "json", "--format", "human"], True),  # the last, as typer
        (["server.yaml", "--format"], False),  # no value
        (["server.yaml", "--format="], False),
        (["server.yaml", "-o", "-"], False),
        (["server.yaml", "-f=json"], False),  # click reads "=json"
        (["server.yaml", "-fjson"], False),
        (["--format", "json"], False),  # no path
        (["rules"], False),  # a command, even with a file of that name
        (["missing.yaml"], False),  # no such file: maybe a mistyped command (cli.py says)
        (["rulse"], False),
    ],
)
def test_what_runs_without_typer(tmp_path, monkeypatch, args, fast):
    (tmp_path / "server.yaml").write_text(PASSING, encoding="utf-8")
    (tmp_path / "rules").write_text(PASSING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("_SWACHECK_COMPLETE", raising=False)
    assert (entry.fast_values(args) is not None) is fast


def test_shell_completion_goes_through_typer(tmp_path, monkeypatch):
    (tmp_path / "server.yaml").write_text(PASSING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("_SWACHECK_COMPLETE", "bash_complete")
    assert entry.fast_values(["server.yaml"]) is None


class _Parsed(Exception):
    pass


def _typer_values(args: list[str], monkeypatch) -> dict:
    """The option values typer hands ``cli.check`` for ``args``."""
    import swacheck.clisettings

    def capture(values):
        raise _Parsed(values)

    monkeypatch.setattr(swacheck.clisettings, "check_settings", capture)
    app, prog = cli.app_for(args)
    with pytest.raises(_Parsed) as parsed:
        app(args=args, prog_name=prog, standalone_mode=False)
    return {
        k: list(v) if isinstance(v, (list, tuple)) else v for k, v in parsed.value.args[0].items()
    }


WORDS = st.sampled_from(
    ["server.yaml", "other.yaml", "--format", "-f", "--output-format", "--output", "-o"]
    + ["--format=json", "--output=o.json", "--output-format=human", "json", "github", "r.txt"]
    + ["-q", "-", "--", "-f=json", "-fjson", "--format=", "", "--verbose", "rules"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=6))
def test_the_values_are_typers_for_any_words(tmp_path_factory, args):
    # whatever the words, the run without typer is taken only where typer would give the check
    # command exactly these values
    tmp = tmp_path_factory.mktemp("words")
    (tmp / "server.yaml").write_text(PASSING, encoding="utf-8")
    old = os.getcwd()
    os.chdir(tmp)
    try:
        fast = entry.fast_values(args)
        if fast is None:
            return
        with pytest.MonkeyPatch.context() as mp:
            typer_values = _typer_values(args, mp)
        ours = {
            k: list(v) if isinstance(v, tuple) else v for k, v in clisettings.CHECK_DEFAULTS.items()
        }
        assert {**ours, **fast} == typer_values, args
    finally:
        os.chdir(old)


def _run(args, cwd, env=None, code="from swacheck.entry import main; main()"):
    full = {"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1", **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.argv[0] = 'swacheck'; {code}", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full,
    )
    return done.returncode, done.stdout, done.stderr


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "ok.yaml").write_text(PASSING, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(FAILING, encoding="utf-8")
    for name, model in (("target", "DeepSeek-V4-Flash"), ("draft", "DeepSeek-V4-Flash-MTP-w256")):
        (tmp_path / name).mkdir()
        config = (EXAMPLES / "models" / model / "config.json").read_text(encoding="utf-8")
        (tmp_path / name / "config.json").write_text(config, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("nothing to check\n", encoding="utf-8")
    return tmp_path


CASES = {
    "one passing file": (["ok.yaml"], {}, None),
    "a failing file": (["bad.yaml"], {}, None),
    "a folder": (["."], {}, None),
    "a file and a missing one": (["ok.yaml", "gone.yaml"], {}, None),
    "a file of nothing": (["notes.txt"], {}, None),
    "in GitHub Actions": (["bad.yaml"], {"GITHUB_ACTIONS": "true"}, None),
    "a configuration file": (["bad.yaml"], {}, 'format = "json"\nignore = ["SWA102"]\n'),
    "a bad configuration file": (["ok.yaml"], {}, 'fail-on = "sometimes"\n'),
    "a format": (["--format", "json", "bad.yaml"], {}, None),
    "a format not known": (["bad.yaml", "-f", "yaml"], {}, None),  # typer's usage error
    "an output file": (["-o", "report.sarif", "--format=sarif", "."], {}, None),
}


EXITS = {"one passing file": 0, "a failing file": 1, "a folder": 1, "in GitHub Actions": 1}
EXITS |= {"a configuration file": 0, "a file and a missing one": 2, "a file of nothing": 2}
EXITS |= {"a bad configuration file": 2, "a format": 1, "a format not known": 2}
EXITS |= {"an output file": 1}


@pytest.mark.parametrize("case", CASES)
def test_paths_alone_run_as_the_check_command(tmp_path, monkeypatch, case):
    args, env, toml = CASES[case]
    cwd = _tree(tmp_path)
    monkeypatch.chdir(cwd)
    if toml is not None:
        (cwd / "swacheck.toml").write_text(toml, encoding="utf-8")
    assert entry.fast_values(args) is not None
    fast = _run(args, cwd, env)
    report = cwd / "report.sarif"
    written = report.read_text(encoding="utf-8") if report.exists() else None
    assert fast == _run(["check", *args], cwd, env)  # typer's path, named explicitly
    assert written == (report.read_text(encoding="utf-8") if report.exists() else None)
    assert fast[0] == EXITS[case] and (fast[1] or fast[2])
    if case == "a format not known":
        assert "Invalid value for --format" in fast[2] and "Usage: swacheck check" in fast[2]


@pytest.mark.parametrize(
    ("raised", "code", "stderr"),
    [
        ("KeyboardInterrupt()", 130, ""),
        ("BrokenPipeError(32, 'Broken pipe')", 1, ""),
        (
            "RuntimeError('boom')",
            2,
            "swacheck: internal error: RuntimeError: boom (please report it; exit 2)\n",
        ),
    ],
)
def test_what_happens_around_the_check_is_typers(tmp_path, raised, code, stderr):
    # Ctrl-C, a closed pipe and a bug in swacheck end the same way with or without typer
    cwd = _tree(tmp_path)
    patch = (
        "import swacheck.runner as r\n"
        "def fail(settings):\n"
        f"    raise {raised}\n"
        "r.run_check = fail\n"
        "from swacheck.entry import main; main()"
    )
    fast = _run(["ok.yaml"], cwd, code=patch)
    assert fast == (code, "", stderr)
    assert _run(["check", "ok.yaml"], cwd, code=patch) == fast


@pytest.mark.parametrize(
    ("code", "status", "stderr"),
    [("None", 0, ""), ("3", 3, ""), ("'no deployments here'", 1, "no deployments here\n")],
)
def test_leaving_exits_as_sys_exit_would(tmp_path, code, status, stderr):
    # entry.leave ends the process with os._exit: the status and message of sys.exit(code)
    script = f"import sys; print('out'); from swacheck.entry import leave; leave({code})"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (status, "out\n", stderr)


def test_a_large_report_is_written_whole_before_the_process_ends(tmp_path):
    # os._exit skips Python's own flush at exit: everything buffered must be out first
    for n in range(150):
        (tmp_path / f"server-{n:03d}.yaml").write_text(FAILING, encoding="utf-8")
    _tree(tmp_path)
    code, out, _ = _run(["--format", "json", "."], tmp_path)
    report = json.loads(out)
    assert code == 1 and len(out) > 1 << 16 and len(report["deployments"]) == 152


@pytest.mark.parametrize("args", [["ok.yaml"], ["-q", "ok.yaml"], ["--format", "sarif", "ok.yaml"]])
def test_a_closed_standard_output_is_one_line_and_exit_2(tmp_path, args):
    # `swacheck PATH >&-`: Python starts with sys.stdout None; one line says so, never a traceback
    _tree(tmp_path)
    script = "import sys; sys.argv[0] = 'swacheck'; from swacheck.entry import main; main()"
    words = " ".join(f"'{a}'" for a in args)
    done = subprocess.run(
        ["sh", "-c", f"'{sys.executable}' -c \"{script}\" {words} >&-"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1"},
    )
    assert done.returncode == 2
    assert done.stderr == "swacheck: standard output is closed; give --output FILE for the report\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [["."], ["-q", "."]])
def test_a_full_disk_is_one_line_and_exit_2(tmp_path, args):
    # the report cannot be written (ENOSPC): said in one line, exit 2, with or without typer
    _tree(tmp_path)
    script = "import sys; sys.argv[0] = 'swacheck'; from swacheck.entry import main; main()"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-c", script, *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env={"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1"},
        )
    assert done.returncode == 2
    assert done.stderr.endswith("swacheck: cannot write the report: No space left on device\n")
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize(
    ("args", "fast"),
    [
        (["--fix", "server.yaml"], True),
        (["server.yaml", "--fix", "--fix"], True),
        (["server.yaml", "--fix", "-f", "json"], True),
        (["server.yaml", "--fix=yes"], False),  # click refuses a value for a switch
        (["server.yaml", "--fix", "--diff"], False),
        (["--fix"], False),  # no path
    ],
)
def test_fix_runs_without_typer_with_typers_values(tmp_path, monkeypatch, args, fast):
    (tmp_path / "server.yaml").write_text(PASSING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("_SWACHECK_COMPLETE", raising=False)
    values = entry.fast_values(args)
    assert (values is not None) is fast
    if values is not None:
        ours = {
            k: list(v) if isinstance(v, tuple) else v for k, v in clisettings.CHECK_DEFAULTS.items()
        }
        assert {**ours, **values} == _typer_values(args, monkeypatch)


def test_fix_without_typer_writes_and_reports_as_typer(tmp_path):
    # the same files written, the same report and exit code, with and without typer
    runs = []
    for name in ("fast", "typer"):
        (tmp_path / name).mkdir()
        cwd = _tree(tmp_path / name)
        (cwd / "nextn.yaml").write_text(PASSING.replace("EAGLE", "NEXTN"), encoding="utf-8")
        args = ["--fix", "."] if name == "fast" else ["check", "--fix", "."]
        runs.append((_run(args, cwd), (cwd / "nextn.yaml").read_text(encoding="utf-8")))
    assert runs[0] == runs[1]
    assert "EAGLE" in runs[0][1] and runs[0][0][0] == 1
