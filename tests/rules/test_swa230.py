"""SWA230 pd-args-refused: what SGLang's PD hook (and its PD queues) refuse on one server."""

from __future__ import annotations

import pytest
from conftest import EAGLE, loc, only

ROLE = (
    "ValueError: --enable-pd-role-switch does not rebuild role-specific state for the following "
    "features: {}. Remove these options or drop --enable-pd-role-switch."
)


def lint_server(lint, text, version="0.5.23", env=()):
    args = ["--sglang-version", version]
    for e in env:
        args += ["--env", e]
    return lint({"server.yaml": text}, *args)


def message(run):
    return only(run, "SWA230")["message"]


@pytest.mark.parametrize(
    ("version", "extra", "features"),
    [
        # pd_disaggregation_hook.py 0.5.23:164-197: speculative decoding is listed last
        ("0.5.23", EAGLE.split("\n", 1)[1], "speculative decoding (--speculative-algorithm EAGLE)"),
        (
            "0.5.23",
            "ep-size: 8\npp-size: 2\ndcp-size: 2\n",
            "expert parallelism (--ep-size 8), pipeline parallelism (--pp-size 2), "
            "decode context parallelism (--dcp-size 2)",
        ),
        ("0.5.23", "moe-a2a-backend: deepep\n", "MoE all-to-all (--moe-a2a-backend deepep)"),
        (
            "0.5.23",
            "attn-dp-size: 2\nenable-dp-attention-local-control-broadcast: true\n",
            "DP attention local control broadcast",
        ),
        # 0.5.22:171-201: attention DP first, data parallelism after pipeline parallelism
        (
            "0.5.22",
            "attn-dp-size: 2\npp-size: 2\n",
            "attention DP (--attn-dp-size 2), pipeline parallelism (--pp-size 2)",
        ),
        ("0.5.22", "dp-size: 2\n", "data parallelism (--dp-size 2)"),
        ("0.5.21", "dp-size: 2\n", "data parallelism (--dp-size 2)"),
    ],
)
def test_role_switch_with_what_a_flip_does_not_rebuild(lint, version, extra, features):
    text = (
        f"model-path: models/v4\ndisaggregation-mode: decode\nenable-pd-role-switch: true\n{extra}"
    )
    run = lint_server(lint, text, version)
    assert run.exit_code == 1
    f = only(run, "SWA230")
    assert f["message"] == (
        f"SGLang {version} refuses this PD server: {ROLE.format(features)} "
        "(arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation)"
    )
    assert loc(f) == ("server.yaml", 3, 24)


@pytest.mark.parametrize(
    ("version", "extra"),
    [
        ("0.5.23", "attn-dp-size: 2\n"),  # attention DP alone is fine from 0.5.23
        ("0.5.23", "dp-size: 2\n"),
        ("0.5.23", "tp-size: 8\n"),
        ("0.5.22", "tp-size: 8\n"),
    ],
)
def test_role_switch_alone_is_accepted(lint, version, extra):
    text = (
        f"model-path: models/v4\ndisaggregation-mode: prefill\nenable-pd-role-switch: true\n{extra}"
    )
    assert lint_server(lint, text, version).findings("SWA230") == []


def test_role_switch_without_pd_is_not_checked(lint):
    text = "model-path: models/v4\nenable-pd-role-switch: true\n" + EAGLE.split("\n", 1)[1]
    assert lint_server(lint, text).findings("SWA230") == []


@pytest.mark.parametrize(
    ("version", "extra", "said"),
    [
        (
            "0.5.23",
            "disaggregation-decode-host-receive-threshold: 1.5\n",
            "must be between 0 and 1",
        ),
        (
            "0.5.23",
            "disaggregation-decode-host-receive-threshold: 0.5\nenable-pd-role-switch: true\n",
            "Decode host receive does not yet support HiSparse or role switching",
        ),
        (
            "0.5.22",
            "disaggregation-decode-host-receive-threshold: 0.5\n"
            "disaggregation-decode-retraction-backup: cpu_tensor\n",
            "Decode host KV buffering requires host_pool retraction",
        ),
        # 0.5.21: host receive is on above 0 (its default is 0)
        (
            "0.5.21",
            "disaggregation-decode-host-receive-threshold: 0.5\nenable-hisparse: true\n",
            "Decode host receive does not yet support HiSparse or role switching",
        ),
    ],
)
def test_host_receive_threshold(lint, version, extra, said):
    text = f"model-path: models/v4\ndisaggregation-mode: decode\n{extra}"
    run = lint_server(lint, text, version)
    assert said in message(run)
    assert loc(only(run, "SWA230"))[1] in (3, 4)


@pytest.mark.parametrize(
    ("version", "value"), [("0.5.23", "1"), ("0.5.23", "1.0"), ("0.5.21", "0"), ("0.5.22", "0.5")]
)
def test_host_receive_off_or_without_what_it_refuses(lint, version, value):
    text = (
        "model-path: models/v4\ndisaggregation-mode: decode\nenable-pd-role-switch: true\n"
        f"disaggregation-decode-host-receive-threshold: {value}\n"
    )
    run = lint_server(lint, text, version)
    found = run.findings("SWA230")
    if (version, value) == ("0.5.22", "0.5"):  # host receive on with role switching
        assert len(found) == 1 and "HiSparse or role switching" in found[0]["message"]
    else:
        assert found == []


def test_a_fake_prefill(lint):
    text = "model-path: models/v4\ndisaggregation-mode: prefill\ndisaggregation-transfer-backend: fake\n"
    f = only(lint_server(lint, text), "SWA230")
    assert (
        "AssertionError: Prefill server does not support 'fake' as the transfer backend"
        in f["message"]
    )
    assert loc(f) == ("server.yaml", 3, 34)
    decode = text.replace("prefill\n", "decode\n", 1)
    assert lint_server(lint, decode).findings("SWA230") == []


@pytest.mark.parametrize(
    ("version", "extra", "said"),
    [
        ("0.5.23", "enable-hisparse: true\n", "incompatible with --enable-hisparse"),
        (
            "0.5.23",
            "disaggregation-transfer-backend: fake\n",
            "incompatible with --disaggregation-transfer-backend fake",
        ),
        (
            "0.5.22",
            EAGLE.split("\n", 1)[1],
            "incompatible with speculative decoding (--speculative-algorithm EAGLE)",
        ),
    ],
)
def test_decode_radix_cache(lint, version, extra, said):
    text = (
        "model-path: models/v4\ndisaggregation-mode: decode\n"
        f"disaggregation-decode-enable-radix-cache: true\n{extra}"
    )
    assert said in message(lint_server(lint, text, version))


def test_decode_radix_cache_with_eagle_from_0_5_23(lint):
    text = (
        "model-path: models/v4\ndisaggregation-mode: decode\n"
        "disaggregation-decode-enable-radix-cache: true\n" + EAGLE.split("\n", 1)[1]
    )
    assert lint_server(lint, text).findings("SWA230") == []


@pytest.mark.parametrize("mode", ["prefill", "decode"])
def test_staging_buffer_on_a_dsv4_pd_server(lint, mode):
    text = f"model-path: models/v4\ndisaggregation-mode: {mode}\n"
    f = only(lint_server(lint, text, env=["SGLANG_DISAGG_STAGING_BUFFER=1"]), "SWA230")
    assert (
        "RuntimeError: SGLANG_DISAGG_STAGING_BUFFER is designed for non-MLA models" in f["message"]
    )
    queue = "PrefillBootstrapQueue" if mode == "prefill" else "DecodePreallocQueue"
    assert queue in f["message"]


def test_staging_buffer_with_mori_is_refused_by_the_hook_first(lint):
    text = "model-path: models/v4\ndisaggregation-mode: decode\ndisaggregation-transfer-backend: mori\n"
    run = lint_server(lint, text, env=["SGLANG_DISAGG_STAGING_BUFFER=true"])
    found = run.findings("SWA230")
    assert (
        "requires disaggregation_transfer_backend='mooncake' or 'nixl', got 'mori'"
        in found[0]["message"]
    )
    tcp = text.replace("mori", "mooncake_tcp")
    found = lint_server(lint, tcp, env=["SGLANG_DISAGG_STAGING_BUFFER=1"]).findings("SWA230")
    assert len(found) == 1 and "non-MLA" in found[0]["message"]  # mooncake_tcp is Mooncake


def test_nothing_without_pd_or_on_an_old_release(lint):
    assert (
        lint_server(
            lint, "model-path: models/v4\n", env=["SGLANG_DISAGG_STAGING_BUFFER=1"]
        ).findings("SWA230")
        == []
    )
    text = "model-path: models/v4\ndisaggregation-mode: prefill\ndisaggregation-transfer-backend: fake\n"
    assert lint_server(lint, text, "0.5.20").findings("SWA230") == []


@pytest.mark.parametrize(
    ("mode", "extra", "said"),
    [
        # kv_cache_hook.py handle_cache_compatibility 0.5.23:352-365: host receive sets host_pool
        (
            "prefill",
            "disaggregation-decode-host-receive-threshold: 0.5\n",
            "host_pool is only supported on a PD decode server",
        ),
        (
            "'null'",
            "disaggregation-decode-retraction-backup: host_pool\n",
            "host_pool is only supported on a PD decode server",
        ),
        (
            "decode",
            "disaggregation-decode-retraction-backup: host_pool\ndcp-size: 2\n",
            "does not support --dcp-size > 1",
        ),
    ],
)
def test_host_pool_retraction_off_a_decode_server(lint, mode, extra, said):
    text = f"model-path: models/v4\ndisaggregation-mode: {mode}\n{extra}"
    assert said in message(lint_server(lint, text))


def test_host_pool_retraction_on_a_decode_server_is_accepted(lint):
    text = "model-path: models/v4\ndisaggregation-mode: decode\ndisaggregation-decode-retraction-backup: host_pool\n"
    assert lint_server(lint, text).findings("SWA230") == []


def _nowin_draft() -> str:
    import json

    from conftest import V4_FLASH

    config = json.loads(V4_FLASH)
    config.pop("sliding_window")
    return json.dumps(config)


def _with_nowin_draft(lint, extra: str, *args: str):
    """An EAGLE PD decode server whose draft config.json has no sliding_window."""
    text = (
        f"model-path: models/v4\ndisaggregation-mode: decode\n{extra}"
        + EAGLE.split("\n", 1)[1]
        + "speculative-draft-model-path: models/nowin\n"
    )
    return lint({"server.yaml": text, "models/nowin/config.json": _nowin_draft()}, *args)


@pytest.mark.parametrize("version", ["0.5.22", "0.5.23"])
def test_the_hook_refuses_before_a_draft_config_sglang_cannot_load(lint, version):
    """A draft config.json without sliding_window fails when the draft worker builds its
    ModelConfig (SWA208); the PD hook runs in argument resolution before it
    (arg_groups/pipeline.py 0.5.23:147 vs the speculative hook at :306; 0.5.22:138, :294), so
    its refusal is SGLang's first and is reported too (conformance matrix seed 2002 case 48)."""
    run = _with_nowin_draft(lint, "enable-pd-role-switch: true\n", "--sglang-version", version)
    assert only(run, "SWA208")
    assert only(run, "SWA230")["message"].startswith(
        f"SGLang {version} refuses this PD server: ValueError: --enable-pd-role-switch"
    )


def test_a_scheduler_refusal_never_comes_after_a_draft_config_sglang_cannot_load(lint):
    """The staging-buffer refusal is raised at scheduler start, after the draft worker failed."""
    run = _with_nowin_draft(lint, "", "--env", "SGLANG_DISAGG_STAGING_BUFFER=1")
    assert only(run, "SWA208")
    assert run.findings("SWA230") == []
