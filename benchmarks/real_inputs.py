"""Time and memory of a walk over a repository of the input kinds real users keep (run by hand).

Copies the acceptance cases of ``tests/acceptance`` (shell idioms, custom resources, srt-slurm,
SkyPilot, docs, Helm chart, harness YAML, other models) ``--copies`` times into a temporary
repository, each copy in its own folder, and prints the wall time and peak RSS of
``swacheck --format json`` over it, next to the number of files and deployments.

    python benchmarks/real_inputs.py --copies 100

Not a test: it prints numbers and sets no pass/fail target.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACCEPTANCE = ROOT / "tests" / "acceptance"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(ACCEPTANCE / "models", repo / "models")
        shutil.copy(ACCEPTANCE / "swacheck.toml", repo / "swacheck.toml")
        for n in range(args.copies):
            for group in ("positive", "negative"):
                shutil.copytree(ACCEPTANCE / group, repo / f"copy{n:04d}" / group)
        files = sum(1 for p in repo.rglob("*") if p.is_file())
        exe = shutil.which("swacheck", path=os.path.dirname(sys.executable)) or "swacheck"
        times = []
        report = {}
        for _ in range(args.repeat):
            start = time.perf_counter()
            proc = subprocess.run(
                [exe, "--format", "json", "."], cwd=repo, capture_output=True, text=True
            )
            times.append(time.perf_counter() - start)
            report = json.loads(proc.stdout)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        s = report["summary"]
        print(
            f"files {files}  deployments {s['deployments']}  errors {s['errors']}  "
            f"notes {s['notes']}  input errors {s['input_errors']}"
        )
        print(
            f"wall median {sorted(times)[len(times) // 2]:.2f}s  min {min(times):.2f}s "
            f" peak RSS {rss:.0f} MiB  (exit {proc.returncode})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
