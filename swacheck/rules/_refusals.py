"""What the start-up refusal rules (SWA215-SWA224, SWA240-SWA249) share: a refusal SGLang raises, quoted.

Each of these rules checks a family of ``raise``/``assert`` sites of SGLang's DeepSeek-V4
start-up path (the raise inventory, ``conformance/inventory/``) that depend only on what the
files say. A check yields :class:`Refused`: the argument (or environment variable) it points at,
SGLang's exception and message as SGLang formats them, and the function and line per release
that raise it. A rule is applied only to the releases whose code was read for it (the ``lines``
keys): for another release it stays silent rather than guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..model.records import Finding, Fix
from ..model.recordtype import record
from ..sglang.resolve import Resolution
from ._preflight import arg, text, where


@record(frozen=True)
class Site:
    """Where SGLang raises: ``file`` under ``sglang/srt/``, the function, the line per release."""

    file: str
    function: str
    lines: tuple[tuple[str, int], ...]

    def line(self, version: str) -> int | None:
        return dict(self.lines).get(version)

    @property
    def releases(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.lines)


@record(frozen=True)
class Refused:
    name: str  # the argument (server key) or environment variable the finding points at
    exception: str
    message: str  # SGLang's message as it prints it (or the assert's condition)
    site: Site
    fix: str
    env: bool = False  # ``name`` is an environment variable


def raw(res: Resolution, name: str) -> str | None:
    """An argument's text (None when absent)."""
    return text(res, name)


def as_int(res: Resolution, name: str, default: int) -> int:
    """An integer argument as argparse reads it; ``default`` when absent or not an integer (a
    bad value is SWA304's). Unlike ``_preflight.integer`` 0 and negatives are kept."""
    t = text(res, name)
    if t is None:
        return default
    try:
        return int(t)
    except ValueError:
        return default


def env_on(res: Resolution, name: str) -> bool:
    """An ``EnvBool`` SGLang reads as true (``environ.py`` ``EnvBool.parse``: ``true``, ``1``,
    ``yes``, ``y``, any case)."""
    v = res.deployment.env.get(name)
    return v is not None and str(v.value).strip().lower() in ("true", "1", "yes", "y")


def algorithm(res: Resolution) -> str | None:
    """The speculative algorithm as the DSV4 hook leaves it (EAGLE, DSPARK or None)."""
    val = res.values.get("speculative_algorithm")
    return None if val is None or val.value is None else str(val.value)


def findings(rule, res: Resolution, refusals: Iterable[Refused]) -> Iterator[Finding]:
    version = res.profile.version
    seen: set[tuple[str, str]] = set()
    for r in refusals:
        line = r.site.line(version)
        if line is None or (r.name, r.message) in seen:
            continue
        seen.add((r.name, r.message))
        if r.env:
            val = res.deployment.env.get(r.name)
            location = val.location if val is not None else where(res, None)
            shown = f"{r.name}={val.value}" if val is not None else r.name
        else:
            a = arg(res, r.name)
            location = where(res, a)
            shown = f"{r.name}: {text(res, r.name)}" if a is not None else r.name
        yield Finding(
            rule.CODE,
            rule.SEVERITY,
            f"{shown}: {r.exception}: {r.message} "
            f"({r.site.file}:{line} {r.site.function}, SGLang {version})",
            location,
            Fix(r.fix),
            field=r.name,
        )
