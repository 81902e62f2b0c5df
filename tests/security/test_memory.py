"""Memory proportional to input: peak RSS <= 100 MB + 30 x the bytes of the input, for the inputs
that cost the most per byte, just under each budget and well over it (README, "Limits").

Each runs the CLI in a child (``run_child``: its own peak RSS from ``wait4``, an address-space cap
of 2 GiB as a safety net, a timeout). Before the budgets, a 5.4 MB launch script took 1.14 GB,
3.9 MB of nested flow YAML 1.32 GB and a 10 MB Kubernetes List 644 MB (issue 15); 4 MB of flow
lists 1.0 GB and 8 MB of scalars 2.0 GB (benchmarks/hostile.py).
"""

from __future__ import annotations

import json
import sys

import pytest
from budgets_common import GOOD, MiB, run_child, write_tree

from swacheck import limits

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS and ru_maxrss in KiB: Linux"
)

SERVER = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\nspeculative-eagle-topk: 1\n"
LAUNCH = (
    "python -m sglang.launch_server --model-path models/v4 "
    "--speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1"
)


def bound(size: int) -> int:
    return 100 * MiB + 30 * size


def dense_yaml() -> dict[str, str]:  # two bytes a node: the most nodes a byte can buy
    return {"dense.yaml": SERVER + "x: [" + ",".join(["1"] * (limits.MAX_YAML_NODES - 100)) + "]\n"}


def nested_flow_yaml() -> dict[str, str]:
    item = "[[1, [2, 3]], {a: [4]}]"  # 10 nodes
    return {
        "flow.yaml": SERVER
        + "x: ["
        + ", ".join([item] * (limits.MAX_YAML_NODES // 10 - 10))
        + "]\n"
    }


def flow_yaml_over_the_budget() -> dict[str, str]:
    return {
        "flow.yaml": SERVER + "x: [" + ", ".join(["[[1, [2, 3]], {a: [4]}]"] * 170_000) + "]\n"
    }  # 4 MB


def dense_json() -> dict[str, str]:
    return {
        "dense.json": json.dumps(
            {
                "model-path": "models/v4",
                "x": [[1, [2, {"a": 3}]]] * (limits.MAX_YAML_NODES // 6 - 10),
            }
        )
    }


def argv_script() -> dict[str, str]:  # one launch with as many arguments as the word budget allows
    pairs = (limits.MAX_WORDS - 100) // 2
    return {
        "argv.sh": "#!/bin/sh\n"
        + LAUNCH
        + " "
        + " ".join(f"--served-model-name n{i}" for i in range(pairs))
        + "\n"
    }


def argv_script_over_the_budget() -> dict[str, str]:  # the 5 MB argument list
    return {
        "argv.sh": "#!/bin/sh\n"
        + LAUNCH
        + " "
        + " ".join(f"--served-model-name name{i}" for i in range(160_000))
        + "\n"
    }


def dense_words() -> dict[str, str]:  # two bytes a word
    return {"words.sh": "#!/bin/sh\n" + LAUNCH + "\n" + "a " * (limits.MAX_WORDS - 100) + "\n"}


def kubernetes_pods() -> dict[str, str]:
    args = ", ".join(f'"{a}"' for a in LAUNCH.split()[1:])
    pod = (
        "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n  "
        "containers:\n    - {{name: c, image: lmsysorg/sglang, command: [python], "
        "args: [{args}]}}\n"
    )
    return {"pods.yaml": "".join(pod.format(i=i, args=args) for i in range(limits.MAX_DEPLOYMENTS))}


def alias_fan_out() -> dict[str, str]:  # issue 23: 1,000 aliases of a 40,000-item container
    from attacks import fan_out_pod

    return {"pod.yaml": fan_out_pod() + "\n"}


def alias_fan_out_under_the_node_budget() -> dict[str, str]:  # 5 of them: 200,000 nodes
    from attacks import fan_out_pod

    return {"pod.yaml": fan_out_pod(4) + "\n"}


def unknown_flags() -> dict[str, str]:  # 45,000 distinct unknown flags: no spelling search each
    args = ", ".join(f"--x{i}" for i in range(45_000))
    return {
        "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "    - name: s\n      image: lmsysorg/sglang:latest\n"
        "      command: [python, -m, sglang.launch_server, --model-path, models/v4]\n"
        f"      args: [{args}]\n"
    }


CASES = {
    "dense-yaml": dense_yaml,
    "nested-flow-yaml": nested_flow_yaml,
    "flow-yaml-over-the-budget": flow_yaml_over_the_budget,
    "dense-json": dense_json,
    "argv-script": argv_script,
    "argv-script-over-the-budget": argv_script_over_the_budget,
    "dense-words": dense_words,
    "kubernetes-1000-pods": kubernetes_pods,
    "alias-fan-out": alias_fan_out,
    "alias-fan-out-under-the-node-budget": alias_fan_out_under_the_node_budget,
    "unknown-flags": unknown_flags,
}


@pytest.mark.parametrize("case", list(CASES))
def test_peak_rss_is_proportional_to_the_input(tmp_path, case):
    files = CASES[case]()
    root = write_tree(tmp_path, files)
    size = sum(len(text.encode()) for text in files.values())
    run = run_child(["--format", "json", *files, GOOD], root, timeout=120, memory=2048 * MiB)
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    assert run.exit_code in (0, 1, 2)
    assert "good" in [d["name"] for d in run.data["deployments"]]
    assert run.peak_rss <= bound(size), (
        f"{run.peak_rss / MiB:.0f} MB for {size / MiB:.1f} MB of input (bound {bound(size) / MiB:.0f} MB)"
    )
