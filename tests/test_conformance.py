"""The conformance suite against real SGLang (conformance/), and its smoke tests.

The real run builds an isolated environment with a released SGLang wheel and CPU torch (minutes,
~2.5 GB), so it runs only when asked: ``SWACHECK_CONFORMANCE=0.5.23 python -m pytest
tests/test_conformance.py`` (a comma-separated list runs several releases;
``SWACHECK_CONFORMANCE_SELECT=TEXT`` only the cases whose name contains TEXT). The smoke tests below
run always, without SGLang: the case loader and generator, and the comparer on recorded
outcomes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "conformance"


def _load(name: str):
    """conformance/ is not a package of swacheck: load its modules under private names."""
    spec = importlib.util.spec_from_file_location(
        f"_swacheck_conformance_{name}", CONFORMANCE / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


case_mod = _load("cases")
compare = _load("compare")

RELEASES = [v.strip() for v in os.environ.get("SWACHECK_CONFORMANCE", "").split(",") if v.strip()]


@pytest.mark.skipif(
    not RELEASES,
    reason="real-SGLang conformance run is opt-in: set SWACHECK_CONFORMANCE=0.5.23 (downloads the "
    "sglang wheel and CPU torch into ~/.cache/swacheck-conformance; minutes per release)",
)
@pytest.mark.parametrize("version", RELEASES or ["unset"])
def test_conformance_against_real_sglang(version, tmp_path):
    select = os.environ.get(
        "SWACHECK_CONFORMANCE_SELECT"
    )  # e.g. "cuda-draft-window" for a quick look
    proc = subprocess.run(
        [
            sys.executable,
            str(CONFORMANCE / "run.py"),
            "--sglang",
            version,
            "--json",
            str(tmp_path / "rows.json"),
            *(["--select", select] if select else []),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    print(proc.stdout)
    print(proc.stderr, file=sys.stderr)
    assert proc.returncode == 0, (
        proc.stdout.splitlines()[-1] if proc.stdout else proc.stderr[-2000:]
    )


# ---------------------------------------------------------------------------------- smoke tests


def test_every_case_file_loads_and_names_are_unique():
    cases = case_mod.load_cases()
    assert len(cases) >= 60
    assert len({c.name for c in cases}) == len(cases)
    assert {c.platform for c in cases} == {"cuda", "rocm"}
    for case in cases:
        # every placeholder was substituted (a JSON value may still hold braces)
        assert not re.search(r"\{[a-z_]+\}", case.server), case.name


def test_matrix_expands_labels_and_reindents_multiline_values(tmp_path):
    doc = {
        "platform": "rocm",
        "env": {"X": "{mode}"},
        "models": {"target": {}, "draft": {"sliding_window": "{w}"}},
        "matrix": {
            "mode": ["prefill", "decode"],
            "w": [64, 256],
            "extra": [{"two-lines": "a: 1\nb: 2"}],
        },
        "server": "model-path: models/target\n  {extra}\nmode: {mode}\n",
    }
    cases = case_mod.expand(doc, name="m", file="m.yaml")
    assert [c.name for c in cases][:2] == [
        "m[extra=two-lines,mode=prefill,w=64]",
        "m[extra=two-lines,mode=prefill,w=256]",
    ]
    assert len(cases) == 4
    first = cases[0]
    assert first.server == "model-path: models/target\n  a: 1\n  b: 2\nmode: prefill\n"
    assert first.env == {"X": "prefill"}
    server = case_mod.materialize(first, tmp_path)
    assert server.read_text() == first.server
    draft = json.loads((tmp_path / "models" / "draft" / "config.json").read_text())
    assert draft["sliding_window"] == 64 and isinstance(draft["sliding_window"], int)
    assert draft["architectures"] == ["DeepseekV4ForCausalLM"]


def test_case_errors_are_reported():
    with pytest.raises(case_mod.CaseError):
        case_mod.expand({"server": 1}, name="x", file="x.yaml")
    with pytest.raises(case_mod.CaseError):
        case_mod.expand({"server": "a: 1", "bogus": 1}, name="x", file="x.yaml")
    with pytest.raises(case_mod.CaseError):
        case_mod.expand({"server": "a: 1", "matrix": {"k": []}}, name="x", file="x.yaml")


def _report(findings=(), tuples=((256, 128, None), (256, 128, None)), errors=()):
    return {
        "deployments": [
            {
                "target": {"tuple": list(tuples[0])},
                "draft": {"tuple": list(tuples[1])},
                "findings": [{"code": c, "severity": s, "message": m} for c, s, m in findings],
            }
        ],
        "errors": [{"message": e} for e in errors],
    }


GEOMETRY = "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(256, 256, None)"


def test_compare_agreements():
    ok = {"outcome": "ok", "target": [256, 128, None], "draft": [256, 128, None]}
    row = compare.compare("a", ok, _report())
    assert row.agrees and row.verdict and row.cause is None and row.tuple is True
    failed = {
        "outcome": "error",
        "stage": "setup",
        "exception": "RuntimeError",
        "message": GEOMETRY,
        "target": [256, 128, None],
        "draft": [256, 256, None],
    }
    row = compare.compare(
        "b", failed, _report([("SWA102", "error", GEOMETRY)], ((256, 128, None), (256, 256, None)))
    )
    assert row.agrees and row.cause is True and row.tuple is True
    # an assert without a message: swacheck citing the file and line that raised names it
    bare = {
        "outcome": "error",
        "stage": "pools",
        "exception": "AssertionError",
        "message": "",
        "where": "sglang/srt/mem_cache/deepseek_v4_memory_pool.py:321",
    }
    row = compare.compare(
        "bare",
        bare,
        _report([("SWA999", "error", "pool asserts (deepseek_v4_memory_pool.py:321)")]),
    )
    assert row.agrees and row.cause is True
    row = compare.compare(
        "bare2",
        bare,
        _report([("SWA999", "error", "pool asserts (deepseek_v4_memory_pool.py:322)")]),
    )
    assert row.cause is False
    # a bare assert: naming its exception and the file that raised it is enough
    hook = dict(bare, stage="resolve", where="sglang/srt/arg_groups/speculative_hook.py:1162")
    named = "a bare AssertionError (speculative_hook.py)"
    row = compare.compare("bare3", hook, _report([("SWA999", "error", named)]))
    assert row.agrees and row.cause is True
    row = compare.compare(
        "bare4", hook, _report([("SWA999", "error", "a bare assert (speculative_hook.py)")])
    )
    assert row.cause is False
    row = compare.compare(
        "bare5", hook, _report([("SWA999", "error", "AssertionError (other_hook.py)")])
    )
    assert row.cause is False
    # no draft pool: SGLang compares no tuple, so neither does the comparer
    alone = {"outcome": "ok", "target": [256, 128, None], "draft": None}
    row = compare.compare("no draft", alone, _report(tuples=((256, 128), (256, 128))))
    assert row.agrees and row.tuple is None
    # warnings do not make a verdict
    row = compare.compare("c", ok, _report([("SWA201", "warning", "page size replaced")]))
    assert row.agrees


def test_compare_disagreements():
    ok = {"outcome": "ok", "target": [256, 128, None], "draft": [256, 128, None]}
    refused = {
        "outcome": "error",
        "stage": "validate",
        "exception": "AssertionError",
        "message": "PP + speculative decoding (MTP) is only supported on prefill nodes",
    }
    row = compare.compare("missed", refused, _report())
    assert not row.agrees and not row.verdict and "PP + speculative" in row.why
    row = compare.compare("false alarm", ok, _report([("SWA102", "error", GEOMETRY)]))
    assert not row.agrees and not row.verdict
    # both fail, for different reasons
    row = compare.compare("cause", refused, _report([("SWA102", "error", GEOMETRY)]))
    assert row.verdict and row.cause is False and not row.agrees
    # an input error is not the failure SGLang hits
    row = compare.compare("input", refused, _report(errors=["no sliding_window"]))
    assert row.cause is False
    # same verdict, different numbers
    row = compare.compare("tuple", ok, _report(tuples=((256, 128, None), (256, 64, None))))
    assert row.verdict and row.tuple is False and not row.agrees


def test_compare_never_counts_a_broken_run_as_agreement():
    assert not compare.compare("x", None, _report()).agrees
    assert not compare.compare("x", {"outcome": "ok"}, None).agrees
    harness = {
        "outcome": "harness-error",
        "exception": "TypeError",
        "message": "'_Dummy'",
        "where": "x.py:1",
    }
    row = compare.compare("x", harness, _report())
    assert row.harness and not row.agrees
    text = compare.summary([row, compare.compare("y", {"outcome": "ok"}, _report())], "0.5.23")
    assert text == (
        "SGLang 0.5.23: 2 cases, 1 agree, 0 disagree (verdict 0, cause 0, tuple 0), "
        "1 not compared (harness)"
    )


def test_run_refuses_reuse_without_keep():
    proc = subprocess.run(
        [sys.executable, str(CONFORMANCE / "run.py"), "--sglang", "0.5.23", "--reuse"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and "--reuse needs --keep" in proc.stderr


# ------------------------------------------------------------------------- the generated matrix


def _load_with_siblings(name: str):
    """matrix.py and run.py import their siblings (``from cases import Case``) as run.py runs them:
    with conformance/ on the path while they load."""
    sys.path.insert(0, str(CONFORMANCE))
    try:
        return _load(name)
    finally:
        sys.path.remove(str(CONFORMANCE))


matrix = _load_with_siblings("matrix")


def test_matrix_is_seeded_and_each_case_independent_of_the_count():
    first = matrix.generate(40, seed=7)
    again = matrix.generate(40, seed=7)
    assert [(c.name, c.server, c.env, c.platform) for c in first] == [
        (c.name, c.server, c.env, c.platform) for c in again
    ]
    longer = matrix.generate(80, seed=7)
    assert [c.server for c in longer[:40]] == [c.server for c in first]  # a prefix: case i is fixed
    other = matrix.generate(40, seed=8)
    assert [c.server for c in other] != [c.server for c in first]


def test_matrix_covers_every_value_of_every_dimension_in_300_cases():
    cases = matrix.generate(300, seed=0)
    assert len({c.name for c in cases}) == 300
    labels = [set(re.search(r"\[(.*)\]$", c.name).group(1).split(",")) for c in cases]
    seen = set().union(*labels)
    for dim in (
        matrix.PLATFORM,
        matrix.MODE,
        matrix.ALGORITHM,
        matrix.STEPS,
        matrix.TOPK,
        matrix.DRAFT_TOKENS,
        matrix.DRAFT_MODEL,
        matrix.TARGET_MODEL,
        matrix.PAGE,
        matrix.MRR,
        matrix.PARALLEL,
        matrix.EXTRA,
        matrix.ENV,
        matrix.CUDA_GPU,
        matrix.ROCM_GPU,
        matrix.CHECKPOINT,
        matrix.ENV2,
        matrix.PD_EXTRA,
        matrix.SIZING,
        matrix.CLI,
        matrix.YAML_STYLE,
    ):
        for label, _weight, _value in dim:
            assert label in seen, label

    # small max-running-requests only: SGLang really allocates the pools
    def mrr(c):  # in the file (plain, quoted or a one-item list) or moved to the command line
        found = re.search(r"max-running-requests: [\"\[]?(\d+)", c.server)
        return int(found.group(1) if found else c.argv[c.argv.index("--max-running-requests") + 1])

    assert all(mrr(c) <= 16 for c in cases)


def test_matrix_moves_lines_to_the_command_line_and_writes_values_other_ways():
    cases = matrix.generate(300, seed=0)
    moved = [c for c in cases if c.argv]
    assert moved and all(a.startswith("--") for c in moved for a in c.argv[:1])
    for c in moved:  # a moved line is gone from the file
        keys = {ln.split(":", 1)[0] for ln in c.server.splitlines()}
        assert not {a[2:] for a in c.argv if a.startswith("--")} & keys, c.name
    assert any('max-running-requests: "' in c.server for c in cases)
    assert any("max-running-requests: [" in c.server for c in cases)
    assert any(c.gpu == "B200" for c in cases) and any(c.gpu == "MI300X" for c in cases)
    assert matrix._to_argv("enable-pd-role-switch: true") == ["--enable-pd-role-switch"]
    assert matrix._to_argv("tp-size: 8") == ["--tp-size", "8"]
    assert matrix._to_argv("json-model-override-args: '{\"a\": 1}'") is None
    assert matrix.HELD_BACK == 1000


def test_pair_matrix_is_seeded_and_varies_each_side():
    first = pairs.matrix(120, seed=0)
    assert [p.name for p in first[:30]] == [p.name for p in pairs.matrix(30, seed=0)]
    assert [p.name for p in pairs.matrix(30, seed=1)] != [p.name for p in first[:30]]
    assert len({p.name for p in first}) == 120
    names = " ".join(p.name for p in first)
    for dim, options in pairs.PAIR_DIMS.items():
        for label, _w, _v in options:
            assert f"{dim}={label}@" in names, (dim, label)
    assert any(p.prefill.gpu != p.decode.gpu for p in first)
    assert any(
        "decode-model" in p.decode.models and "prefill-model" not in p.prefill.models for p in first
    )
    assert any(p.prefill.env != p.decode.env for p in first)


def test_matrix_cases_are_valid_config_files_with_their_models(tmp_path):
    import yaml

    for case in matrix.generate(30, seed=0):
        directory = tmp_path / re.sub(r"[^A-Za-z0-9]+", "_", case.name)
        server = case_mod.materialize(case, directory)
        config = yaml.safe_load(server.read_text())
        given = {  # --key value moved to the command line (a flag has no value)
            a: case.argv[i + 1]
            for i, a in enumerate(case.argv[:-1])
            if not case.argv[i + 1].startswith("--")
        }
        path = config.get("model-path") or given.get("--model-path")
        assert isinstance(config, dict) and path.startswith("models/")
        for key in ("model-path", "speculative-draft-model-path"):
            value = config.get(key) or given.get(f"--{key}")
            if value:
                assert (directory / value / "config.json").is_file(), (case.name, key)
        assert case.platform in ("cuda", "rocm")


def test_matrix_case_is_checked_by_swacheck_and_compared(tmp_path):
    """The swacheck half of a matrix run, on one generated case (no SGLang): run.py's swacheck call
    gives a JSON report, and the comparer turns it and a recorded SGLang outcome into a row."""
    run = _load_with_siblings("run")
    case = next(c for c in matrix.generate(50, seed=0) if "nospec" not in c.name)
    server = case_mod.materialize(case, tmp_path / "case")
    report = run.run_swacheck(case, server, "0.5.23")
    assert report is not None and report["deployments"], tmp_path / "case" / "swacheck.stderr"
    refused = {"outcome": "error", "stage": "resolve", "exception": "ValueError", "message": "x"}
    row = compare.compare(case.name, refused, report)
    assert row.verdict == (not compare.swacheck_verdict(report).ok)


# ------------------------------------------------------------------------------------ PD pairs

pairs = _load_with_siblings("pairs")


def test_pair_cases_are_named_once_and_differ_as_their_names_say():
    chosen = pairs.generate()
    assert len({p.name for p in chosen}) == len(chosen) >= 20
    for p in chosen:
        assert "disaggregation-mode: prefill" in p.prefill.server
        assert "disaggregation-mode: decode" in p.decode.server
        assert p.prefill.platform == p.decode.platform
        for side in (p.prefill, p.decode):  # no key written twice
            keys = [ln.split(":", 1)[0] for ln in side.server.splitlines()]
            assert len(keys) == len(set(keys)), side.name
    same = next(p for p in chosen if p.name == "pair-same-eagle")
    assert same.prefill.server.replace("prefill", "decode") == same.decode.server


def test_pair_side_as_a_swacheck_deployment_file_keeps_its_environment():
    import yaml

    side = next(p for p in pairs.generate("rocm-unified-fp8")).decode
    doc = yaml.safe_load(pairs.deployment_file(side, "MI355X"))
    assert doc["platform"] == "rocm" and doc["gpu"] == "MI355X"
    assert doc["env"] == {
        "SGLANG_DSV4_UNIFIED_KV_FP8": "1",
        "SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton",
    }
    assert doc["server"]["disaggregation-mode"] == "decode"


def _pair_report(prefill=(), decode=(), pair=()):
    def finding(code, severity, message):
        return {"code": code, "severity": severity, "message": message}

    pair_findings = [finding(*f) for f in pair]
    return {
        "deployments": [
            {"file": "prefill.yaml", "findings": [finding(*f) for f in prefill]},
            {"file": "decode.yaml", "findings": [finding(*f) for f in decode] + pair_findings},
        ],
        "pairs": [{"findings": pair_findings}],
        "errors": [],
    }


def test_compare_pair_outcomes():
    rejected = {
        "outcome": "error",
        "when": "every request",
        "side": "prefill",
        "exception": "rejected",
        "message": "Rejecting state transfers to decode session: StateType.SWA item length mismatch",
    }
    every = ("SWA406", "error", "speculative ... and every request to that decode fails")
    assert pairs.compare_pair("a", rejected, _pair_report(pair=[every]))["agrees"] is True
    assert pairs.compare_pair("b", rejected, _pair_report())["agrees"] is False
    dies = {
        "outcome": "error",
        "when": "first request",
        "side": "decode",
        "exception": "AssertionError",
        "message": "('Decode pp size (2) should be equal to prefill pp size (1) or 1',)",
    }
    pp = ("SWA408", "error", "Decode pp size (2) should be equal to prefill pp size (1) or 1: ...")
    assert pairs.compare_pair("c", dies, _pair_report(pair=[pp]))["agrees"] is True
    other = ("SWA401", "error", "Page size mismatch: ... dies at the first request")
    assert pairs.compare_pair("d", dies, _pair_report(pair=[other]))["agrees"] is False
    # a server that fails on its own: the side must match, and it is no pair finding
    alone = {"outcome": "error", "when": "start-up", "side": "decode", "stage": "pools"}
    bf16 = ("SWA503", "error", "kv-cache-dtype bfloat16 ...")
    assert pairs.compare_pair("e", alone, _pair_report(decode=[bf16]))["agrees"] is True
    assert pairs.compare_pair("f", alone, _pair_report(prefill=[bf16]))["agrees"] is False
    # swacheck's "silently" is a pair SGLang's checks let through
    ok = {"outcome": "ok"}
    silent = ("SWA406", "error", "mooncake in SGLang 0.5.20 compares no ...: silently wrong")
    assert pairs.compare_pair("g", ok, _pair_report(pair=[silent]))["agrees"] is True
    assert pairs.compare_pair("h", ok, _pair_report(pair=[every]))["agrees"] is False
    assert pairs.compare_pair("i", {"outcome": "harness-error"}, _pair_report())["agrees"] is None


expected = _load("expected")


def test_the_committed_disagreements_table_reads_and_names_sglang_lines():
    rows = expected.read()
    assert rows and all(":" in r.decided_by and r.suite in expected.SUITES for r in rows)
    names = [(r.suite, r.case) for r in rows]
    assert len(names) == len(set(names))
    # every committed single-server case still exists
    known = {c.name for c in case_mod.load_cases()}
    assert {r.case for r in rows if r.suite == "cases"} <= known


def test_the_job_is_green_on_exactly_the_committed_disagreements(tmp_path):
    import io

    table = tmp_path / "expected.tsv"
    table.write_text("0.5.23\tcases\tknown[x=1]\tsrt/a.py:10\tthe harness cannot tell\n")
    rows = expected.read(table)
    out = io.StringIO()
    ok = {"a": True, "known[x=1]": False}
    assert expected.judge(ok, "0.5.23", "cases", out, rows) == 0
    assert "1 expected disagreements, 0 new, 0 stale: as committed" in out.getvalue()
    # a new disagreement, a case that could not be compared, a stale row: red
    assert expected.judge({**ok, "b": False}, "0.5.23", "cases", io.StringIO(), rows) == 1
    assert expected.judge({**ok, "b": None}, "0.5.23", "cases", io.StringIO(), rows) == 1
    out = io.StringIO()
    assert expected.judge({"a": True, "known[x=1]": True}, "0.5.23", "cases", out, rows) == 1
    assert "now agrees: known[x=1]" in out.getvalue()
    # another release or suite: the row does not hold
    assert expected.judge(ok, "0.5.22", "cases", io.StringIO(), rows) == 1
    assert expected.judge({"a": True}, "0.5.23", "pairs", io.StringIO(), rows) == 0
    # a selection that did not run the case: nothing to say about it
    assert expected.judge({"a": True}, "0.5.23", "cases", io.StringIO(), rows) == 0


def test_the_table_refuses_a_row_without_sglangs_line(tmp_path):
    table = tmp_path / "expected.tsv"
    table.write_text("*\tcases\tc\tsomewhere\twhy\n")
    with pytest.raises(expected.TableError, match="file:line"):
        expected.read(table)
