"""`swacheck why`: parse the DSV4 target/draft RuntimeError of a failed launch and explain it.

Parsing and diagnosis are pure functions and are tested directly; the command is tested
through the real CLI. Golden outputs: the why-* cases of tests/golden/ (test_golden.py).
"""

from __future__ import annotations

import json

import pytest
from conftest import EAGLE, ROOT, run_cli
from typer.testing import CliRunner

from swacheck.cli import app
from swacheck.why import WORDINGS, TupleError, diagnose, parse_lines, parse_text, parse_tuples

LOGS = ROOT / "tests" / "data" / "logs"

RING = "DSV4 target and draft pools must share SWA ring geometry: target=(128, 131, 33667), draft=(256, 259, 66563)"
PAGED_2 = (
    "DSV4 target and draft pools must share paged SWA geometry: target=(256, 128), draft=(256, 256)"
)
PAGED_3 = "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(256, 256, None)"
PAGED_3_INT = "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(256, 128, 256)"
UNIFIED_MODE = "DSV4 target and draft pools must use the same unified-KV mode"
MAPPING = "DSV4 target and draft pools must share the SWA index mapping"
SWA_ONLY = "DSV4 draft state transfer expects SWA-only NextN layers"
PAGES_ONLY = (
    "DSV4 target and draft pools must share SWA ring geometry: target=(128, "
    "131, 33667), draft=(128, 131, 6419)"
)
NO_ERROR = "swacheck why: no DSV4 target/draft error found"


def one(text: str):
    parse = parse_text(text)
    assert not parse.malformed, parse.malformed
    assert len(parse.errors) == 1, parse.errors
    return parse.errors[0]


def why(*args: str, **kw):
    return run_cli("why", "--color", "never", *args, **kw)


# ------------------------------------------------------------------ every wording


def test_ring_message():
    err = one("RuntimeError: " + RING)
    assert err.kind == "ring"
    assert err.target == (128, 131, 33667) and err.draft == (256, 259, 66563)
    assert err.wording.version_range == "0.5.16 – 0.5.23"
    assert err.message == RING
    diag = diagnose(err)
    assert diag.differs == ("window", "ring_size", "pages")
    assert diag.causes == ("window",)  # ring and pages follow from the window
    text = " ".join(diag.sentences)
    assert "window differs (target 128, draft 256)" in text
    assert "speculative-draft-model-path" in text and "json-model-override-args" in text
    assert "both pools have 4 draft tokens" in text and "257 request slots" in text


def test_paged_two_tuple_message_is_0_5_16_to_0_5_22():
    err = one("RuntimeError: " + PAGED_2)
    assert err.kind == "paged" and err.fields == ("page_size", "sliding_window")
    assert (err.target, err.draft) == ((256, 128), (256, 256))
    assert err.wording.version_range == "0.5.16 – 0.5.22"
    diag = diagnose(err)
    assert diag.differs == ("sliding_window",)
    assert "sliding_window differs (target 128, draft 256)" in diag.sentences[0]


def test_paged_three_tuple_with_none_is_0_5_23():
    err = one(PAGED_3)
    assert err.fields == ("page_size", "sliding_window", "ring_capacity")
    assert (err.target, err.draft) == ((256, 128, None), (256, 256, None))
    assert err.wording.version_range == "0.5.23"
    assert diagnose(err).differs == ("sliding_window",)


def test_paged_three_tuple_with_an_int_is_encoder_replay():
    err = one(PAGED_3_INT)
    assert err.draft == (256, 128, 256)
    diag = diagnose(err)
    assert diag.differs == ("ring_capacity",)
    assert (
        "encoder SWA bounded replay" in diag.sentences[0] and "DeepSeek-V4.1" in diag.sentences[0]
    )


@pytest.mark.parametrize(
    "message, kind, words",
    [
        (UNIFIED_MODE, "unified_mode", "SGLANG_HACK_FLASHMLA_BACKEND"),
        (MAPPING, "mapping", "registered its own SWA index mapping"),
        (SWA_ONLY, "draft_ratios", "compression_ratios"),
    ],
)
def test_messages_without_tuples(message, kind, words):
    err = one(f"RuntimeError: {message}")
    assert err.kind == kind and err.target is None and err.draft is None
    assert err.message == message
    assert err.wording.version_range == "0.5.16 – 0.5.23"
    diag = diagnose(err)
    assert diag.differs == () and words in " ".join(diag.sentences)


def test_every_wording_round_trips():
    for wording in WORDINGS:
        if wording.fields:
            values = tuple(range(1, len(wording.fields) + 1))
            text = f"{wording.text} target={values}, draft={values}"
        else:
            text = wording.text
        err = one(text)
        assert err.wording == wording and err.message == text


# ------------------------------------------------------------------ diagnosis order


def test_pages_only_differ_gives_request_slots():
    err = one(PAGES_ONLY)
    diag = diagnose(err)
    assert diag.differs == ("pages",) and diag.causes == ("pages",)
    slots = {d.name: d for d in diag.derived}["request slots"]
    assert (slots.target, slots.draft) == (257, 49)
    text = diag.sentences[0]
    assert "target 257 (33667 ÷ 131), draft 49 (6419 ÷ 131)" in text
    assert (
        "max-running-requests" in text
        and "attn-dp-size" in text
        and "disaggregation-decode-extra-slots" in text
    )
    assert "16 + 32 + 1" in text  # a PD decode server with max-running-requests 16


def test_pages_only_on_the_cli():
    run = why(PAGES_ONLY)
    assert run.exit_code == 0, run.stderr
    assert "request slots (pages ÷ ring)" in run.stdout
    assert "target 257" in run.stdout and "draft 49" in run.stdout


def test_pages_not_a_multiple_of_the_ring_cannot_come_from_sglang():
    diag = diagnose(
        one(
            "DSV4 target and draft pools must share SWA ring geometry: target=(128, 131, 33667), draft=(128, 131, 6420)"
        )
    )
    assert "not a whole multiple" in " ".join(diag.sentences)
    assert "cannot come from one SGLang pool" in " ".join(diag.sentences)


def test_ring_only_differs_gives_draft_tokens():
    diag = diagnose(
        one(
            "DSV4 target and draft pools must share SWA ring geometry: target=(128, "
            "131, 33667), draft=(128, 133, 34181)"
        )
    )
    assert diag.differs == ("ring_size", "pages") and diag.causes == ("ring_size",)
    tokens = {d.name: d for d in diag.derived}["draft tokens"]
    assert (tokens.target, tokens.draft) == (4, 6)
    assert "ring_size differs with the same window" in diag.sentences[0]
    assert "speculative-num-steps" in diag.sentences[0]


def test_ring_smaller_than_window_is_impossible():
    diag = diagnose(
        one(
            "DSV4 target and draft pools must share SWA ring geometry: target=(128, "
            "131, 33667), draft=(256, 131, 33667)"
        )
    )
    assert "smaller than its window" in " ".join(diag.sentences)


def test_paged_page_size_points_at_dcp_size():
    diag = diagnose(
        one(
            "DSV4 target and draft pools must share SWA geometry: target=(256, 128, None), draft=(512, 128, None)"
        )
    )
    assert diag.differs == ("page_size",)
    assert "dcp-size 2" in diag.sentences[0] and "dcp-size 1" in diag.sentences[0]


def test_equal_tuples_are_reported_as_edited():
    run = why(
        "DSV4 target and draft pools must share SWA ring geometry: target=(128, 131, 33667), draft=(128, 131, 33667)"
    )
    assert run.exit_code == 0
    assert "The two tuples are equal" in run.stdout


# ------------------------------------------------------------------ log noise


def test_traceback_log_takes_the_runtime_error_line():
    parse = parse_lines((LOGS / "decode-tp8-ring.log").read_text().splitlines())
    assert not parse.malformed
    [err] = parse.errors
    assert err.kind == "ring" and err.target == (128, 131, 6419) and err.draft == (256, 259, 12691)
    # the last frame is utils.py line 1805: the ring message is at 1806 only in 0.5.23
    assert err.frame_versions == ("0.5.23",)


def test_eight_tp_ranks_count_once_with_eight_occurrences():
    parse = parse_text((LOGS / "decode-tp8-ring.log").read_text())
    [err] = parse.errors
    assert err.count == 8
    assert err.first_line == 35
    run = why("--from-log", "tests/data/logs/decode-tp8-ring.log", cwd=ROOT)
    assert run.exit_code == 0, run.stderr
    assert "seen 8 times, first on line 35" in run.stdout
    assert "(8 occurrences)" in run.stdout


@pytest.mark.parametrize(
    "prefix",
    [
        "[2026-11-02 10:31:07 TP0] ",
        "2026-11-02T10:31:07Z ERROR ",
        "2026-11-02 10:31:07,123 - sglang - ERROR - RuntimeError: ",
        "  ",
    ],
)
def test_timestamps_and_prefixes(prefix):
    err = one(prefix + RING)
    assert err.target == (128, 131, 33667)


def test_ansi_colour_codes():
    err = one(
        "\x1b[2m[2026-11-02 10:31:07 TP0]\x1b[0m \x1b[31mRuntimeError\x1b[0m: \x1b[1m"
        + RING
        + "\x1b[0m"
    )
    assert err.message == RING


def test_windows_line_endings(tmp_path):
    log = tmp_path / "crlf.log"
    log.write_bytes(
        (
            'Traceback (most recent call last):\r\n  File "x.py", line 1, in f\r\nRuntimeError: '
            + RING
            + "\r\n"
        ).encode()
    )
    run = why("--from-log", str(log), "--format", "json")
    assert run.exit_code == 0, run.stderr
    [err] = run.data["errors"]
    assert err["message"] == RING and err["first_line"] == 3


def test_message_wrapped_after_geometry():
    text = (
        "RuntimeError: DSV4 target and draft pools must share SWA ring geometry:\r\n "
        "   target=(128, 131, 33667), draft=(256, 259, 66563)\r\n"
    )
    err = one(text)
    assert err.message == RING and err.first_line == 1


def test_message_cut_after_geometry_is_malformed():
    run = why("RuntimeError: DSV4 target and draft pools must share SWA ring geometry:")
    assert run.exit_code == 2 and run.stdout == ""
    assert "ends after" in run.stderr and len(run.stderr.splitlines()) == 1


def test_traceback_source_lines_are_not_messages():
    # Python 3.13 prints the raise statement's source, string literal included
    text = (
        '  File "/x/sglang/srt/disaggregation/utils.py", line 1764, in setup_state_kv_args\n'
        "    raise RuntimeError(\n"
        '        "DSV4 target and draft pools must share paged SWA geometry: "\n'
        '        f"target={target_geometry}, draft={draft_geometry}"\n'
        "    )\n"
        "RuntimeError: " + PAGED_2 + "\n"
        '    raise RuntimeError("DSV4 target and draft pools must use the same unified-KV mode")\n'
    )
    err = one(text)
    assert err.kind == "paged" and err.count == 1 and err.frame_versions == ("0.5.22",)


@pytest.mark.parametrize(
    "line",
    [
        '{"time": "2026-11-02T10:31:07Z", "msg": "' + RING + '"}',
        '"2026-11-02 10:31:07","ERROR","RuntimeError: ' + RING + '"',
    ],
)
def test_structured_log_lines_are_messages_not_source(line):
    assert one(line).message == RING


def test_several_errors_in_one_log_are_distinct_and_counted():
    parse = parse_text((LOGS / "launcher-three-attempts.log").read_text())
    assert not parse.malformed
    assert [(e.kind, e.count, e.first_line) for e in parse.errors] == [
        ("paged", 2, 11),
        ("ring", 1, 14),
        ("unified_mode", 1, 17),
    ]
    run = why(
        "--from-log", "tests/data/logs/launcher-three-attempts.log", "--format", "json", cwd=ROOT
    )
    assert run.exit_code == 0, run.stderr
    assert [(e["kind"], e["count"]) for e in run.data["errors"]] == [
        ("paged", 2),
        ("ring", 1),
        ("unified_mode", 1),
    ]
    assert run.data["errors"][0]["sglang_versions"] == "0.5.16 – 0.5.22"


def test_log_from_stdin():
    result = CliRunner().invoke(
        app,
        ["why", "--from-log", "-", "--format", "json"],
        input="noise\nRuntimeError: " + MAPPING + "\n",
    )
    assert result.exit_code == 0, result.stderr
    [err] = json.loads(result.stdout)["errors"]
    assert err["kind"] == "mapping" and err["first_line"] == 2


# ------------------------------------------------------------------ bad input: exit 2, one line, no traceback


@pytest.mark.parametrize(
    "tuples, words",
    [
        (
            "target=(128, 131), draft=(256, 259, 66563)",
            "target=(128, 131) has 2 elements; this message prints 3: (window, ring_size, pages)",
        ),
        (
            "target=(128, abc, 1), draft=(256, 259, 66563)",
            "target element 2 (ring_size) 'abc' is not an integer or None",
        ),
        ("target=(128, None, 1), draft=(256, 259, 66563)", "target ring_size is None"),
        ("target=(128, 131, 33667), draft=(256, 259, 66563", "the draft tuple has no closing ')'"),
        ("target=(128, 131, 33667)", "expected ', draft=(...)'"),
        ("target=(128, 131, 33667), draft=(__import__('os'), 1, 2)", "is not an integer or None"),
        ("(128, 131, 33667), (256, 259, 66563)", "expected target=(...)"),
    ],
)
def test_malformed_tuples_exit_2(tuples, words):
    run = why(f"RuntimeError: DSV4 target and draft pools must share SWA ring geometry: {tuples}")
    assert run.exit_code == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1
    assert "malformed DSV4 target/draft message" in run.stderr and words in run.stderr


def test_paged_wording_needs_its_own_tuple_shape():
    with pytest.raises(TupleError, match="prints 3"):
        parse_tuples(" target=(256, 128), draft=(256, 256)", WORDINGS[5])
    with pytest.raises(TupleError, match="prints 2"):
        parse_tuples(" target=(256, 128, None), draft=(256, 256, None)", WORDINGS[4])


def test_malformed_in_a_log_reports_its_line_and_still_explains_the_rest(tmp_path):
    log = tmp_path / "app.log"
    log.write_text(
        f"RuntimeError: {RING}\nRuntimeError: DSV4 target and draft pools must "
        f"share SWA ring geometry: target=(128, 13\n"
    )
    run = why("--from-log", str(log))
    assert run.exit_code == 2
    assert run.stderr.startswith(f"{log}:2: malformed DSV4 target/draft message")
    assert RING in run.stdout


def test_unrelated_text_exits_2():
    run = why(
        "AssertionError: Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM"
    )
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith(
        NO_ERROR
        + ' in the text (expected e.g. "DSV4 target and draft pools must share SWA ring geometry'
    )
    assert len(run.stderr.strip().splitlines()) == 1


def test_unrelated_log_exits_2():
    run = why("--from-log", "tests/data/logs/unrelated-topk-assertion.log", cwd=ROOT)
    assert run.exit_code == 2
    assert run.stderr.startswith(NO_ERROR + " in tests/data/logs/unrelated-topk-assertion.log")


def test_missing_log_is_one_line():
    run = why("--from-log", "no-such.log")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == "no-such.log: no such file\n"


def test_log_that_is_a_directory_is_one_line(tmp_path):
    run = why("--from-log", str(tmp_path))
    assert run.exit_code == 2
    assert run.stderr == f"{tmp_path}: is a directory, not a log file\n"


def test_binary_log_is_not_a_crash(tmp_path):
    log = tmp_path / "core.gz"
    log.write_bytes(bytes(range(256)) * 64)
    run = why("--from-log", str(log))
    assert run.exit_code == 2 and run.stderr.startswith(NO_ERROR)


def test_usage_errors():
    assert why().exit_code == 2
    assert run_cli("why", "--format", "sarif", RING).exit_code == 2
    assert "why" in run_cli("--help").stdout
    assert "Exit codes: 0" in run_cli("why", "--help").stdout


# ------------------------------------------------------------------ matching deployments


def test_the_failed_deployment_matches_and_names_the_keys():
    run = why("RuntimeError: " + RING, "examples/rocm-draft-window/prefill.yaml", cwd=ROOT)
    assert run.exit_code == 0, run.stderr
    assert run.stderr == ""
    out = run.stdout
    assert "matches: this is the deployment that failed" in out
    assert (
        "examples/models/DeepSeek-V4-Flash-MTP-w256/config.json:14:21: draft: sliding_window 256"
        in out
    )
    assert (
        "examples/rocm-draft-window/prefill.yaml:12:33: draft: "
        "speculative-draft-model-path ../models/DeepSeek-V4-Flash-MTP-w256" in out
    )
    assert "fix (SWA101): Remove speculative-draft-model-path" in out
    assert "examples/rocm-draft-window/prefill.yaml:12:1: delete line 12" in out


def test_json_output_shape():
    run = why(
        "RuntimeError: " + RING,
        "examples/rocm-draft-window/prefill.yaml",
        "--format",
        "json",
        cwd=ROOT,
    )
    assert run.exit_code == 0, run.stderr
    data = run.data
    assert data["version"] == 1
    [err] = data["errors"]
    assert set(err) >= {
        "kind",
        "message",
        "count",
        "first_line",
        "sglang_versions",
        "target",
        "draft",
        "differs",
        "diagnosis",
        "deployments",
    }
    assert (
        err["kind"] == "ring"
        and err["message"] == RING
        and err["count"] == 1
        and err["first_line"] == 1
    )
    assert err["target"] == {
        "tuple": [128, 131, 33667],
        "window": 128,
        "ring_size": 131,
        "pages": 33667,
    }
    assert err["draft"]["window"] == 256
    assert err["differs"] == ["window", "ring_size", "pages"]
    assert all(isinstance(s, str) for s in err["diagnosis"])
    [dep] = err["deployments"]
    assert (
        dep["file"] == "examples/rocm-draft-window/prefill.yaml"
        and dep["name"] == "v4-flash-prefill-rocm-w256-draft"
    )
    assert dep["matches"] is True
    assert {
        "file": "examples/models/DeepSeek-V4-Flash-MTP-w256/config.json",
        "line": 14,
        "column": 21,
        "what": "draft: sliding_window 256",
    } in dep["keys"]
    assert any(
        k["file"] == "examples/rocm-draft-window/prefill.yaml"
        and (k["line"], k["column"]) == (12, 33)
        and k["what"] == "draft: speculative-draft-model-path ../models/DeepSeek-V4-Flash-MTP-w256"
        for k in dep["keys"]
    )
    assert dep["fix"]["code"] == "SWA101" and dep["fix"]["edits"][0]["line"] == 12


def test_json_without_paths_has_no_deployments():
    run = why(UNIFIED_MODE, "--format", "json")
    [err] = run.data["errors"]
    assert (
        err["target"] is None
        and err["draft"] is None
        and err["differs"] == []
        and err["deployments"] == []
    )


def test_two_tuple_paged_message_matches_on_the_first_two_fields():
    run = why(
        PAGED_2,
        "examples/cuda-draft-window/decode.yaml",
        "examples/cuda-paged/prefill.yaml",
        "--format",
        "json",
        cwd=ROOT,
    )
    deps = {d["file"]: d for d in run.data["errors"][0]["deployments"]}
    assert deps["examples/cuda-draft-window/decode.yaml"]["matches"] is True
    assert deps["examples/cuda-draft-window/decode.yaml"]["predicted"] == {
        "target": [256, 128],
        "draft": [256, 256],
    }
    assert deps["examples/cuda-paged/prefill.yaml"]["matches"] is False


def test_a_deployment_in_the_other_kv_mode_does_not_match():
    run = why(RING, "examples/cuda-draft-window/decode.yaml", "--format", "json", cwd=ROOT)
    [dep] = run.data["errors"][0]["deployments"]
    assert dep["matches"] is False and dep["predicted"] is None and "paged KV" in dep["note"]


def test_non_matching_deployment_says_which_numbers_differ():
    run = why(PAGES_ONLY, "examples/rocm-unified/prefill.yaml", cwd=ROOT)
    assert run.exit_code == 0
    assert "does not match" in run.stdout
    assert "draft pages 6419 in the message, 33667 here" in run.stdout
    assert "No deployment predicts this error" in run.stdout


SERVER = (
    EAGLE
    + """\
speculative-draft-model-path: models/mtp256
disaggregation-mode: prefill
"""
)


def test_platform_and_env_options_apply_to_the_paths(tree):
    root = tree({"server.yaml": SERVER})
    plain = why(RING, "server.yaml", "--format", "json", cwd=root)
    assert plain.data["errors"][0]["deployments"][0]["matches"] is False  # CUDA: paged KV
    rocm = why(
        RING,
        "server.yaml",
        "--format",
        "json",
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
        cwd=root,
    )
    [dep] = rocm.data["errors"][0]["deployments"]
    assert dep["matches"] is True
    assert any(
        k["file"] == "server.yaml"
        and k["line"] == 5
        and "speculative-draft-model-path" in k["what"]
        for k in dep["keys"]
    )


def test_project_config_applies_unless_no_config(tree):
    root = tree(
        {
            "server.yaml": SERVER,
            "swacheck.toml": 'platform = "rocm"\nenv = { SGLANG_HACK_FLASHMLA_BACKEND = "unified_kv_triton" }\n',
        }
    )
    assert (
        why(RING, "server.yaml", "--format", "json", cwd=root).data["errors"][0]["deployments"][0][
            "matches"
        ]
        is True
    )
    assert (
        why(RING, "server.yaml", "--format", "json", "--no-config", cwd=root).data["errors"][0][
            "deployments"
        ][0]["matches"]
        is False
    )


def test_unified_mode_matches_explicit_geometry(tree):
    root = tree(
        {
            "dep.yaml": (
                "swacheck: 1\n"
                "target: {geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}}\n"
                "draft: {geometry: {unified: false, page_size: 256, sliding_window: 128}}\n"
            )
        }
    )
    run = why(UNIFIED_MODE, "dep.yaml", "--format", "json", cwd=root)
    [dep] = run.data["errors"][0]["deployments"]
    assert dep["matches"] is True and dep["predicted"] == {"target": True, "draft": False}
    assert [(k["line"], k["what"]) for k in dep["keys"]][0][0] == 3  # the draft's unified key first
    assert dep["fix"]["code"] == "SWA103"


def test_ring_draft_tokens_point_at_num_steps(tree):
    root = tree(
        {
            "server.yaml": EAGLE.replace("speculative-num-steps: 3", "speculative-num-steps: 5")
            + "disaggregation-mode: prefill\n"
        }
    )
    run = why(
        "DSV4 target and draft pools must share SWA ring geometry: target=(128, 131, 33667), draft=(128, 133, 34181)",
        "server.yaml",
        "--format",
        "json",
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
        cwd=root,
    )
    [dep] = run.data["errors"][0]["deployments"]
    assert dep["matches"] is False
    assert {
        "file": "server.yaml",
        "line": 3,
        "column": 24,
        "what": "target, draft: speculative-num-steps 5",
    } in dep["keys"]


def test_input_errors_in_paths_exit_2_but_still_explain():
    run = why(RING, "no-such-dir/server.yaml", cwd=ROOT)
    assert run.exit_code == 2
    assert "no-such-dir/server.yaml" in run.stderr
    assert RING in run.stdout


def test_a_log_path_given_as_text_is_read_as_the_log():
    as_text = why("tests/data/logs/decode-tp8-ring.log", cwd=ROOT)
    from_log = why("--from-log", "tests/data/logs/decode-tp8-ring.log", cwd=ROOT)
    assert as_text.exit_code == from_log.exit_code
    assert as_text.stdout == from_log.stdout and "decode-tp8-ring.log" in as_text.stdout


# ------------------------------------------------------------------ properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_value = st.one_of(st.none(), st.integers(min_value=0, max_value=10**12))


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_parsing_never_raises(text):
    parse = parse_text(text)
    assert all(e.count >= 1 for e in parse.errors)


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(st.integers(0, 10**9), st.integers(0, 10**9), _value),
    st.tuples(st.integers(0, 10**9), st.integers(0, 10**9), _value),
    st.text(alphabet=st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs")), max_size=30),
)
def test_paged_0_5_23_tuples_round_trip_behind_any_prefix(target, draft, prefix):
    text = f"{prefix} RuntimeError: DSV4 target and draft pools must share SWA geometry: target={target}, draft={draft}"
    parse = parse_text(text)
    if "DSV4" in prefix or prefix.lstrip().startswith("raise ") or "RuntimeError(" in prefix:
        return  # a prefix that is itself a message or looks like source code
    [err] = parse.errors
    assert (err.target, err.draft) == (target, draft)
    diagnose(err)  # never raises


def test_a_malformed_message_repeated_by_every_rank_is_reported_once(tmp_path):
    log = tmp_path / "app.log"
    log.write_text(
        "".join(
            f"[TP{i}] RuntimeError: DSV4 target and draft pools must share SWA ring geometry: target=(128, 131)\n"
            for i in range(8)
        )
    )
    run = why("--from-log", str(log))
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        f"{log}:1: malformed DSV4 target/draft message: target=(128, 131) has 2 "
        f"elements; this message prints 3: (window, ring_size, pages) (8 times)"
    ]


def test_a_message_cut_short_then_another_message():
    parse = parse_text(
        "RuntimeError: DSV4 target and draft pools must share SWA ring geometry:\nRuntimeError: "
        + MAPPING
        + "\n"
    )
    assert [m.line for m in parse.malformed] == [1]
    assert [e.kind for e in parse.errors] == ["mapping"]
