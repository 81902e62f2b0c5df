"""The SWA6xx rules: one module per row of the known-failures table, all run by this one matcher.

A row (``sglang/data/known-failures.json``, read by ``sglang/known_failures.py``) says which
launch fails on which releases; :func:`define` gives a rule module its CODE, NAME, SEVERITY,
documentation (with the row's evidence, printed by ``swacheck rule CODE``) and ``check``. A row's
conditions are read from the launch as written (``_preflight``): the platform, the GPU named with
``--gpu`` (a condition on the GPU is not judged without one, nor on a GPU swacheck does not know),
arguments, switches, the server's environment and the checkpoint's expert format.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from ..model.records import Finding, Fix, Related
from ..sglang import known_failures as kf
from ..sglang.resolve import Resolution
from . import _preflight as pf
from .base import RuleContext

UNSET = "<unset>"


def _args_hold(res: Resolution, wanted: dict[str, list[str]]) -> bool:
    for name, values in wanted.items():
        text = pf.text(res, name)
        accepted = {v.lower() for v in values}
        if text is None:
            if UNSET not in accepted:
                return False
        elif text.lower() not in accepted:
            return False
    return True


def _env_holds(res: Resolution, when: dict[str, Any]) -> bool:
    env = res.deployment.env
    if any(name in env for name in when.get("env_unset", ())):
        return False
    return not any(pf.env_true(res, name) for name in when.get("env_not_true", ()))


def _gpu_holds(res: Resolution, majors: list[int]) -> bool:
    """The GPU named is a CUDA GPU of one of these compute-capability majors (not judged without one)."""
    _, gpu = pf.gpu(res)
    return gpu is not None and gpu.sm_major is not None and gpu.sm_major in majors


def _checkpoint_holds(res: Resolution, when: dict[str, Any]) -> bool:
    if "experts" not in when and "experts_declared" not in when:
        return True
    if pf.kt_experts(res):
        return False  # KTransformers runs the routed experts on the CPU: not this model
    ck = pf.checkpoint(res)
    if ck is None:
        return False
    if when.get("experts") == "fp4" and not ck.fp4_experts:
        return False
    declared = ck.experts.origin.startswith("config.json")
    return "experts_declared" not in when or declared == when["experts_declared"]


@lru_cache(maxsize=64)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


def holds(row: kf.KnownFailure, res: Resolution) -> bool:
    """Whether the launch, on the selected release, is the failure of this row."""
    when = row.when
    if not pf.is_dsv4(res) or not row.affects(res.profile.version):
        return False
    if "platform" in when and pf.platform(res) not in when["platform"]:
        return False
    if "gpu_sm_major" in when and not _gpu_holds(res, when["gpu_sm_major"]):
        return False
    if not _args_hold(res, when.get("args", {})):
        return False
    if not all(pf.flag(res, f) for f in when.get("flags", ())):
        return False
    if any(pf.flag(res, f) for f in when.get("not_flags", ())):
        return False
    if not _env_holds(res, when):
        return False
    if "model_path" in when:
        path = pf.text(res, "model-path")
        if path is None or not _pattern(when["model_path"]).search(path):
            return False
    return _checkpoint_holds(res, when)


def _where(res: Resolution, row: kf.KnownFailure):
    """The argument the row names (its value), else the first one its conditions read."""
    names = [row.field, *row.when.get("args", {}), *row.when.get("flags", ())]
    for name in names:
        a = pf.arg(res, name) if name else None
        if a is not None:
            return a.value_loc
    return pf.where(res, None)


def finding(row: kf.KnownFailure, res: Resolution) -> Finding:
    gpu_val, gpu = pf.gpu(res)
    on = (
        f" on {gpu.name} ({gpu.arch_text})"
        if gpu is not None and "gpu_sm_major" in row.when
        else ""
    )
    message = (
        f"known failure of SGLang {res.profile.version}{on}: {row.summary} "
        f"(users saw: {row.seen}; affects {row.releases}, {row.fixed_text}; {row.upstream[0]}; "
        f"swacheck rule {row.code} has the evidence)"
    )
    related = ()
    if on and gpu_val is not None and gpu_val.location is not None:
        related = (Related(gpu_val.location, "the GPU is named here"),)
    return Finding(
        row.code,
        row.severity,
        message,
        _where(res, row),
        Fix(row.fix),
        related,
        row.field,
    )


def document(row: kf.KnownFailure) -> str:
    """The rule's documentation, from its row: what, why, the evidence, an example, the fix."""
    evidence = "\n".join(f"- `{e.where}`: {e.says}" for e in row.evidence)
    return (
        f"{row.code} {row.name}: {row.summary}.\n\n"
        "## What it does\n\n"
        f"Reports a DeepSeek-V4 launch that hits a known failure of SGLang {row.releases} "
        f"({row.fixed_text}; upstream: {', '.join(row.upstream)}). The row of "
        "`swacheck/sglang/data/known-failures.json` that defines it: "
        f"`{row.when}`.\n\n"
        "## Why it matters\n\n"
        f"{row.why}\n\nUsers saw: `{row.seen}`\n\n"
        "## Evidence\n\n"
        f"{evidence}\n\n"
        "## Example\n\n"
        f"```yaml\n{row.example}\n```\n\n"
        "## Fix\n\n"
        f"{row.fix}\n\n"
        "Fix safety: none — the fix is a release, an environment variable or a choice the "
        "launch's owner makes; swacheck edits nothing.\n"
    )


def define(code: str) -> tuple[str, str, str, str, str, str, str, Callable[..., Iterator[Finding]]]:
    """(CODE, NAME, SEVERITY, SCOPE, FIX_SAFETY, SUMMARY, doc, check) of the rule of one row."""
    row = kf.row(code)

    def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
        if holds(row, res):
            yield finding(row, res)

    return (
        row.code,
        row.name,
        row.severity,
        "deployment",
        "none",
        row.summary,
        document(row),
        check,
    )
