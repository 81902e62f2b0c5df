"""The fuzz campaign over every input kind and the fixer (issue 23), bounded and seeded: a tree
of generated cases (``kinds.make_tree``: every kind swacheck reads, around findings with fixes,
with merge keys, extends, nesting past the limits and links leading out of the tree) is checked,
fixed and fixed again through the installed CLI in a child process (its peak RSS measured, its
address space capped). Asserted for every case: no internal error or traceback; exit 0, 1 or 2;
peak memory within the budget (README, "Limits": 100 MB + 30 x the bytes read); nothing written
outside the tree (the target of a committed link, beside the repository, keeps its bytes); a
file that parsed still parses; and convergence: a second ``--fix`` changes nothing.

The long profile is by hand: ``python benchmarks/fix_fuzz.py --kinds 2000 --seed N``.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MTP_W256, V4_FLASH
from kinds import KINDS, OUTSIDE, VICTIM, make_tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "security"))
from budgets_common import MiB, run_child

from swacheck.loading import load_file

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS and ru_maxrss in KiB: Linux"
)

SEEDS = (1, 2)
CASES = 30  # per seed: 60 cases, 6 of each kind, about a minute
ALL = sorted(KINDS)


def build(work: Path, seed: int, cases: int) -> tuple[Path, dict[str, str]]:
    """The repository (with its models) and, per case folder, its kind."""
    repo = work / "repo"
    for name, text in {
        "models/v4/config.json": V4_FLASH,
        "models/mtp256/config.json": MTP_W256,
    }.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (work / OUTSIDE).parent.mkdir(parents=True, exist_ok=True)
    (work / OUTSIDE).write_text(VICTIM)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rnd = random.Random(seed)
    kinds = {}
    for i in range(cases):
        kind, files, links = make_tree(rnd, ALL[i % len(ALL)])  # every kind, in turn
        folder = repo / "gen" / f"{i:05}"
        folder.mkdir(parents=True)
        for rel, text in files.items():
            (folder / rel).write_text(text)
        for rel, target in links.items():
            os.symlink(target, folder / rel)
        kinds[f"gen/{i:05}"] = kind
    return repo, kinds


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink() and ".git" not in p.parts
    }


def _parses(name: str, data: bytes) -> bool:
    try:
        load_file(name, text=data.decode("utf-8-sig"))
    except Exception:
        return False
    return True


def campaign(work: Path, seed: int, cases: int) -> dict[str, list[str]]:
    """Run the campaign; {property: [case folders or runs that broke it]}."""
    repo, kinds = build(work, seed, cases)
    size = sum(len(b) for b in snapshot(repo).values())
    before = snapshot(repo)
    runs = {}
    for name, args in (
        ("check", ["--format", "json", "-o", os.devnull, "gen"]),
        ("diff", ["--diff", "gen"]),
        ("fix", ["--fix", "--format", "json", "-o", os.devnull, "gen"]),
    ):
        runs[name] = run_child(args, repo, timeout=600, memory=3072 * MiB)
    first = snapshot(repo)
    runs["fix again"] = run_child(["--fix", "-q", "gen"], repo, timeout=600, memory=3072 * MiB)
    second = snapshot(repo)
    broken: dict[str, list[str]] = {
        "internal error": [],
        "exit code": [],
        "memory": [],
        "written outside the tree": [],
        "parsed before, not after": [],
        "second --fix changed it": [],
    }
    for name, child in runs.items():
        err = child.stderr
        if "internal error" in err or "Traceback" in err:
            broken["internal error"].append(f"{name}: {err[-2000:]}")
        if child.exit_code not in (0, 1, 2):
            broken["exit code"].append(f"{name}: {child.exit_code}")
        if child.peak_rss > 100 * MiB + 30 * size:
            broken["memory"].append(f"{name}: {child.peak_rss / MiB:.0f} MiB for {size} bytes")
    if (work / OUTSIDE).read_text() != VICTIM or {p.name for p in (work / "outside").iterdir()} != {
        "victim.yaml"
    }:
        broken["written outside the tree"].append(OUTSIDE)
    for rel, data in before.items():
        if (
            rel.endswith((".yaml", ".yml", ".json"))
            and _parses(rel, data)
            and not _parses(rel, first[rel])
        ):
            broken["parsed before, not after"].append(f"{rel} ({kinds.get(rel.rsplit('/', 1)[0])})")
        if first.get(rel) != second.get(rel):
            broken["second --fix changed it"].append(f"{rel} ({kinds.get(rel.rsplit('/', 1)[0])})")
    return broken


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_campaign_over_every_input_kind_and_the_fixer(tmp_path, seed):
    broken = campaign(tmp_path, seed, CASES)
    assert {k: v for k, v in broken.items() if v} == {}


def test_the_generator_covers_every_input_kind():
    from swacheck.inputs import kinds

    # every kind of the registry has a generator, besides swacheck's own two YAML kinds (server
    # configs and deployment files) and custom resources
    names = {k.name for k in (*kinds.FILE_KINDS, *kinds.DOCUMENT_KINDS)}
    assert names <= set(KINDS), names - set(KINDS)
    assert {"server-config", "deployment-file", "custom-resource"} <= set(KINDS)


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_a_large_tree_does_not_share_out_the_rounds(tmp_path):
    # seed 4 at 60 cases: a Markdown file whose fixes were refused one per round used up the
    # rounds (a round taken back counted as one), and a second --fix still changed it
    broken = campaign(tmp_path, 4, 60)
    assert broken["second --fix changed it"] == []
