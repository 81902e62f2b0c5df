"""Safe and unsafe fixes (ruff's model): every rule declares FIX_SAFETY and says it in its doc
(tests/test_cli.py); here the fixes the rules actually make are held to it, over the bundled
examples and inputs written to trigger every rule that has edits."""

from __future__ import annotations

import shutil

from conftest import EXAMPLES, run_cli

from swacheck.rules import BY_CODE

SERVERS = {
    # SWA201, SWA202 (NEXTN), SWA203, SWA301, SWA303 (typo, removed flag, underscore, refused key)
    "a/server.yaml": (
        "model-path: models/v4\nspeculative-algorithm: "
        "NEXTN\nspeculative-num-steps: 3\nspeculative-num-draft-tokens: 9\n"
        "page-size: 64\npage-size: 32\nmax-runing-requests: "
        "8\ndisable-piecewise-cuda-graph: true\nchunked_prefill_size: 8\n"
        "enable-dp-attention: true\ndp-size: 2\n"
    ),
    # SWA202 (top-k 2), SWA205 (dtype), SWA102 (draft path)
    "b/server.yaml": (
        "model-path: models/v4\nspeculative-draft-model-path: models/mtp256\ndisaggregation-mode: decode\n"
        "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 2\nspeculative-num-steps: 3\nkv-cache-dtype: bf16\n"
    ),
    # SWA204: fp8 unified KV under PD with pp-size 2
    "c/d.yaml": (
        "swacheck: 1\nplatform: rocm\nenv: {SGLANG_HACK_FLASHMLA_BACKEND: "
        "unified_kv_triton, SGLANG_DSV4_UNIFIED_KV_FP8: '1'}\n"
        "server:\n  model-path: models/v4\n  disaggregation-mode: decode\n  "
        "pp-size: 2\n  speculative-algorithm: EAGLE\n"
        "  speculative-eagle-topk: 1\n  speculative-num-steps: 3\n"
    ),
}


def _fixes(run):  # type: ignore[no-untyped-def]
    for d in run.deployments:
        for f in d["findings"]:
            if f["fix"] is not None:
                yield f["code"], f["fix"]


def test_fixes_are_as_safe_as_their_rule_says(tree):
    root = tree(SERVERS)
    shutil.copytree(EXAMPLES, root / "examples")
    seen: dict[str, set[bool]] = {}
    for paths in (["a", "b", "c"], ["examples"]):
        run = run_cli("--format", "json", *paths, cwd=root)
        for code, fix in _fixes(run):
            if fix["edits"]:
                seen.setdefault(code, set()).add(fix["safe"])
    for code, kinds in seen.items():
        declared = BY_CODE[code].FIX_SAFETY
        assert declared != "none", code
        if declared == "safe":
            assert kinds == {True}, code
        elif declared == "unsafe":
            assert kinds == {False}, code
    # the inputs reach every kind: safe, unsafe and both ways for a mixed rule
    assert {"SWA201", "SWA202", "SWA203", "SWA301", "SWA303", "SWA205", "SWA204"} <= seen.keys(), (
        sorted(seen)
    )
    assert seen["SWA303"] == {True, False} and seen["SWA202"] == {True, False}


def test_rules_without_edits_say_none():
    for code in ("SWA302", "SWA304", "SWA305", "SWA400", "SWA901"):
        assert BY_CODE[code].FIX_SAFETY == "none"


def test_unsafe_fixes_can_be_set_in_the_configuration(tree):
    server = (
        "model-path: models/v4\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 2\nspeculative-num-steps: 3\n"
    )
    root = tree({"server.yaml": server, "swacheck.toml": "unsafe-fixes = true\n"})
    shown = run_cli("--show-settings", "server.yaml", cwd=root)
    assert "unsafe-fixes" in shown.stdout and "swacheck.toml" in shown.stdout
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert "speculative-eagle-topk: 1\n" in (root / "server.yaml").read_text()
    assert run.exit_code == 0
    (root / "swacheck.toml").write_text("unsafe-fixes = 'yes'\n")
    assert run_cli("--fix", "server.yaml", cwd=root).exit_code == 2  # must be a boolean
    (root / "server.yaml").write_text(server)
    run = run_cli("--fix", "--no-config", "server.yaml", cwd=root)
    assert (
        "speculative-eagle-topk: 2\n" in (root / "server.yaml").read_text()
    )  # --isolated: safe fixes only
