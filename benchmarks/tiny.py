"""The tiny-config workload of bench.py (issue 29): thousands of 9-line SGLang server configs.

    python benchmarks/tiny.py DIR N [--seed S]     # write N tiny configs under DIR, print a summary

A tiny config is what a folder of ``configs/*.yaml`` holds: a comment, ``model-path`` and a few
parallel, PD and speculative flags, nine lines, no swacheck deployment file. They are written
``PER_FOLDER`` to a folder (``configs/team-NNN/``), PD prefill/decode pairs side by side, and
share four model ``config.json`` files under ``models/`` (bench.py's), so each one is fully
checked: resolved against its model, paired, every rule run.

The mix: about 80% pass; about 10% carry a finding with a safe fix (NEXTN for EAGLE, a mistyped
or underscored key), which is what ``swacheck --fix`` rewrites; the rest fail without one
(a window-256 draft under PD, top-k 4). bench.py checks swacheck's report against this plan
before it times anything, and times ``--fix`` on a fresh copy of the files each run.
"""

from __future__ import annotations

import argparse
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

PER_FOLDER = 100
LINES = 9

# verdict -> (share, the rule codes swacheck must report as errors, safe fix)
VERDICTS = {
    "pass": (0.80, (), False),
    "nextn": (0.04, ("SWA202",), True),  # speculative-algorithm: NEXTN -> EAGLE
    # speculative-num-setps -> speculative-num-steps (and SWA202: top-k without the steps)
    "typo": (0.03, ("SWA303", "SWA202"), True),
    "underscore": (0.03, ("SWA303",), True),  # chunked_prefill_size -> chunked-prefill-size
    "draft-window": (0.05, ("SWA102",), False),  # a window-256 draft under PD
    "topk": (0.05, ("SWA202",), False),  # speculative-eagle-topk: 4 (its fix is unsafe)
}
CLUSTERS = ["mi355-a", "h200-c", "b200-e", "gb200-f", "h20-h"]


@dataclass
class Tiny:
    """What was written: counts, and each config's planned verdict (path relative to DIR)."""

    files: int
    pairs: int
    bytes: int
    plan: dict[str, str]
    fixable: int  # configs with a safe fix

    def expected_codes(self, rel: str) -> tuple[str, ...]:
        return VERDICTS[self.plan.get(rel, "pass")][1]

    def fixed(self, rel: str) -> bool:
        """Whether ``swacheck --fix`` rewrites this config (its finding has a safe fix)."""
        return VERDICTS[self.plan.get(rel, "pass")][2]


def _verdict(rng: random.Random) -> str:
    r, at = rng.random(), 0.0
    for name, (share, _, _) in VERDICTS.items():
        at += share
        if r < at:
            return name
    return "pass"


def config(s: dict, verdict: str, role: str) -> str:
    """One 9-line server config of service ``s`` (a PD pair's two servers share its values)."""
    lines = [
        f"# dsv4-flash {role or 'single'} server, cluster {s['cluster']}, service {s['index']}",
        f"model-path: ../../models/{s['target']}",
        f"tp-size: {s['tp']}",
    ]
    if role:
        lines += [f"disaggregation-mode: {role}", "disaggregation-transfer-backend: mooncake"]
    else:
        chunked = "chunked_prefill_size" if verdict == "underscore" else "chunked-prefill-size"
        lines += [f"mem-fraction-static: {s['mem']}", f"{chunked}: 8192"]
    lines.append(f"speculative-algorithm: {'NEXTN' if verdict == 'nextn' else 'EAGLE'}")
    key = "speculative-num-setps" if verdict == "typo" else "speculative-num-steps"
    lines.append(f"{key}: {s['steps']}")
    lines.append(f"speculative-eagle-topk: {4 if verdict == 'topk' else 1}")
    if verdict == "draft-window":
        lines.append("speculative-draft-model-path: ../../models/DeepSeek-V4-Flash-MTP-w256")
    else:
        lines.append(f"speculative-num-draft-tokens: {s['steps'] + 1}")
    assert len(lines) == LINES, lines
    return "\n".join(lines) + "\n"


def generate(root: Path, n: int, seed: int, models_from: Path | None = None) -> Tiny:
    """Write ``n`` tiny server configs under ``root/configs/`` and the four models under
    ``root/models/`` (copied from ``models_from``, a tree bench.py's ``write_models`` made)."""
    if models_from is not None:
        shutil.copytree(models_from, root / "models", dirs_exist_ok=True)
    rng = random.Random(seed)
    plan: dict[str, str] = {}
    pairs = size = fixable = index = 0
    while len(plan) < n:
        verdict = _verdict(rng)
        pd = n - len(plan) >= 2 and len(plan) % PER_FOLDER < PER_FOLDER - 1 and rng.random() < 0.7
        if verdict == "underscore" and pd:
            verdict = "typo"  # a PD config of nine lines has no chunked-prefill-size to misspell
        if verdict == "draft-window" and not pd:
            verdict = "topk"  # a draft mismatch is an error only under PD
        s = {
            "index": index,
            "cluster": rng.choice(CLUSTERS),
            "target": "DeepSeek-V4-Flash-w256"
            if verdict == "pass" and rng.random() < 0.1
            else "DeepSeek-V4-Flash",
            "tp": rng.choice([4, 8, 8]),
            "mem": rng.choice(["0.8", "0.85", "0.88"]),
            "steps": rng.choice([1, 2, 3, 3]),
        }
        folder = f"configs/team-{len(plan) // PER_FOLDER:03d}"
        (root / folder).mkdir(parents=True, exist_ok=True)
        stem = f"dsv4-{s['cluster']}-{index:05d}"
        for role in ("prefill", "decode") if pd else ("",):
            rel = f"{folder}/{stem}-{role}.yaml" if role else f"{folder}/{stem}.yaml"
            text = config(s, verdict, role)
            (root / rel).write_text(text, encoding="utf-8")
            plan[rel] = verdict
            size += len(text)
            fixable += VERDICTS[verdict][2]
        pairs += pd
        index += 1
    return Tiny(len(plan), pairs, size, plan, fixable)


def snapshot(root: Path) -> dict[Path, bytes]:
    """Every config's bytes, to put the files back before each timed ``--fix``."""
    return {p: p.read_bytes() for p in sorted((root / "configs").rglob("*.yaml"))}


def restore(files: dict[Path, bytes]) -> None:
    for path, data in files.items():
        if path.read_bytes() != data:
            path.write_bytes(data)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args()
    from bench import write_models  # run from benchmarks/

    args.dir.mkdir(parents=True, exist_ok=True)
    write_models(args.dir)
    t = generate(args.dir, args.n, args.seed)
    print(f"{t.files} configs, {t.pairs} PD pairs, {t.bytes} bytes, {t.fixable} with a safe fix")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
