"""``run.py --printed``: swacheck's reading of what SGLang prints, held to its reading of the files.

For each case that got past SGLang's resolution, the driver (``sglang_driver.printed``) records
what the real release prints of the resolved arguments: the start-up log line
``server_args=...`` and the ``/server_info`` payload's arguments. This writes them into the
case's folder as ``server.log`` and ``server_info.json``, runs swacheck on each with the case's
platform, environment and GPU, and compares with swacheck's report on the case's own files:
the same verdict (error codes) and the same target and draft tuples.

Standard library only.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import compare


def _outcome(report: dict | None) -> tuple:
    """(error codes, target tuple, draft tuple) of a one-deployment report."""
    if report is None:
        return ("no report",)
    dep = (report.get("deployments") or [None])[0]
    codes = tuple(sorted({f["code"] for f in compare._errors(report)}))
    if report.get("errors"):
        codes += ("input error",)
    if dep is None:
        return codes, None, None
    pools = tuple((dep.get(side) or {}).get("tuple") for side in ("target", "draft"))
    return (codes, *pools)


def check(case, directory: Path, result: dict | None, files_report: dict | None, swacheck_cmd):
    """One case: None when SGLang printed nothing (it stopped before resolving), else a list of
    (what was read, agrees, why)."""
    printed = (result or {}).get("printed") or {}
    if not printed.get("log_line"):
        return None
    inputs = {
        "server.log": f"[2026-12-01 00:00:00] {printed['log_line']}\n",
        "server_info.json": json.dumps(printed.get("server_info") or {}, indent=1) + "\n",
    }
    want = _outcome(files_report)
    rows = []
    for name, text in inputs.items():
        (directory / name).write_text(text)
        cmd = [*swacheck_cmd(case), name]
        proc = subprocess.run(cmd, cwd=directory, capture_output=True, text=True, timeout=120)
        (directory / f"swacheck-{name}.json").write_text(proc.stdout)
        try:
            got = _outcome(json.loads(proc.stdout))
        except json.JSONDecodeError:
            got = ("no report", proc.stderr.strip()[:200])
        rows.append((name, got == want, "" if got == want else f"files {want}, {name} {got}"))
    return rows


def summary(results: list[tuple[str, list | None]]) -> tuple[str, bool]:
    """The summary line, and whether every printed input agreed."""
    read = [(case, rows) for case, rows in results if rows is not None]
    bad = [f"  {case}: {why}" for case, rows in read for name, ok, why in rows if not ok]
    agree = sum(1 for _, rows in read for _, ok, _ in rows if ok)
    total = sum(len(rows) for _, rows in read)
    line = (
        f"printed: {len(read)} cases printed their arguments; {agree} of {total} readings "
        f"(log line, /server_info) agree with the files"
    )
    return "\n".join([line, *bad]), not bad
