"""Hostile inputs shared by the tests that reproduce an attack and by benchmarks/hostile.py, which
times it: plain text builders, importing nothing (the benchmark runs without the test
dependencies)."""

from __future__ import annotations

ITEMS = "[" + ", ".join(["--x"] * 40_000) + "]"


def fan_out_pod(aliases: int = 999) -> str:
    """The alias fan-out attack of issue 23 (benchmarks/hostile.py times it too)."""
    return "\n".join(
        [
            "apiVersion: v1",
            "kind: Pod",
            "metadata: {name: p}",
            f"x-args: &args {ITEMS}",
            "spec:",
            "  containers:",
            "    - &c",
            "      name: s",
            "      image: lmsysorg/sglang:latest",
            "      command: [python, -m, sglang.launch_server, --model-path, models/v4]",
            "      args: *args",
        ]
        + ["    - *c"] * aliases
    )
