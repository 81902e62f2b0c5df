"""The default terminal report: a rich table per deployment, findings with fixes, a summary.

Each finding is one ``file:line:col: CODE severity message`` line (clickable in editors and
greppable in CI logs), followed by its fix.
"""

from __future__ import annotations

import os
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine import DeploymentResult, RunResult
from ..model import Finding
from .common import pool_mode

STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}
PLATFORM = {"cuda": "CUDA", "rocm": "ROCm", "npu": "NPU"}


def make_console(out: TextIO, color: str) -> Console:
    # "auto" leaves NO_COLOR and FORCE_COLOR to rich, which honours both.
    force = {"always": True, "never": False}.get(color)
    is_tty = out.isatty() if hasattr(out, "isatty") else False
    width = None if is_tty else 120
    return Console(
        file=out,
        force_terminal=force,
        no_color=True if force is False else None,
        width=width,
        highlight=False,
        emoji=False,
    )


def _heading(r: DeploymentResult) -> Text:
    res = r.resolution
    pd = res.values.get("disaggregation_mode")
    parts = [PLATFORM.get(res.values["platform"].value, res.values["platform"].value)]
    if res.mode == "skipped":
        parts.append("skipped")
    else:
        parts.append(f"{res.mode} KV")
    if res.pd and pd is not None and pd.value != "null":
        parts.append(f"PD {pd.value}")
    elif res.pd:
        parts.append("PD (assumed)")
    else:
        parts.append("no PD")
    algo = res.values.get("speculative_algorithm")
    if algo is not None and algo.value:
        parts.append(str(algo.value))
    text = Text()
    text.append(r.deployment.file, style="bold")
    if r.deployment.name != os.path.splitext(os.path.basename(r.deployment.file))[0]:
        text.append(f" · {r.deployment.name}", style="bold")
    text.append(f"  ({', '.join(parts)})", style="dim")
    return text


def _table(r: DeploymentResult) -> Table | None:
    res = r.resolution
    if res.target is None:
        return None
    t, d = res.target, res.draft
    mode = pool_mode(res, t)
    table = Table(show_edge=True, pad_edge=False, header_style="bold")
    table.add_column("field")
    table.add_column("target", justify="right")
    table.add_column("draft", justify="right")
    table.add_column("target from", overflow="fold")
    table.add_column("draft from", overflow="fold")
    d_fields = dict(d.fields(mode, res.profile)) if d else {}
    for name, tv in t.fields(mode, res.profile):
        dv = d_fields.get(name)
        differs = dv is not None and dv.value != tv.value
        style = "bold red" if differs else None
        table.add_row(
            name,
            _fmt(tv.value),
            _fmt(dv.value) if dv else "-",
            tv.describe(),
            dv.describe() if dv else "no draft pool",
            style=style,
        )
    t_tuple = t.tuple(mode, res.profile)
    d_tuple = d.tuple(mode, res.profile) if d else None
    differs = d_tuple is not None and d_tuple != t_tuple
    table.add_row(
        "tuple",
        _fmt(t_tuple),
        _fmt(d_tuple) if d_tuple else "-",
        "compared by SGLang" if res.checked_by_sglang else "not compared by SGLang (no PD)" if d else "",
        "",
        style="bold red" if differs else "bold",
    )
    return table


def _fmt(value: object) -> str:
    return "None" if value is None else str(value)


def _finding(console: Console, f: Finding) -> None:
    line = Text()
    line.append(f"{f.location}: " if f.location else "", style="bold")
    line.append(f.code, style=STYLE[f.severity])
    line.append(f" {f.severity}: ", style=STYLE[f.severity])
    line.append(f.message)
    console.print(line, soft_wrap=True)
    for rel in f.related:
        console.print(Text(f"    related: {rel.location}: {rel.message}", style="dim"), soft_wrap=True)
    if f.fix is not None:
        console.print(Text("    fix: ", style="green").append(f.fix.description, style=None), soft_wrap=True)
        for e in f.fix.edits:
            if e.replacement == "" and e.column == 1 and e.end_column == 1 and e.end_line > e.line:
                what = f"delete line{'s' if e.end_line - e.line > 1 else ''} {e.line}" + (f"-{e.end_line - 1}" if e.end_line - e.line > 1 else "")
            elif e.replacement == "":
                what = f"delete to {e.end_line}:{e.end_column}" if e.end_line != e.line else f"delete to column {e.end_column}"
            elif e.line == e.end_line and e.column == e.end_column:
                what = f"insert {e.replacement.strip()!r}"
            else:
                what = f"replace with {e.replacement!r}"
            console.print(Text(f"      {e.file}:{e.line}:{e.column}: {what}", style="green"), soft_wrap=True)


def summary_line(result: RunResult) -> Text:
    s = result.summary
    text = Text()
    files = f"{s.files} file{'s' if s.files != 1 else ''}"
    text.append(f"Checked {s.deployments} deployment{'s' if s.deployments != 1 else ''} in {files}: ")
    parts = []
    for sev, label in (("error", "error"), ("warning", "warning"), ("note", "note")):
        n = s.counts[sev]
        parts.append((f"{n} {label}{'s' if n != 1 else ''}", STYLE[sev] if n else "green"))
    if s.suppressed:
        parts.append((f"{s.suppressed} suppressed", "dim"))
    if s.input_errors:
        parts.append((f"{s.input_errors} input error{'s' if s.input_errors != 1 else ''}", "bold red"))
    for i, (p, style) in enumerate(parts):
        text.append(p, style=style)
        text.append(", " if i < len(parts) - 1 else "")
    text.append(f"  (exit {result.exit_code})", style="dim")
    return text


def render(result: RunResult, out: TextIO) -> None:
    settings = result.settings
    console = make_console(out, settings.color)
    for r in result.results:
        if settings.quiet:
            for f in r.findings:
                _finding(console, f)
            continue
        console.print(_heading(r), soft_wrap=True)
        if r.resolution.skip_reason:
            console.print(Text(f"  {r.resolution.skip_reason}", style="dim"), soft_wrap=True)
        table = _table(r)
        if table is not None:
            console.print(table)
        for f in r.findings:
            _finding(console, f)
        console.print()
    if settings.verbose:
        for path in result.skipped:
            console.print(Text(f"skipped {path}: not a deployment", style="dim"), soft_wrap=True)
    if not settings.quiet:
        console.print(summary_line(result))
