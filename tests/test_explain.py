"""`swacheck explain`: every number with its formula and the origin of each input.

The golden outputs are the explain-* cases of tests/golden/ (test_golden.py).
"""

from __future__ import annotations

from conftest import ROOT, run_cli


def _find(nodes, name):
    for n in nodes:
        if n["name"] == name:
            return n
    raise AssertionError(f"{name} not in {[n['name'] for n in nodes]}")


def test_json_trace_of_a_unified_decode_server():
    run = run_cli("explain", "--format", "json", "examples/rocm-unified/decode.yaml", cwd=ROOT)
    assert run.exit_code == 0
    (dep,) = run.data["deployments"]
    target = dep["target"]
    assert target["tuple"] == [128, 131, 6419]
    pages = _find(target["fields"], "pages")
    assert pages["formula"] == "request slots 49 x ring 131"
    slots = _find(pages["inputs"], "request slots")
    assert slots["value"] == 49
    extra = _find(slots["inputs"], "decode extra slots")
    assert extra["value"] == 32 and extra["formula"] == "PD hook: 2 x per-worker requests 16"
    mrr = _find(extra["inputs"], "max-running-requests")
    assert (
        mrr["location"]["file"] == "examples/rocm-unified/sglang-decode.yaml"
        and mrr["location"]["line"] == 6
    )
    ring = _find(target["fields"], "ring_size")
    assert ring["formula"] == "window 128 + draft tokens 4 - 1"
    tokens = _find(ring["inputs"], "draft tokens")
    steps = _find(tokens["inputs"], "speculative-num-steps")
    assert steps["value"] == 3 and steps["location"]["line"] == 8
    window = _find(target["fields"], "window")
    assert window["location"] == {
        "file": "examples/models/DeepSeek-V4-Flash/config.json",
        "line": 14,
        "column": 21,
        "end_line": 14,
        "end_column": 24,
    }
    assert _find(pages["inputs"], "ring size")["see"] == "ring_size"


def test_defaults_say_they_are_sglang_defaults():
    run = run_cli("explain", "--format", "json", "examples/rocm-unified/prefill.yaml", cwd=ROOT)
    target = run.data["deployments"][0]["target"]
    slots = _find(_find(target["fields"], "pages")["inputs"], "request slots")
    per_worker = _find(slots["inputs"], "per-worker max-running-requests")
    mrr = _find(per_worker["inputs"], "max-running-requests")
    assert (
        mrr["value"] == 256
        and mrr["origin"] == "SGLang default (DSV4 hook, max-running-requests unset)"
    )
    assert mrr["location"] is None


def test_human_tree_mentions_the_memory_assumption():
    run = run_cli("explain", "--color", "never", "examples/rocm-unified/prefill.yaml", cwd=ROOT)
    assert "pages = 33667 = request slots 257 x ring 131" in run.stdout
    assert "swacheck assumes it does not" in run.stdout


def test_bad_input_is_one_line_and_exit_2(tree):
    root = tree({"bad.yaml": "model-path: [\n"})
    run = run_cli("explain", "bad.yaml", cwd=root)
    assert run.exit_code == 2
    assert run.stderr.strip().startswith("bad.yaml:2:1: invalid YAML")
