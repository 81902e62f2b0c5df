"""What every rule module gets, and the small helpers they share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from ..model.records import Finding, Fix, Related
from ..model.recordtype import record
from ..sglang.resolve import Event, Resolution


@record(unsafe_hash=True)
class RuleContext:
    """What a rule is given besides the resolution: the run's fix preference."""

    align_to: str = "target"  # which side a geometry fix moves the other towards


class Rule(Protocol):
    """A rule module. SCOPE says what it checks and so which function the engine calls
    (``rules.SCOPES``): a ``deployment`` rule defines ``check`` (below). A deployment rule
    is skipped on a launch that is not swacheck's business (``Resolution.quiet`` set) unless
    its optional ``QUIET`` tuple names that reason."""

    CODE: str
    NAME: str
    SEVERITY: str
    SCOPE: str
    SUMMARY: str
    FIX_SAFETY: str
    __doc__: str | None

    def check(self, res: Resolution, ctx: RuleContext) -> Iterator[Finding]: ...


def arg_mapping(res: Resolution):
    return res.deployment.server.mapping


def finding_for_event(
    rule: Rule,
    event: Event,
    fix: Fix | None,
    message: str | None = None,
    severity: str | None = None,
    related: tuple[Related, ...] = (),
    field: str = "",
) -> Finding:
    """A finding at the event's position; ``message`` defaults to the event's own."""
    return Finding(
        code=rule.CODE,
        severity=severity or rule.SEVERITY,
        message=message or event.message,
        location=event.location,
        fix=fix,
        related=related,
        field=field or (event.arg.name if event.arg else event.kind),
    )
