"""Issue 15 item 4: one escaping boundary (swacheck/report/escape.py) for every output.

A hostile tree holds a deployment whose *file name* carries an ESC (CSI), a BEL, a C1 CSI
(0x9b), the bidi overrides U+202E and U+2066, HTML, Markdown and GFM-table characters, rich
markup (``[link=...]`` and the ``a[/x]b`` that made rich raise MarkupError) and a legacy
GitHub workflow command (``##[stop-commands]``); a *key* with the same plus ``::error::``; a
*model folder* whose name lands in table cells (``|``, a backtick, ``*``, ``<b>``); a file whose
name is not UTF-8 (0xff); and a *value* (a model path) with an ESC and a bidi override. The
installed CLI runs on it in a subprocess with a strict UTF-8 standard output, in every format,
and each test asserts, on the output *bytes*:

- no raw control character (C0 other than tab/line feed, DEL, C1), no bidi or zero-width
  character, no invalid UTF-8 (the 0xff of the file name shows as ``\\xff``); with colour, rich's
  own SGR sequences are the only escape sequences (no OSC-8 hyperlink);
- no traceback, no "internal error", no MarkupError;
- JSON, SARIF and JUnit XML parse; the SARIF is valid against the official schema;
- every GitHub log line that the runner would read as a workflow command is one of swacheck's
  own annotations, and no line holds ``##[``;
- the Markdown step summary has no raw HTML from the inputs and every table row keeps its cells.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

SWACHECK = (
    [shutil.which("swacheck")] if shutil.which("swacheck") else [sys.executable, "-m", "swacheck"]
)

# The pieces of the attack, each a str that must never reach an output raw.
ESC, BEL, C1_CSI, RLO, LRI = "\x1b", "\x07", "\x9b", "\u202e", "\u2066"
HOSTILE_NAME = (
    f"h{ESC}[31m\t{BEL}{C1_CSI}{RLO}{LRI}<img src=x "
    f"onerror=alert(1)>|*`[link=file:/evil]x[/link]a[/x]b "
    f"##[stop-commands]t.yaml"
)
HOSTILE_KEY = r'"k\e[2J\a\x9b\u202e\u2066\u2028[link=file:/x]y[/link]a[/x]b::error::z##[warning]w"'
# names DSV4: its missing config.json is a SWA308 warning; as a server config's path, an input error
HOSTILE_VALUE = r'"models/DeepSeek-V4-gone\e]8;;file:/x\a\u202e"'
MODEL_DIR = "models/m|t`p*_<b>"  # a folder name that lands in table cells (the draft's source)
NOT_UTF8 = b"bad\xff.yaml"

SERVER = (
    "model-path: {model}\n"
    "speculative-algorithm: EAGLE\n"
    "speculative-num-steps: 3\n"
    "speculative-eagle-topk: 1\n"
    "speculative-draft-model-path: {draft}\n"
    "disaggregation-mode: prefill\n"
    f"{HOSTILE_KEY}: 1\n"
)
RING = "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(256, 256, None)"

# Raw bytes that must never be in an output: C0 but line feed, DEL, C1 (as UTF-8),
# bidi embeddings/overrides/isolates and marks, zero-width characters, line/paragraph separators.
_FORBIDDEN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)
_SGR = re.compile(
    "\x1b\\[[0-9;]*m"
)  # rich's colours: the only escape sequence allowed, with --color always


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    for name, src in (
        ("models/v4", "DeepSeek-V4-Flash"),
        ("models/mtp256", "DeepSeek-V4-Flash-MTP-w256"),
        (MODEL_DIR, "DeepSeek-V4-Flash-MTP-w256"),
    ):
        shutil.copytree(EXAMPLES / "models" / src, root / name)
    path = root / HOSTILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    up = "../" * HOSTILE_NAME.count("/")
    path.write_text(
        SERVER.format(model=f"{up}models/v4", draft=f"{up}{MODEL_DIR}"), encoding="utf-8"
    )
    (root / os.fsdecode(NOT_UTF8)).write_bytes(
        SERVER.format(model="models/v4", draft="models/mtp256").encode()
    )
    (root / "value.yaml").write_text(  # a SWA308 warning that quotes the value
        SERVER.format(model=HOSTILE_VALUE, draft="models/mtp256"), encoding="utf-8"
    )
    # a deployment file naming a server config that is not there: an input error quoting it
    (root / "gone.yaml").write_text(f"swacheck: 1\nserver: {HOSTILE_VALUE}\n", encoding="utf-8")
    return root


def swacheck(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The installed CLI, with a strict UTF-8 standard output (a surrogate would crash it)."""
    full_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "FORCE_COLOR", "NO_COLOR"))
    }
    full_env.update(
        {
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
            "PYTHONIOENCODING": "utf-8:strict",
            "COLUMNS": "200",
        }
    )
    full_env.update(env or {})
    return subprocess.run(
        [*SWACHECK, *args], cwd=cwd, env=full_env, capture_output=True, timeout=120
    )


def assert_clean(data: bytes, colour: bool = False) -> str:
    """No raw control, bidi or invalid byte; no crash. Returns the text."""
    text = data.decode("utf-8")  # strict: a raw 0xff (or a lone surrogate written raw) fails here
    if colour:
        assert "\x1b]8" not in text, "an OSC-8 hyperlink"
        text = _SGR.sub("", text)
    bad = sorted({f"U+{ord(c):04X}" for c in _FORBIDDEN.findall(text)})
    assert not bad, f"raw control/bidi characters in the output: {bad}"
    for word in ("Traceback", "internal error", "MarkupError", "UnicodeEncodeError"):
        assert word not in text
    return text


def assert_shown_escaped(text: str) -> None:
    """The attack is visible as escapes, not lost: the non-UTF-8 byte and the control characters."""
    assert "bad\\xff" in text
    assert "\\x1b" in text and "\\x9b" in text and "\\u202e" in text


def assert_no_workflow_command(text: str, own: bool = False) -> None:
    """No line the GitHub runner would run as a command, but swacheck's own annotations."""
    for line in text.splitlines():
        assert "##[" not in line, line
        if line.lstrip().startswith("::"):
            assert own and re.match(r"::(error|warning|notice) (file=[^,:]*,)?", line), line


@pytest.mark.parametrize("colour", ["never", "always"])
def test_human(hostile, colour):
    run = swacheck(hostile, "--color", colour, ".")
    assert run.returncode == 2  # gone.yaml's server config cannot be found: an input error
    out = assert_clean(run.stdout, colour == "always")
    err = assert_clean(run.stderr)
    assert_shown_escaped(out)
    assert "[link=file:/evil]x[/link]a[/x]b" in out  # markup shown as text, not drawn
    assert (
        "models/DeepSeek-V4-gone\\x1b]8;;file:/x\\x07\\u202e" in err
    )  # the value, escaped in the error line
    assert_no_workflow_command(out + err)


def test_human_quiet_and_output_file(hostile, tmp_path):
    out_file = tmp_path / "report.txt"
    run = swacheck(hostile, "-q", "-o", str(out_file), ".")
    assert run.returncode == 2
    assert_clean(run.stdout)
    assert_shown_escaped(assert_clean(out_file.read_bytes()))


def test_json(hostile, tmp_path):
    run = swacheck(hostile, "--format", "json", ".")
    data = json.loads(assert_clean(run.stdout))
    files = {d["file"] for d in data["deployments"]}
    assert "bad\\xff.yaml" in files  # the name, escaped, in a string that stays valid Unicode
    assert all(
        _FORBIDDEN.search(json.dumps(data, ensure_ascii=False)) is None for _ in [0]
    )  # nor after decoding
    (error,) = data["errors"]
    assert error["file"] == "gone.yaml" and "\\x1b" in error["message"]
    out_file = tmp_path / "report.json"
    assert swacheck(hostile, "--format", "json", "-o", str(out_file), ".").returncode == 2
    assert json.loads(assert_clean(out_file.read_bytes())) == data


def test_sarif(hostile, tmp_path):
    from test_report_sarif import assert_valid

    out_file = tmp_path / "report.sarif"
    run = swacheck(hostile, "--format", "sarif", "-o", str(out_file), ".")
    assert run.returncode == 2
    assert_clean(run.stdout)
    doc = json.loads(assert_clean(out_file.read_bytes()))
    assert_valid(doc)
    shown = json.dumps(
        doc["runs"][0]["results"] + doc["runs"][0]["invocations"], ensure_ascii=False
    )
    assert _FORBIDDEN.search(shown) is None  # nothing a viewer decodes into a control character
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
    }
    assert "bad%5Cxff.yaml" in uris


def test_junit(hostile, tmp_path):
    run = swacheck(hostile, "--format", "junit", ".")
    text = assert_clean(run.stdout)
    root = ET.fromstring(run.stdout)
    names = {s.get("name") for s in root.iter("testsuite")}
    assert "bad\\xff.yaml" in names
    assert_shown_escaped(text)
    assert_no_workflow_command(text)
    out_file = tmp_path / "report.xml"
    assert swacheck(hostile, "--format", "junit", "-o", str(out_file), ".").returncode == 2
    ET.fromstring(assert_clean(out_file.read_bytes()))


def test_github_annotations_and_step_summary(hostile, tmp_path):
    summary = tmp_path / "summary.md"
    run = swacheck(hostile, "--format", "github", ".", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert run.returncode == 2
    out = assert_clean(run.stdout)
    assert_clean(run.stderr)
    assert_no_workflow_command(out, own=True)
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert len(annotations) >= 5
    for line in annotations:  # parsed as the runner does (ActionCommand.TryParseV2)
        head = line[2 : line.index("::", 2)]
        keys = {pair.split("=", 1)[0] for pair in head.split(" ", 1)[1].split(",")}
        assert keys <= {"file", "line", "col", "endLine", "endColumn", "title"}, (
            line
        )  # no , or : leaks out of a value
    assert any("file=bad\\xff.yaml," in line for line in annotations)
    md = assert_clean(summary.read_bytes())
    # no raw HTML from the inputs outside code spans (where Markdown shows it as text)
    prose = re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", md)
    assert not re.search(r"(?<!\\)<(img|b)", prose), prose
    assert "\\<img" in prose and "\\<b\\>" in prose
    for row in (line for line in md.splitlines() if line.startswith("| ")):
        cells = re.split(r"(?<!\\)\|", row)
        assert len(cells) == 7, row  # 5 cells: an input's | never splits one
    assert "bad\\\\xff.yaml" in md  # the escape, itself escaped for Markdown


def test_github_plain_lines_past_the_annotation_limit(hostile, tmp_path):
    # eleven copies of the hostile file: the 11th error is a plain log line, not an annotation
    for i in range(11):
        shutil.copy(hostile / HOSTILE_NAME, tmp_path / f"c{i}::error::x##[warning]y.yaml")
    for name in ("models/v4", "models/mtp256", MODEL_DIR):
        shutil.copytree(hostile / name, tmp_path / name, dirs_exist_ok=True)
    for i in range(11):  # the copies sit at the top: their model paths are one level up less
        p = tmp_path / f"c{i}::error::x##[warning]y.yaml"
        p.write_text(SERVER.format(model="models/v4", draft=MODEL_DIR), encoding="utf-8")
    run = swacheck(tmp_path, "--format", "github", ".")
    out = assert_clean(run.stdout)
    assert "not shown as annotations" in out
    assert_no_workflow_command(out, own=True)


@pytest.mark.parametrize("colour", ["never", "always"])
def test_explain_human(hostile, colour):
    run = swacheck(hostile, "explain", "--color", colour, ".")
    assert run.returncode == 2
    out = assert_clean(run.stdout, colour == "always")
    assert_clean(run.stderr)
    assert "\\x1b" in out and "\\u202e" in out and "bad\\xff" in out
    assert "[link=file:/evil]x[/link]a[/x]b" in out
    assert_no_workflow_command(out)


def test_explain_json(hostile):
    run = swacheck(hostile, "explain", "--format", "json", ".")
    data = json.loads(assert_clean(run.stdout))
    assert "bad\\xff.yaml" in {d["file"] for d in data["deployments"]}
    assert _FORBIDDEN.search(json.dumps(data, ensure_ascii=False)) is None


@pytest.mark.parametrize("fmt", ["human", "json"])
def test_why(hostile, fmt):
    run = swacheck(hostile, "why", "--format", fmt, RING, ".")
    assert run.returncode == 2  # the tree has an input error
    out = assert_clean(run.stdout)
    assert_clean(run.stderr)
    if fmt == "json":
        data = json.loads(out)
        assert _FORBIDDEN.search(json.dumps(data, ensure_ascii=False)) is None
        files = {m["file"] for m in data["errors"][0]["deployments"]}
        assert "bad\\xff.yaml" in files
    else:
        assert "bad\\xff.yaml" in out and "\\u202e" in out
        assert_no_workflow_command(out)


def test_why_log_path_with_control_characters(tmp_path):
    log = tmp_path / f"log{ESC}[2J{RLO}.txt"
    log.write_text(
        "RuntimeError: DSV4 target and draft pools must share SWA geometry: target=(1, 2, None), draft=(1, 2, x)\n"
    )
    run = swacheck(tmp_path, "why", "--from-log", log.name)
    assert run.returncode == 2
    err = assert_clean(run.stderr)
    assert "log\\x1b[2J\\u202e.txt:1: malformed" in err


def test_show_pairs_settings_and_fix_messages(hostile, tmp_path):
    run = swacheck(hostile, "--show-pairs", ".")
    assert_clean(run.stdout)
    assert_clean(run.stderr)
    (tmp_path / "swacheck.toml").write_text(
        'env = { "A\\u001b[2J\\u202e" = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" }\n'
    )
    shown = swacheck(tmp_path, "--show-settings")
    out = assert_clean(shown.stdout)
    assert "A\\x1b[2J\\u202e" in out and "ghp_" not in out


def test_diff_and_fix_still_work_on_the_real_name(hostile, tmp_path):
    """--diff names a file that is not UTF-8 the way git quotes it (so `git apply` finds it);
    --fix edits the real file."""
    work = tmp_path / "w"
    shutil.copytree(hostile, work)
    # dropping the draft path is an unsafe fix (fixer.py): asked for explicitly
    diff = swacheck(work, "--diff", "--unsafe-fixes", os.fsdecode(NOT_UTF8))
    assert diff.returncode == 1
    text = assert_clean(diff.stdout)
    assert '\n--- "a/bad\\377.yaml"\n+++ "b/bad\\377.yaml"\n' in text  # after the fix's header line
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        check = subprocess.run(
            ["git", "apply", "--check", "-"], cwd=work, input=diff.stdout, capture_output=True
        )
        assert check.returncode == 0, check.stderr
    fixed = swacheck(work, "--fix", "--unsafe-fixes", os.fsdecode(NOT_UTF8))
    assert_clean(fixed.stderr)
    assert "swacheck: fixed bad\\xff.yaml" in fixed.stderr.decode()
    assert b"speculative-draft-model-path" not in (work / os.fsdecode(NOT_UTF8)).read_bytes()


def test_rendered_rich_text_is_never_markup():
    """The structure behind the colour tests: outside report/human.py no renderer builds rich
    ``Text`` or prints through a console itself; they go through the human report's writer."""
    for path in [*(ROOT / "swacheck").rglob("*.py")]:
        if path.name in ("human.py", "escape.py"):
            continue
        source = path.read_text(encoding="utf-8")
        assert (
            "Text(" not in source and "console.print(" not in source and "add_row(" not in source
        ), path


# --------------------------------------------------------------------------- the boundary's functions, on any text

import hypothesis_profiles  # noqa: E402  (registers the Hypothesis profiles)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from swacheck.report import escape  # noqa: E402

# any code point, lone surrogates included (a file name that is not UTF-8), weighted towards
# the characters that matter here
_NASTY = st.sampled_from(
    list(
        "\x00\x07\x08\t\n\r\x1b\x7f\x85\x9b\u2028\u202e\u2066\u2069\u200b\ufeff\udcff\udc80%:,|`*_<>&[]#\\"
    )
    + ["##[", "::", "[/x]", "[link=x]"]
)
TEXT = st.lists(st.one_of(st.characters(), _NASTY), max_size=40).map("".join)


@settings(max_examples=hypothesis_profiles.examples(4))
@given(TEXT)
def test_every_output_function_leaves_no_raw_control_character(text):
    for fn in (
        escape.terminal,
        escape.markdown,
        escape.markdown_code,
        escape.xml,
        escape.workflow_message,
        escape.workflow_property,
    ):
        out = fn(text)
        assert _FORBIDDEN.search(out) is None, (fn.__name__, out)
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in out), fn.__name__
        out.encode("utf-8")  # strict: writable to any UTF-8 stream
        assert "##[" not in out and not out.lstrip().startswith("::"), (fn.__name__, out)
        assert fn(out) == out or fn in (
            escape.markdown,
            escape.markdown_code,
            escape.workflow_message,
            escape.workflow_property,
        )
    assert "\n" not in escape.terminal(text) and "\r" not in escape.terminal(text)
    assert escape.terminal(escape.terminal(text)) == escape.terminal(text)  # idempotent


@settings(max_examples=hypothesis_profiles.examples(2))
@given(TEXT)
def test_workflow_property_never_ends_a_property_or_the_command(text):
    out = escape.workflow_property(text)
    assert not set(out) & {",", ":", "\r", "\n"}, out


@settings(max_examples=hypothesis_profiles.examples(2))
@given(TEXT, TEXT)
def test_xml_and_json_always_parse(a, b):
    element = ET.Element("t", name=escape.xml(a))
    element.text = escape.xml(b, lines=True)
    again = ET.fromstring(ET.tostring(element, encoding="unicode").encode("utf-8"))
    assert again.get("name") == escape.xml(a)
    data = escape.json_data({a: [b, {"k": a}]})
    assert json.loads(json.dumps(data, ensure_ascii=False).encode("utf-8")) == data


@settings(max_examples=hypothesis_profiles.examples(2))
@given(st.lists(TEXT, min_size=5, max_size=5))
def test_markdown_table_cells_stay_cells(cells):
    row = (
        "| "
        + " | ".join([escape.markdown_code(cells[0]), *(escape.markdown(c) for c in cells[1:])])
        + " |"
    )
    assert "\n" not in row
    assert len(re.split(r"(?<!\\)\|", row)) == 7, row


def test_a_line_rich_wraps_never_starts_a_workflow_command():
    import io

    out = io.StringIO()
    stream = escape.InertLines(out)
    stream.write("label ::error::x\n    ::error::y\n  ")
    stream.write("::warning::z\n")  # a chunk that goes on a line begun with spaces only
    stream.write("x")
    stream.write("::notice::w\n")  # the middle of a line
    assert (
        out.getvalue() == "label ::error::x\n    \\x3a:error::y\n  \\x3a:warning::z\nx::notice::w\n"
    )


# --------------------------------------------------------------------------- --diff (issue 23)

DIFF_SERVER = (
    "model-path: models/v4\n"
    "# note \u202eevil\n"  # a bidi override in a context line (YAML allows it)
    "speculative-algorithm: EAGLE\n"
    "speculative-num-stesp: 3\n"  # the typo swacheck renames (a safe fix)
    "speculative-eagle-topk: 1\n"
    "served-model-name: |\n"
    "  ::stop-commands::x\n"  # a context line the runner would take for a workflow command
)


def _diff_tree(tmp_path):
    from budgets_common import write_tree

    return write_tree(tmp_path, {"s.yaml": DIFF_SERVER})


def test_diff_under_github_actions_cannot_issue_workflow_commands(tmp_path, monkeypatch):
    """--diff printed the pull request's lines raw: '  ::stop-commands::x' in a YAML block
    scalar became a workflow command in the log (the runner trims the line's leading blank).
    Under GitHub Actions the diff is printed between ::stop-commands::TOKEN and ::TOKEN::, with
    a random token, and terminal escapes and bidi overrides are shown as escapes."""
    from conftest import run_cli

    root = _diff_tree(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    run = run_cli("--diff", "s.yaml", cwd=root)
    assert run.exit_code == 1, run.stderr
    lines = run.stdout.splitlines()
    m = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0])
    assert m is not None, lines[0]
    assert lines[-1] == f"::{m[1]}::"
    assert "   ::stop-commands::x" in lines  # inside the stopped region: text, not a command
    assert [line for line in lines[1:-1] if line.lstrip().startswith("::")] == [
        "   ::stop-commands::x"
    ]
    assert "\u202e" not in run.stdout and " # note \\u202eevil" in lines
    second = run_cli("--diff", "s.yaml", cwd=root).stdout.splitlines()[0]
    assert second != lines[0]  # a new token each run: a pull request cannot guess it


def test_diff_to_a_pipe_is_the_exact_patch(tmp_path, monkeypatch):
    """Outside a terminal and a CI log the diff stays the bytes the files hold (git apply)."""
    from conftest import run_cli

    root = _diff_tree(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    run = run_cli("--diff", "s.yaml", cwd=root)
    assert run.exit_code == 1
    assert " # note \u202eevil\n" in run.stdout and "::stop-commands::x" in run.stdout
    assert not run.stdout.startswith("::")
