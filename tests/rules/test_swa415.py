"""SWA415 pd-dspark-layout: a DeepSeek-V4.1 DSpark PD pair whose DSpark layouts or TP sizes differ."""

from __future__ import annotations

import json

from conftest import run_cli
from test_v41 import V41

P, D = "d/prefill.yaml", "d/decode.yaml"
DSPARK = "speculative-algorithm: DSPARK\n"


def server(role: str, extra: str = "") -> str:
    return f"model-path: ../models/v41\ndisaggregation-mode: {role}\ntp-size: 8\n{extra}"


def pair(tree, prefill: str, decode: str):
    root = tree({P: prefill, D: decode, "models/v41/config.json": json.dumps(V41)})
    return run_cli("--format", "json", "d", cwd=root)


def findings(run):
    return [f for f in run.data["pairs"][0]["findings"] if f["code"] == "SWA415"]


def test_the_same_dspark_layout_passes(tree):
    run = pair(tree, server("prefill", DSPARK), server("decode", DSPARK))
    assert run.data["pairs"] and findings(run) == []


def test_dspark_on_one_server_only_is_a_layout_mismatch_at_the_first_request(tree):
    # common/conn.py try_ensure_parallel_info 0.5.23:1360-1374: one side publishes no layout
    run = pair(tree, server("prefill", DSPARK), server("decode"))
    found = findings(run)
    assert len(found) == 1
    assert found[0]["message"].startswith(
        "DeepSeek-V4.1 DSpark PD layout mismatch (DSpark on one server only"
    )
    assert "dies at the first request" in found[0]["message"]
    # the prefill's speculative-algorithm: DSPARK is related: the one side that publishes a layout
    assert [(r["file"], r["line"]) for r in found[0]["related"]][0] == ("d/prefill.yaml", 4)


def test_a_compress_state_dtype_on_one_side_changes_the_state_item_lengths(tree):
    decode = "swacheck: 1\nenv: {SGLANG_DSV4_COMPRESS_STATE_DTYPE: bf16}\nserver:\n" + "".join(
        f"  {ln}\n" for ln in server("decode", DSPARK).splitlines()
    )
    run = pair(tree, server("prefill", DSPARK), decode)
    assert [f["message"][:60] for f in findings(run)] == [
        "DeepSeek-V4.1 DSpark PD layout mismatch (state_item_lens): b"
    ]
    loc = findings(run)[0]["location"]  # at the decode's SGLANG_DSV4_COMPRESS_STATE_DTYPE
    assert (loc["file"], loc["line"], loc["column"]) == ("d/decode.yaml", 2, 41)


def test_attention_tp_sizes_differ(tree):
    # 0.5.23:1376-1389 (after the layouts agree)
    run = pair(
        tree,
        server("prefill", DSPARK),
        server("decode", DSPARK).replace("tp-size: 8", "tp-size: 4"),
    )
    found = findings(run)
    assert len(found) == 1
    assert found[0]["message"].startswith(
        "DeepSeek-V4.1 DSpark PD requires the same TP size on both servers (including prefill CP "
        "ranks for MLA): attention TP prefill 8, decode 4"
    )


def test_an_older_release_is_not_checked(tree):
    root = tree(
        {
            P: server("prefill", DSPARK),
            D: server("decode"),
            "models/v41/config.json": json.dumps(V41),
        }
    )
    run = run_cli("--format", "json", "--sglang-version", "0.5.21", "d", cwd=root)
    assert not [
        f for p in run.data.get("pairs", []) for f in p["findings"] if f["code"] == "SWA415"
    ]
    newer = run_cli("--format", "json", "--sglang-version", "0.5.22", "d", cwd=root)
    assert [f for p in newer.data["pairs"] for f in p["findings"] if f["code"] == "SWA415"]


def test_draft_token_counts_that_differ_are_a_layout_mismatch(tree):
    run = pair(
        tree,
        server("prefill", DSPARK),
        server("decode", DSPARK + "speculative-dspark-block-size: 3\n"),  # gamma 3: 4 tokens
    )
    found = findings(run)
    assert len(found) == 1
    assert found[0]["message"].startswith(
        "DeepSeek-V4.1 DSpark PD layout mismatch (num_draft_tokens): "
    )
    # at the decode's block size (the draft tokens are gamma + 1), not at the file's start
    loc = found[0]["location"]
    assert (loc["file"], loc["line"], loc["column"]) == ("d/decode.yaml", 5, 32)


def test_what_the_dspark_layout_compares_is_not_called_tolerated(tree):
    """SWA410 lists draft-token and TP differences as tolerated for DeepSeek-V4; a V4.1 DSpark
    pair compares them at the first request, so there they are SWA415's error only."""
    tokens = pair(
        tree,
        server("prefill", DSPARK),
        server("decode", DSPARK + "speculative-dspark-block-size: 3\n"),
    )
    codes = [f["code"] for f in tokens.data["pairs"][0]["findings"]]
    assert "SWA415" in codes and "SWA410" not in codes
    tp = pair(
        tree,
        server("prefill", DSPARK),
        server("decode", DSPARK).replace("tp-size: 8", "tp-size: 4"),
    )
    codes = [f["code"] for f in tp.data["pairs"][0]["findings"]]
    assert codes.count("SWA415") == 1 and "SWA410" not in codes
