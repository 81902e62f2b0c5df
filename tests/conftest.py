"""Shared test helpers: write a small deployment tree and run the real CLI on it."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from swacheck.cli import app_for

ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="rewrite the expected outputs of tests/golden/ (test_golden.py) instead of comparing",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """True with ``pytest --update-goldens`` or ``SWACHECK_UPDATE_GOLDEN=1``."""
    return bool(
        request.config.getoption("--update-goldens") or os.environ.get("SWACHECK_UPDATE_GOLDEN")
    )


EXAMPLES = ROOT / "examples"
# Golden-test case name -> the bundled example it runs on.
EXAMPLE = {
    "cuda-paged-prefill": "examples/cuda-paged/prefill.yaml",
    "cuda-paged-decode-draft-window": "examples/cuda-draft-window/decode.yaml",
    "cuda-no-pd-draft-window": "examples/cuda-no-pd/server.yaml",
    "cuda-nextn": "examples/cuda-nextn/prefill.yaml",
    "cuda-dp-attention-in-config": "examples/cuda-dp-attention-in-config/decode.yaml",
    "rocm-unified-prefill": "examples/rocm-unified/prefill.yaml",
    "rocm-unified-decode": "examples/rocm-unified/decode.yaml",
    "rocm-unified-dp-attention": "examples/rocm-dp-attention/decode.yaml",
    "rocm-paged-env-unset": "examples/rocm-paged/prefill.yaml",
    "rocm-unified-draft-window": "examples/rocm-draft-window/prefill.yaml",
    "rocm-unified-fp8-pp": "examples/rocm-fp8-pp/decode.yaml",
    "from-log": "examples/from-log/tuples.yaml",
}
V4_FLASH = (EXAMPLES / "models" / "DeepSeek-V4-Flash" / "config.json").read_text()
MTP_W256 = (EXAMPLES / "models" / "DeepSeek-V4-Flash-MTP-w256" / "config.json").read_text()


@dataclass
class Run:
    exit_code: int
    stdout: str  # click turns CRLF into LF here; stdout_bytes is what was written
    stderr: str
    stdout_bytes: bytes = b""

    @property
    def data(self) -> dict:
        return json.loads(self.stdout)

    @property
    def deployments(self) -> list[dict]:
        return self.data["deployments"]

    def codes(self, index: int = 0) -> list[str]:
        return [f["code"] for f in self.deployments[index]["findings"]]

    def findings(self, code: str) -> list[dict]:
        return [f for d in self.deployments for f in d["findings"] if f["code"] == code]


def run_cli(*args: str, cwd: Path | None = None) -> Run:
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        chosen, prog_name = app_for(list(args))  # as the swacheck script does
        result = runner.invoke(chosen, list(args), prog_name=prog_name, catch_exceptions=False)
    finally:
        os.chdir(old)
    return Run(result.exit_code, result.stdout, result.stderr, result.stdout_bytes)


@pytest.fixture
def tree(tmp_path: Path):
    """Write files (name -> text) under tmp_path, with the V4-Flash model configs in models/."""

    def write(files: dict[str, str]) -> Path:
        for name, text in {
            "models/v4/config.json": V4_FLASH,
            "models/mtp256/config.json": MTP_W256,
            **files,
        }.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return tmp_path

    return write


@pytest.fixture
def lint(tree):
    """lint(files, *args) -> Run of `swacheck --format json <tmp>/server.yaml ...` (cwd = tmp)."""

    def go(files: dict[str, str], *args: str, target: str | None = None) -> Run:
        root = tree(files)
        paths = [target] if target else [n for n in files if not n.startswith("models/")]
        return run_cli("--format", "json", *args, *paths, cwd=root)

    return go


# A DeepSeek-V4 EAGLE server that SGLang 0.5.23 accepts: topk 1 and num-steps explicit.
EAGLE = """\
model-path: models/v4
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
"""


# Shared assertions on findings as JSON (`--format json`).
def loc(finding):
    l = finding["location"]
    return (l["file"], l["line"], l["column"])


def related(finding):
    return [(r["file"], r["line"], r["column"], r["message"]) for r in finding["related"]]


def edits(finding):
    return [
        (e["file"], e["line"], e["column"], e["end_line"], e["end_column"], e["replacement"])
        for e in finding["fix"]["edits"]
    ]


PREFILL, DECODE = "d/prefill.yaml", "d/decode.yaml"


def check_pair(tree, prefill: str, decode: str, *args: str) -> Run:
    """Run swacheck on a prefill and a decode server in folder d/ (so they pair)."""
    root = tree({PREFILL: prefill, DECODE: decode})
    return run_cli("--format", "json", *args, "d", cwd=root)


def only(run: Run, code: str) -> dict:
    """The one finding of a rule (fails when there is none or several)."""
    found = run.findings(code)
    assert len(found) == 1, run.stdout
    return found[0]


def only_on_decode(run: Run, code: str) -> dict:
    """The one finding of a pair rule: on the decode server, none on the prefill, and in pairs[0]."""
    f = only(run, code)
    by_file = {d["file"]: d for d in run.deployments}
    assert f in by_file[DECODE]["findings"]
    assert by_file[PREFILL]["findings"] == []
    assert [g for g in run.data["pairs"][0]["findings"] if g["code"] == code] == [f]
    return f


def pd_server(role: str, extra: str = "") -> str:
    """An SGLang server config in folder d/ with a PD role (line 1 model-path, line 2 the mode)."""
    return f"model-path: ../models/v4\ndisaggregation-mode: {role}\n{extra}"


# The documentation: the README and docs/*.md (tests that hold the docs to the program read it
# through these, wherever a section lives).
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in DOC_FILES)


def doc_section(title: str) -> str:
    """The text under the heading ``title`` (any level, in any doc file), up to the next heading
    of the same or a higher level (a ``#`` line inside a code fence is not a heading)."""
    for path in DOC_FILES:
        lines = path.read_text(encoding="utf-8").split("\n")
        fence, level, taken = False, 0, []
        for line in lines:
            if line.startswith("```"):
                fence = not fence
            heading = None if fence else re.match(r"^(#+) (.*)$", line)
            if level and heading and len(heading.group(1)) <= level:
                break
            if level:
                taken.append(line)
            elif heading and heading.group(2).strip() == title:
                level = len(heading.group(1))
        if level:
            return "\n".join(taken)
    raise AssertionError(f"no section {title!r} in README.md or docs/")
