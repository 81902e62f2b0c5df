"""SWA242 adaptive-config-refused and SWA243 compress-ring-overflow: the adaptive speculative
config file's candidate steps, and the draft tokens the DSV4 compress-state rings can serve.

Run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/adaptive-config.yaml: 13 of 13
agree in each, the tuples included: the default steps are the file's middle candidate;
adaptive-config-mapping.yaml: 3 of 3).
"""

from __future__ import annotations

import json

import pytest
from conftest import loc, only

ROCM = ("--platform", "rocm", "--env", "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
BASE = (
    "model-path: models/v4\ntp-size: 8\ndisaggregation-mode: decode\nmax-running-requests: 4\n"
    "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-adaptive: true\n"
)


def files(extra: str, config: object | str | None = None) -> dict[str, str]:
    out = {"server.yaml": BASE + extra}
    if config is not None:
        out["ad.json"] = config if isinstance(config, str) else json.dumps(config)
    return out


def ring(run) -> int:
    return run.deployments[0]["draft"]["tuple"][1]


def test_unset_steps_are_the_middle_candidate_of_the_file(lint):
    cfg = {"1": {"candidate_steps": [1, 3, 7]}, "8": {"candidate_steps": [0, 1]}}
    run = lint(files("speculative-adaptive-config: ad.json\n", cfg), *ROCM)
    assert run.exit_code == 0, run.stdout
    assert ring(run) == 128 + 3  # steps 3 (middle of [0, 1, 3, 7]) -> 4 draft tokens
    run = lint(
        files("speculative-adaptive-config: ad.json\n", {"1": {"candidate_steps": [2]}}), *ROCM
    )
    assert ring(run) == 128 + 2


def test_without_a_file_sglangs_default_candidates(lint):
    assert lint(files("speculative-num-steps: 5\n"), *ROCM).codes() == []
    run = lint(files("speculative-num-steps: 4\n"), *ROCM)
    f = only(run, "SWA242")
    assert f["message"].startswith(
        "ValueError: --speculative-num-steps=4 is not in the adaptive config candidate_steps "
        "[0, 1, 3, 5, 7]. Pass one of those values."
    )
    assert loc(f) == ("server.yaml", 8, 24)


def test_steps_not_among_the_files_candidates(lint):
    run = lint(
        files(
            "speculative-adaptive-config: ad.json\nspeculative-num-steps: 4\n",
            {"1": {"candidate_steps": [1, 3, 7]}},
        ),
        *ROCM,
    )
    assert "candidate_steps [1, 3, 7]" in only(run, "SWA242")["message"]


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ({"bs": {"candidate_steps": [1]}}, "must contain at least one integer-string BS key"),
        (
            {"1": {"candidate_steps": [1, -1]}},
            "BS 1: candidate_steps must be a list of non-negative ints, got [1, -1]",
        ),
        (
            {"1": {"candidate_steps": []}},
            "BS 1: candidate_steps must be a list of non-negative ints, got []",
        ),
        ({"1": {"steps": [1]}}, "got None"),
        ('{"1": ', "JSONDecodeError"),
        ("[1]", "AttributeError: 'list' object has no attribute 'items'"),
    ],
)
def test_a_file_sglang_refuses(lint, config, said):
    run = lint(files("speculative-adaptive-config: ad.json\n", config), *ROCM)
    assert run.exit_code == 1
    assert run.codes() == ["SWA242"]  # no second finding about the steps SGLang never reaches
    f = only(run, "SWA242")
    assert said in f["message"]
    assert loc(f) == ("server.yaml", 8, 30)


def test_a_missing_file_is_a_warning_not_a_guess(lint):
    run = lint(files("speculative-adaptive-config: nowhere.json\n"), *ROCM)
    f = only(run, "SWA242")
    assert f["severity"] == "warning"
    assert "is not a file here" in f["message"]


def test_a_file_outside_the_root_is_not_read(lint, tmp_path):
    outside = tmp_path.parent / "outside-adaptive.json"
    outside.write_text(json.dumps({"1": {"candidate_steps": [9]}}))
    run = lint(files(f"speculative-adaptive-config: {outside}\n"), *ROCM)
    f = only(run, "SWA242")
    assert f["severity"] == "warning" and "outside the root" in f["message"]


def test_adaptive_off_with_attention_dp_reads_no_file(lint):
    run = lint(
        files(
            "speculative-adaptive-config: ad.json\nspeculative-num-steps: 4\nattn-dp-size: 2\n",
            "not json",
        ),
        *ROCM,
    )
    assert run.findings("SWA242") == []


@pytest.mark.parametrize(("steps", "refused"), [(9, False), (10, True)])
def test_static_steps_against_the_c4_ring(lint, steps, refused):
    server = "model-path: models/v4\ntp-size: 8\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"
    run = lint({"server.yaml": server + f"speculative-num-steps: {steps}\n"})
    found = run.findings("SWA243")
    assert bool(found) == refused
    if refused:
        assert (
            "AssertionError: speculative_num_draft_tokens=11 exceeds what the c4 compress state ring"
            in found[0]["message"]
        )
        assert loc(found[0]) == ("server.yaml", 5, 24)


def test_the_largest_adaptive_tier_against_the_ring(lint):
    run = lint(
        files("speculative-adaptive-config: ad.json\n", {"1": {"candidate_steps": [1, 3, 12]}}),
        *ROCM,
    )
    f = only(run, "SWA243")
    assert "speculative_num_draft_tokens=13" in f["message"]
    assert "the largest adaptive tier: candidate steps 12 + 1" in f["message"]


def test_a_release_whose_assert_was_not_read_is_left_alone(lint):
    server = "model-path: models/v4\ntp-size: 8\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"
    run = lint(
        {"server.yaml": server + "speculative-num-steps: 10\n"}, "--sglang-version", "0.5.21"
    )
    assert run.findings("SWA243") == []  # a release whose assert was not read


def test_a_mapping_is_passed_on_as_its_json_text_and_opened_as_a_path(lint):
    """conformance/cases/adaptive-config-mapping.yaml: SGLang 0.5.23 and 0.5.22 stop with a
    FileNotFoundError naming the JSON text (the --config loader json.dumps a mapping)."""
    run = lint(files('speculative-adaptive-config:\n  "1": {candidate_steps: [1, 3]}\n'), *ROCM)
    assert run.exit_code == 1
    f = only(run, "SWA242")
    assert "FileNotFoundError: [Errno 2] No such file or directory: " in f["message"]
    assert """'{"1": {"candidate_steps": [1, 3]}}'""" in f["message"]
    assert "write the mapping to a JSON file and give its path" in f["message"]
    assert run.findings("SWA304") == []  # not argparse's: it takes the text
