#!/usr/bin/env python3
"""swacheck performance benchmark: run by hand, prints numbers. Never part of the test suite.

    python benchmarks/bench.py                      # sizes 2000,20000, 5 runs each
    python benchmarks/bench.py --sizes 500,5000 --repeat 3 --keep /tmp/swabench

It generates realistic deployment trees (SGLang server configs and swacheck deployment files
sharing four model config.json files; ~80% pass, the rest fail), then times, each run as a
separate subprocess so interpreter start-up and imports are counted:

  * swacheck --format json --output out.json DIR, and swacheck DIR > /dev/null (human);
  * the floor: benchmarks/floor.py, which only reads and parses the same files with PyYAML's
    libyaml loader and json.load;
  * yamllint -d relaxed DIR on the same tree;
  * cold start: swacheck --version, swacheck on one file, yamllint on the same file,
    python -c "import typer, yaml, rich.table";

plus peak RSS (per child, from os.wait4) and, in process, how often each file is parsed.
See benchmarks/README.md for what each line means and the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLE_MODELS = REPO / "examples" / "models"
PER_FOLDER = 100

# ----------------------------------------------------------------------------- targets

FLOOR_FACTOR = 3.0  # swacheck within 3x of the libyaml floor
YAMLLINT_FACTOR = 5.0  # swacheck at least 5x faster than yamllint
LINEAR_SLACK = 1.1  # t(big) <= 1.1 * (big/small) * t(small), i.e. 11x for 2,000 -> 20,000
COLD_FACTOR = 1.3  # swacheck on one file within 1.3x of the bare import line
COLD_YAMLLINT_FACTOR = 1.3  # swacheck on one file within 1.3x of yamllint on the same file
ITEM7_SIZE = 2000  # issue 13 item 7: 2,000 server configs within FLOOR_FACTOR of the floor
RSS_LIMIT_MB = 200.0
FIX_FACTOR = 2.0  # swacheck --fix at most 2x a check of the same files (tiny configs)
RSS_FLAT = 1.25  # peak RSS at the largest tiny size at most 1.25x the smallest's (streaming)

# ----------------------------------------------------------------------------- generation

# name -> (source example, sliding_window)
MODELS = {
    "DeepSeek-V4-Flash": ("DeepSeek-V4-Flash", 128),  # the published target
    "DeepSeek-V4-Flash-MTP": (
        "DeepSeek-V4-Flash-MTP-w256",
        128,
    ),  # a separately published draft, matching
    "DeepSeek-V4-Flash-MTP-w256": ("DeepSeek-V4-Flash-MTP-w256", 256),  # the mismatching draft
    "DeepSeek-V4-Flash-w256": ("DeepSeek-V4-Flash", 256),  # a long-window fine-tune
}

CLUSTERS = ["mi355-a", "mi355-b", "h200-c", "h200-d", "b200-e", "gb200-f", "mi300-g", "h20-h"]
OWNERS = ["inference-platform", "search-serving", "agents-infra", "eval-team", "ads-ranking"]


def write_models(root: Path) -> None:
    for name, (source, window) in MODELS.items():
        text = (EXAMPLE_MODELS / source / "config.json").read_text(encoding="utf-8")
        text, n = re.subn(r'("sliding_window":\s*)\d+', rf"\g<1>{window}", text)
        if n != 1:
            raise SystemExit(f"{source}/config.json: expected one sliding_window field, found {n}")
        (root / "models" / name).mkdir(parents=True, exist_ok=True)
        (root / "models" / name / "config.json").write_text(text, encoding="utf-8")


@dataclass
class Service:
    """One service, written from one template: a PD pair (a prefill and a decode server, which
    swacheck pairs by folder, model and name) or a single non-PD server. A planned failure is in
    the template, so it is in every server of the service."""

    index: int
    verdict: str  # "pass" | "draft-window" | "nextn" | "bad-key"
    kind: str  # "server" (plain SGLang server configs) | "deployment" (swacheck deployment files, ROCm)
    roles: tuple[str, ...]  # ("prefill", "decode") or ("",)
    target: str
    draft: str | None
    steps: int
    tp: int
    draft_tokens: bool
    bad: str
    parsers: bool
    owner: str
    cluster: str


def plan_service(rng: random.Random, index: int, room: int) -> Service:
    r = rng.random()
    verdict = (
        "pass" if r < 0.8 else "draft-window" if r < 0.9 else "nextn" if r < 0.95 else "bad-key"
    )
    pd = room >= 2 and (verdict == "draft-window" or rng.random() < 0.85)
    if verdict == "draft-window" and not pd:
        verdict = "nextn"  # the last slot of the tree: a draft mismatch only fails under PD
    kind = "deployment" if rng.random() < 0.2 else "server"
    target, draft = "DeepSeek-V4-Flash", None
    if verdict == "draft-window":
        draft = "DeepSeek-V4-Flash-MTP-w256"
    elif verdict == "pass":
        x = rng.random()
        if x < 0.2:
            draft = "DeepSeek-V4-Flash-MTP"
        elif x < 0.3:
            target, draft = "DeepSeek-V4-Flash-w256", "DeepSeek-V4-Flash-MTP-w256"
    steps = rng.choice([1, 2, 3, 3, 3])
    bad = ""
    if verdict == "bad-key":
        bad = rng.choice(
            [
                "enable-dp-attention: true  # pre-0.5.22 habit",
                "page_size: 256",
                f"speculative-num-setps: {steps}",
            ]
        )
    return Service(
        index=index,
        verdict=verdict,
        kind=kind,
        roles=("prefill", "decode") if pd else ("",),
        target=target,
        draft=draft,
        steps=steps,
        tp=8 if kind == "server" or rng.random() < 0.7 else 4,
        draft_tokens=rng.random() < 0.5,
        bad=bad,
        parsers=rng.random() < 0.5,
        owner=rng.choice(OWNERS),
        cluster=rng.choice(CLUSTERS),
    )


def server_config(rng: random.Random, s: Service, role: str, up: str) -> str:
    """One SGLang server config, ~12-17 keys, with comments, as people write them."""
    lines = [
        f"# SGLang server config: {s.target} {role or 'single'} server, cluster {s.cluster}, service {s.index}.",
        f"# Owner: {s.owner}. Launch: python -m sglang.launch_server --config THIS_FILE",
        f"model-path: {up}models/{s.target}",
        f"served-model-name: dsv4-flash-{s.cluster}",
        f"tp-size: {s.tp}",
        "trust-remote-code: true",
        "host: 0.0.0.0",
        f"port: {30000 + s.index % 1000}",
    ]
    if role:
        lines += [f"disaggregation-mode: {role}", "disaggregation-transfer-backend: mooncake"]
        if rng.random() < 0.5:
            lines.append("disaggregation-ib-device: mlx5_0,mlx5_1,mlx5_2,mlx5_3")
    if role == "decode" or rng.random() < 0.3:
        lines.append(f"max-running-requests: {rng.choice([16, 32, 64, 128, 256])}")
    if role == "prefill":
        lines.append(f"chunked-prefill-size: {rng.choice([4096, 8192, 16384])}")
    lines.append(f"mem-fraction-static: {rng.choice(['0.8', '0.82', '0.85', '0.88'])}")
    if s.bad:
        lines.append(s.bad)
    lines.append(
        "# MTP speculative decoding (the draft is the checkpoint's NextN layer unless a path is set)"
    )
    lines.append(
        "speculative-algorithm: NEXTN" if s.verdict == "nextn" else "speculative-algorithm: EAGLE"
    )
    if not s.bad.startswith("speculative-num-setps:"):  # the typo replaces the real key
        lines.append(f"speculative-num-steps: {s.steps}")
    if s.verdict != "nextn":
        lines.append("speculative-eagle-topk: 1")
    if s.draft_tokens:
        lines.append(f"speculative-num-draft-tokens: {s.steps + 1}")
    if s.draft:
        lines.append(f"speculative-draft-model-path: {up}models/{s.draft}")
    if s.parsers:
        lines += ["reasoning-parser: deepseek-v4", "tool-call-parser: deepseekv4"]
    lines.append(f"log-level: {rng.choice(['info', 'info', 'warning'])}")
    if rng.random() < 0.3:
        lines.append("enable-metrics: true")
    return "\n".join(lines) + "\n"


def deployment_file(s: Service, name: str) -> str:
    return (
        f"# ROCm service {s.index}: unified-KV Triton backend (what the launcher exports).\n"
        "swacheck: 1\n"
        f"name: {name}\n"
        "platform: rocm\n"
        "env:\n"
        "  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
        f"server: sglang/{name}.yaml\n"
    )


def generate(
    root: Path, n: int, seed: int
) -> tuple[dict[str, int], dict[str, Path], dict[str, str]]:
    """Write ``n`` deployments under root/deploy/batch-NNN/ (~100 each) and four models under root/models/.

    Returns (counts, passing server configs for the one-file cold start: "pd", a PD prefill or
    decode server whose partners beside it are read to pair it, and "plain", a server without
    PD, the only file read; manifest of deployment file relative to root -> planned verdict).
    """
    rng = random.Random(seed)
    write_models(root)
    stats = {
        "deployments": 0,
        "files": 0,
        "pass": 0,
        "draft-window": 0,
        "nextn": 0,
        "bad-key": 0,
        "deployment-files": 0,
        "pd-pairs": 0,
    }
    firsts: dict[str, Path] = {}
    manifest: dict[str, str] = {}
    index = 0
    while stats["deployments"] < n:
        s = plan_service(rng, index, n - stats["deployments"])
        batch = (
            f"deploy/batch-{stats['deployments'] // PER_FOLDER:03d}"  # a pair stays in one folder
        )
        folder = root / batch
        (folder / "sglang" if s.kind == "deployment" else folder).mkdir(parents=True, exist_ok=True)
        stem = f"dsv4-{s.cluster}-{index:05d}"
        for role in s.roles:
            name = f"{stem}-{role}" if role else stem
            if s.kind == "deployment":
                (folder / "sglang" / f"{name}.yaml").write_text(
                    server_config(rng, s, role, "../../../"), encoding="utf-8"
                )
                (folder / f"{name}.yaml").write_text(deployment_file(s, name), encoding="utf-8")
                stats["files"] += 2
                stats["deployment-files"] += 1
            else:
                (folder / f"{name}.yaml").write_text(
                    server_config(rng, s, role, "../../"), encoding="utf-8"
                )
                stats["files"] += 1
                if s.verdict == "pass":
                    firsts.setdefault("pd" if role else "plain", folder / f"{name}.yaml")
            manifest[f"{batch}/{name}.yaml"] = s.verdict
            stats[s.verdict] += 1
            stats["deployments"] += 1
        stats["pd-pairs"] += len(s.roles) == 2
        index += 1
    stats["bytes"] = sum(p.stat().st_size for p in (root / "deploy").rglob("*.yaml"))
    return stats, firsts, manifest


# ----------------------------------------------------------------------------- running


@dataclass
class Runs:
    label: str
    cmd: list[str]
    cwd: Path
    stdout: str | None = None  # file to write stdout to; None: /dev/null
    ok_codes: tuple[int, ...] = (0,)
    prepare: Callable[[], None] | None = None  # run before each run, untimed (put files back)
    times: list[float] = field(default_factory=list)
    rss_kb: list[int] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def rss_mb(self) -> float:
        return max(self.rss_kb) / 1024


def bench_env(pycache: Path) -> dict[str, str]:
    """The children's environment: no colour, no CI switches, and .pyc files allowed.

    Byte-code caching is switched on (an installed package has its .pyc files) but written to
    a private tree (PYTHONPYCACHEPREFIX), so the benchmark never writes into the checkout.
    """
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    for k in (
        "FORCE_COLOR",
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONPROFILEIMPORTTIME",
        "PYTHONTRACEMALLOC",
        "PYTHONDEVMODE",
        "PYTHONWARNINGS",
    ):
        env.pop(k, None)
    return env


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


# GNU time reports the child's own peak RSS. os.wait4's ru_maxrss does not: Linux carries the
# forking process's high-water mark across vfork/fork + exec, so every child would show at least
# this benchmark's own peak (e.g. 110 MB after it reads a 20,000-deployment JSON report).
TIME_BIN = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run_once(r: Runs, env: dict[str, str], record: bool = True) -> int:
    """Run one child; time it from spawn to reap; take its peak RSS from GNU time (else wait4)."""
    if r.prepare is not None:
        r.prepare()
    with (
        open(r.stdout or os.devnull, "wb") as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r") as rss,
    ):
        cmd = [TIME_BIN, "-f", "%M", "-o", rss.name, *r.cmd] if TIME_BIN else r.cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=r.cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in r.ok_codes:
            err.seek(0)
            tail = err.read()[-2000:].decode("utf-8", "replace")
            raise SystemExit(
                f"{r.label}: `{' '.join(r.cmd)}` (in {r.cwd}) exited {code}, expected {r.ok_codes}:\n{tail}"
            )
        lines = [
            l for l in rss.read().splitlines() if l.strip()
        ]  # "Command exited with non-zero status 1" first
        rss_kb = (
            int(lines[-1])
            if TIME_BIN and lines and lines[-1].strip().isdigit()
            else usage.ru_maxrss
        )
    if record:
        print(
            f"    {r.label:<36} {elapsed:8.3f} s  {rss_kb / 1024:6.0f} MB",
            file=sys.stderr,
            flush=True,
        )
        r.times.append(elapsed)
        r.rss_kb.append(rss_kb)  # kilobytes
    return code


def measure(group: list[Runs], repeat: int, env: dict[str, str], warmup: bool = True) -> None:
    """One untimed warm-up each (page cache, .pyc files), then `repeat` rounds, interleaved."""
    if warmup:
        for r in group:
            run_once(r, env, record=False)
    for _ in range(repeat):
        for r in group:
            run_once(r, env)


def sibling_script(python: str, name: str) -> str | None:
    cand = Path(python).parent / name  # not resolved: a venv's python is a symlink
    return str(cand) if cand.is_file() and os.access(cand, os.X_OK) else None


def swacheck_cmd(python: str) -> list[str]:
    script = sibling_script(python, "swacheck")
    return [script] if script else [python, "-m", "swacheck"]


def find_yamllint(python: str, given: str | None) -> list[str] | None:
    if given:
        return [given]
    for cand in (
        sibling_script(python, "yamllint"),
        sibling_script(sys.executable, "yamllint"),
        shutil.which("yamllint"),
        "/tmp/bench-peers/bin/yamllint",
    ):
        if cand and os.path.isfile(cand):
            return [cand]
    return None


def output(cmd: list[str], **kw) -> str:  # type: ignore[no-untyped-def]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
        return (p.stdout or p.stderr).strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unavailable ({exc})"


# ----------------------------------------------------------------------------- verification


def verify_verdicts(out_json: Path, stats: dict[str, int], manifest: dict[str, str]) -> str:
    """Check swacheck's JSON report against what was generated; return a one-line summary."""
    data = json.loads(out_json.read_text(encoding="utf-8"))
    s = data["summary"]
    failing = sum(
        1 for d in data["deployments"] if any(f["severity"] == "error" for f in d["findings"])
    )
    codes: dict[str, int] = {}
    for d in data["deployments"]:
        for f in d["findings"]:
            codes[f["code"]] = codes.get(f["code"], 0) + 1
    expected_fail = stats["deployments"] - stats["pass"]
    problems = []
    if s["deployments"] != stats["deployments"]:
        problems.append(f"{s['deployments']} deployments checked, {stats['deployments']} generated")
    if s["input_errors"]:
        problems.append(f"{s['input_errors']} input errors: {data['errors'][:3]}")
    if failing != expected_fail:
        problems.append(f"{failing} deployments with errors, {expected_fail} generated to fail")
    for d in data["deployments"]:
        planned = manifest.get(d["file"].replace(os.sep, "/"), "?")
        got = sorted({f["code"] for f in d["findings"] if f["severity"] == "error"})
        if (planned == "pass") != (not got):
            problems.append(f"{d['file']}: planned {planned}, got {got or 'no error'}")
            if len(problems) > 10:
                break
    if problems:
        raise SystemExit(
            "generated tree is not what the benchmark means to measure: " + "; ".join(problems)
        )
    code_text = ", ".join(f"{c} {n}" for c, n in sorted(codes.items()))
    pairs = len(data.get("pairs") or [])
    return (
        f"{s['deployments']} deployments in {s['files']} files, {pairs} PD pairs "
        f"found, {failing} failing as generated ({code_text})"
    )


# ----------------------------------------------------------------------------- report


def fmt_s(t: float) -> str:
    return f"{t * 1000:8.0f} ms" if t < 10 else f"{t:8.1f} s "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default="2000,20000",
        help="deployment counts, comma-separated (default 2000,20000)",
    )
    ap.add_argument(
        "--repeat",
        "-r",
        type=int,
        default=5,
        help="timed runs per command (default 5); the median and min are reported",
    )
    ap.add_argument(
        "--keep",
        metavar="DIR",
        help="generate into DIR and keep it (default: a temporary directory, removed)",
    )
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter with swacheck installed (default: this one)",
    )
    ap.add_argument(
        "--yamllint",
        metavar="PATH",
        help="yamllint executable (default: next to --python, on PATH, or /tmp/bench-peers/bin)",
    )
    ap.add_argument("--no-yamllint", action="store_true", help="skip the yamllint lines")
    ap.add_argument("--seed", type=int, default=20240611, help="seed of the generated mix")
    ap.add_argument(
        "--tiny-sizes",
        default="2000,20000",
        help="tiny server config counts (benchmarks/tiny.py), comma-separated (default 2000,20000)",
    )
    ap.add_argument(
        "--only",
        choices=("deploy", "tiny"),
        help="run one workload: the deployment trees (--sizes) or the tiny configs (--tiny-sizes)",
    )
    args = ap.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    args.tiny = sorted({int(s) for s in args.tiny_sizes.split(",") if s.strip()})
    if args.only == "tiny":
        sizes = []
    elif args.only == "deploy":
        args.tiny = []
    if not (sizes or args.tiny) or args.repeat < 1:
        ap.error("give at least one size and --repeat >= 1")
    if not (EXAMPLE_MODELS / "DeepSeek-V4-Flash" / "config.json").is_file():
        ap.error(
            f"cannot find {EXAMPLE_MODELS}/DeepSeek-V4-Flash/config.json (run from a swacheck checkout)"
        )

    python = args.python
    sw = swacheck_cmd(python)
    yl = None if args.no_yamllint else find_yamllint(python, args.yamllint)

    base = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="swabench-"))
    base.mkdir(parents=True, exist_ok=True)
    env = bench_env(base / "pycache")
    try:
        return _bench(args, sizes, python, env, sw, yl, base)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


def _bench(args, sizes, python, env, sw, yl, base: Path) -> int:  # type: ignore[no-untyped-def]
    _header(args, python, env, sw, yl, base)
    checks: list[tuple[str, str, str, bool]] = []  # (target, value, limit, ok)
    deploy = _deploy(args, sizes, python, env, sw, yl, base, checks) if sizes else None
    tiny = tiny_bench(args, python, env, sw, yl, base, checks) if args.tiny else None
    print(f"{'target':<52}{'value':>26}{'limit':>12}   result")
    print("-" * 100)
    for name, value, limit, ok in checks:
        print(f"{name:<52}{value:>26}{limit:>12}   {'PASS' if ok else 'FAIL'}")
    print()
    if deploy is not None:
        item7(*deploy)
        print()
    if tiny is not None:
        tiny_ratios(tiny)
        print()
    failed = sum(not ok for *_, ok in checks)
    print(
        f"{len(checks) - failed} of {len(checks)} targets met"
        + (f"; {failed} FAILED" if failed else "")
    )
    print(
        f"load average at the end: {loadavg()} (on {os.cpu_count()} CPUs; other "
        f"work on the machine inflates every line)"
    )
    return 1 if failed else 0


def _header(args, python, env, sw, yl, base: Path) -> None:  # type: ignore[no-untyped-def]
    cpu = ""
    try:
        cpu = next(
            (
                l.split(":", 1)[1].strip()
                for l in open("/proc/cpuinfo")
                if l.startswith("model name")
            ),
            "",
        )
    except OSError:
        pass
    print("swacheck benchmark")
    print(f"  machine   : {platform.platform()}; nproc {os.cpu_count()}; {cpu}")
    print(
        f"  python    : {output([python, '-c', 'import sys; print(sys.version.split()[0], sys.executable)'])}"
    )
    print(f"  swacheck  : {output([*sw, '--version'])}  ({' '.join(sw)})")
    yaml_probe = "import yaml; print(yaml.__version__, 'with libyaml' if yaml.__with_libyaml__ else 'WITHOUT libyaml')"
    print(f"  PyYAML    : {output([python, '-c', yaml_probe])}")
    print(
        "  yamllint  : "
        + (
            f"{output([*yl, '--version'])}  ({yl[0]})"
            if yl
            else "skipped (not found; pip install yamllint into a peer venv, or --yamllint PATH)"
        )
    )
    print(
        f"  runs      : {args.repeat} timed runs per command after one warm-up, interleaved; median and min wall time"
    )
    print(
        "  peak RSS  : "
        + (
            f"GNU time %M of each child ({TIME_BIN}, adds ~1 ms to every run)"
            if TIME_BIN
            else "os.wait4 ru_maxrss: an UPPER BOUND, it includes this process peak (no /usr/bin/time)"
        )
    )
    print(
        f"  env       : NO_COLOR=1, .pyc cached under {env['PYTHONPYCACHEPREFIX']}; load average at start {loadavg()}"
    )
    print(f"  trees in  : {base}{'  (kept)' if args.keep else '  (removed at the end)'}")
    for anc in [base, *base.parents]:
        for name in ("swacheck.toml", "pyproject.toml"):
            if (anc / name).is_file():
                print(f"  WARNING   : {anc / name} may configure swacheck for these runs")
    print()


def _deploy(args, sizes, python, env, sw, yl, base: Path, checks: list) -> tuple:  # type: ignore[no-untyped-def]
    """The deployment trees (--sizes): time them, print their tables, add their targets to
    ``checks``; the groups and cold-start runs for :func:`item7`."""
    floor_cmd = [python, str(HERE / "floor.py"), "deploy", "models"]
    groups: dict[int, dict[str, Runs]] = {}
    trees: dict[int, Path] = {}
    ones: dict[int, dict[str, Path]] = {}
    for n in sizes:
        root = base / f"n{n}"
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        t0 = time.perf_counter()
        stats, firsts, manifest = generate(root, n, args.seed + n)
        trees[n] = root
        ones[n] = firsts
        print(
            f"generated {n:,} deployments in {time.perf_counter() - t0:.1f} s: {stats['files']:,} YAML files "
            f"({stats['bytes'] / 1e6:.1f} MB, {stats['deployment-files']:,} of them swacheck deployment files), "
            f"~{PER_FOLDER} per folder, {stats['pd-pairs']:,} PD prefill/decode pairs, "
            f"4 model config.json; planned {stats['pass']:,} pass, "
            f"{stats['draft-window']:,} draft-window, {stats['nextn']:,} NEXTN, {stats['bad-key']:,} bad key"
        )
        g = {
            "floor": Runs("floor (libyaml + json.load)", floor_cmd, root),
            "json": Runs(
                "swacheck --format json -o",
                [*sw, "--format", "json", "--output", str(root / "out.json"), "deploy"],
                root,
                ok_codes=(1,),
            ),
            "human": Runs("swacheck (human) > /dev/null", [*sw, "deploy"], root, ok_codes=(1,)),
        }
        if yl:
            g["yamllint"] = Runs(
                "yamllint -d relaxed", [*yl, "-d", "relaxed", "deploy"], root, ok_codes=(0, 1)
            )
        groups[n] = g
        run_once(g["json"], env, record=False)
        print(f"  check     : {verify_verdicts(root / 'out.json', stats, manifest)}")
        t0 = time.perf_counter()
        measure(list(g.values()), args.repeat, env)
        print(f"  timed in {time.perf_counter() - t0:.0f} s")
    print()

    # cold start, on the smallest tree: one passing plain server config
    small = trees[sizes[0]]
    if set(ones[sizes[0]]) != {"pd", "plain"}:
        raise SystemExit(
            "the smallest tree lacks a passing PD and plain server config for the cold start"
        )
    one_rel = str(ones[sizes[0]]["pd"].relative_to(small))
    plain_rel = str(ones[sizes[0]]["plain"].relative_to(small))
    cold = {
        "import": Runs(
            'python -c "import typer, yaml, rich.table"',
            [python, "-c", "import typer, yaml, rich.table"],
            small,
        ),
        "version": Runs("swacheck --version", [*sw, "--version"], small),
        "one": Runs("swacheck ONE_FILE > /dev/null", [*sw, one_rel], small, ok_codes=(0,)),
        "plain": Runs("swacheck PLAIN_FILE > /dev/null", [*sw, plain_rel], small, ok_codes=(0,)),
    }
    if yl:
        cold["yamllint"] = Runs(
            "yamllint ONE_FILE > /dev/null", [*yl, one_rel], small, ok_codes=(0, 1)
        )
        cold["yamllint-plain"] = Runs(
            "yamllint PLAIN_FILE > /dev/null", [*yl, plain_rel], small, ok_codes=(0, 1)
        )
    measure(list(cold.values()), max(args.repeat, 10), env)

    # in-process count of parses per file, on the largest tree
    big = sizes[-1]
    counts_file = base / "load-counts.json"
    subprocess.run(
        [
            python,
            str(HERE / "count_loads.py"),
            str(counts_file),
            "--format",
            "json",
            "--output",
            str(trees[big] / "out-counted.json"),
            "deploy",
        ],
        cwd=trees[big],
        env=env,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    counted = json.loads(counts_file.read_text(encoding="utf-8"))
    loads = counted["load_file"]
    cfg_loads = {p: c for p, c in loads.items() if os.path.basename(p) == "config.json"}
    cfg_parses = {
        p: c for p, c in counted["parse_json"].items() if os.path.basename(p) == "config.json"
    }
    max_cfg = max(cfg_loads.values(), default=0)
    max_any = max(loads.values(), default=0)

    # ------------------------------------------------------------------ tables
    print(
        f"{'measurement':<44}{'deployments':>12}{'median':>12}{'min':>12}"
        f"{'peak RSS':>11}{'vs floor':>10}{'yamllint/x':>11}"
    )
    print("-" * 112)
    for n in sizes:
        g = groups[n]
        floor = g["floor"].median
        for key in ("floor", "json", "human", "yamllint"):
            r = g.get(key)
            if r is None:
                continue
            vs_floor = f"{r.median / floor:9.2f}x"
            vs_yl = (
                f"{g['yamllint'].median / r.median:10.1f}x"
                if "yamllint" in g and key != "yamllint"
                else " " * 11
            )
            print(
                f"{r.label:<44}{n:>12,}{fmt_s(r.median):>12}{fmt_s(r.best):>12}{r.rss_mb:>8.0f} "
                f"MB{vs_floor:>10}{vs_yl:>11}"
            )
        print()
    for r in cold.values():
        print(
            f"{r.label:<44}{'1 file' if '_FILE' in r.label else '-':>12}"
            f"{fmt_s(r.median):>12}{fmt_s(r.best):>12}{r.rss_mb:>8.0f} MB"
        )
    print(
        f"  (ONE_FILE = {one_rel}, a PD server: the PD servers beside it are read to pair it;\n"
        f"   PLAIN_FILE = {plain_rel}, no PD: the one file read; {max(args.repeat, 10)} runs each)"
    )
    print()
    print(
        f"parses per file, in process at {big:,} deployments: {len(loads):,} files "
        f"through load_file, max {max_any} per file; "
        f"{len(cfg_loads)} config.json loaded (max {max_cfg} per file), json "
        f"parsed {sum(cfg_parses.values())} times for them; exit "
        f"{counted['exit_code']}"
    )
    print()

    # ------------------------------------------------------------------ targets
    for n in sizes:
        _peer_checks(f"{n:,}", groups[n], ("json", "human"), checks)
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        limit = LINEAR_SLACK * hi / lo
        for key in ("json", "human"):
            growth = groups[hi][key].median / groups[lo][key].median
            checks.append(
                (
                    f"linear growth {key}: t({hi:,}) / t({lo:,})",
                    f"{growth:.2f}x",
                    f"<= {limit:.3g}x",
                    growth <= limit,
                )
            )
    checks.append(
        (
            f"config.json parses per run ({big:,} deployments)",
            f"max {max_cfg} (over {len(cfg_loads)} files)",
            "== 1",
            max_cfg == 1 and len(cfg_loads) == len(MODELS),
        )
    )
    ratio = cold["one"].median / cold["import"].median
    checks.append(
        (
            "cold start: one file vs bare import line",
            f"{ratio:.2f}x",
            f"<= {COLD_FACTOR:g}x",
            ratio <= COLD_FACTOR,
        )
    )
    for key, what in (("one", "one PD file"), ("plain", "one file without PD")):
        if "yamllint" in cold:
            ratio = cold[key].median / cold["yamllint" if key == "one" else "yamllint-plain"].median
            checks.append(
                (
                    f"cold start: {what} vs yamllint on it",
                    f"{ratio:.2f}x",
                    f"<= {COLD_YAMLLINT_FACTOR:g}x",
                    ratio <= COLD_YAMLLINT_FACTOR,
                )
            )
    for key in ("json", "human"):
        mb = groups[big][key].rss_mb
        checks.append(
            (
                f"peak RSS {key} at {big:,}",
                f"{mb:.0f} MB",
                f"< {RSS_LIMIT_MB:g} MB",
                mb < RSS_LIMIT_MB,
            )
        )
    return groups, cold


# ----------------------------------------------------------------------------- tiny configs


def tiny_bench(args, python, env, sw, yl, base: Path, checks: list) -> dict[int, dict[str, Runs]]:  # type: ignore[no-untyped-def]
    """Issue 29's workload (benchmarks/tiny.py): N tiny server configs, timed side by side with
    the floor, yamllint (at the smallest size) and ``swacheck --fix``, every run on the same
    files (they are put back before each run, untimed); the targets go to ``checks``."""
    import tiny

    groups: dict[int, dict[str, Runs]] = {}
    for n in args.tiny:
        root = base / f"tiny{n}"
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        write_models(root)
        t = tiny.generate(root, n, args.seed + n)
        pristine = tiny.snapshot(root)

        def put_back(pristine: dict = pristine) -> None:
            tiny.restore(pristine)
            # the files put back are on disk before the next command starts: else a --fix's own
            # syncs wait for the journal to take the thousands of files the last one rewrote
            os.sync()

        print(
            f"generated {t.files:,} tiny server configs ({tiny.LINES} lines, {t.bytes / 1e6:.2f} MB), "
            f"{tiny.PER_FOLDER} per folder, {t.pairs:,} PD pairs, {t.fixable:,} with a safe fix"
        )
        report = root / "out.json"
        g = {
            "floor": Runs(
                "floor (libyaml + json.load)",
                [python, str(HERE / "floor.py"), "configs", "models"],
                root,
                prepare=put_back,
            ),
            "human": Runs(
                "swacheck (human) > /dev/null",
                [*sw, "configs"],
                root,
                ok_codes=(1,),
                prepare=put_back,
            ),
            "json": Runs(
                "swacheck --format json -o",
                [*sw, "--format", "json", "--output", str(report), "configs"],
                root,
                ok_codes=(1,),
                prepare=put_back,
            ),
            # the same check in one process (workers.py: a run this size uses one per processor)
            "human1": Runs(
                "SWACHECK_JOBS=1 swacheck (human)",
                ["env", "SWACHECK_JOBS=1", *sw, "configs"],
                root,
                ok_codes=(1,),
                prepare=put_back,
            ),
            "fix": Runs(
                "swacheck --fix > /dev/null",
                [*sw, "--fix", "configs"],
                root,
                ok_codes=(1,),
                prepare=put_back,
            ),
        }
        if yl and n == args.tiny[0]:
            g["yamllint"] = Runs(
                "yamllint -d relaxed",
                [*yl, "-d", "relaxed", "configs"],
                root,
                ok_codes=(0, 1),
                prepare=put_back,
            )
        run_once(g["json"], env, record=False)
        print(f"  check     : {verify_tiny(report, t)}")
        run_once(g["fix"], env, record=False)
        run_once(Runs("check after --fix", g["json"].cmd, root, ok_codes=(1,)), env, record=False)
        print(f"  --fix     : {verify_fixed(report, t, pristine)}")
        t0 = time.perf_counter()
        measure(list(g.values()), args.repeat, env)
        print(f"  timed in {time.perf_counter() - t0:.0f} s")
        groups[n] = g
    print()
    _tiny_checks(groups, checks)
    return groups


def verify_tiny(out_json: Path, t, after_fix: bool = False) -> str:  # type: ignore[no-untyped-def]
    """swacheck's JSON report of the tiny configs against their plan; one line, or stop."""
    data = json.loads(out_json.read_text(encoding="utf-8"))
    problems = []
    if data["summary"]["deployments"] != t.files or data["summary"]["input_errors"]:
        problems.append(f"summary {data['summary']}, {t.files} configs generated")
    failing = 0
    for d in data["deployments"]:
        got = {f["code"] for f in d["findings"] if f["severity"] == "error"}
        failing += bool(got)
        rel = d["file"].replace(os.sep, "/")
        want = set(t.expected_codes(rel))
        if after_fix and t.fixed(rel):
            want = set()
        if not want <= got or bool(want) != bool(got):
            problems.append(f"{rel}: planned {t.plan.get(rel)} {sorted(want)}, got {sorted(got)}")
        if len(problems) > 10:
            break
    if problems:
        raise SystemExit(
            "the tiny configs are not what the benchmark means to measure: " + "; ".join(problems)
        )
    return f"{t.files:,} deployments, {failing:,} failing as planned"


def verify_fixed(out_json: Path, t, pristine: dict) -> str:  # type: ignore[no-untyped-def]
    """After one ``--fix``: every safe fix applied (each planned file changed, nothing else), the
    check after it as planned (those files pass)."""
    changed = {
        str(p.relative_to(out_json.parent))
        for p, data in pristine.items()
        if p.read_bytes() != data
    }
    planned = {rel for rel in t.plan if t.fixed(rel)}
    if changed != planned:
        raise SystemExit(
            f"--fix changed {len(changed)} files, {len(planned)} planned: "
            f"{sorted(changed ^ planned)[:5]}"
        )
    return f"{len(changed):,} files fixed as planned; " + verify_tiny(out_json, t, after_fix=True)


def _peer_checks(label: str, g: dict[str, Runs], keys: tuple[str, ...], checks: list) -> None:
    """Each format against the libyaml floor and, when it ran, yamllint against each format."""
    for key in keys:
        ratio = g[key].median / g["floor"].median
        checks.append(
            (
                f"{label}: {key} vs libyaml floor",
                f"{ratio:.2f}x",
                f"<= {FLOOR_FACTOR:g}x",
                ratio <= FLOOR_FACTOR,
            )
        )
        if "yamllint" in g:
            speed = g["yamllint"].median / g[key].median
            checks.append(
                (
                    f"{label}: {key} speed-up over yamllint",
                    f"{speed:.1f}x",
                    f">= {YAMLLINT_FACTOR:g}x",
                    speed >= YAMLLINT_FACTOR,
                )
            )


def _tiny_checks(groups: dict[int, dict[str, Runs]], checks: list) -> None:
    for n, g in groups.items():
        _peer_checks(f"tiny {n:,}", g, ("human", "json"), checks)
        ratio = g["fix"].median / g["human"].median
        checks.append(
            (
                f"tiny {n:,}: --fix vs a check (human)",
                f"{ratio:.2f}x",
                f"<= {FIX_FACTOR:g}x",
                ratio <= FIX_FACTOR,
            )
        )
    sizes = sorted(groups)
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        for key in ("human", "json"):
            growth = groups[hi][key].rss_mb / groups[lo][key].rss_mb
            checks.append(
                (
                    f"tiny peak RSS {key}: {hi:,} / {lo:,}",
                    f"{groups[hi][key].rss_mb:.0f} / {groups[lo][key].rss_mb:.0f} MB = {growth:.2f}x",
                    f"<= {RSS_FLAT:g}x",
                    growth <= RSS_FLAT,
                )
            )


def tiny_ratios(groups: dict[int, dict[str, Runs]]) -> None:
    """Issue 29's three ratios per size: the ratio of the medians, and per round (:func:`paired`)."""
    print("issue 29 item 4 (tiny server configs)                      medians   per round")
    for n, g in groups.items():
        rows = [
            (f"{n:,}: human / libyaml floor", g["human"], g["floor"], f"<= {FLOOR_FACTOR:g}x"),
            (f"{n:,}: json / libyaml floor", g["json"], g["floor"], f"<= {FLOOR_FACTOR:g}x"),
            (f"{n:,}: human, one process / floor", g["human1"], g["floor"], "(workers off)"),
            (f"{n:,}: --fix / check (human)", g["fix"], g["human"], f"<= {FIX_FACTOR:g}x"),
            (f"{n:,}: --fix / one-process check", g["fix"], g["human1"], "(check's workers off)"),
        ]
        if "yamllint" in g:
            rows += [
                (f"{n:,}: yamllint / human", g["yamllint"], g["human"], f">= {YAMLLINT_FACTOR:g}x"),
                (f"{n:,}: yamllint / json", g["yamllint"], g["json"], f">= {YAMLLINT_FACTOR:g}x"),
                (
                    f"{n:,}: yamllint / human, one process",
                    g["yamllint"],
                    g["human1"],
                    "(workers off)",
                ),
            ]
        for name, a, b, target in rows:
            print(
                f"  {name:<50}{a.median / b.median:>11.2f}x{paired(a, b):>11.2f}x   target {target}"
            )
        print(
            f"  {n:,}: peak RSS human / json / --fix / floor: "
            + " / ".join(f"{g[k].rss_mb:.0f}" for k in ("human", "json", "fix", "floor"))
            + f" MB (human in one process: {g['human1'].rss_mb:.0f} MB)"
        )


def paired(a: Runs, b: Runs) -> float:
    """The median over rounds of a's time / b's time in the same round. The commands of a round
    run back to back, so a slow spell of the machine (other work, a throttled CPU) weighs on both
    sides of each ratio instead of moving one median and not the other."""
    return statistics.median(x / y for x, y in zip(a.times, b.times, strict=True))


def item7(groups: dict[int, dict[str, Runs]], cold: dict[str, Runs]) -> None:
    """The two ratios of issue 13 item 7 (start-up and throughput), against their targets: the
    ratio of the medians, and the median of the per-round ratios (:func:`paired`)."""
    print("issue 13 item 7                                            medians   per round")
    rows: list[tuple[str, Runs | None, Runs | None, float]] = []
    for key, peer, what in (
        ("one", "yamllint", "one small PD file (its partners read)"),
        ("plain", "yamllint-plain", "one small file without PD"),
    ):
        rows.append((f"{what}: / yamllint", cold[key], cold.get(peer), COLD_YAMLLINT_FACTOR))
    g = groups.get(ITEM7_SIZE)
    for key in ("json", "human"):
        rows.append(
            (
                f"{ITEM7_SIZE:,} server configs: {key} / libyaml floor",
                g[key] if g else None,
                g["floor"] if g else None,
                FLOOR_FACTOR,
            )
        )
    for name, a, b, limit in rows:
        if a is None or b is None:
            print(f"  {name:<50}{'not run':>12}")
            continue
        ratio, per_round = a.median / b.median, paired(a, b)
        verdict = (
            "PASS"
            if max(ratio, per_round) <= limit
            else ("PASS per round" if per_round <= limit else "FAIL")
        )
        print(f"  {name:<50}{ratio:>11.2f}x{per_round:>11.2f}x   target <= {limit:g}x   {verdict}")


if __name__ == "__main__":
    sys.exit(main())
