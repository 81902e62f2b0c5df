"""Shared by the PD pair rules (SWA4xx): one finding about a value the two servers disagree on.

A pair rule speaks only for a pair whose two servers both start: a server that SGLang refuses on
its own (an error of a single-server rule, reported on that server) never reaches the PD
handshake, so no pair finding is made for its pair (``fails_alone``).
"""

from __future__ import annotations

from .. import fixes
from ..model.records import Finding, Fix, Location, Related, Val
from ..results import ServerPair
from ..sglang.pd import state_layout_outcome, transfer_backend


def root_location(val: Val) -> Location | None:
    if val.location is not None:
        return val.location
    for _, inner in val.inputs:
        if (loc := root_location(inner)) is not None:
            return loc
    return None


def show(val: Val) -> str:
    return "None" if val.value is None else str(val.value)


_SAME = object()


def fails_alone(pair: ServerPair) -> bool:
    """Either server already fails at start-up on its own (an error that is no pair finding)."""
    return any(
        f.severity == "error" and not f.field.startswith("pair:")
        for r in (pair.prefill, pair.decode)
        for f in r.findings
    )


def state_outcome(pair: ServerPair, count_differs: bool) -> tuple[str, str]:
    """(when, what happens) when the two servers' DSV4 state components differ, for the prefill's
    transfer backend and the release checked (``sglang.pd.state_layout_outcome``)."""
    backend = transfer_backend(pair.prefill.resolution).value
    return state_layout_outcome(pair.prefill.resolution.profile.version, backend, count_differs)


def pair_finding(  # type: ignore[no-untyped-def]
    rule,
    pair: ServerPair,
    name: str,
    message: str,
    fix_text: str,
    severity: str | None = None,
    location: Location | None = None,
    fix_value=_SAME,
    prefill_location: Location | None = None,
    values: tuple[Val, Val] | None = None,
) -> Finding:
    """Point at the decode server's value (the decode server is the one that fails), relate the prefill's.

    The fix edit writes ``fix_value`` (default: the prefill's value) over the decode's value when
    both are written in a file; ``fix_value=None`` means no edit. ``values`` gives the (prefill,
    decode) values of a setting that is not among the pair's compared rows.
    """
    p, d = values or (pair.prefill_values[name], pair.decode_values[name])
    location = location or root_location(d) or pair.decode.deployment.location
    related = [
        Related(loc, f"prefill {name} {show(p)} comes from here")
        for loc in [prefill_location or root_location(p)]
        if loc is not None
    ]
    if location is None or root_location(d) is None:
        related.append(
            Related(pair.decode.deployment.location, f"decode server {pair.decode.deployment.name}")
        )  # type: ignore[arg-type]
    value = p.value if fix_value is _SAME else fix_value
    edits = ()
    if (
        d.location is not None
        and (p.location is not None or fix_value is not _SAME)
        and not isinstance(value, bool)
        and value is not None
    ):
        edits = (
            fixes.replace(
                d.location, fixes.render_scalar(value, d.location.file.lower().endswith(".json"))
            ),
        )
    return Finding(
        rule.CODE,
        severity or rule.SEVERITY,
        f"{message} [prefill {pair.prefill.deployment.file} vs decode {pair.decode.deployment.file}]",
        location,
        Fix(
            fix_text, edits, safe=not edits
        ),  # an edit moves one server's setting: changes what it runs
        tuple(related),
        f"pair:{name}",
    )
