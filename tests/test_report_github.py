"""``--format github``: workflow-command annotations, escaping, the per-level cap, the step summary.

The golden outputs are the ``expected.github`` files of tests/golden/ (test_golden.py).
"""

from __future__ import annotations

import re

import pytest
from conftest import EAGLE, ROOT, run_cli

from swacheck.model.records import Finding, Location
from swacheck.report import escape, github

# A PD prefill server whose draft checkpoint has sliding_window 256: one SWA102 error, and an
# explicit page-size that SGLang replaces: one SWA201 warning.
FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch):
    # Tests that run inside GitHub Actions must not append to the real job summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(autouse=True)
def _no_workspace(monkeypatch):
    # Under GitHub Actions GITHUB_WORKSPACE would move every path; tests that want it set it.
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)


def commands(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::")]


def props(command: str) -> dict[str, str]:
    m = re.match(r"::(\w+)(?: ([^:]*))?::", command)
    assert m, command
    return dict(p.split("=", 1) for p in m.group(2).split(",")) if m.group(2) else {}


def test_escape_data():
    # the lines of a message are joined by an escaped line break; a line break inside an input
    # is shown as \n (report/escape.py), never a raw or %0A one that would start a new log line
    assert escape.workflow_message("100% done", "next") == "100%25 done%0Anext"
    assert escape.workflow_message("in\r\nput") == "in\\r\\nput"
    assert escape.workflow_message("a:b,c") == "a:b,c"  # only property values escape : and ,


def test_escape_property():
    assert escape.workflow_property("a,b:c%.yaml") == "a%2Cb%3Ac%25.yaml"
    assert escape.workflow_property("x\ry\nz") == "x\\ry\\nz"
    # % first, so an escape is never escaped twice
    assert escape.workflow_property("%3A") == "%253A"


def test_command_shape():
    cmd = github.command(
        "warning",
        {"file": "a,b.yaml", "line": 3, "title": "SWA201 page-size-replaced"},
        ["x: 5%", "y"],
    )
    assert cmd == "::warning file=a%2Cb.yaml,line=3,title=SWA201 page-size-replaced::x: 5%25%0Ay"
    assert github.command("notice", {}, ["m"]) == "::notice::m"


def test_no_column_range_across_lines():
    one_line = github.location_properties(Location("f.yaml", 3, 2, 3, 7))
    assert one_line == {"file": "f.yaml", "line": 3, "col": 2, "endLine": 3, "endColumn": 7}
    multi = github.location_properties(Location("f.yaml", 3, 2, 5, 1))
    assert multi == {"file": "f.yaml", "line": 3, "endLine": 5}
    empty = github.location_properties(Location("f.yaml", 3, 2, 3, 2))
    assert empty == {"file": "f.yaml", "line": 3, "col": 2, "endLine": 3}
    assert github.location_properties(None) == {}


def test_finding_without_location_has_no_file_properties():
    item = github._finding_item(Finding("SWA101", "error", "no place", None), "error")
    assert item.annotation == "::error title=SWA101 unified-ring-mismatch::no place"


def test_special_characters_in_paths_and_messages(tree):
    root = tree(
        {
            "a,b:c%.yaml": FAILING.replace("models/mtp256", "models/m%,:1"),
            "models/m%,:1/config.json": (
                ROOT / "examples/models/DeepSeek-V4-Flash-MTP-w256/config.json"
            ).read_text(),
        }
    )
    run = run_cli("--format", "github", "a,b:c%.yaml", cwd=root)
    assert run.exit_code == 1
    cmds = commands(run.stdout)
    assert cmds, run.stdout
    for cmd in cmds:
        head, _, message = cmd[2:].partition("::")
        assert props(cmd)["file"] == "a%2Cb%3Ac%25.yaml"
        assert "a,b:c%.yaml" not in head
        # the data part escapes % and newlines but keeps : and ,
        assert "\n" not in message and "\r" not in message
        assert not re.search(r"%(?!25|0A|0D)", message), message
    error = next(c for c in cmds if c.startswith("::error"))
    assert (
        "related: models/m%25,:1/config.json:14:21: draft sliding_window 256 comes from here"
        in error
    )
    assert "%0Afix (unsafe): Remove speculative-draft-model-path" in error


def test_levels_and_titles(tree):
    run = run_cli("--format", "github", "server.yaml", cwd=tree({"server.yaml": FAILING}))
    cmds = commands(run.stdout)
    assert [c.split(" ", 1)[0] for c in cmds] == ["::error", "::warning"]
    assert props(cmds[0])["title"] == "SWA102 paged-geometry-mismatch"
    assert props(cmds[1]) == {
        "file": "server.yaml",
        "line": "7",
        "col": "1",
        "endLine": "7",
        "endColumn": "10",
        "title": "SWA201 page-size-replaced",
    }
    assert (
        run.stdout.splitlines()[-1]
        == "Checked 1 deployment in 1 file: 1 error, 1 warning, 0 notes  (SGLang 0.5.23; exit 1)"
    )


def test_note_is_a_notice(tree):
    no_pd = EAGLE + "speculative-draft-model-path: models/mtp256\n"
    cmds = commands(
        run_cli("--format", "github", "server.yaml", cwd=tree({"server.yaml": no_pd})).stdout
    )
    assert [c.split(" ", 1)[0] for c in cmds] == ["::notice"]


def test_at_most_ten_annotations_per_level(tree):
    files = {f"s{i:02}.yaml": FAILING for i in range(12)}
    run = run_cli("--format", "github", *files, cwd=tree(files))
    assert run.exit_code == 1
    lines = run.stdout.splitlines()
    cmds = commands(run.stdout)
    levels = [c.split(" ", 1)[0] for c in cmds]
    assert levels == ["::error"] * 10 + ["::warning"] * 10  # errors first, then warnings
    assert [props(c)["file"] for c in cmds[:10]] == [f"s{i:02}.yaml" for i in range(10)]
    # the rest are plain log lines, then one line per level saying how many were not annotated
    rest = lines[len(cmds) :]
    assert rest == [
        "s10.yaml:5:1: SWA102 error: " + rest[0].split(" error: ", 1)[1],
        "s11.yaml:5:1: SWA102 error: " + rest[1].split(" error: ", 1)[1],
        "swacheck: 2 more errors not shown as annotations (limit 10 per level)",
        "s10.yaml:7:1: SWA201 warning: page-size 64 is replaced by 256 for "
        "DeepSeek-V4: SGLang's DSV4 override sets page_size=256",
        "s11.yaml:7:1: SWA201 warning: page-size 64 is replaced by 256 for "
        "DeepSeek-V4: SGLang's DSV4 override sets page_size=256",
        "swacheck: 2 more warnings not shown as annotations (limit 10 per level)",
        "Checked 12 deployments in 12 files: 12 errors, 12 warnings, 0 notes  (SGLang 0.5.23; exit 1)",
    ]


def test_input_errors_are_error_annotations_and_count_in_the_cap(tree):
    files = {f"s{i:02}.yaml": FAILING for i in range(10)}
    root = tree({**files, "bad.yaml": "model-path: [\n"})
    run = run_cli("--format", "github", "bad.yaml", *files, cwd=root)
    assert run.exit_code == 2
    cmds = commands(run.stdout)
    errors = [c for c in cmds if c.startswith("::error")]
    assert len(errors) == 10
    assert props(errors[0]) == {
        "file": "bad.yaml",
        "line": "2",
        "col": "1",
        "title": "swacheck input error",
    }
    assert errors[0].split("::")[2].startswith("invalid YAML")
    assert (
        "swacheck: 1 more error not shown as annotations (limit 10 per level)"
        in run.stdout.splitlines()
    )
    assert run.stdout.splitlines()[-1].endswith("1 input error  (SGLang 0.5.23; exit 2)")


def test_step_summary_is_appended_as_markdown(monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = run_cli(
        "--format",
        "github",
        "examples/rocm-draft-window/prefill.yaml",
        "examples/rocm-unified/decode.yaml",
        cwd=ROOT,
    )
    assert run.exit_code == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n## swacheck\n")  # appended, not replaced
    assert "| field | target | draft | target from | draft from |" in text
    # the tables' tuples, the differing ones in bold
    assert "| **`tuple`** | **(128, 131, 33667)** | **(256, 259, 66563)** |" in text
    # a passing deployment is one line, after the failing ones
    passing = (
        "- examples/rocm-unified/decode.yaml · v4-flash-decode-rocm  (ROCm, "
        "unified KV, PD decode, EAGLE): `(128, 131, 6419)`"
    )
    assert passing in text
    assert text.index("### 1 deployment without findings") > text.index("SWA101")
    assert (
        "| **`window`** | **128** | **256** | **examples/models/DeepSeek-V4-Flash/config.json:14:21** | "
        "**examples/models/DeepSeek-V4-Flash-MTP-w256/config.json:14:21** |"
    ) in text
    assert (
        "| **`ring_size`** | **131** | **259** | **window 128 + draft tokens 4 - "
        "1** | **window 256 + draft tokens 4 - 1** |" in text
    )
    assert "examples/models/DeepSeek-V4-Flash/config.json:14:21" in text
    # findings with code, location, message and fix
    assert (
        "- **SWA101** error at `examples/rocm-draft-window/prefill.yaml:12:1`: "
        "DSV4 target and draft pools must share SWA ring geometry" in text
    )
    assert "  - fix (unsafe): Remove speculative-draft-model-path" in text
    assert "    - `examples/rocm-draft-window/prefill.yaml:12:1`: delete line 12" in text
    assert text.startswith(
        "earlier step\n## swacheck\n\n**Checked 2 deployments in 2 files: 1 "
        "error, 0 warnings, 0 notes  (SGLang 0.5.23; exit 1)**\n"
    )
    # stdout is unchanged by the summary
    assert (
        run.stdout.splitlines()[-1]
        == "Checked 2 deployments in 2 files: 1 error, 0 warnings, 0 notes  (SGLang 0.5.23; exit 1)"
    )


def test_step_summary_appends_again(monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    for _ in range(2):
        run_cli("--format", "github", "examples/rocm-unified/decode.yaml", cwd=ROOT)
    assert summary.read_text().count("## swacheck\n") == 2


def test_unwritable_step_summary_is_reported_not_fatal(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing" / "summary.md"))
    run = run_cli("--format", "github", "examples/rocm-unified/decode.yaml", cwd=ROOT)
    assert run.exit_code == 0
    assert "cannot write the GitHub step summary" in run.stderr


def test_annotation_paths_are_relative_to_github_workspace(tree, monkeypatch):
    """A step with ``working-directory: deploy`` still annotates deploy/server.yaml, the path
    GitHub resolves against the repository root."""
    root = tree({"deploy/server.yaml": FAILING.replace("models/", "../models/")})
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root))
    run = run_cli("--format", "github", "server.yaml", cwd=root / "deploy")
    assert run.exit_code == 1
    files = {props(c)["file"] for c in commands(run.stdout)}
    assert files == {"deploy/server.yaml"}
    monkeypatch.delenv("GITHUB_WORKSPACE")
    (root / ".git").mkdir()  # no workspace: the git top-level
    run = run_cli("--format", "github", "server.yaml", cwd=root / "deploy")
    assert {props(c)["file"] for c in commands(run.stdout)} == {"deploy/server.yaml"}


def test_step_summary_lists_failures_first_worst_first(monkeypatch, tmp_path, tree):
    root = tree(
        {
            "a/ok.yaml": EAGLE.replace("models/", "../models/"),
            "b/warn.yaml": (EAGLE + "page-size: 64\n").replace("models/", "../models/"),
            "c/fail.yaml": FAILING.replace("models/", "../models/"),
        }
    )
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run_cli("--format", "github", ".", cwd=root)
    text = summary.read_text()
    assert text.index("### c/fail.yaml") < text.index("### b/warn.yaml") < text.index("- a/ok.yaml")
    assert "### a/ok.yaml" not in text  # passing: one line, no table


def test_step_summary_stays_under_one_mebibyte(monkeypatch, tmp_path, tree):
    """1,000 failing deployments make about 1.4 MB of Markdown: the summary keeps the failures that
    fit, under 1 MiB, and says how many it left out."""
    files = {f"d{i:04}/server.yaml": FAILING.replace("models/", "../models/") for i in range(1000)}
    files.update(
        {f"p{i:04}/server.yaml": EAGLE.replace("models/", "../models/") for i in range(50)}
    )
    root = tree(files)
    summary = tmp_path / "summary.md"
    summary.write_text("x" * 10_000)  # an earlier step's text counts against the limit
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = run_cli("--format", "github", "--no-config", ".", cwd=root)
    assert run.exit_code == 1
    size = summary.stat().st_size
    assert 900_000 < size < 1_048_576
    text = summary.read_text()
    shown = text.count("\n### d")
    assert 0 < shown < 1000
    passing_shown = text.count("\n- p")  # the room left after the last failure that fits
    assert (
        f"_Not shown: {1000 - shown} deployments with findings, {50 - passing_shown} passing deployments."
        in text
    )
    assert text.rstrip().endswith("the job log and `--format json` have everything._")


def test_markdown_budget_is_kept_for_any_size(tree):
    from swacheck.engine import run
    from swacheck.report.markdown import render_markdown
    from swacheck.settings import Settings

    root = tree({f"d{i}/server.yaml": FAILING.replace("models/", "../models/") for i in range(6)})
    result = run(Settings(paths=[str(root)]))
    full = render_markdown(result)
    for budget in (2_000, 5_000, 8_000, len(full.encode())):
        text = render_markdown(result, budget)
        assert len(text.encode()) <= budget + 300  # the closing line may use the reserve
        assert text.startswith("## swacheck\n")
    assert "Not shown" not in render_markdown(result, len(full.encode()) + 400)
