"""Hostile and malformed inputs: plain cases as data in tests/hostile/, the others one test each.

A plain case -- input files and the exact lines swacheck must print -- is a folder of
tests/hostile/ (its files plus ``EXPECTED``), found by ``test_hostile_case``; a new one needs no
code. Cases whose input is generated (deep nesting, bombs), that need options, a setup or
more than the error lines checked stay tests below.

The contract under test (README, "Exit codes"): bad input never produces a traceback; it produces
ONE line ``file:line:col: message`` (line/col where known) on stderr naming what was expected,
exit code 2 at the end, and the other files on the command line are still checked. swacheck never
modifies a file unless --fix is given.

Every case runs the real CLI (``run_cli``: CliRunner with catch_exceptions=False, so an exception
escaping fails the test) on the hostile file *and* a good server config, then checks:

- stderr is exactly the expected line (or lines),
- the exit code is 2,
- the good file was still checked (it is among the ``--format json`` deployments),
- the JSON report's ``errors`` say the same as stderr,
- no file under the test's folder changed.

Where swacheck's answer is poor or wrong, the test asserts the better answer and is marked
``xfail(strict=True, reason="BUG: ...")``, with a passing test for the part of the contract that
already holds. The bugs these tests found were fixed; a comment starting with "once" says what
each test used to catch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import hypothesis_profiles  # noqa: F401  (registers the Hypothesis profiles before any test runs)
import pytest
import yaml
from conftest import EAGLE, ROOT, docs_text, run_cli

from swacheck.loading import DEFAULT_MAX_FILE_SIZE, MAX_DEPTH

GOOD = "good.yaml"  # a valid DSV4 EAGLE server config; deployment name "good"
NOT_A_DEPLOYMENT = (
    "not an SGLang server config (a 'model-path' key) or a swacheck deployment file ('swacheck: 1')"
)


# --------------------------------------------------------------------------- helpers


def snapshot(root: Path) -> dict[str, object]:
    """Every file's bytes (or, when unreadable, its stat) under root, symlinks not followed."""
    out: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
                continue
            st = os.stat(path)
            try:
                with open(path, "rb") as fh:
                    out[path] = fh.read()
            except OSError:
                out[path] = ("unreadable", st.st_size, st.st_mtime_ns, st.st_mode)
    return out


def write(root: Path, name: str, content: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def error_lines(data: dict) -> list[str]:
    """The JSON report's input errors, formatted the way stderr prints them."""
    out = []
    for e in data["errors"]:
        where = e["file"] + (f":{e['line']}:{e['column']}" if e["line"] is not None else "")
        out.append(f"{where}: {e['message']}")
    return out


def names(run) -> list[str]:
    return [d["name"] for d in run.deployments]


@pytest.fixture
def hostile(tree):
    """hostile({name: content}, *args, paths=None) -> (Run, root): run on those files and good.yaml.

    Content may be bytes. The run is `swacheck --format json *args PATHS good.yaml` in the folder,
    and every file in the folder is checked to be unchanged afterwards.
    """

    def go(files: dict[str, str | bytes], *args: str, paths: list[str] | None = None, setup=None):
        root = tree({GOOD: EAGLE})
        for name, content in files.items():
            write(root, name, content)
        if setup is not None:
            setup(root)
        before = snapshot(root)
        run = run_cli(
            "--format",
            "json",
            *args,
            *(paths if paths is not None else list(files)),
            GOOD,
            cwd=root,
        )
        assert snapshot(root) == before, "swacheck modified a file without --fix"
        return run, root

    return go


def assert_input_error(run, *lines: str) -> None:
    """Exactly these stderr lines, exit 2, the good file still checked, JSON errors agree."""
    assert run.stderr.splitlines() == list(lines)
    assert run.exit_code == 2
    assert "good" in names(run), "the good file named alongside was not checked"
    assert error_lines(run.data) == list(lines)
    assert run.data["summary"]["exit_code"] == 2
    assert run.data["summary"]["input_errors"] == len(lines)


def assert_not_found(run, where: str, model: str, *looked: str) -> None:
    """A DSV4-shaped launch whose config.json is found nowhere: a SWA308 warning at ``where``
    naming every place looked in (no input error: exit 0), the good file still checked."""
    assert run.stderr == ""
    assert run.exit_code == 0
    assert "good" in names(run), "the good file named alongside was not checked"
    found = [
        f"{f['location']['file']}:{f['location']['line']}:{f['location']['column']}: {f['message']}"
        for d in run.deployments
        for f in d["findings"]
        if f["code"] == "SWA308"
    ]
    assert found == [
        f"{where}: config.json for model {model!r} not found (looked in: {', '.join(looked)}): "
        f"the target/draft geometry and the checkpoint rules were not checked; give it with "
        f"--model-config {model}=PATH"
    ]
    assert run.data["errors"] == []


def assert_skipped(run, *lines: str) -> None:
    """A file named explicitly that is not a deployment (also one that does not parse and does
    not look like one): nothing on stderr (quiet by default), exit 0 (the good file is a
    deployment), the file counted as skipped, these notes in the JSON report."""
    assert run.stderr == ""
    assert run.exit_code == 0
    assert "good" in names(run), "the good file named alongside was not checked"
    assert [f"{n['file']}: {n['message']}" for n in run.data["notes"]] == list(lines)
    assert run.data["errors"] == []
    assert run.data["summary"]["skipped_files"] == len(lines)


def assert_one_error_line(run, prefix: str) -> None:
    """The contract minus the exact wording: one line starting with prefix, exit 2, good checked."""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(prefix), lines
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert run.exit_code == 2
    assert "good" in names(run)


def run_limited(
    args: list[str], cwd: Path, mem_bytes: int = 160 * 2**20
) -> subprocess.CompletedProcess:
    """`python -m swacheck ARGS` in a child whose address space is capped (Linux RLIMIT_AS)."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWACHECK"))}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "swacheck", "--no-config", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=cap,
        timeout=600,  # a safety net against a hang, not a timing assertion
        env=env,
    )


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS caps memory only on Linux"
)


# --------------------------------------------------------------------------- the cases that are data

CASES = ROOT / "tests" / "hostile"


def hostile_cases() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if p.is_dir())


def case_files(case: str) -> dict[str, bytes]:
    folder = CASES / case
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "EXPECTED"
    }


@pytest.mark.parametrize("case", hostile_cases())
def test_hostile_case(hostile, case):
    """tests/hostile/CASE/: the input files, and EXPECTED: ``error`` (input errors, exit 2) or
    ``skipped`` (notes, exit 0), then the exact standard error lines (``#`` lines are comments).
    The files are checked next to a good server config, as ``hostile`` runs them."""
    expected = [
        line
        for line in (CASES / case / "EXPECTED").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    outcome, lines = expected[0], expected[1:]
    run, _ = hostile(case_files(case))
    {"error": assert_input_error, "skipped": assert_skipped}[outcome](run, *lines)


def test_the_hostile_cases_are_found():
    assert len(hostile_cases()) >= 37
    for case in hostile_cases():
        assert case_files(case), case
        text = (CASES / case / "EXPECTED").read_text(encoding="utf-8")
        outcome, *lines = [line for line in text.splitlines() if not line.startswith("#")]
        assert outcome in ("error", "skipped") and lines, case


# --------------------------------------------------------------------------- encodings and binary


def test_utf8_bom_is_accepted_and_positions_do_not_shift(hostile):
    text = EAGLE + "page-size: 64\n"
    run, _ = hostile({"bom.yaml": b"\xef\xbb\xbf" + text.encode()})
    assert run.stderr == ""
    assert names(run) == ["bom", "good"]
    (finding,) = run.findings("SWA201")
    assert (
        finding["location"]["file"],
        finding["location"]["line"],
        finding["location"]["column"],
    ) == ("bom.yaml", 5, 1)
    assert run.exit_code == 0  # SWA201 is a warning


def test_utf8_bom_json_deployment_is_accepted(hostile):
    doc = {"swacheck": 1, "server": GOOD}
    run, _ = hostile({"bom.json": b"\xef\xbb\xbf" + json.dumps(doc).encode()})
    assert run.stderr == "" and run.exit_code == 0
    assert "bom" in names(run)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_bom_is_refused(hostile, encoding):
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    run, _ = hostile({"wide.yaml": bom + EAGLE.encode(encoding)})
    # a deployment (its model-path shows through the UTF-16) that cannot be read: an input error
    assert_input_error(run, "wide.yaml: file is UTF-16 encoded; save it as UTF-8")
    other, _ = hostile({"wide.yaml": bom + "steps: [build, test]\n".encode(encoding)})
    assert_skipped(
        other,
        "wide.yaml: skipped, not a deployment: not read: wide.yaml: file is UTF-16 encoded; "
        "save it as UTF-8",
    )


def test_binary_data(hostile):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01" + bytes(range(256))
    run, _ = hostile({"image.yaml": png})
    # nothing in it looks like a deployment: skipped and counted, not an input error
    assert_skipped(
        run,
        "image.yaml: skipped, not a deployment: not read: image.yaml:3:1: NUL byte: this is a "
        "binary file, not YAML or JSON",
    )


# --------------------------------------------------------------------------- JSON oddities


def test_json_trailing_comma_in_array(hostile):
    text = '{"swacheck": 1, "server": "good.yaml", "target": {"geometry": {"compression_ratios": [0, 0,]}}}\n'
    run, _ = hostile({"trail.json": text})
    assert_input_error(run, "trail.json:1:91: invalid JSON: a trailing comma is not allowed")


def test_json_duplicate_keys_in_a_deployment_file_are_a_warning_not_an_input_error(hostile):
    text = (
        '{\n  "swacheck": 1,\n  "name": "first",\n  "server": "good.yaml",\n  "name": "second"\n}\n'
    )
    run, _ = hostile(
        {"dup.json": text}, paths=["dup.json"]
    )  # good.yaml is its server: checked through it
    assert run.stderr == ""
    assert run.exit_code == 0  # SWA301 is a warning
    assert names(run) == ["second"]  # the last value wins, as in json.loads and SGLang
    (finding,) = run.findings("SWA301")
    assert finding["severity"] == "warning"
    assert (
        finding["message"]
        == "duplicate key 'name': the value at line 5 is used and the one at line 3 is ignored"
    )
    assert finding["location"] == {
        "file": "dup.json",
        "line": 5,
        "column": 3,
        "end_line": 5,
        "end_column": 9,
    }
    assert [(r["line"], r["column"]) for r in finding["related"]] == [(3, 3)]


def test_json_duplicate_keys_and_a_broken_file_alongside(hostile):
    text = '{"swacheck": 1, "server": "good.yaml",\n "name": "a",\n "name": "b"}\n'
    run, _ = hostile({"dup.json": text, "bad.json": "{", "worse.json": '{"model-path": '})
    assert run.stderr.splitlines() == [
        "worse.json:1:16: invalid JSON: unexpected end of file, expected a value"
    ]
    assert run.exit_code == 2  # worse.json names a model path: a deployment that does not parse
    assert run.data["summary"]["skipped_files"] == 1  # bad.json: nothing says it is one
    assert names(run) == ["b"]  # good.yaml is checked through dup.json, which points at it
    assert [f["code"] for f in run.deployments[0]["findings"]] == ["SWA301"]


# --------------------------------------------------------------------------- unsafe YAML


@pytest.mark.parametrize(
    "form",
    [
        'model-path: !!python/object/apply:os.system ["touch {path}"]\n',
        '!!python/object/apply:os.system ["touch {path}"]\n',
        'model-path: !!python/object/apply:os.system {{args: ["touch {path}"]}}\n',
        'model-path: !!python/object/apply:os.system "touch {path}"\n',
        'model-path: !!python/object/new:subprocess.check_output [["touch", "{path}"]]\n',
    ],
    ids=["on-a-list", "document-root", "on-a-mapping", "on-a-scalar", "object-new"],
)
def test_python_object_tag_is_refused_and_never_run(hostile, form):
    marker = Path(f"/tmp/pwned-{uuid.uuid4().hex}")
    run, _ = hostile({"evil.yaml": form.format(path=marker)})
    try:
        assert not marker.exists(), "a !!python tag was executed"
    finally:
        marker.unlink(missing_ok=True)
    if form.startswith("model-path"):  # a deployment: the refused tag is an input error
        assert_one_error_line(run, "evil.yaml:1:")
        assert "unsupported YAML tag 'tag:yaml.org,2002:python/object/" in run.stderr
    else:  # nothing says it is a deployment: skipped, and the tag still refused, never run
        assert run.stderr == "" and run.exit_code == 0
        (note,) = run.data["notes"]
        assert "unsupported YAML tag 'tag:yaml.org,2002:python/object/" in note["message"]


@pytest.mark.parametrize(
    "form, what",
    [
        ('model-path: !!python/object/apply:os.system ["touch {path}"]\n', " on a list"),
        (
            'model-path: !!python/object/apply:os.system {{args: ["touch {path}"]}}\n',
            " on a mapping",
        ),
    ],
    ids=["on-a-list", "on-a-mapping"],
)
def test_python_object_tag_message_names_what_is_expected(hostile, form, what):
    marker = Path(f"/tmp/pwned-{uuid.uuid4().hex}")
    run, _ = hostile({"evil.yaml": form.format(path=marker)})
    assert not marker.exists()
    assert_input_error(
        run,
        f"evil.yaml:1:13: unsupported YAML tag 'tag:yaml.org,2002:python/object/apply:os.system'{what}: "
        "swacheck reads plain data only",
    )


# --------------------------------------------------------------------------- anchors, aliases, bombs


def test_anchors_and_aliases_work(hostile):
    text = (
        "model-path: &model models/v4\n"
        "speculative-draft-model-path: *model\n"
        "speculative-algorithm: &algo EAGLE\n"
        "speculative-num-steps: &steps 3\n"
        "speculative-eagle-topk: 1\n"
        "json-model-override-args: &override {sliding_window: 128}\n"
    )
    run, _ = hostile({"anchors.yaml": text})
    assert run.stderr == "" and run.exit_code == 0
    assert names(run) == ["anchors", "good"]
    dep = run.deployments[0]
    assert dep["findings"] == []
    assert dep["target"]["tuple"] == dep["draft"]["tuple"] == [256, 128, None]


def test_alias_in_a_deployment_file_works(hostile):
    text = "swacheck: 1\nname: &n aliased\nserver: good.yaml\ntarget: &pool {model_config: models/v4}\ndraft: *pool\n"
    run, _ = hostile({"dep.yaml": text})
    assert run.stderr == "" and run.exit_code == 0
    assert names(run) == ["aliased"]


def test_yaml_merge_key_is_read_as_sglang_reads_it(hostile):
    # once "YAML merge keys (<<) are not supported", exit 2: SGLang's loader (yaml.safe_load)
    # and Docker Compose merge them
    text = "base: &base {page-size: 64}\nmodel-path: models/v4\n<<: *base\n"
    run, _ = hostile({"merge.yaml": text})
    assert run.stderr == "" and "merge" in names(run)
    (f,) = [f for d in run.data["deployments"] for f in d["findings"] if f["code"] == "SWA201"]
    assert (f["location"]["line"], f["location"]["column"]) == (1, 14)  # where the anchor has it


def test_yaml_merge_key_of_a_scalar_is_one_clear_line(hostile):
    run, _ = hostile({"merge.yaml": "model-path: models/v4\n<<: 8\n"})
    assert_input_error(
        run, "merge.yaml:2:1: a merge key (<<) takes a mapping or a list of mappings"
    )


def bomb(kind: str, levels: int = 10, name: str = "a") -> list[str]:
    """A 'billion laughs' alias bomb: 9**levels leaves if expanded, a few hundred bytes written."""
    if kind == "list":
        lines = [f"{name}0: &{name}0 [" + ", ".join(["lol"] * 9) + "]"]
        lines += [
            f"{name}{i}: &{name}{i} [" + ", ".join([f"*{name}{i - 1}"] * 9) + "]"
            for i in range(1, levels)
        ]
    else:
        lines = [f"{name}0: &{name}0 {{" + ", ".join(f"k{j}: lol" for j in range(9)) + "}"]
        lines += [
            f"{name}{i}: &{name}{i} {{" + ", ".join(f"k{j}: *{name}{i - 1}" for j in range(9)) + "}"
            for i in range(1, levels)
        ]
    return lines


BOMB_TOP = "a9"  # the top anchor of bomb(): 9**10 leaves


def _bomb_run(tree, text: str) -> subprocess.CompletedProcess:
    root = tree({GOOD: EAGLE, "bomb.yaml": text})
    before = snapshot(root)
    proc = run_limited(["--format", "json", "bomb.yaml", GOOD], cwd=root)
    assert snapshot(root) == before
    return proc


def _assert_bomb_handled(proc: subprocess.CompletedProcess) -> None:
    assert (
        "Traceback" not in proc.stderr
        and "internal error" not in proc.stderr
        and "MemoryError" not in proc.stderr
    )
    assert proc.returncode in (0, 1, 2)
    for line in proc.stderr.splitlines():
        assert line.startswith("bomb.yaml"), line
    data = json.loads(proc.stdout)
    assert "good" in [d["name"] for d in data["deployments"]]


@linux_only
@pytest.mark.parametrize(
    "tail",
    [
        [],  # not a deployment at all
        [
            "model-path: models/v4",
            "speculative-algorithm: EAGLE",
            "speculative-num-steps: 3",
            "speculative-eagle-topk: 1",
        ],
        ["model-path: models/v4", f"max-running-requests: *{BOMB_TOP}", f"tp-size: *{BOMB_TOP}"],
        ["model-path: models/v4", f"cuda-graph-bs: *{BOMB_TOP}"],  # a list option: read as a whole
    ],
    ids=["not-a-deployment", "unknown-keys", "single-value-options", "list-option"],
)
def test_billion_laughs_finishes_within_bounded_memory(tree, tail):
    proc = _bomb_run(tree, "\n".join(bomb("list") + tail) + "\n")
    _assert_bomb_handled(proc)


@linux_only
def test_billion_laughs_in_a_deployment_file(tree):
    text = (
        "\n".join(
            ["swacheck: 1", "server: good.yaml", f"name: *{BOMB_TOP}"]
            + ["x" + line for line in bomb("list")]
        )
        + "\n"
    )
    proc = _bomb_run(tree, text)
    _assert_bomb_handled(proc)
    assert proc.returncode == 2


@linux_only  # these values were once expanded alias by alias with Node.plain(): MemoryError
@pytest.mark.parametrize(
    "kind, tail",
    [
        ("map", [f"json-model-override-args: *{BOMB_TOP}"]),  # resolve.overrides(): node.plain()
        (
            "list",
            [f"trust_remote_code: *{BOMB_TOP}"],
        ),  # check_keys(): arg.value for an underscore store_true key
        ("list", [f"enable-dp-attention: *{BOMB_TOP}"]),  # rules/swa303.py: arg.value is True
    ],
    ids=["json-model-override-args", "underscore-store-true", "enable-dp-attention"],
)
def test_billion_laughs_in_a_value_swacheck_reads(tree, kind, tail):
    head = [
        "model-path: models/v4",
        "speculative-algorithm: EAGLE",
        "speculative-num-steps: 3",
        "speculative-eagle-topk: 1",
    ]
    proc = _bomb_run(tree, "\n".join(bomb(kind) + head + tail) + "\n")
    _assert_bomb_handled(proc)
    assert proc.returncode == 2
    # the file is refused while it is parsed, at the alias that takes it past the node budget
    # (each alias counts the nodes it stands for), before any value is read
    [line] = proc.stderr.splitlines()
    assert re.fullmatch(
        r"bomb\.yaml:6:\d+: more than 250000 YAML nodes in this file once its aliases are "
        r"expanded \(the limit per file; an alias counts each time it is used\)",
        line,
    ), line


# --------------------------------------------------------------------------- deep nesting

DEPTH = 10_000


def test_yaml_flow_nesting_10000_deep(hostile):
    run, _ = hostile({"flow.yaml": "model-path: " + "[" * DEPTH + "]" * DEPTH + "\n"})
    if yaml.__with_libyaml__:  # libyaml stops at its own limit of 1000 flow levels
        assert_input_error(
            run,
            "flow.yaml:1:1012: invalid YAML: exceeded maximum nesting depth (while increasing flow level)",
        )
    else:  # pragma: no cover - pure-Python PyYAML
        assert_one_error_line(run, "flow.yaml")


def test_yaml_flow_nesting_unclosed_10000_deep(hostile):
    run, _ = hostile({"flow.yaml": "model-path: " + "{a: " * DEPTH + "\n"})
    # swacheck reads the events as libyaml parses them: its own limit answers first, at the key of
    # the mapping MAX_DEPTH levels down (once: libyaml's limit of 1000 flow levels, column 4009)
    assert_input_error(
        run, f"flow.yaml:1:{13 + 4 * (MAX_DEPTH - 1) + 1}: nested more than {MAX_DEPTH} levels deep"
    )


def test_yaml_block_nesting_10000_deep(hostile):
    run, _ = hostile({"block.yaml": "model-path: models/v4\nnest:\n  " + "- " * DEPTH + "leaf\n"})
    # swacheck's own limit answers first, at the list MAX_DEPTH + 1 levels down (once: libyaml's
    # limit of 1000 block levels, column 1999)
    assert_input_error(
        run, f"block.yaml:3:{3 + 2 * MAX_DEPTH}: nested more than {MAX_DEPTH} levels deep"
    )


def test_yaml_block_mapping_nesting_past_swachecks_limit(hostile):
    levels = MAX_DEPTH + 50  # below libyaml's limit: swacheck's own depth check answers
    text = (
        "model-path: models/v4\nnest:"
        + "".join("\n" + " " * (i + 1) + "k:" for i in range(levels))
        + " leaf\n"
    )
    run, _ = hostile({"block.yaml": text})
    assert_input_error(
        run, f"block.yaml:{MAX_DEPTH + 2}:{MAX_DEPTH + 1}: nested more than {MAX_DEPTH} levels deep"
    )


def test_json_nesting_10000_deep(hostile):
    run, _ = hostile({"deep.json": '{"swacheck": 1, "x": ' + "[" * DEPTH + "]" * DEPTH + "}\n"})
    assert_input_error(
        run,
        f"deep.json:1:{21 + MAX_DEPTH + 1}: invalid JSON: nested more than {MAX_DEPTH} levels deep",
    )


def test_json_objects_nested_10000_deep(hostile):
    run, _ = hostile({"deep.json": '{"model_path": ' * DEPTH + "1" + "}" * DEPTH})
    assert_input_error(
        run,
        f"deep.json:1:{15 * (MAX_DEPTH + 1) + 1}: invalid JSON: nested more than {MAX_DEPTH} "
        "levels deep",
    )
    other, _ = hostile({"deep.json": '{"a": ' * DEPTH + "1" + "}" * DEPTH})
    assert_skipped(
        other,
        f"deep.json: skipped, not a deployment: not read: deep.json:1:{6 * (MAX_DEPTH + 1) + 1}: "
        f"invalid JSON: nested more than {MAX_DEPTH} levels deep",
    )


# --------------------------------------------------------------------------- size cap

# 88 bytes: a deployment of numbers copied from a log, needing no model config (the cap applies to
# every file read, config.json files included).
TINY = '{"swacheck":1,"target":{"geometry":{"unified":true,"window":1,"ring_size":1,"pages":1}}}'


def test_file_over_the_size_cap(tree):
    root = tree({"tiny.json": TINY, "big.yaml": "model-path: models/v4\n" + "# padding\n" * 100})
    size = (root / "big.yaml").stat().st_size
    assert size > 1000
    run = run_cli("--format", "json", "--max-file-size", "100", "big.yaml", "tiny.json", cwd=root)
    assert run.stderr.splitlines() == [
        f"big.yaml: file is {size} bytes, above the 100-byte limit (--max-file-size)"
    ]
    assert run.exit_code == 2
    assert [d["name"] for d in run.deployments] == ["tiny"]


def test_size_cap_applies_to_a_referenced_model_config(tree):
    root = tree({"server.yaml": EAGLE})
    run = run_cli("--format", "json", "--max-file-size", "200", "server.yaml", cwd=root)
    size = (root / "models/v4/config.json").stat().st_size
    assert run.stderr.splitlines() == [
        f"server.yaml:1:13: model config models/v4/config.json: file is {size} "
        f"bytes, above the 200-byte limit (--max-file-size)"
    ]
    assert run.exit_code == 2


def test_default_size_cap_is_10_mib_as_documented(tree):
    assert DEFAULT_MAX_FILE_SIZE == 10 * 1024 * 1024
    readme = docs_text()
    assert re.search(r"^\| `--max-file-size N` \|.*\(default 10 MiB\)", readme, re.M), (
        "README documents the default"
    )
    assert "default 10 MiB" in run_cli("check", "--help").stdout
    root = tree({GOOD: EAGLE})
    with open(root / "huge.yaml", "wb") as fh:  # sparse: nothing is written
        fh.truncate(DEFAULT_MAX_FILE_SIZE + 1)
    run = run_cli("--format", "json", "huge.yaml", GOOD, cwd=root)
    assert_skipped(  # nothing in its first 64 KiB looks like a deployment
        run,
        f"huge.yaml: skipped, not a deployment: not read: huge.yaml: file is "
        f"{DEFAULT_MAX_FILE_SIZE + 1} bytes, above the {DEFAULT_MAX_FILE_SIZE}-byte limit "
        "(--max-file-size)",
    )
    with open(root / "huge.yaml", "r+b") as fh:
        fh.write(b"model-path: models/v4\n")
    run = run_cli("--format", "json", "huge.yaml", GOOD, cwd=root)
    assert_input_error(
        run,
        f"huge.yaml: file is {DEFAULT_MAX_FILE_SIZE + 1} bytes, above the "
        f"{DEFAULT_MAX_FILE_SIZE}-byte limit (--max-file-size)",
    )


def test_file_of_exactly_the_size_cap_is_read(tree):
    root = tree({GOOD: EAGLE})
    (root / "exact.yaml").write_text(EAGLE + "#" * (1000 - len(EAGLE) - 1) + "\n")
    assert (root / "exact.yaml").stat().st_size == 1000
    run = run_cli("--format", "json", "--max-file-size", "1000", "exact.yaml", GOOD, cwd=root)
    assert run.stderr == "" and run.exit_code == 0
    assert names(run) == ["exact", "good"]


@pytest.mark.parametrize("value", ["0", "-1"])
def test_non_positive_max_file_size_is_a_usage_error(tree, value):
    # once accepted, and then every file was refused with 'above the -1-byte limit'
    root = tree({GOOD: EAGLE})
    run = run_cli("--max-file-size", value, GOOD, cwd=root)
    assert run.exit_code == 2
    assert "byte limit" not in run.stderr
    assert "Invalid value for '--max-file-size'" in run.stderr


# --------------------------------------------------------------------------- wrong value types

UNIFIED = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
PREFILL = EAGLE + "disaggregation-mode: prefill\n"


def mrr_run(lint, value: str, *, extra: str = ""):
    run = lint(
        {"server.yaml": PREFILL + extra + f"max-running-requests: {value}\n", GOOD: EAGLE}, *UNIFIED
    )
    assert "Traceback" not in run.stderr
    assert names(run) == ["server", "good"]
    return run, run.deployments[0]


def pages_for(mrr: int) -> int:
    return (mrr + 0 + 1) * 131  # prefill: no decode extra slots; ring 128 + 4 - 1


def test_max_running_requests_quoted_number_is_accepted(lint):
    run, dep = mrr_run(lint, '"128"')  # SGLang's merger emits the text; argparse int() reads it
    assert run.stderr == "" and run.exit_code == 0
    assert dep["findings"] == []
    assert dep["target"]["tuple"] == [128, 131, pages_for(128)]


def test_max_running_requests_float_is_refused(lint):
    run, dep = mrr_run(lint, "128.0")
    assert run.stderr == "" and run.exit_code == 1
    (f,) = run.findings("SWA304")
    assert f["message"] == (
        "max-running-requests: SGLang's argument parser rejects the number 128.0; expected an integer"
        " (argparse: error: argument --max-running-requests: invalid int value: '128.0')"
    )
    assert (f["location"]["line"], f["location"]["column"]) == (6, 23)


def test_max_running_requests_true_is_refused_not_read_as_1(lint):
    run, dep = mrr_run(lint, "true")
    assert run.exit_code == 1
    (f,) = run.findings("SWA304")
    assert f["message"] == (
        "max-running-requests: SGLang's argument parser rejects the boolean true; expected an integer"
        " (argparse: error: argument --max-running-requests: invalid int value: 'true')"
    )
    assert dep["target"]["pages"] != pages_for(1)  # not the geometry of max-running-requests 1
    assert dep["target"]["tuple"] == [128, 131, pages_for(256)]  # the DSV4 default instead


def test_max_running_requests_huge_is_accepted_like_argparse(lint):
    run, dep = mrr_run(
        lint, str(10**30)
    )  # argparse int() takes it; memory would cap it at start-up
    assert run.stderr == "" and run.exit_code == 0
    assert dep["target"]["tuple"] == [128, 131, pages_for(10**30)]


# SGLang's argparse takes these; the pool then has 0 requests per worker. swacheck says so (a
# warning) rather than printing the geometry of a server of 1 request without a word.
@pytest.mark.parametrize("value", ["0", "-1", "'-1'"])
def test_max_running_requests_not_positive_is_a_finding(lint, value):
    run, dep = mrr_run(lint, value)
    (f,) = run.findings("SWA304")
    shown = value.strip("'")
    assert f["message"].startswith(f"max-running-requests {shown} gives 0 requests per worker")
    assert (f["location"]["line"], f["location"]["column"]) == (6, 23)


def test_max_running_requests_below_attn_dp_size_is_a_finding(lint):
    run, dep = mrr_run(lint, "1", extra="attn-dp-size: 2\n")
    (f,) = run.findings("SWA304")
    assert f["message"].startswith("max-running-requests 1 gives 0 requests per worker")
    assert (f["location"]["line"], f["location"]["column"]) == (7, 23)


def test_negative_speculative_num_steps_is_a_finding(lint):
    # once: draft tokens -4 and a ring smaller than the window, (128, 123, ...), with no finding
    text = (
        EAGLE.replace("speculative-num-steps: 3", "speculative-num-steps: -5")
        + "disaggregation-mode: prefill\n"
    )
    run = lint({"server.yaml": text}, *UNIFIED)
    dep = run.deployments[0]
    assert (
        dep["target"]["ring_size"] is None or dep["target"]["ring_size"] >= dep["target"]["window"]
    )
    assert run.exit_code != 0


def test_zero_attn_dp_size_is_a_finding(lint):
    # once silently read as 1 (max(1, attn_dp)); SGLang divides max-running-requests by it
    run = lint({"server.yaml": PREFILL + "attn-dp-size: 0\nmax-running-requests: 64\n"}, *UNIFIED)
    assert run.exit_code != 0


# --------------------------------------------------------------------------- model-path


def test_model_path_is_a_file(hostile):
    text = EAGLE.replace("models/v4", "good.yaml")
    run, _ = hostile({"server.yaml": text})
    assert_not_found(run, "server.yaml:1:13", "good.yaml", "good.yaml/config.json")


def test_model_path_missing(hostile, monkeypatch, tmp_path):
    hub = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    run, _ = hostile({"server.yaml": EAGLE.replace("models/v4", "models/DeepSeek-V4-Nope")})
    assert_not_found(
        run,
        "server.yaml:1:13",
        "models/DeepSeek-V4-Nope",
        "models/DeepSeek-V4-Nope/config.json",
        f"{hub}/models--models--DeepSeek-V4-Nope/snapshots/main/config.json",
    )


def test_model_path_is_a_directory_without_config_json(hostile):
    run, _ = hostile(
        {
            "server.yaml": EAGLE.replace("models/v4", "models"),
            "models/README": "weights elsewhere\n",
        },
        paths=["server.yaml"],
    )
    assert_not_found(run, "server.yaml:1:13", "models", "models/config.json")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_model_config_unreadable(tree):
    root = tree({GOOD: EAGLE, "server.yaml": EAGLE.replace("models/v4", "models/mtp256")})
    cfg = root / "models/mtp256/config.json"
    cfg.chmod(0)
    try:
        if os.access(cfg, os.R_OK):
            pytest.skip("running as root: chmod 000 does not stop reading")
        before = snapshot(root)
        run = run_cli("--format", "json", "server.yaml", GOOD, cwd=root)
        assert snapshot(root) == before
        assert_input_error(
            run, "server.yaml:1:13: model config models/mtp256/config.json: permission denied"
        )
    finally:
        cfg.chmod(0o644)


def test_model_path_is_a_symlink_loop(hostile):
    def loop(root: Path) -> None:
        os.symlink("loop-b", root / "loop-a")
        os.symlink("loop-a", root / "loop-b")

    run, _ = hostile({"server.yaml": EAGLE.replace("models/v4", "loop-a")}, setup=loop)
    assert_not_found(run, "server.yaml:1:13", "loop-a", "loop-a/config.json")


def test_model_path_with_a_newline_is_quoted(hostile):
    run, _ = hostile(
        {"server.yaml": 'model-path: "DeepSeek-V4-evil\\nname"\nspeculative-algorithm: EAGLE\n'}
    )
    assert run.exit_code == 0 and "good" in names(run)
    (finding,) = [f for d in run.deployments for f in d["findings"] if f["code"] == "SWA308"]
    assert finding["message"].startswith(
        "config.json for model 'DeepSeek-V4-evil\\nname' not found"
    )


# Text from the input (a model path, a key) was once embedded raw in messages: a CR or LF split the
# error over several lines, and '::error file=x::...' became a GitHub workflow command.
@pytest.mark.parametrize(
    "text",
    [
        'model-path: "DeepSeek-V4\\n::error file=x::injected"\nspeculative-algorithm: EAGLE\n',
        '"evil\\n::error file=x::injected": 1\n',
        '"a\\rb": 1\n',
    ],
    ids=["model-path-lf", "key-lf", "key-cr"],
)
def test_user_text_with_a_newline_stays_on_one_line(hostile, text):
    run, _ = hostile({"server.yaml": text})
    # a server config with a missing model config is a SWA308 warning; a mapping without one
    # is skipped: neither prints on stderr, and the findings stay one line each
    assert run.exit_code == 0 and "good" in names(run)
    assert run.stderr == ""
    for f in (f for d in run.deployments for f in d["findings"]):
        assert not re.search(r"[\r\n]", f["message"]), f


# --------------------------------------------------------------------------- paths on the command line


def test_path_that_does_not_exist(hostile):
    run, _ = hostile({}, paths=["nope.yaml"])
    assert_input_error(run, "nope.yaml: no such file or directory")


def test_directory_with_a_symlink_loop_is_walked_once(tree):
    root = tree({"deploy/good.yaml": EAGLE, "deploy/sub/also.yaml": EAGLE})
    os.symlink("..", root / "deploy/sub/up")  # deploy/sub/up -> deploy: a directory loop
    os.symlink("../deploy", root / "deploy/sub/again")
    run = run_cli("--format", "json", "deploy", cwd=root)
    assert run.stderr == ""
    assert run.exit_code == 0
    assert sorted(d["file"] for d in run.deployments) == [
        "deploy/good.yaml",
        "deploy/sub/also.yaml",
    ]


def test_directory_with_a_file_symlink_loop(tree):
    root = tree({"deploy/good.yaml": EAGLE})
    os.symlink("self.yaml", root / "deploy/self.yaml")  # a file symlink to itself
    run = run_cli("--format", "json", "deploy", cwd=root)
    assert run.stderr.splitlines() == [
        "deploy/self.yaml: cannot read: Too many levels of symbolic links"
    ]
    assert run.exit_code == 2
    assert [d["file"] for d in run.deployments] == ["deploy/good.yaml"]


def test_named_symlink_loop(hostile):
    # once 'no such file or directory' (os.path.exists follows the loop)
    def loop(root: Path) -> None:
        os.symlink("loop-b.yaml", root / "loop-a.yaml")
        os.symlink("loop-a.yaml", root / "loop-b.yaml")

    run, _ = hostile({}, paths=["loop-a.yaml"], setup=loop)
    assert_input_error(run, "loop-a.yaml: a symbolic link that leads nowhere (broken, or a loop)")


def test_a_deployment_whose_server_is_a_link_to_itself(hostile):
    # the same file reached through a symbolic link is still the deployment file itself
    def link(root: Path) -> None:
        os.symlink("dep.yaml", root / "server.yaml")

    run, _ = hostile(
        {"dep.yaml": "swacheck: 1\nserver: server.yaml\n"}, paths=["dep.yaml"], setup=link
    )
    assert_input_error(
        run,
        "dep.yaml:2:9: server: names this deployment file itself; give the SGLang server config's path",
    )


def test_a_directory_named_as_a_file_is_walked(tree):
    root = tree({GOOD: EAGLE})
    run = run_cli(
        "--format", "json", "models", GOOD, cwd=root
    )  # config.json files are skipped in a walk
    assert run.stderr == "" and run.exit_code == 0
    assert names(run) == ["good"]


def test_stdin_empty(tree):
    root = tree({GOOD: EAGLE})
    run = run_cli(
        "--format", "json", "-", GOOD, cwd=root
    )  # CliRunner gives an empty standard input
    assert_skipped(run, f"-: skipped, not a deployment: the file is empty, {NOT_A_DEPLOYMENT}")


def test_stdin_closed(tree):
    root = tree({GOOD: EAGLE})
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "swacheck", "--no-config", "--format", "json", "-", GOOD],
        cwd=root,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(0),  # no standard input at all: sys.stdin is None
        env=env,
        timeout=120,
    )
    assert proc.stderr == ""  # quiet: counted as skipped, the reason in the report's notes
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert "good" in [d["name"] for d in data["deployments"]]
    assert [n["message"] for n in data["notes"]] == [
        f"skipped, not a deployment: the file is empty, {NOT_A_DEPLOYMENT}"
    ]


# --------------------------------------------------------------------------- deployment files


def test_deployment_server_is_a_broken_file(hostile):
    run, _ = hostile(
        {"dep.yaml": "swacheck: 1\nserver: bad.yaml\n", "bad.yaml": b"model-path: \xff\n"},
        paths=["dep.yaml"],
    )
    assert_input_error(run, "dep.yaml:2:9: server config 'bad.yaml': not valid UTF-8 (byte 0xff)")


# --------------------------------------------------------------------------- launch commands

UNCLOSED = 'python3 -m sglang.launch_server --model-path "models/v4 --tp-size 8'


def test_kubernetes_command_with_an_unclosed_quote(hostile):
    line = f'      command: ["bash", "-c", "{UNCLOSED.replace(chr(34), chr(39))}"]'
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: dsv4}\nspec:\n  containers:\n"
        "    - name: sglang\n      image: lmsysorg/sglang:v0.5.23\n" + line + "\n"
    )
    run, _ = hostile({"pod.yaml": text})
    assert_input_error(
        run, f"pod.yaml:8:{line.index(chr(39)) + 1}: shell syntax: unterminated single quote"
    )


def test_compose_command_with_an_unclosed_quote(hostile):
    # once a crash: ShellSyntaxError escaped from compose._words()
    line = f"    command: {UNCLOSED}"
    text = "services:\n  dsv4:\n    image: lmsysorg/sglang:v0.5.23-cu129\n" + line + "\n"
    run, _ = hostile({"docker-compose.yaml": text})
    assert_input_error(run, "docker-compose.yaml:4:14: command: unterminated double quote")


# --------------------------------------------------------------------------- line breaks

LINE_BREAK_FILE = (
    "model-path: models/v4\n"
    'served-model-name: "a{sep}b"\n'
    "speculative-algorithm: EAGLE\n"
    "speculative-num-steps: 3\n"
    "speculative-eagle-topk: 1\n"
    "page-size: 64\n"  # line 6: SWA201, whose fix deletes this line
    "tp-size: 8\n"
)


def test_crlf_line_endings_keep_positions_and_fixes(tree):
    text = LINE_BREAK_FILE.format(sep="-").replace("\n", "\r\n")
    root = tree({"server.yaml": ""})
    (root / "server.yaml").write_bytes(text.encode())
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    (f,) = run.findings("SWA201")
    assert (f["location"]["line"], f["location"]["column"]) == (6, 1)
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert (root / "server.yaml").read_bytes() == text.replace("page-size: 64\r\n", "").encode()


# libyaml counts U+2028, U+2029 and U+0085 as line breaks, also inside a quoted string; editors, CI and
# swacheck's fixes count CR/LF. Once every later position was a line off and --fix deleted 'tp-size: 8'.
@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85"], ids=["LS", "PS", "NEL"])
def test_unicode_line_separator_in_a_string_keeps_positions_and_fixes(tree, sep):
    text = LINE_BREAK_FILE.format(sep=sep)
    root = tree({"server.yaml": text})
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    (f,) = run.findings("SWA201")
    fixed = text.replace("page-size: 64\n", "")
    run_cli("--fix", "server.yaml", cwd=root)
    after = (root / "server.yaml").read_text(encoding="utf-8")
    assert "tp-size: 8" in after, "--fix deleted the wrong line"
    assert after == fixed
    assert (f["location"]["line"], f["location"]["column"]) == (6, 1)


FROM_LOG_JSON = (
    '{\n  "swacheck": 1,\n'
    '  "target": {"geometry": {"unified": true, "window": 128, "ring_size": 131, "pages": 33667}},\n'
    '  "draft": {"geometry": {"unified": true, "window": 256, "ring_size": 259, "pages": 66563}},\n'
    '  "server": {"model-path": "models/v4", "disaggregation-mode": "decode", "speculative-algorithm":'
    ' "EAGLE", "speculative-num-steps": 3, "speculative-eagle-topk": 1, "page-size": 64}\n}\n'
)
# the copied numbers are evidence, never fixed (issue 23); the server's page-size is
FIXED_JSON = ('"page-size": 64', '"page-size": 256')


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_json_fix_keeps_the_file_valid(tree, newline):
    text = FROM_LOG_JSON.replace("\n", newline)
    root = tree({})
    (root / "dep.json").write_bytes(text.encode())
    run = run_cli("--format", "json", "dep.json", cwd=root)
    (f,) = run.findings("SWA101")
    assert (f["location"]["line"], f["location"]["column"]) == (4, 53)
    run_cli("--fix", "dep.json", cwd=root)
    after = (root / "dep.json").read_bytes().decode()
    assert after == text.replace(*FIXED_JSON)


def test_json_with_cr_line_endings_keeps_positions_and_fixes(tree):
    # once: positions counted at LF only (1:166), --fix at CR too: '12813133667' pasted into line 2
    text = FROM_LOG_JSON.replace("\n", "\r")
    root = tree({})
    (root / "dep.json").write_bytes(text.encode())
    run = run_cli("--format", "json", "dep.json", cwd=root)
    (f,) = run.findings("SWA101")
    run_cli("--fix", "dep.json", cwd=root)
    after = (root / "dep.json").read_bytes().decode()
    json.loads(after)  # still JSON
    assert after == text.replace(*FIXED_JSON)
    assert (f["location"]["line"], f["location"]["column"]) == (4, 53)


# --------------------------------------------------------------------------- --format github


GITHUB_COMMAND = re.compile(
    r"^::(error|warning|notice)( [a-zA-Z]+=[^,:]*(,[a-zA-Z]+=[^,:]*)*)?::.*$"
)


def _github_overflow(tree, name: str, text: str):
    files = {
        f"bad{i:02}.yaml": "model-path: [\n" for i in range(11)
    }  # 11 input errors (deployments that do not parse) fill the 10 annotations
    files[name] = text
    root = tree(files)
    return run_cli("--format", "github", *sorted(files), cwd=root)


def test_github_annotations_escape_newlines(tree):
    root = tree(
        {
            "evil.yaml": 'model-path: "DeepSeek-V4-x\\n::error '
            'file=pwned.yaml::injected"\nspeculative-algorithm: EAGLE\n'
        }
    )
    run = run_cli("--format", "github", "evil.yaml", cwd=root)
    assert run.exit_code == 0  # a SWA308 warning
    assert len(run.stdout.splitlines()) == 2  # the annotation and the summary line
    for line in run.stdout.splitlines():
        if line.startswith("::"):
            assert GITHUB_COMMAND.match(line), line
            assert "pwned" not in line.split("::")[1], line


# Past the 10-annotation limit errors are plain lines: once unescaped, so a newline in a model path or a
# file name started a new log line and '::error ...' from the input became a workflow command.
@pytest.mark.parametrize(
    "name, text",
    [
        ("z.yaml", 'model-path: "x\\n::error file=pwned.yaml::injected"\n'),
        ("z\n::error file=pwned.yaml::injected.yaml", "model-path: [\n"),
    ],
    ids=["model-path", "file-name"],
)
def test_github_overflow_lines_cannot_inject_workflow_commands(tree, name, text):
    run = _github_overflow(tree, name, text)  # the 12th error: printed past the annotation limit
    assert run.exit_code == 2
    for line in run.stdout.splitlines():
        if line.startswith("::"):
            assert GITHUB_COMMAND.match(line), line
            assert "pwned" not in line.split("::")[1], (
                line
            )  # no annotation on a file the input named


def test_an_escape_sequence_in_a_file_name_never_reaches_the_terminal_raw(tree):
    """A file name (or a key, a value) holding ESC or BEL is printed with visible escapes, so a
    repository cannot clear the screen or recolour a CI log through swacheck's report."""
    name = "srv\x1b[2J\x07.yaml"
    root = tree(
        {
            f"d/{name}": EAGLE + "disaggregation-mode: decode\npage-size: 64\n",
            "e/bad\x1b[31m.yaml": "model-path: [\n",
        }
    )
    run = run_cli("--color", "never", "d", "e", cwd=root)
    assert run.exit_code == 2
    out = run.stdout + run.stderr
    assert "\x1b" not in out and "\x07" not in out
    assert (
        "d/srv\\x1b[2J\\x07.yaml:6:1: SWA201 warning: page-size 64 is replaced" in run.stdout
    )  # escaped
    assert run.stderr.startswith("e/bad\\x1b[31m.yaml:2:1: invalid YAML")


@pytest.mark.parametrize("after", ["listing", "plan"])
def test_a_walked_file_swapped_for_a_link_after_the_listing_is_not_read(
    tree, tmp_path_factory, monkeypatch, after
):
    """The run takes a walked file's real path from its folder's (paths.Walked), so a file that
    becomes a symbolic link after the listing (to a secret outside the root) must not be read:
    its open refuses the link, on the first read (the plan's) and when its unit reads it again
    (a text the plan did not keep: the stat follows the link, the open does not)."""
    from swacheck import engine
    from swacheck.inputs import walk
    from swacheck.loading import SWAPPED, FileCache

    root = tree({"configs/a.yaml": EAGLE, "configs/b.yaml": EAGLE})
    (root / ".git").mkdir()
    secret = tmp_path_factory.mktemp("outside") / "token.yaml"
    secret.write_text("token: s3cr3t-value\n", encoding="utf-8")
    target = root / "configs" / "a.yaml"

    def swapping(step):
        def run(*args, **kwargs):
            found = step(*args, **kwargs)
            if target.exists() and not target.is_symlink():
                target.unlink()
                os.symlink(secret, target)
            return found

        return run

    if after == "listing":
        monkeypatch.setattr(walk, "_walk_folder", swapping(walk._walk_folder))
    else:  # read ahead, not kept (no text is): the unit reads the file again
        monkeypatch.setattr(FileCache, "AHEAD_CHARS", 0)
        monkeypatch.setattr(engine, "plan", swapping(engine.plan))
    result = run_cli("-v", "configs", cwd=root)
    shown = result.stdout + result.stderr
    # left out as a walk leaves out a FIFO it lists (said with -v), the other file checked
    assert f"skipped configs/a.yaml: not read: configs/a.yaml: {SWAPPED}" in shown
    assert "Checked 1 deployment in 1 file (1 file skipped)" in shown
    assert "s3cr3t" not in shown
