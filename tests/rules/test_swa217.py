"""SWA217 speculative-switch-refused: the speculative hook's switch refusals.

Each refusal was run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/
speculative-switches.yaml, spec-coordination.yaml): same verdict, SGLang's message.
"""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc, only


def deployment(env: str, server: str) -> str:
    return f"swacheck: 1\nplatform: cuda\nenv: {{{env}}}\nserver:\n" + "".join(
        "  " + line + "\n" for line in server.splitlines()
    )


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 228), ("0.5.22", 214)])
def test_a_sink_without_a_window_is_refused(lint, version, line):
    run = lint(
        {"server.yaml": EAGLE + "speculative-draft-sink-size: 4\n"}, "--sglang-version", version
    )
    assert run.exit_code == 1
    f = only(run, "SWA217")
    assert f["message"] == (
        "speculative-draft-sink-size: 4: ValueError: --speculative-draft-sink-size requires "
        f"--speculative-draft-window-size. (arg_groups/speculative_hook.py:{line} "
        f"handle_speculative_decoding, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 5, 30)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "speculative-draft-window-size: 0\n",
            "--speculative-draft-window-size must be positive, got 0.",
        ),
        (
            "speculative-draft-window-size: 256\nspeculative-draft-sink-size: -1\n",
            "--speculative-draft-sink-size must be non-negative, got -1.",
        ),
        (
            "speculative-use-rejection-sampling: true\nspeculative-accept-threshold-single: 0.5\n",
            "rejection sampling ignores the accept thresholds.",
        ),
        (
            "speculative-use-block-verification: true\nspeculative-accept-threshold-acc: 0.9\n",
            "rejection sampling ignores the accept thresholds.",
        ),
    ],
)
def test_each_refused_switch(lint, extra, message):
    run = lint({"server.yaml": EAGLE + extra})
    assert message in only(run, "SWA217")["message"]


def test_a_window_without_speculative_decoding_is_checked_too(lint):
    run = lint({"server.yaml": "model-path: models/v4\nspeculative-draft-window-size: -4\n"})
    assert "must be positive, got -4." in only(run, "SWA217")["message"]


@pytest.mark.parametrize(
    "extra",
    [
        "speculative-draft-window-size: 256\nspeculative-draft-sink-size: 4\n",
        "speculative-use-rejection-sampling: true\n",
        "speculative-use-rejection-sampling: true\nspeculative-accept-threshold-single: 1.0\n",
        "speculative-accept-threshold-single: 0.5\n",
    ],
)
def test_what_the_hook_takes_passes(lint, extra):
    run = lint({"server.yaml": EAGLE + extra})
    assert run.findings("SWA217") == []


@pytest.mark.parametrize(
    ("server", "refused"),
    [
        ("model-path: models/v4\n", True),
        (EAGLE + "enable-multi-layer-eagle: true\n", True),
        (EAGLE, False),
    ],
)
def test_dp_spec_prefill_coordination(lint, server, refused):
    text = deployment("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION: 'True'", server)
    run = lint({"deploy.yaml": text})
    found = run.findings("SWA217")
    if not refused:
        assert found == []
        return
    assert found[0]["message"].startswith(
        "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=True: ValueError: DP spec/prefill "
        "coordination requires single-layer EAGLE, EAGLE3 or DSPARK (arg_groups/"
        "speculative_hook.py:257 handle_speculative_decoding, SGLang 0.5.23)"
    )
    assert loc(found[0]) == ("deploy.yaml", 3, 51)


def test_coordination_off_passes(lint):
    run = lint(
        {
            "deploy.yaml": deployment(
                "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION: '0'", "model-path: models/v4\n"
            )
        }
    )
    assert run.findings("SWA217") == []


def test_skip_dp_mlp_sync_with_dspark_is_refused_in_0_5_22_only(lint, tree):
    server = (
        "model-path: models/v4\nspeculative-algorithm: DSPARK\n"
        "speculative-draft-model-path: models/v4\nspeculative-skip-dp-mlp-sync: true\n"
    )
    run = lint({"server.yaml": server}, "--sglang-version", "0.5.22")
    f = only(run, "SWA217")
    assert "AssertionError: --speculative-skip-dp-mlp-sync is only supported with " in f["message"]
    assert "got DSPARK. (arg_groups/speculative_hook.py:239" in f["message"]
    newer = lint({"server.yaml": server}, "--sglang-version", "0.5.23")
    assert newer.findings("SWA217") == []
    assert newer.findings("SWA303")  # 0.5.23 has no such flag
