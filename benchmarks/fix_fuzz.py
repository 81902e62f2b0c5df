"""Fuzz ``--fix`` by hand, through the installed ``swacheck`` command, and print the counts.

    python benchmarks/fix_fuzz.py --files 3000 --seed 1 [--unsafe-fixes]

Writes a temporary git repository holding a copy of ``examples/`` and ``--files`` generated
configs (``tests/fix/configs.py``: anchors and aliases, flow mappings, block scalars, empty
values, multi-document streams, tabs, CRLF, BOM, no final newline), one per folder, then:

1. ``swacheck --diff`` over the whole tree (the patch), then ``swacheck --fix``, then ``--fix``
   again;
2. per file: does it still parse (if it did before; and no file gains an input error), did only
   lines about the keys a fix touches change, did the second run change it, did ``git apply``
   and ``patch -p1`` of the patch on fresh copies give exactly what ``--fix`` wrote;
   and were any files written outside the tree.

Prints one line per count; exits 1 when any property failed. Not a timed test: run it by hand.

    python benchmarks/fix_fuzz.py --kinds 2000 --seed 1

is the long profile of the campaign over every input kind (``tests/fix/test_fix_campaign.py``,
generators in ``tests/fix/kinds.py``): ``--kinds`` cases (every kind in turn, with merge keys,
Compose extends, nesting past the limits, links out of the tree) checked, fixed and fixed again
in a child whose peak RSS is measured; it prints how many cases broke each property.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fix"))

from configs import is_subsequence, make_case, untouched_lines  # noqa: E402

from swacheck.loading import load_file  # noqa: E402


def parses(name: str, data: bytes) -> bool:
    try:
        load_file(name, text=data.decode("utf-8-sig"))
    except Exception:
        return False
    return True


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--kinds", type=int, default=0, help="run the campaign over every input kind")
    args = ap.parse_args()
    if args.kinds:
        return kinds_campaign(args.kinds, args.seed, args.keep)
    exe = shutil.which("swacheck")
    if exe is None:
        print("install swacheck first (pip install -e .)", file=sys.stderr)
        return 2
    flags = ["--unsafe-fixes"] if args.unsafe_fixes else []
    work = Path(tempfile.mkdtemp(prefix="swacheck-fixfuzz-"))
    repo, pristine = work / "repo", work / "pristine"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copytree(ROOT / "examples", repo / "examples")
    models = repo / "models"
    (models / "v4").mkdir(parents=True)
    (models / "mtp256").mkdir(parents=True)
    shutil.copy(ROOT / "examples/models/DeepSeek-V4-Flash/config.json", models / "v4/config.json")
    shutil.copy(
        ROOT / "examples/models/DeepSeek-V4-Flash-MTP-w256/config.json",
        models / "mtp256/config.json",
    )
    rnd = random.Random(args.seed)
    cases = {}
    for i in range(args.files):
        case = make_case(rnd, i)
        rel = f"gen/{i:05}/{case.name}"
        (repo / rel).parent.mkdir(parents=True)
        (repo / rel).write_bytes(case.data())
        cases[rel] = case
    shutil.copytree(repo, pristine, ignore=shutil.ignore_patterns(".git"))
    outside_before = {p: p.stat().st_mtime_ns for p in work.iterdir()}
    before = snapshot(repo)

    def run(*extra: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
        return subprocess.run(
            [exe, *extra, "--format", "json", "-o", os.devnull, "gen", "examples"],
            cwd=repo,
            capture_output=True,
        )

    def input_errors(folder: Path) -> set[str]:
        """Files with an input error (cannot be read, parsed or resolved), per a plain check."""
        r = subprocess.run(
            [exe, "-q", "--format", "json", "gen", "examples"], cwd=folder, capture_output=True
        )
        return {
            line.split(":", 1)[0]
            for line in r.stderr.decode(errors="replace").splitlines()
            if not line.startswith("swacheck")
        }

    errors_before = input_errors(repo)
    t0 = time.perf_counter()
    diff = subprocess.run([exe, "--diff", *flags, "gen", "examples"], cwd=repo, capture_output=True)
    t1 = time.perf_counter()
    first = run("--fix", *flags)
    t2 = time.perf_counter()
    after_first = snapshot(repo)
    second = run("--fix", *flags)
    t3 = time.perf_counter()
    after_second = snapshot(repo)

    apply_dir = work / "apply"
    shutil.copytree(pristine, apply_dir)
    subprocess.run(["git", "init", "-q", str(apply_dir)], check=True)
    applied = subprocess.run(
        ["git", "apply", "-"], cwd=apply_dir, input=diff.stdout, capture_output=True
    )
    after_apply = snapshot(apply_dir)
    patch_dir = work / "patch"
    shutil.copytree(pristine, patch_dir)
    patched = subprocess.run(
        ["patch", "-p1", "--quiet", "--batch"],
        cwd=patch_dir,
        input=diff.stdout,
        capture_output=True,
    )
    after_patch = {
        k: v for k, v in snapshot(patch_dir).items() if not k.endswith((".orig", ".rej"))
    }

    counts = {
        "files generated": args.files,
        "files in the tree (generated + examples)": len(before),
        "changed by the first --fix": sum(1 for k in before if after_first.get(k) != before[k]),
        "changed by the second --fix": sum(
            1 for k in before if after_second.get(k) != after_first.get(k)
        ),
        "parsed before, not after": sum(
            1
            for k in before
            if k.endswith((".yaml", ".yml", ".json"))
            and parses(k, before[k])
            and not parses(k, after_first[k])
        ),
        "did not parse before, written anyway": sum(
            1
            for k in before
            if k.endswith((".yaml", ".yml", ".json"))
            and not parses(k, before[k])
            and after_first.get(k) != before[k]
        ),
        "files with an input error after --fix, none before": len(
            input_errors(repo) - errors_before
        ),
        "generated files with a line changed that no fix touches": sum(
            1
            for k, c in cases.items()
            if not is_subsequence(
                untouched_lines(c.text, c.newline),
                after_first[k].decode("utf-8-sig").split(c.newline),
            )
        ),
        "files where git apply of --diff differs from --fix": sum(
            1 for k in before if after_apply.get(k) != after_first.get(k)
        ),
        "files where patch -p1 of --diff differs from --fix": sum(
            1 for k in before if after_patch.get(k) != after_first.get(k)
        ),
        "files added or removed": len(set(after_first) ^ set(before)),
        "paths outside the tree touched": sum(
            1
            for p, m in outside_before.items()
            if p.exists() and p.stat().st_mtime_ns != m and p.name not in ("repo", "apply")
        ),
        "internal errors / tracebacks": sum(
            b"internal error" in r.stderr or b"Traceback" in r.stderr for r in (diff, first, second)
        ),
    }
    print(
        f"swacheck --fix fuzz: {args.files} generated files, seed {args.seed}, "
        f"{'--unsafe-fixes' if flags else 'safe fixes only'}"
    )
    for name, n in counts.items():
        print(f"  {name:<58} {n}")
    print(f"  {'git apply / patch -p1 exit codes':<58} {applied.returncode} / {patched.returncode}")
    for r, name in ((first, "first --fix"), (second, "second --fix")):
        tail = [
            line
            for line in r.stderr.decode(errors="replace").splitlines()
            if line.startswith("swacheck: ") and " fixed, " in line
        ]
        print(f"  {name + ' summary':<58} {tail[-1] if tail else '(none)'}  [exit {r.returncode}]")
    print(
        f"  {'time: --diff / first --fix / second --fix':<58} {t1 - t0:.1f} s / {t2 - t1:.1f} s / {t3 - t2:.1f} s"
    )
    bad = (
        counts["changed by the second --fix"]
        + counts["parsed before, not after"]
        + counts["did not parse before, written anyway"]
        + counts["files with an input error after --fix, none before"]
        + counts["generated files with a line changed that no fix touches"]
        + counts["files where git apply of --diff differs from --fix"]
        + counts["files where patch -p1 of --diff differs from --fix"]
        + (patched.returncode != 0)
        + counts["files added or removed"]
        + counts["paths outside the tree touched"]
        + counts["internal errors / tracebacks"]
        + (applied.returncode != 0)
    )
    if args.keep:
        print(f"  kept: {work}")
    else:
        shutil.rmtree(work)
    return 1 if bad else 0


def kinds_campaign(cases: int, seed: int, keep: bool) -> int:
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "security"))
    from test_fix_campaign import campaign

    work = Path(tempfile.mkdtemp(prefix="swacheck-campaign-"))
    start = time.perf_counter()
    broken = campaign(work, seed, cases)
    print(f"swacheck fuzz campaign: {cases} cases (every input kind in turn), seed {seed}")
    for name, found in broken.items():
        print(f"  {name:<40} {len(found)}")
        for item in found[:5]:
            print(f"      {item[:300]}")
    print(f"  {'time':<40} {time.perf_counter() - start:.0f} s")
    if keep:
        print(f"  kept: {work}")
    else:
        shutil.rmtree(work)
    return 1 if any(broken.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
