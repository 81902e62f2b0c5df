"""Run the conformance suite against one released SGLang.

    python conformance/run.py --sglang 0.5.23 [--select TEXT] [--fresh] [--keep DIR] [--json FILE]
    python conformance/run.py --sglang 0.5.23 --matrix 300 [--seed 0]   # the generated matrix
    python conformance/run.py --sglang 0.5.23 --pair-matrix 60 [--seed 0]   # generated PD pairs

Builds (once) the isolated environment of that release (see envs.py), writes every case of
``conformance/cases/*.yaml`` into a scratch folder, runs SGLang's own start-up code on it
(sglang_driver.py, in that environment) and swacheck on the same files
(``swacheck --format json --sglang-version X``), prints a table of agreement and a summary,
and exits 0 when the cases that disagree are exactly the committed, explained ones among those
it ran (``expected-disagreements.tsv``, each with the SGLang file:line that decides it; see
expected.py), 1 on any other disagreement or on a committed one that now agrees, 2 on a usage or
set-up error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases as case_mod  # noqa: E402
import compare  # noqa: E402
import envs  # noqa: E402
import expected  # noqa: E402
import matrix  # noqa: E402
import pairs  # noqa: E402
import printed  # noqa: E402

HARNESS_GPU = {"cuda": "H200", "rocm": "MI355X"}


def gpu_of(case: case_mod.Case) -> str:
    """The GPU the driver makes SGLang see for this case (sglang_driver.GPUS)."""
    return case.gpu or HARNESS_GPU[case.platform]


def swacheck_command() -> list[str]:
    exe = shutil.which("swacheck")
    return [exe] if exe else [sys.executable, "-m", "swacheck"]


def swacheck_version() -> str | None:
    try:
        proc = subprocess.run(
            [*swacheck_command(), "--version"], capture_output=True, text=True, timeout=60
        )
    except OSError:
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def base_command(case: case_mod.Case, version: str) -> list[str]:
    """swacheck's command line for a case, before the files it reads."""
    cmd = [
        *swacheck_command(),
        "--format",
        "json",
        "--no-config",
        "--sglang-version",
        version,
        "--platform",
        case.platform,
        # the GPU the driver makes SGLang see (sglang_driver.install_platform)
        "--gpu",
        gpu_of(case),
    ]
    for key, value in sorted(case.env.items()):
        cmd += ["--env", f"{key}={value}"]
    return cmd


def run_swacheck(case: case_mod.Case, server: Path, version: str) -> dict | None:
    cmd = base_command(case, version)
    # swacheck reads the launch command's extra arguments from --command; without any, the file alone
    if case.argv:
        cmd += [
            "--command",
            " ".join(["python -m sglang.launch_server --config server.yaml", *case.argv]),
        ]
    else:
        cmd.append(server.name)
    proc = subprocess.run(cmd, cwd=server.parent, capture_output=True, text=True, timeout=120)
    (server.parent / "swacheck.json").write_text(proc.stdout)
    (server.parent / "swacheck.stderr").write_text(proc.stderr)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None


def run_sglang(
    venv: Path, version: str, jobs: list[tuple[case_mod.Case, Path]], fresh: bool, log
) -> None:
    by_platform: dict[str, list[dict]] = {}
    for case, directory in jobs:
        # one driver (one installed platform and GPU) per platform:GPU
        key = case.platform if case.gpu is None else f"{case.platform}:{case.gpu}"
        by_platform.setdefault(key, []).append(
            {"dir": str(directory), "env": case.env, "argv": case.argv}
        )
    for platform, items in sorted(by_platform.items()):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(items, fh)
        log(f"SGLang {version}: {len(items)} {platform} case(s)")
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SGLANG_", "SWACHECK_CONFORMANCE"))
        }
        env.setdefault("PYTHONWARNINGS", "ignore")
        cmd = [
            str(envs.python_of(venv)),
            str(HERE / "sglang_driver.py"),
            platform,
            version,
            fh.name,
        ]
        if fresh:
            cmd.append("--fresh")
        subprocess.run(cmd, env=env, check=False, cwd="/")
        os.unlink(fh.name)


def _environment(args, log) -> Path | None:
    """The release's cached environment (built on first use); None, said, when it cannot be built."""
    try:
        return envs.ensure_venv(args.sglang, log=log)
    except subprocess.CalledProcessError as exc:
        log(f"conformance: could not build the SGLang {args.sglang} environment: {exc}")
        return None


def run_pairs(args, log) -> int:
    """``--pairs``: each side a single-server case, then the pair step, then ``swacheck pair``."""
    if args.pair_matrix is not None:
        chosen = pairs.matrix(args.pair_matrix, args.seed, args.select)
    else:
        chosen = pairs.generate(args.select)
    if not chosen:
        log("conformance: no pair selected")
        return 2
    venv = _environment(args, log)
    if venv is None:
        return 2
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="swacheck-pairs-"))
    jobs, pair_jobs = [], {}
    for pc in chosen:
        top = (work / pc.name).resolve()
        for role, case in (("prefill", pc.prefill), ("decode", pc.decode)):
            directory = top / role
            if not args.reuse:
                if directory.exists():
                    shutil.rmtree(directory)
                case_mod.materialize(case, directory)
            jobs.append((case, directory))
        pair_jobs.setdefault(pc.prefill.platform, []).append(
            {
                "prefill": str(top / "prefill"),
                "decode": str(top / "decode"),
                "out": str(top / "pair-result.json"),
            }
        )
    if not args.reuse:
        run_sglang(venv, args.sglang, jobs, args.fresh, log)
        for platform, items in sorted(pair_jobs.items()):
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
                json.dump(items, fh)
            env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
            env.setdefault("PYTHONWARNINGS", "ignore")
            driver = str(HERE / "sglang_driver.py")
            cmd = [str(envs.python_of(venv)), driver, "--pairs", platform, args.sglang, fh.name]
            subprocess.run(cmd, env=env, check=False, cwd="/", capture_output=True)
            os.unlink(fh.name)
    rows = []
    for pc in chosen:
        top = (work / pc.name).resolve()
        result_path = top / "pair-result.json"
        result = json.loads(result_path.read_text()) if result_path.exists() else None
        report = run_swacheck_pair(pc, top / "swacheck", args.sglang)
        rows.append(pairs.compare_pair(pc.name, result, report))
    width = max(len(r["case"]) for r in rows)
    print(f"{'pair'.ljust(width)}  {'SGLang'.ljust(18)}  {'swacheck'.ljust(18)}  agree")
    for r in rows:
        mark = "n/a" if r["agrees"] is None else ("yes" if r["agrees"] else "NO")
        print(
            f"{r['case'].ljust(width)}  {r['sglang'].ljust(18)}  {r['swacheck'].ljust(18)}  {mark}"
        )
    for r in rows:
        if r["agrees"] is not True:
            print(f"  ! {r['case']}: SGLang {r['sglang_why']} | swacheck {r['why']}")
    agree = sum(r["agrees"] is True for r in rows)
    broken = sum(r["agrees"] is None for r in rows)
    print(
        f"SGLang {args.sglang}: {len(rows)} pairs, {agree} agree, {len(rows) - agree - broken} "
        f"disagree, {broken} not compared (harness)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    outcomes = {r["case"]: r["agrees"] for r in rows}
    return expected.judge(outcomes, args.sglang, "pairs", sys.stdout)


def run_swacheck_pair(pc, directory: Path, version: str) -> dict | None:
    """``swacheck pair`` on the two sides written as swacheck deployment files."""
    if directory.exists():
        shutil.rmtree(directory)
    case_mod.materialize(pc.prefill, directory)  # the model folders (each side's own too)
    case_mod.materialize(pc.decode, directory)
    for role, case in (("prefill", pc.prefill), ("decode", pc.decode)):
        text = pairs.deployment_file(case, gpu_of(case))
        (directory / f"{role}.yaml").write_text(text)
    cmd = [
        *swacheck_command(),
        "pair",
        "--format",
        "json",
        "--no-config",
        "--sglang-version",
        version,
        "prefill.yaml",
        "decode.yaml",
    ]
    proc = subprocess.run(cmd, cwd=directory, capture_output=True, text=True, timeout=120)
    (directory / "swacheck.json").write_text(proc.stdout)
    (directory / "swacheck.stderr").write_text(proc.stderr)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--sglang", required=True, metavar="VERSION", help="SGLang release, e.g. 0.5.23"
    )
    ap.add_argument("--select", help="only cases whose name contains this text")
    ap.add_argument(
        "--fresh", action="store_true", help="one new interpreter per case instead of forking"
    )
    ap.add_argument(
        "--keep", metavar="DIR", help="write the cases and both tools' outputs here and keep them"
    )
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: reuse SGLang's results already in DIR (re-run swacheck only)",
    )
    ap.add_argument(
        "--matrix",
        type=int,
        metavar="N",
        help="run N generated cases (matrix.py) instead of the case files",
    )
    ap.add_argument(
        "--seed", type=int, default=0, help="the matrix's seed (default 0; same seed, same cases)"
    )
    ap.add_argument(
        "--pairs",
        action="store_true",
        help="run the PD pair cases (pairs.py) through SGLang's handshake comparisons",
    )
    ap.add_argument(
        "--pair-matrix",
        type=int,
        metavar="N",
        help="run N generated PD pairs (pairs.matrix, seeded by --seed) through the pair step",
    )
    ap.add_argument(
        "--printed",
        action="store_true",
        help="also read what SGLang printed of each case's resolved arguments (its log line and "
        "/server_info payload) with swacheck, and hold the outcome to the files' (printed.py)",
    )
    ap.add_argument("cases", nargs="*", help="case files (default: conformance/cases/*.yaml)")
    args = ap.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.pairs or args.pair_matrix is not None:
        return run_pairs(args, log)
    try:
        if args.matrix is not None:
            if args.matrix < 1 or args.cases:
                raise ValueError("--matrix takes a positive count and no case files")
            cases = matrix.generate(args.matrix, args.seed, select=args.select)
        else:
            cases = case_mod.load_cases(args.cases or None, select=args.select)
    except (OSError, case_mod.CaseError, ValueError) as exc:
        log(f"conformance: {exc}")
        return 2
    if not cases:
        log("conformance: no case selected")
        return 2
    if swacheck_version() is None:
        log("conformance: swacheck is not runnable here (install it: pip install -e .)")
        return 2
    if args.reuse and not args.keep:
        log("conformance: --reuse needs --keep DIR")
        return 2
    venv = _environment(args, log)
    if venv is None:
        return 2
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="swacheck-conformance-"))
    jobs = []
    for case in cases:
        directory = (work / re.sub(r"[^A-Za-z0-9._=,+-]+", "_", case.name)).resolve()
        if args.reuse:
            marker = directory / "case.txt"
            if not marker.exists() or marker.read_text().strip() != case.name:
                log(f"conformance: {directory} does not hold case {case.name}")
                return 2
            jobs.append((case, directory))
            continue
        if directory.exists():
            shutil.rmtree(directory)
        case_mod.materialize(case, directory)
        (directory / "case.txt").write_text(case.name + "\n")
        jobs.append((case, directory))
    if not args.reuse:
        run_sglang(venv, args.sglang, jobs, args.fresh, log)
    rows = []
    readings: list = []
    for case, directory in jobs:
        result_path = directory / "sglang-result.json"
        result = json.loads(result_path.read_text()) if result_path.exists() else None
        report = run_swacheck(case, directory / "server.yaml", args.sglang)
        rows.append(compare.compare(case.name, result, report))
        if args.printed and not case.argv:  # a case with extra argv: its files are a command
            readings.append(
                (
                    case.name,
                    printed.check(
                        case,
                        directory,
                        result,
                        report,
                        lambda c: base_command(c, args.sglang),
                    ),
                )
            )
    print(compare.table(rows))
    print(compare.summary(rows, args.sglang))
    printed_ok = True
    if args.printed:
        line, printed_ok = printed.summary(readings)
        print(line)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [
                    {
                        "case": r.case,
                        "sglang": r.sglang.__dict__,
                        "swacheck": r.swacheck.__dict__,
                        "verdict": r.verdict,
                        "cause": r.cause,
                        "tuple": r.tuple,
                        "why": r.why,
                    }
                    for r in rows
                ],
                indent=1,
            )
            + "\n"
        )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    outcomes = {r.case: (None if r.harness else r.agrees) for r in rows}
    suite = "matrix" if args.matrix is not None else "cases"
    judged = expected.judge(outcomes, args.sglang, suite, sys.stdout)
    return judged if printed_ok else 1


if __name__ == "__main__":
    sys.exit(main())
