"""Every command the README and docs/ show is run, and its shown output compared.

A ```` ```console ```` block holds ``$ command`` lines, each followed by the output it shows.
``swacheck`` commands run in a scratch copy of ``examples/`` and ``tests/data/`` (so ``--fix``
edits only the copy), standard output and error as one stream, as a terminal shows them (every
line plain: stdout is not a terminal). A shown line ``...`` stands for any lines, and ``...``
inside a line for any text. A command shown without output must exit 0 or 1 without a
traceback. The other commands are what CI runs (``.ci/run``: the virtual environment, the
install, the tests) or long scripts (conformance, benchmarks, flag tables), whose options are
checked against their ``--help``. ```` ```python ```` blocks that use ``swacheck`` run too, and
```` ```toml ```` blocks that hold settings are read by ``swacheck --show-settings``.

After an intended change, ``python -m pytest tests/test_doc_commands.py --update-goldens``
rewrites the shown output of every command whose output differs (a block with ``...`` is
rewritten whole); review the diff.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

# docs/debugging.md's commands name a server log and a /server_info answer of the reader's own
# (not shipped): its outputs are held by tests/test_server_output.py, not run here.
NOT_RUN = {"debugging.md"}
DOCS = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in NOT_RUN),
]
BLOCK = re.compile(r"^```(console|python|toml)\n(.*?)^```", re.M | re.S)
SWACHECK = shutil.which("swacheck", path=os.path.dirname(sys.executable)) or "swacheck"
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
# what CI runs for the install and test commands the docs show (.ci/run; the Action installs
# the checkout itself with pip install "$GITHUB_ACTION_PATH", tests/test_action.py)
CI_EVIDENCE = {
    "python3 -m venv .venv": 'python3 -m venv "$venv"',
    ". .venv/bin/activate": '. "$venv/bin/activate"',
    "python -m pip install .": "python -m pip install -e '.[test]'",
    "python -m pip install -e '.[test]'": "python -m pip install -e '.[test]'",
    "python -m pytest": "python -m pytest",
}
SCRIPTS = ("scripts/", "conformance/", "benchmarks/")


class Command:
    def __init__(self, doc: Path, line: int, text: str, shown: list[str]):
        self.doc, self.line, self.text, self.shown = doc, line, text, shown

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def commands() -> list[Command]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            if m.group(1) != "console":
                continue
            first = text[: m.start(2)].count("\n") + 1
            current = None
            for n, line in enumerate(m.group(2).splitlines()):
                if line.startswith("$ "):
                    current = Command(doc, first + n, line[2:], [])
                    found.append(current)
                elif current is not None:
                    current.shown.append(line)
    return found


COMMANDS = commands()


def test_the_docs_show_commands():
    assert len(COMMANDS) >= 10
    assert any(c.doc.name == "README.md" and c.shown for c in COMMANDS)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "examples", root / "examples")
    shutil.copytree(ROOT / "tests" / "data", root / "tests" / "data")
    return root


def environment() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "SWACHECK_"))
        and k not in ("CI_PROJECT_DIR", "FORCE_COLOR", "NO_COLOR", "COLUMNS")
    }
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr in the order written, as on a terminal
    return env


def matches(shown: list[str], actual: list[str]) -> bool:
    """``shown`` against ``actual``: ``...`` alone is any lines, inside a line any text."""
    pattern = []
    for line in shown:
        if line.strip() == "...":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(".*?".join(map(re.escape, line.rstrip().split("..."))) + r"\n")
    return re.fullmatch("".join(pattern), "".join(a.rstrip() + "\n" for a in actual)) is not None


def run_swacheck(words: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SWACHECK, *words[1:]],
        cwd=cwd,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )


def rewrite(command: Command, actual: list[str]) -> None:
    """--update-goldens: put ``actual`` in place of the command's shown output (found again by
    its text, since an earlier rewrite may have moved it)."""
    lines = command.doc.read_text(encoding="utf-8").split("\n")
    start = lines.index("$ " + command.text) + 1
    end = start
    while end < len(lines) and not lines[end].startswith(("$ ", "```")):
        end += 1
    lines[start:end] = [a.rstrip() for a in actual]
    command.doc.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.id)
def test_shown_command(command, sandbox, update_goldens):
    parts = [p.strip() for p in command.text.split("&&")]
    for part in parts:
        words = shlex.split(part, comments=True)
        if words[0] == "swacheck":
            here = sandbox
            if "--fix" in words:  # edits its files: a copy of its own
                here = sandbox.parent / f"fix-{abs(hash(command.id))}"
                if not here.exists():
                    shutil.copytree(sandbox, here)
            done = run_swacheck(words, here)
            assert "Traceback" not in done.stdout, done.stdout
            actual = done.stdout.splitlines()
            if command.shown and part is parts[-1]:
                if update_goldens and not matches(command.shown, actual):
                    rewrite(command, actual)
                    pytest.skip("rewritten")
                assert matches(command.shown, actual), (
                    f"{command.id}: $ {part}\n--- shown\n"
                    + "\n".join(command.shown)
                    + "\n--- printed\n"
                    + done.stdout
                )
            else:
                assert done.returncode in (0, 1), done.stdout
        elif words[0].startswith("python") and len(words) > 1 and words[1].startswith(SCRIPTS):
            script = ROOT / words[1]
            assert script.is_file(), words[1]
            helped = subprocess.run(
                [sys.executable, str(script), "--help"],
                capture_output=True,
                text=True,
                timeout=120,
                cwd=ROOT,
            )
            assert helped.returncode == 0, helped.stderr
            for option in (w.split("=")[0] for w in words[2:] if w.startswith("--")):
                assert option in helped.stdout, f"{command.id}: {option} not in {words[1]} --help"
        else:
            key = shlex.join(words)
            assert key in CI_EVIDENCE, f"{command.id}: nothing runs {part!r}"
            assert CI_EVIDENCE[key] in CI_RUN, f".ci/run no longer runs {CI_EVIDENCE[key]!r}"


def code_blocks(kind: str) -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            if m.group(1) == kind:
                line = text[: m.start(2)].count("\n") + 1
                found.append((f"{doc.relative_to(ROOT)}:{line}", m.group(2)))
    return found


@pytest.mark.parametrize(
    ("where", "code"),
    [b for b in code_blocks("python") if "swacheck" in b[1]],
    ids=lambda x: x if isinstance(x, str) and ":" in x and "\n" not in x else "",
)
def test_python_block_runs(where, code, sandbox):
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=sandbox,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{where}\n{done.stderr}"


@pytest.mark.parametrize(
    ("where", "code"),
    [b for b in code_blocks("toml") if "[tool.swacheck]" in b[1]],
    ids=lambda x: x if isinstance(x, str) and ":" in x and "\n" not in x else "",
)
def test_settings_block_is_accepted(where, code, tmp_path):
    (tmp_path / "pyproject.toml").write_text(code, encoding="utf-8")
    done = subprocess.run(
        [SWACHECK, "--show-settings"],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{where}\n{done.stdout}{done.stderr}"
    assert "(pyproject.toml)" in done.stdout
