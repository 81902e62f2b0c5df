"""The ways a script can go: one :class:`World` per combination of undecided conditions.

A condition the files decide (``[[ "$API_KEY" != "" ]]`` with ``API_KEY=""``) takes one branch;
one they do not decide forks the world, each branch walked with its own copy of the variables,
and each world remembers what it assumed. Worlds that end with the same variables are one
again (:func:`settle`), so a check that changes nothing costs nothing. More than
``MAX_WORLDS`` at once are merged into one: every variable they disagree on becomes unknown,
its reason naming the conditions, and the merge is recorded (never dropped silently).
"""

from __future__ import annotations

import os

from ...model.recordtype import record
from ...model.text import one_line
from .expansion import Env, Var
from .spans import join_spans, span_location
from .words import RawCommand, Unknown

MAX_WORLDS = 8  # combinations of undecided conditions followed one by one
# variables compared between worlds in one walk; past it, the script is read in one world, the
# branches of an undecided condition one after the other as written (and that is said)
MAX_COMPARED = 400_000


@record
class Budget:
    """What comparing worlds may still cost in one walk, and whether it ran out."""

    left: int = MAX_COMPARED
    flat: bool = False


@record
class World:
    env: Env
    status: bool | None = True  # of the last command: True (0), False, None (undecided)
    exited: bool = False  # `exit` ran: nothing more runs in this world
    assumed: tuple[str, ...] = ()  # what this world took undecided conditions to be


def fork(w: World, shown: str, why: list[Unknown], budget: Budget) -> tuple[World, World]:
    """(the world where ``shown`` succeeds, the one where it fails); once the budget ran out,
    the one world both ways (its branches then run one after the other)."""
    if budget.flat:
        return w, w
    because = _because(why)
    yes = World(dict(w.env), True, False, (*w.assumed, f"{shown} is true{because}"))
    no = World(dict(w.env), False, False, (*w.assumed, f"{shown} is false{because}"))
    return yes, no


def _because(why: list[Unknown]) -> str:
    reasons = list(dict.fromkeys(u.reason for u in why))[:2]
    return f" ({'; '.join(reasons)})" if reasons else ""


def _key(var: Var | None) -> object:
    if var is None:
        return None
    v = var.value
    items = tuple(w.text for w in var.items) if var.items is not None else None
    return (
        var.exported,
        None if v is None else (v.text, tuple(u.shown for u in v.unknown)),
        items,
        var.reason if v is None else "",
    )


def _env_key(env: Env) -> frozenset:
    return frozenset((name, _key(var)) for name, var in env.items())


def settle(worlds: list[World], merged: list[str], budget: Budget) -> list[World]:
    """Worlds with the same variables made one; over ``MAX_WORLDS``, all merged into one."""
    if len(worlds) <= 1:
        return worlds
    if budget.flat:
        return list({id(w): w for w in worlds}.values())
    budget.left -= sum(len(w.env) for w in worlds)
    alive = [w for w in worlds if not w.exited]
    gone = [w for w in worlds if w.exited][:1]
    if budget.left < 0:
        budget.flat = True
        merged.insert(
            0,
            f"conditions past the walk's budget ({MAX_COMPARED} variables compared between the "
            f"ways the script can go) read in one way, their branches in the order written",
        )
        return [merge(alive, merged)] if alive else gone
    out = _distinct(alive)
    if len(out) <= MAX_WORLDS:
        return gone + out
    return gone + [merge(out, merged)]


def _distinct(worlds: list[World]) -> list[World]:
    """One world per set of variables: what the others assumed differently is dropped."""
    by_key: dict[frozenset, World] = {}
    out: list[World] = []
    for w in worlds:
        k = _env_key(w.env)
        seen = by_key.get(k)
        if seen is None:
            by_key[k] = w
            out.append(w)
            continue
        if seen.status != w.status:
            seen.status = None
        seen.assumed = tuple(a for a in seen.assumed if a in w.assumed)
    return out


def merge(worlds: list[World], merged: list[str]) -> World:
    """One world standing for several: a variable they disagree on is unknown, with the
    conditions it depends on as its reason."""
    conditions = list(dict.fromkeys(a.split(" is ")[0] for w in worlds for a in w.assumed))
    said = "; ".join(conditions[:3]) + (
        f" and {len(conditions) - 3} more" if len(conditions) > 3 else ""
    )
    if len(merged) < 16:
        merged.append(
            f"{len(worlds)} combinations of the conditions {said} (more than {MAX_WORLDS})"
        )
    names = {n for w in worlds for n in w.env}
    env: Env = {}
    for name in names:
        vars_ = [w.env.get(name) for w in worlds]
        if len({id(v) for v in vars_}) == 1 or len({_key(v) for v in vars_}) == 1:
            if vars_[0] is not None:
                env[name] = vars_[0]
            continue
        env[name] = Var(
            None,
            any(v is not None and v.exported for v in vars_),
            f"{name}=... (several)",
            f"{name} depends on {said}, which the files do not decide (more than {MAX_WORLDS} "
            f"combinations: not followed one by one)",
        )
    common = tuple(a for a in worlds[0].assumed if all(a in w.assumed for w in worlds))
    return World(env, None, False, common)


def shown_of(commands: list[RawCommand]) -> tuple[str, object]:
    """A condition as written (one line, at most 80 characters), and where it is."""
    spans = [c.span for c in commands if c.span is not None]
    if not spans:
        return "the condition", None
    first, last = spans[0], spans[-1]
    joined = join_spans([first, last]) or first
    text = joined[0].text[joined[1] : joined[2]]
    text = one_line(" ".join(text.split()))
    if len(text) > 80:
        text = text[:77] + "..."
    loc = span_location(joined)
    at = f" ({one_line(os.path.basename(loc.file))}:{loc.line})" if loc is not None else ""
    return f"`{text}`{at}", loc
