"""SWA207 pd-pipeline-args-refused: pipeline parallelism with speculative decoding, prefill_complete."""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc, only

DSPARK = "model-path: models/v4\nspeculative-algorithm: DSPARK\nspeculative-draft-model-path: models/v4\n"
OVERLAP = "AssertionError: Pipeline parallelism is not compatible with overlap schedule, speculative decoding"
PREFILL_ONLY = (
    "AssertionError: PP + speculative decoding (MTP) is only supported on "
    "prefill nodes (disaggregation-mode=prefill)"
)


def lint_server(lint, text, version, *args):
    return lint({"server.yaml": text}, "--sglang-version", version, *args)


@pytest.mark.parametrize(
    ("version", "mode", "message"),
    [
        ("0.5.12", "'null'", OVERLAP),  # server_args.py 0.5.12:7253
        ("0.5.17", "decode", OVERLAP),  # server_args.py 0.5.17:8723
        ("0.5.17", "prefill", OVERLAP),
        ("0.5.20", "decode", OVERLAP),  # validation_hook.py 0.5.20:82 (non-NPU)
        ("0.5.20", "prefill", OVERLAP),
        ("0.5.22", "decode", PREFILL_ONLY),  # validation_hook.py 0.5.22:160
        ("0.5.23", "decode", PREFILL_ONLY),  # validation_hook.py 0.5.23:161
        ("0.5.23", "'null'", PREFILL_ONLY),
    ],
)
def test_pp_with_eagle_is_refused_where_the_release_refuses_it(lint, version, mode, message):
    run = lint_server(lint, EAGLE + f"disaggregation-mode: {mode}\npp-size: 2\n", version)
    assert run.exit_code == 1
    f = only(run, "SWA207")
    assert f["severity"] == "error"
    assert f["message"].endswith(message)
    assert f["message"].startswith("pp-size 2 with speculative-algorithm EAGLE")
    assert loc(f) == ("server.yaml", 6, 1)


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_pp_with_eagle_on_a_prefill_server_passes_from_0_5_21(lint, version):
    run = lint_server(lint, EAGLE + "disaggregation-mode: prefill\npp-size: 2\n", version)
    assert run.findings("SWA207") == []


def test_pp_1_or_no_speculative_decoding_passes(lint):
    assert (
        lint_server(lint, EAGLE + "disaggregation-mode: decode\npp-size: 1\n", "0.5.17").findings(
            "SWA207"
        )
        == []
    )
    assert (
        lint_server(
            lint, "model-path: models/v4\ndisaggregation-mode: decode\npp-size: 2\n", "0.5.17"
        ).findings("SWA207")
        == []
    )


def test_npu_eagle_on_a_prefill_server_passes_in_0_5_20_only(lint):
    text = "swacheck: 1\nplatform: npu\nserver:\n" + "".join(
        "  " + line + "\n"
        for line in (EAGLE + "disaggregation-mode: prefill\npp-size: 2\n").splitlines()
    )
    assert lint({"deploy.yaml": text}, "--sglang-version", "0.5.20").findings("SWA207") == []
    f = only(lint({"deploy.yaml": text}, "--sglang-version", "0.5.19"), "SWA207")
    assert f["message"].endswith(OVERLAP)
    decode = text.replace("disaggregation-mode: prefill", "disaggregation-mode: decode")
    f = only(lint({"deploy.yaml": decode}, "--sglang-version", "0.5.20"), "SWA207")
    assert f["message"].endswith(
        "NPU PP + speculative decoding (MTP) is only supported on prefill nodes (disaggregation-mode=prefill)"
    )


@pytest.mark.parametrize(
    ("version", "mode", "ending"),
    [
        (
            "0.5.20",
            "prefill",
            "ValueError: Currently DSpark speculative decoding only supports pp_size == 1. (speculative hook)",
        ),
        (
            "0.5.23",
            "decode",
            "ValueError: DSpark pipeline parallelism requires PD prefill; decode and "
            "non-disaggregated serving require pp_size == 1. (speculative hook)",
        ),
    ],
)
def test_dspark_with_pp_is_refused_by_its_own_hook(lint, version, mode, ending):
    run = lint_server(lint, DSPARK + f"disaggregation-mode: {mode}\npp-size: 2\n", version)
    assert only(run, "SWA207")["message"].endswith(ending)


def test_dspark_with_pp_on_a_prefill_server_passes_in_0_5_23(lint):
    assert (
        lint_server(lint, DSPARK + "disaggregation-mode: prefill\npp-size: 2\n", "0.5.23").findings(
            "SWA207"
        )
        == []
    )


def test_sglang_enable_pp_spec_allows_pp_without_pd_only(lint):
    def deploy(mode):
        server = EAGLE + f"disaggregation-mode: {mode}\npp-size: 2\n"
        return "swacheck: 1\nenv:\n  SGLANG_ENABLE_PP_SPEC: '1'\nserver:\n" + "".join(
            "  " + line + "\n" for line in server.splitlines()
        )

    assert (
        lint({"deploy.yaml": deploy("'null'")}, "--sglang-version", "0.5.23").findings("SWA207")
        == []
    )
    f = only(lint({"deploy.yaml": deploy("decode")}, "--sglang-version", "0.5.23"), "SWA207")
    assert f["message"].endswith(
        "AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with --disaggregation-mode"
    )


# --- disaggregation-decode-allocation-policy: prefill_complete (0.5.22+) -------------------
PC = "disaggregation-decode-allocation-policy: prefill_complete\n"


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_prefill_complete_with_attention_tp_is_refused(lint, version):
    # pd_disaggregation_hook.py _validate_prefill_complete: 0.5.23:239, 0.5.22:245
    run = lint_server(lint, EAGLE + "disaggregation-mode: decode\ntp-size: 8\n" + PC, version)
    assert run.exit_code == 1
    f = only(run, "SWA207")
    assert f["message"] == (
        "ValueError: --disaggregation-decode-allocation-policy prefill_complete does not yet support "
        "attention tensor parallelism greater than one"
    )
    assert loc(f) == ("server.yaml", 7, 42)


def test_prefill_complete_lists_every_unsupported_feature_in_sglang_order(lint):
    extra = (
        "tp-size: 2\npp-size: 2\ndisaggregation-transfer-backend: nixl\nenable-hisparse: true\n"
        + PC
    )
    run = lint_server(lint, "model-path: models/v4\n" + extra, "0.5.23")
    f = only(run, "SWA207")
    assert f["message"].endswith(
        "does not yet support aggregated serving, transfer backends other than Mooncake, pipeline or attention "
        "context parallelism, attention tensor parallelism greater than one, HiSparse"
    )


@pytest.mark.parametrize(
    "extra",
    [
        "tp-size: 1\n",
        "disaggregation-transfer-backend: mooncake\n",
    ],
)
def test_prefill_complete_on_a_supported_decode_server_passes(lint, extra):
    run = lint_server(lint, EAGLE + "disaggregation-mode: decode\n" + extra + PC, "0.5.23")
    assert run.findings("SWA207") == [], run.stdout


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize("dp", ["attn-dp-size: 8\n", "attn-dp-size: 2\n"])
def test_prefill_complete_with_tp_is_refused_even_with_attention_dp(lint, version, dp):
    # the check reads enable_dp_attention, which the deprecated-flag handler has cleared by then
    # (pd_disaggregation_hook.py 0.5.23:208-210, parallel_hook.py 0.5.23:50-61); real SGLang
    # refuses tp-size 8 with attn-dp-size 2 (conformance matrix case matrix-0-0058)
    run = lint_server(lint, EAGLE + "disaggregation-mode: decode\ntp-size: 8\n" + dp + PC, version)
    f = only(run, "SWA207")
    assert f["message"].endswith("attention tensor parallelism greater than one")


@pytest.mark.parametrize("version", ["0.5.17", "0.5.20"])
def test_before_0_5_22_the_policy_is_an_unknown_key(lint, version):
    run = lint_server(lint, EAGLE + "disaggregation-mode: decode\ntp-size: 8\n" + PC, version)
    assert run.findings("SWA207") == []
    assert "unknown server argument" in only(run, "SWA303")["message"]


@pytest.mark.parametrize(("version", "pd_hook_first"), [("0.5.22", True), ("0.5.23", False)])
def test_prefill_complete_before_a_refused_checkpoint_in_sglangs_order(
    lint, version, pd_hook_first
):
    # conformance matrix-1001-0026: 0.5.22 runs the PD hook before it loads the config.json
    # (arg_groups/pipeline.py 0.5.22:138 vs 175) and stops on prefill_complete; 0.5.23 loads the
    # config first and stops on the null key (SWA260)
    import json

    from conftest import V4_FLASH

    config = json.loads(V4_FLASH)
    config["num_nextn_predict_layers"] = None
    server = (
        "model-path: models/odd\ntp-size: 8\ndisaggregation-mode: prefill\n"
        "disaggregation-decode-allocation-policy: prefill_complete\n"
    )
    run = lint(
        {"server.yaml": server, "models/odd/config.json": json.dumps(config)},
        "--sglang-version",
        version,
    )
    assert len(run.findings("SWA260")) == 1
    found = [f["message"] for f in run.findings("SWA207")]
    if pd_hook_first:
        assert found == [
            "ValueError: --disaggregation-decode-allocation-policy prefill_complete does not yet "
            "support attention tensor parallelism greater than one"
        ]
    else:
        assert found == []


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_a_refused_draft_checkpoint_reports_prefill_complete_once(lint, version):
    import json

    from conftest import V4_FLASH

    draft = json.loads(V4_FLASH)
    draft.pop("index_head_dim")  # ModelConfig stops on the draft, after the arguments resolved
    server = (
        EAGLE + "tp-size: 8\ndisaggregation-mode: prefill\n"
        "disaggregation-decode-allocation-policy: prefill_complete\n"
        "speculative-draft-model-path: models/draft\n"
    )
    run = lint(
        {"server.yaml": server, "models/draft/config.json": json.dumps(draft)},
        "--sglang-version",
        version,
    )
    assert len(run.findings("SWA260")) == 1
    assert len(run.findings("SWA207")) == 1
