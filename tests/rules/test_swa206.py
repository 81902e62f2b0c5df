"""SWA206 online-compress-mtp: SGLANG_OPT_USE_ONLINE_COMPRESS=1 with speculative decoding on CUDA."""

from __future__ import annotations

import pytest
from conftest import loc, only


def deployment(env: str, platform: str = "cuda", spec: bool = True) -> str:
    server = "  model-path: models/v4\n"
    if spec:
        server += "  speculative-algorithm: EAGLE\n  speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
    return f"swacheck: 1\nplatform: {platform}\nenv:\n{env}server:\n{server}"


ON = '  SGLANG_OPT_USE_ONLINE_COMPRESS: "1"\n'


@pytest.mark.parametrize("version", ["0.5.17", "0.5.20", "0.5.22", "0.5.23"])
def test_online_compress_with_mtp_is_refused_in_every_release(lint, version):
    # mem_cache/deepseek_v4_memory_pool.py get_compress_state_ring_size: 0.5.23:74, 0.5.22:64, 0.5.20:50, 0.5.17:43
    run = lint({"deploy.yaml": deployment(ON)}, "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA206")
    assert f["severity"] == "error"
    assert "AssertionError: online c128 does not support MTP" in f["message"]
    assert loc(f) == ("deploy.yaml", 4, 35)
    assert f["fix"]["edits"] == []


@pytest.mark.parametrize(
    ("env", "platform", "spec"),
    [
        ('  SGLANG_OPT_USE_ONLINE_COMPRESS: "0"\n', "cuda", True),
        (ON + '  SGLANG_EXPERIMENTAL_ONLINE_C128_MTP: "true"\n', "cuda", True),
        (ON, "rocm", True),  # ONLINE_C128 = not _is_hip and ...
        (ON, "cuda", False),  # no speculative decoding
        ("  OTHER: x\n", "cuda", True),
    ],
)
def test_other_combinations_pass(lint, env, platform, spec):
    run = lint({"deploy.yaml": deployment(env, platform, spec)})
    assert run.findings("SWA206") == [], run.stdout


def test_a_target_without_c128_layers_passes(lint):
    import json

    from conftest import V4_FLASH

    config = dict(json.loads(V4_FLASH))
    config["compress_ratios"] = [0 if r == 128 else r for r in config["compress_ratios"]]
    run = lint(
        {"models/v4/config.json": json.dumps(config), "deploy.yaml": deployment(ON)},
        target="deploy.yaml",
    )
    assert run.findings("SWA206") == [], run.stdout
