"""Property tests: whatever the input, swacheck answers in its contract and every report is valid.

Inputs (Hypothesis):

(a) random bytes, and random text over YAML/JSON punctuation, written as a .yaml and as a .json file;
(b) valid YAML and JSON documents from recursive strategies (mappings, lists, unicode strings, None,
    booleans, big integers, floats with nan/inf), dumped with yaml.safe_dump / json.dumps;
(c) mutations of the bundled examples (delete, duplicate, swap lines; flip characters; insert
    text; truncate);
(d) SGLang server configs with keys drawn from SGLang 0.5.23's option table plus typos of them,
    and random values, alone or inline in a deployment file.

For every input, with every output format (human, json, github, sarif, junit):

- no exception escapes (run_cli uses catch_exceptions=False) and the exit code is 0, 1 or 2,
  the same for every format, and 2 exactly when there is an input error;
- stderr holds only one ``file[:line:col]: message`` line per input error (the same lines as the
  JSON report's ``errors``);
- json parses and has "version": 1; sarif parses and validates against the SARIF 2.1.0 schema;
  github prints only well-formed workflow commands or plain lines, as many lines as the counts
  say (so no raw newline split a line); junit parses as XML; human ends with the summary line;
- the input file is never modified (no --fix).

Budgets come from tests/hypothesis_profiles.py: ``ci`` by default (about 300 examples in all,
derandomized), ``long`` for a hunt (about 140,000: SWACHECK_HYPOTHESIS_PROFILE=long).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import EXAMPLES, MTP_W256, ROOT, V4_FLASH, run_cli
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples  # importing it registers and loads the profiles first

FORMATS = ("json", "human", "github", "sarif", "junit")
SARIF_SCHEMA = json.loads(
    (ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)
jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)
SARIF = jsonschema.Draft4Validator(
    SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
)

GITHUB_COMMAND = re.compile(
    r"^::(error|warning|notice)( [a-zA-Z]+=[^,:]*(,[a-zA-Z]+=[^,:]*)*)?::.*$"
)
ERROR_LINE = re.compile(r"^(?P<file>[^\s:][^:]*?)(:(?P<line>\d+):(?P<col>\d+))?: \S")
SUMMARY = re.compile(
    r"^Checked \d+ deployments? in \d+ files?( \([^)]*skipped\))?: .*\((.*; )?exit (?P<code>\d)\)$"
)
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def log_lines(text: str) -> list[str]:
    """Lines as a terminal or a CI log shows them: split at CR and LF (not at FF, VT, U+2028...)."""
    return LINE_BREAK.split(text.rstrip("\r\n")) if text.rstrip("\r\n") else []


TSV = ROOT / "swacheck" / "sglang" / "data" / "server-args-0.5.23.tsv"
OPTIONS: dict[str, list[str]] = {}  # option name -> its choices (empty when free)
for _row in TSV.read_text(encoding="utf-8").splitlines():
    if _row and not _row.startswith("#"):
        _cols = _row.split("\t")
        OPTIONS[_cols[0]] = [] if len(_cols) < 5 or _cols[4] == "-" else _cols[4].split(",")
OPTION_NAMES = sorted(OPTIONS)

# Read once: the strategy must not depend on files that may change while a long run goes on.
EXAMPLE_TEXTS = {
    p.relative_to(EXAMPLES).as_posix(): p.read_text(encoding="utf-8")
    for p in sorted(EXAMPLES.rglob("*.yaml"))
    if "models" not in p.relative_to(EXAMPLES).parts
}
EXAMPLE_FILES = sorted(EXAMPLE_TEXTS)


# --------------------------------------------------------------------------- the work folder


def _tree_state(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "_fuzz" not in p.name
    }


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with the model configs and a copy of examples/; swacheck's environment made neutral.

    Fuzz files are written as ``_fuzz*`` inside it. At the end, nothing else may have changed.
    """
    root = tmp_path_factory.mktemp("fuzz")
    for name, text in {
        "models/v4/config.json": V4_FLASH,
        "models/mtp256/config.json": MTP_W256,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    shutil.copytree(EXAMPLES, root / "examples")
    (root / "hub").mkdir()
    before = _tree_state(root)
    with pytest.MonkeyPatch.context() as mp:
        for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR"):
            mp.delenv(var, raising=False)
        mp.setenv("HF_HUB_CACHE", str(root / "hub"))  # never the real hub cache
        _reuse_the_click_command(mp)
        yield root
    assert _tree_state(root) == before, "swacheck modified a file without --fix"


def _reuse_the_click_command(mp: pytest.MonkeyPatch) -> None:
    """Speed only: CliRunner.invoke rebuilds the click command from swacheck's typer app on every
    call (about half of a run's time here). Build it once per module; run_cli, the app and
    catch_exceptions=False are unchanged."""
    import typer.testing

    real = getattr(typer.testing, "_get_command", None)
    if real is None:  # another typer version: no shortcut, just slower
        return
    built: dict[int, tuple[object, object]] = {}

    def get_command(app):
        if id(app) not in built:
            built[id(app)] = (app, real(app))
        return built[id(app)][1]

    mp.setattr(typer.testing, "_get_command", get_command)


# --------------------------------------------------------------------------- the properties


def check_everything(cwd: Path, path: str, *args: str) -> int:
    """Run every format on cwd/path; check the contract and each report. Returns the exit code."""
    target = cwd / path
    original = target.read_bytes()
    codes = {}
    stderr_lines: list[str] | None = None
    data = None
    quiet = "-q" in args or "--quiet" in args
    for fmt in FORMATS:
        run = run_cli("--no-config", "--color", "never", "--format", fmt, *args, path, cwd=cwd)
        note(f"{fmt}: exit {run.exit_code}\nstderr: {run.stderr!r}\nstdout: {run.stdout[:2000]!r}")
        assert run.exit_code in (0, 1, 2)
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr
        codes[fmt] = run.exit_code
        lines = log_lines(run.stderr)
        if stderr_lines is None:
            stderr_lines = lines
        assert lines == stderr_lines, "stderr differs between formats"
        if fmt == "json":
            data = check_json(run)
        elif fmt == "human":
            check_human(run, quiet)
        elif fmt == "github":
            check_github(run, data, quiet)
        elif fmt == "sarif":
            check_sarif(run)
        elif fmt == "junit":
            check_junit(run)
    assert target.read_bytes() == original, "the input file was modified"
    assert len(set(codes.values())) == 1, f"exit codes differ between formats: {codes}"
    assert data is not None
    assert (codes["json"] == 2) == bool(data["errors"])
    printed_notes = [  # a skipped file is counted, not printed (runner.print_notes)
        n for n in data["notes"] if not n["message"].startswith("skipped, not a deployment")
    ]
    assert len(stderr_lines or []) == len(data["errors"]) + (0 if quiet else len(printed_notes)), (
        "stderr lines != input errors and notes (a raw line break?)"
    )
    for line in stderr_lines or []:
        assert ERROR_LINE.match(line), f"stderr line is not 'file[:line:col]: message': {line!r}"
    return codes["json"]


def check_json(run) -> dict:
    data = json.loads(run.stdout)
    assert data["version"] == 1
    assert data["summary"]["exit_code"] == run.exit_code
    assert data["summary"]["input_errors"] == len(data["errors"])
    for e in data["errors"]:
        assert isinstance(e["message"], str) and e["message"]
        shown = e["file"] + (f":{e['line']}:{e['column']}" if e["line"] is not None else "") + ": "
        assert any(line.startswith(shown) for line in run.stderr.splitlines()), (shown, run.stderr)
    for dep in data["deployments"]:
        for f in dep["findings"]:
            assert re.fullmatch(r"SWA\d{3}", f["code"]) and f["severity"] in (
                "error",
                "warning",
                "note",
            )
    return data


def check_human(run, quiet: bool) -> None:
    lines = run.stdout.splitlines()
    if quiet:  # only findings: no summary line
        assert not any(SUMMARY.match(line) for line in lines)
        return
    assert lines, "no output"
    if re.fullmatch(r"\d+ fixable with --fix( \(\d+ more with --unsafe-fixes\))?", lines[-1]):
        lines = lines[:-1]  # the fixable line under the summary
    m = SUMMARY.match(lines[-1])
    assert m, lines[-1]
    assert int(m["code"]) == run.exit_code


def check_github(run, data: dict | None, quiet: bool) -> None:
    lines = log_lines(run.stdout)
    for line in lines:
        if line.startswith("::"):
            assert GITHUB_COMMAND.match(line), f"malformed workflow command: {line!r}"
        else:
            assert not line.startswith(
                "::"
            )  # a plain line: the summary, or past the annotation limit
    assert data is not None
    counts = {"error": len(data["errors"]), "warning": 0, "note": 0}
    for dep in data["deployments"]:
        for f in dep["findings"]:
            counts[f["severity"]] += 1
    # each item is one line (an annotation, or a plain line past the limit of 10), plus one
    # "N more" line per level past the limit, plus the summary line: any raw newline adds lines
    expected = (
        sum(counts.values()) + sum(1 for n in counts.values() if n > 10) + (0 if quiet else 1)
    )
    assert len(lines) == expected, (
        f"{len(lines)} lines for {counts}: a message or property was not escaped"
    )


def check_sarif(run) -> None:
    log = json.loads(run.stdout)
    assert log["version"] == "2.1.0"
    errors = sorted(SARIF.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def check_junit(run) -> None:
    root = ET.fromstring(run.stdout.encode("utf-8"))
    assert root.tag == "testsuites"


# --------------------------------------------------------------------------- (a) random bytes

YAML_JSON_ALPHABET = st.sampled_from(
    list(":-[]{},#&*!|>'\"\n\t ?%@`\\.0123456789")
    + [
        "model-path",
        "swacheck",
        "1",
        "server",
        "target",
        "draft",
        "geometry",
        "env",
        "platform",
        "---",
        "...",
        "!!python/object/apply:os.system",
        "<<",
        "true",
        "null",
        "NaN",
        ".inf",
        "models/v4",
        "\ufeff",
        "\x00",
        "é",
        "\u2028",
    ]
)


@st.composite
def hostile_bytes(draw) -> bytes:
    kind = draw(st.sampled_from(["bytes", "punctuation", "unicode"]))
    if kind == "bytes":
        data = draw(st.binary(max_size=600))
    elif kind == "punctuation":
        data = "".join(draw(st.lists(YAML_JSON_ALPHABET, max_size=80))).encode("utf-8")
    else:
        data = draw(st.text(max_size=300)).encode("utf-8", "surrogatepass")
    prefix = draw(
        st.sampled_from(
            [
                b"",
                b"",
                b"",
                b"\xef\xbb\xbf",
                b"\xff\xfe",
                b"model-path: models/v4\n",
                b"swacheck: 1\n",
            ]
        )
    )
    return prefix + data


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@settings(
    max_examples=examples(1.0),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=hostile_bytes())
def test_random_bytes(work, suffix, data):
    name = "_fuzz_bytes" + suffix
    (work / name).write_bytes(data)
    check_everything(work, name)


# --------------------------------------------------------------------------- (b) generated documents

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(
        [
            "models/v4",
            "models/mtp256",
            "EAGLE",
            "rocm",
            "decode",
            "1",
            "",
            "null",
            "~",
            "yes",
            "0x80",
        ]
    )
)
KEYS = st.text(max_size=15) | st.sampled_from(
    [
        "model-path",
        "swacheck",
        "server",
        "target",
        "draft",
        "geometry",
        "model_config",
        "env",
        "platform",
        "name",
        "window",
        "ring_size",
        "pages",
        "unified",
        "compression_ratios",
        "speculative-algorithm",
        "max-running-requests",
    ]
)
DOCS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=6),
    max_leaves=25,
)


@st.composite
def documents(draw):
    """A random document, often shaped like one of swacheck's inputs so it gets past classification."""
    shape = draw(st.sampled_from(["any", "server", "deployment", "deployment-inline"]))
    doc = draw(DOCS)
    if shape == "any":
        return doc
    extra = doc if isinstance(doc, dict) else {}
    if shape == "server":
        return {
            "model-path": draw(st.sampled_from(["models/v4", "models/mtp256"]) | SCALARS),
            **extra,
        }
    out = {"swacheck": draw(st.sampled_from([1, 1, 1, 2, "1", True]))}
    for key in ("name", "platform", "env", "server", "target", "draft"):
        if draw(st.booleans()):
            out[key] = draw(DOCS)
    if shape == "deployment-inline":
        out["server"] = {"model-path": "models/v4", **extra}
        out["target"] = {
            "model_config": draw(st.sampled_from(["models/v4", "models/mtp256"]) | DOCS)
        }
        if draw(st.booleans()):
            out["draft"] = {
                "geometry": draw(
                    st.dictionaries(
                        st.sampled_from(
                            [
                                "window",
                                "ring_size",
                                "pages",
                                "page_size",
                                "unified",
                                "compression_ratios",
                                "bogus",
                            ]
                        ),
                        SCALARS | DOCS,
                        max_size=4,
                    )
                )
            }
    return out


def dump(doc, fmt: str, draw) -> bytes:
    if fmt == ".json":
        text = json.dumps(
            doc,
            ensure_ascii=draw(st.booleans()),
            indent=draw(st.sampled_from([None, 2])),
            allow_nan=True,
        )
    else:
        text = yaml.safe_dump(
            doc,
            allow_unicode=draw(st.booleans()),
            default_flow_style=draw(st.sampled_from([None, False, True])),
            sort_keys=False,
        )
    return text.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@settings(
    max_examples=examples(1.0),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(doc=documents(), data=st.data())
def test_generated_documents(work, suffix, doc, data):
    text = dump(doc, suffix, data.draw)
    name = "_fuzz_doc" + suffix
    (work / name).write_bytes(text)
    code = check_everything(work, name)
    if suffix == ".json" and _has_nan(doc):
        assert code == 2  # NaN / Infinity are not JSON: an input error, never a crash


def _has_nan(doc) -> bool:
    if isinstance(doc, float):
        return math.isnan(doc) or math.isinf(doc)
    if isinstance(doc, dict):
        return any(_has_nan(v) for v in doc.values())
    if isinstance(doc, list):
        return any(_has_nan(v) for v in doc)
    return False


# --------------------------------------------------------------------------- (c) mutated examples

CLI_VARIANTS = st.sampled_from(
    [
        (),
        (),
        ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton"),
        ("--platform", "npu"),
        ("--fail-on", "note"),
        ("--align-to", "draft"),
        ("--exit-zero",),
        ("--select", "SWA1,SWA3"),
        ("-q",),
    ]
)
JUNK = st.sampled_from(
    [
        "",
        ":",
        " ",
        "\t",
        "-",
        "[",
        "]",
        "{",
        "}",
        "#",
        "&a",
        "*a",
        "!!",
        "'",
        '"',
        "\n",
        "\x00",
        "é",
        "0",
        "-1",
        "null",
        "true",
        "9" * 25,
    ]
)


@st.composite
def mutated_example(draw) -> tuple[str, bytes]:
    path = draw(st.sampled_from(EXAMPLE_FILES))
    text = EXAMPLE_TEXTS[path]
    for _ in range(draw(st.integers(1, 4))):
        lines = text.splitlines(keepends=True) or [""]
        op = draw(
            st.sampled_from(["delete", "duplicate", "swap", "flip", "insert", "truncate", "indent"])
        )
        i = draw(st.integers(0, len(lines) - 1))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = draw(st.sampled_from([" ", "  ", "\t", "- "])) + lines[i]
        text = "".join(lines)
        if op == "flip" and text:
            k = draw(st.integers(0, len(text) - 1))
            text = text[:k] + draw(JUNK | st.characters()) + text[k + 1 :]
        elif op == "insert":
            k = draw(st.integers(0, len(text)))
            text = text[:k] + draw(JUNK | st.text(max_size=10)) + text[k:]
        elif op == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
    folder = os.path.dirname(path)
    return (f"{folder}/_fuzz.yaml" if folder else "_fuzz.yaml"), text.encode(
        "utf-8", "surrogatepass"
    )


@settings(
    max_examples=examples(1.5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=mutated_example(), args=CLI_VARIANTS)
def test_mutated_examples(work, case, args):
    name, data = case
    target = work / "examples" / name  # next to the original, so its relative paths resolve
    target.write_bytes(data)
    try:
        check_everything(work / "examples", name, *args)
    finally:
        target.unlink()


# --------------------------------------------------------------------------- (d) random server configs

IMPORTANT = [
    "model-path",
    "speculative-draft-model-path",
    "speculative-algorithm",
    "speculative-num-steps",
    "speculative-eagle-topk",
    "speculative-num-draft-tokens",
    "disaggregation-mode",
    "max-running-requests",
    "dp-size",
    "attn-dp-size",
    "enable-dp-attention",
    "page-size",
    "kv-cache-dtype",
    "dsv4-attn-backend",
    "json-model-override-args",
    "pp-size",
    "enable-hisparse",
    "disaggregation-decode-extra-slots",
    "revision",
    "speculative-adaptive",
    "dcp-size",
    "tp-size",
    "trust-remote-code",
]
assert set(IMPORTANT) <= set(OPTIONS), set(IMPORTANT) - set(OPTIONS)


@st.composite
def typo(draw, name: str) -> str:
    how = draw(
        st.sampled_from(
            ["underscore", "drop", "swap", "prefix", "upper", "dashes", "double", "space"]
        )
    )
    i = draw(st.integers(0, max(0, len(name) - 2)))
    if how == "underscore":
        return name.replace("-", "_")
    if how == "drop":
        return name[:i] + name[i + 1 :]
    if how == "swap":
        return name[:i] + name[i + 1 : i + 2] + name[i : i + 1] + name[i + 2 :]
    if how == "prefix":
        return name[: max(1, i)]
    if how == "upper":
        return name.upper()
    if how == "dashes":
        return "--" + name
    if how == "double":
        return name + name[-1:]
    return name + " "


KEY = (
    st.sampled_from(IMPORTANT)
    | st.sampled_from(OPTION_NAMES)
    | st.sampled_from(OPTION_NAMES).flatmap(typo)
    | st.sampled_from(IMPORTANT).flatmap(typo)
    | st.text(max_size=12)
)


def value_for(key: str):
    choices = OPTIONS.get(key.replace("_", "-").strip(), [])
    common = (
        st.integers(-5, 1100)
        | st.integers(min_value=-(10**30), max_value=10**30)
        | st.booleans()
        | st.none()
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=15)
        | st.sampled_from(
            [
                "128",
                "-1",
                "0",
                " 3 ",
                "1e3",
                "None",
                "EAGLE",
                "NEXTN",
                "DSPARK",
                "eagle",
                "decode",
                "prefill",
                "null",
                "auto",
                "fp8_e4m3",
                "trtllm",
                "models/v4",
                "models/mtp256",
                '{"sliding_window": 256}',
            ]
        )
        | st.lists(st.integers(-2, 300) | st.text(max_size=5), max_size=4)
        | st.dictionaries(
            st.sampled_from(["sliding_window", "architectures", "x"]),
            st.integers(-1, 512) | st.text(max_size=5),
            max_size=3,
        )
    )
    if choices:
        return st.sampled_from(choices) | common
    if key in ("model-path", "speculative-draft-model-path", "model", "model_path"):
        return (
            st.sampled_from(
                [
                    "models/v4",
                    "models/mtp256",
                    "models/v4/",
                    "models/v4/config.json",
                    "models",
                    "nope",
                    "org/name",
                ]
            )
            | common
        )
    return common


@st.composite
def server_configs(draw) -> dict:
    config: dict = {}
    if draw(st.integers(0, 9)) > 0:
        config["model-path"] = draw(st.sampled_from(["models/v4", "models/v4", "models/mtp256"]))
    if draw(st.booleans()):  # a plausible EAGLE baseline for the random keys to break
        config.update(
            {
                "speculative-algorithm": "EAGLE",
                "speculative-num-steps": 3,
                "speculative-eagle-topk": 1,
            }
        )
    for _ in range(draw(st.integers(0, 10))):
        key = draw(KEY)
        config[key] = draw(value_for(key))
    return config


@settings(
    max_examples=examples(1.5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    config=server_configs(),
    wrap=st.sampled_from(["server", "server", "deployment-inline", "deployment-file"]),
    platform=st.sampled_from(["cuda", "rocm", "npu"]),
    unified=st.booleans(),
    args=CLI_VARIANTS,
)
def test_random_server_configs(work, config, wrap, platform, unified, args):
    env = {"SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton"} if unified else {}
    server_text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    if wrap == "server":
        name = "_fuzz_server.yaml"
        (work / name).write_text(server_text, encoding="utf-8")
        args = (*args, "--platform", platform, *[f"--env={k}={v}" for k, v in env.items()])
    elif wrap == "deployment-inline":
        name = "_fuzz_dep.yaml"
        doc = {"swacheck": 1, "platform": platform, "env": env, "server": config}
        (work / name).write_text(
            yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
    else:
        name = "_fuzz_dep.json"
        (work / "_fuzz_server.yaml").write_text(server_text, encoding="utf-8")
        doc = {
            "swacheck": 1,
            "name": "fuzz",
            "platform": platform,
            "env": env,
            "server": "_fuzz_server.yaml",
        }
        (work / name).write_text(json.dumps(doc), encoding="utf-8")
    check_everything(work, name, *args)


# --------------------------------------------------------------------------- (e) hostile shapes (issue 15)
# Expansion chains, scripts that source each other (or themselves), odd YAML tags: the shapes
# where a few hundred bytes once took gigabytes, hung, or crashed the run. Whatever the draw, the
# contract of check_everything holds, and a budget that is passed is an input error, not a crash.

LAUNCH_WORDS = (
    "python -m sglang.launch_server --model-path models/v4 "
    "--speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1"
)


@st.composite
def expansion_chain(draw) -> list[list[int]]:
    """Variable i is the concatenation of earlier variables (by index; -1 is the literal x)."""
    steps = draw(st.integers(1, 24))
    return [draw(st.lists(st.integers(-1, i - 1), min_size=1, max_size=3)) for i in range(steps)]


def _chain_file(kind: str, chain: list[list[int]], quote: str) -> tuple[str, str]:
    def ref(j: int, style: str) -> str:
        if j < 0:
            return "x"
        return {"shell": "${V%d}", "k8s": "$(V%d)", "compose": "${V%d}", "docker": "${V%d}"}[
            style
        ] % j

    last = f"V{len(chain) - 1}"
    if kind == "shell":
        lines = ["#!/bin/sh"] + [
            f"V{i}={quote}{''.join(ref(j, 'shell') for j in refs)}{quote}"
            for i, refs in enumerate(chain)
        ]
        return "_fuzz_chain.sh", "\n".join(
            lines + [f'{LAUNCH_WORDS} --served-model-name "${{{last}}}"']
        ) + "\n"
    if kind == "docker":
        lines = ["FROM lmsysorg/sglang:latest"] + [
            f"ARG V{i}={''.join(ref(j, 'docker') for j in refs)}" for i, refs in enumerate(chain)
        ]
        return "_fuzz_chain.Dockerfile", "\n".join(
            lines + [f"ENV NAME=${{{last}}}", f'CMD {LAUNCH_WORDS} --served-model-name "$NAME"']
        ) + "\n"
    if kind == "k8s":
        env = [
            {"name": f"V{i}", "value": "".join(ref(j, "k8s") for j in refs)}
            for i, refs in enumerate(chain)
        ]
        words = LAUNCH_WORDS.split()
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {
                "containers": [
                    {
                        "name": "c",
                        "image": "lmsysorg/sglang",
                        "env": env,
                        "command": words[:1],
                        "args": words[1:] + ["--served-model-name", f"$({last})"],
                    }
                ]
            },
        }
        return "_fuzz_chain.yaml", yaml.safe_dump(pod, sort_keys=False)
    services = {
        "services": {
            "s": {
                "image": "lmsysorg/sglang",
                "environment": {
                    f"V{i}": "".join(ref(j, "compose") for j in refs)
                    for i, refs in enumerate(chain)
                },
                "command": f"{LAUNCH_WORDS} --served-model-name ${{{last}}}",
            }
        }
    }
    return "_fuzz_compose.yaml", yaml.safe_dump(services, sort_keys=False)


@settings(
    max_examples=examples(0.5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    chain=expansion_chain(),
    kind=st.sampled_from(["shell", "docker", "k8s", "compose"]),
    quote=st.sampled_from(['"', ""]),
)
def test_expansion_chains(work, chain, kind, quote):
    name, text = _chain_file(kind, chain, quote)
    (work / name).write_text(text, encoding="utf-8")
    try:
        check_everything(work, name)
    finally:
        (work / name).unlink()


@settings(
    max_examples=examples(0.5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    graph=st.lists(st.lists(st.integers(0, 3), max_size=6), min_size=1, max_size=4),
    launches=st.lists(st.booleans(), min_size=4, max_size=4),
    guard=st.booleans(),
)
def test_scripts_that_source_each_other(work, graph, launches, guard):
    """Script i sources the scripts graph[i] lists (itself too, in cycles, many times)."""
    names = [f"_fuzz_src{i}.sh" for i in range(4)]
    for i, name in enumerate(names):
        lines = ["#!/bin/sh"]
        for j in graph[i] if i < len(graph) else []:
            lines.append(f'[ -n "$LOADED{j}" ] || . ./{names[j]}' if guard else f". ./{names[j]}")
        if launches[i]:
            lines.append(LAUNCH_WORDS)
        (work / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        check_everything(work, names[0])
    finally:
        for name in names:
            (work / name).unlink()


ODD_TAGS = [
    "!!bool",
    "!!int",
    "!!float",
    "!!null",
    "!!str",
    "!!timestamp",
    "!!binary",
    "!!set",
    "!!omap",
    "!!seq",
    "!!map",
    "!",
    "!foo",
    "!!python/none",
    "!!merge",
    "!<tag:yaml.org,2002:int>",
    "!!value",
    "!!yaml",
]
ODD_VALUES = st.sampled_from(
    [
        "maybe",
        '""',
        "''",
        "0x",
        "0b",
        "0o8",
        "1_000",
        "-",
        ".",
        "~",
        "null",
        "yes",
        "1e400",
        "-.inf",
        ".nan",
        "2001-13-45",
        "[]",
        "{}",
        "[1, 2]",
        "{a: 1}",
        '"\\0"',
        "0:0:0",
        "+",
    ]
) | st.text(max_size=6)


@settings(
    max_examples=examples(0.5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    key=st.sampled_from(
        [
            "model-path",
            "tp-size",
            "page-size",
            "enable-hisparse",
            "max-running-requests",
            "server",
            "platform",
            "env",
            "json-model-override-args",
        ]
    ),
    tag=st.sampled_from(ODD_TAGS),
    value=ODD_VALUES,
    shape=st.sampled_from(["server", "deployment", "key"]),
)
def test_odd_tags(work, key, tag, value, shape):
    base = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\nspeculative-eagle-topk: 1\n"
    if shape == "key":
        text = base + f"{tag} {value}: 1\n"
    elif shape == "deployment":
        text = f"swacheck: 1\nserver:\n  model-path: models/v4\n  {key}: {tag} {value}\n"
    else:
        text = base + f"{key}: {tag} {value}\n"
    (work / "_fuzz_tags.yaml").write_text(text, encoding="utf-8")
    check_everything(work, "_fuzz_tags.yaml")
