"""Verify a round of ``--fix``: each deployment's arguments before and after, compared.

A fix may change only the arguments its finding names (the finding's field and the keys its
edits write). Each check of the run gives, per deployment, what its files hand SGLang: every
server argument as read (after variable expansion, ``--config`` merges, YAML merge keys, includes),
the environment, and how often a key is written twice. After a round, an entry that changed
without any applied fix naming it, a key newly written twice, or a deployment no longer read is
a violation; :mod:`fixplan` takes the round back in the files behind it and refuses the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .model.records import Location
from .paths import real

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_LEADING_KEY = re.compile(
    r"\s*(?:(?:-\s+)?[\"']?([A-Za-z_][A-Za-z0-9_.-]*)[\"']?\s*:|--?([A-Za-z][A-Za-z0-9_.-]*))"
)
GONE = "(the deployment itself)"  # a deployment no longer read after the round

# (deployment file, deployment name) -> entry name -> (value, real paths of the files it is in)
Snapshot = dict[tuple[str, str], dict[str, tuple[Any, frozenset[str]]]]


def norm(name: str) -> str:
    """An argument or variable name as compared: no leading dashes, ``_`` as ``-``, lower case."""
    return name.lstrip("-").replace("_", "-").lower()


def _plain(arg: Any) -> Any:
    try:
        return arg.value
    except Exception:  # a value past the plain-data budget: compare where it is written
        return ("unreadable", str(arg.pair.value.loc))


def _files(*locations: Any) -> frozenset[str]:
    return frozenset(real(loc.file) for loc in locations if loc is not None and loc.file)


def snapshot(result: Any, memo: dict[int, tuple[Any, dict]] | None = None) -> Snapshot:
    """What every deployment of a check gives SGLang, for :func:`violations`. ``memo``: id of a
    deployment -> (it, its entries), for the deployments a check kept from the one before
    (recheck.py); refilled with this check's."""
    snap: Snapshot = {}
    seen: dict[int, tuple[Any, dict]] = {}
    for r in result.results:
        dep = r.deployment
        hit = memo.get(id(dep)) if memo is not None else None
        if hit is not None and hit[0] is dep:
            seen[id(dep)] = hit
            snap[(dep.file, dep.name)] = hit[1]
            continue
        entries: dict[str, tuple[Any, frozenset[str]]] = {}
        for name, arg in dep.server.args.items():
            entries[norm(name)] = (_plain(arg), _files(arg.key_loc, arg.pair.value.loc))
        for name, val in dep.env.items():
            entries["env:" + norm(name)] = (val.value, _files(val.location))
        for d in dep.duplicates:
            key = "twice:" + norm(d.key)
            count = entries.get(key, (0, frozenset()))[0] + 1
            entries[key] = (count, _files(d.first, d.again))
        snap[(dep.file, dep.name)] = entries
        seen[id(dep)] = (dep, entries)
    if memo is not None:
        memo.clear()
        memo.update(seen)
    return snap


def names_of(
    field: str, edits: Iterable[Any], texts: dict[str, str], starts: Any
) -> frozenset[str]:
    """The arguments a fix names: its finding's field, the words its edits write, the text a
    one-line edit replaces (a key renamed, a flag's value) and the key of each whole line it
    replaces. ``texts``: real path -> the text the edits' positions refer to; ``starts``:
    real path -> ``fixes.line_starts`` of it."""
    from . import fixes

    names = {norm(field)} if field else set()
    for e in edits:
        names.update(norm(w) for w in _WORD.findall(e.replacement))
        key = real(e.file)
        text = texts.get(key)
        if text is None:
            continue
        lines = starts[key]
        a = fixes.offset(text, lines, e.line, e.column)
        b = fixes.offset(text, lines, e.end_line, e.end_column)
        old = text[a:b]
        if e.line == e.end_line:
            names.update(norm(w) for w in _WORD.findall(old))
        else:  # whole lines: the key (or flag) each starts with, not what else they hold
            for line in old.splitlines():
                m = _LEADING_KEY.match(line)
                if m:
                    names.add(norm(m.group(1) or m.group(2)))
    return frozenset(names)


def _changed(old: dict, new: dict | None) -> dict[str, frozenset[str]]:
    """Entry name -> the files behind its change."""
    if new is None:
        return {GONE: frozenset().union(*(f for _, f in old.values()))}
    out = {}
    for name in old.keys() | new.keys():
        a, b = old.get(name), new.get(name)
        if name.startswith("twice:"):
            if (b[0] if b else 0) > (a[0] if a else 0):
                out[name] = b[1]  # type: ignore[index]
            continue
        if a is None or b is None or a[0] != b[0]:
            out[name] = (a[1] if a else frozenset()) | (b[1] if b else frozenset())
    return out


def aligned(before: Snapshot, after: Snapshot) -> Snapshot:
    """``after`` with each file's deployments under their names in ``before``, when a round
    only renamed them: a deployment named by its line (a Markdown block, a script's launch:
    ``README.md:12``) is renamed by an edit above it that adds or removes a line. The
    deployments of a file are matched in reading order when the file holds as many as before;
    what they hand SGLang is still compared entry by entry."""
    by_file: dict[str, tuple[list, list]] = {}
    for key in before:
        by_file.setdefault(key[0], ([], []))[0].append(key)
    for key in after:
        by_file.setdefault(key[0], ([], []))[1].append(key)
    renamed = {
        new: old
        for old_keys, new_keys in by_file.values()
        if len(old_keys) == len(new_keys) and old_keys != new_keys
        for old, new in zip(old_keys, new_keys)
    }
    if not renamed:
        return after
    return {renamed.get(key, key): entries for key, entries in after.items()}


def violations(before: Snapshot, after: Snapshot, pending: list) -> dict[str, tuple[Any, str]]:
    """Real path -> (the applied fix to blame, or None when several edited it; what changed) for
    every file where an entry changed that no applied fix of that file names. ``pending``: the
    round's ``fixplan.Applied`` fixes (with ``names``)."""
    after = aligned(before, after)
    edited: dict[str, list] = {}
    for a in pending:
        for f in a.files:
            edited.setdefault(f, []).append(a)
    found: dict[str, dict[str, list[str]]] = {}  # file -> deployment -> names
    for dep_key, old in before.items():
        for name, files in sorted(_changed(old, after.get(dep_key)).items()):
            behind = [f for f in files if f in edited]
            if not behind:
                continue  # no fix edited the files it is in: not this round's doing
            named = any(name in a.names for f in behind for a in edited[f])
            if named and not name.startswith("twice:"):
                continue
            for f in behind:
                found.setdefault(f, {}).setdefault(dep_key[1], []).append(name)
    return {
        f: (edited[f][0] if len(edited[f]) == 1 else None, describe(deps))
        for f, deps in found.items()
    }


def describe(deps: dict[str, list[str]]) -> str:
    """What changed, in one line: by deployment, the names that changed."""
    parts = []
    for dep, names in deps.items():
        if GONE in names:
            parts.append(f"{dep} would no longer be read as a deployment")
            continue
        twice = [n[6:] for n in names if n.startswith("twice:")]
        other = [n for n in names if not n.startswith("twice:")]
        if other:
            parts.append(f"it would also change {', '.join(other)} of {dep}")
        if twice:
            parts.append(f"it would write {', '.join(twice)} twice in {dep} (one value ignored)")
    return "; ".join(parts)


def inherited(result) -> dict[str, list[tuple[str, Location]]]:  # type: ignore[no-untyped-def]
    """Real path -> the Compose base services (name, where) that a deployment of the run extends:
    a fix never edits one (it would change every service extending it)."""
    out: dict[str, list[tuple[str, Location]]] = {}
    for r in result.results:
        for name, loc in r.deployment.inherited:
            out.setdefault(real(loc.file), []).append((name, loc))
    return out


def inherited_by(
    spans: list[tuple[int, int, str]],
    text: str,
    starts: list[int],
    bases: Iterable[tuple[str, Location]],
) -> str | None:
    """The base service (one another extends) that an edit's character span falls in, or None."""
    from .fixes import offset

    for name, loc in bases:
        a = offset(text, starts, loc.line, loc.column)
        b = offset(text, starts, loc.end_line, loc.end_column)
        if any(max(s, a) < min(e, b) or (s == e and a <= s <= b) for s, e, _ in spans):
            return name
    return None


def inherited_line(f, path: str, base: str) -> str:  # type: ignore[no-untyped-def]
    """Why the fix of finding ``f`` is refused: it edits the base service ``base``."""
    from .model.text import one_line

    return (
        f"{one_line(str(f.location or path))}: {f.code} not fixable automatically: the value is "
        f"inherited through Compose extends from service {one_line(base)!r}, and editing it "
        f"there would change that service and every service that extends it; edit by hand: "
        f"{one_line(f.fix.description)}"
    )
