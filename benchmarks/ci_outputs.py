"""Sizes of the CI outputs on a generated repository (run by hand; prints numbers).

    python benchmarks/ci_outputs.py [--sizes 20,2000]

For each size: the GitHub step summary's bytes (GitHub drops one over 1 MiB), how many of the
deployments with findings it shows, and the human report's line count with and without -v.
The repository is bench.py's generator (the same realistic server configs and deployment files).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import generate


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "swacheck", "--no-config", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="20,2000")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            generate(root, n, args.seed)
            summary = root / "summary.md"
            env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_"))}
            github = run(
                ["--format", "github", "."], root, {**env, "GITHUB_STEP_SUMMARY": str(summary)}
            )
            text = summary.read_text(encoding="utf-8")
            shown = (
                text.count("\n### ")
                - text.count("\n### Input errors")
                - text.count("without findings")
            )
            human = run(["--color", "never", "."], root, env).stdout.count("\n")
            verbose = run(["--color", "never", "-v", "."], root, env).stdout.count("\n")
            last = github.stdout.strip().splitlines()[-1]
            print(
                f"{n:>6} deployments: step summary {len(text.encode()):>9,} bytes (limit 1,048,576), "
                f"{shown} deployments with findings in full; human report {human:,} lines ({verbose:,} with -v)"
            )
            print(f"       {last}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
