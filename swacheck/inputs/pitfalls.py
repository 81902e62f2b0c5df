"""Shell pitfalls that silently change what SGLang receives (reported by rule SWA306).

Found in the text of a script (or of a doc's code block, a SkyPilot ``run``), line by line:

- a comment line or a blank line right after a line ending in ``\\``: bash joins the blank or
  comment to the command, which then ends -- the flags on the following lines are run as a
  command of their own (``--speculative-algorithm: command not found``) and never reach the
  server;
- a ``\\`` followed by spaces or tabs at the end of a line: it escapes the space, not the
  newline, so argparse gets ``' '`` as an argument (SGLang exits) and the command ends at
  that line (found on the launch's own words by ``launch.build``).

- flags behind a switch that is off by default: ``${ENABLE_MTP:+--speculative-algorithm EAGLE}``
  where ``ENABLE_MTP`` is set nowhere in the file (nor given with ``--env``): the shell passes
  nothing, and swacheck reads the launch without those flags -- say so, since the author meant
  them to be used somewhere.

The first two are reported only when lines that look like flags (``-...``) follow the break, on the
launch whose command ends there. Single-dash long flags (``-tp-size 8``) are found on the
launch's own words (``launch.build``).
"""

from __future__ import annotations

import re

from ..model.deployment import Deployment
from ..model.records import Location
from .shell import Chars, span_location

_TRAILING = re.compile(r"\\[ \t]+$")


def _loc(chars: Chars, start: int, end: int) -> Location | None:
    spans = [s for s in chars.spans[start:end] if s is not None]
    if not spans:
        return None
    first, last = spans[0], spans[-1]
    return span_location((first[0], first[1], last[2]) if first[0] is last[0] else first)


def scan(chars: Chars) -> list[tuple[str, str, Location | None, int]]:
    """(kind, message, where, line of the command's last line) for each pitfall; lines are
    counted in the file the characters come from."""
    text = chars.text
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    out: list[tuple[str, str, Location | None, int]] = []

    def flags_follow(k: int) -> bool:
        for rest in lines[k:]:
            s = rest.strip()
            if not s or s.startswith("#"):
                continue
            return s.startswith("-")
        return False

    def line_no(k: int) -> int:
        loc = _loc(chars, starts[k], starts[k] + max(1, len(lines[k])))
        return loc.line if loc is not None else -1

    for k, raw in enumerate(lines[:-1]):
        line = raw.rstrip("\r")
        if line.lstrip().startswith("#"):
            continue
        if _TRAILING.search(line):
            continue  # `\ ` at the end: the launch reports the ' ' argparse gets (launch.build)
        if not line.endswith("\\") or line.endswith("\\\\"):
            continue
        nxt = lines[k + 1].rstrip("\r")
        stripped = nxt.strip()
        if stripped and not stripped.startswith("#"):
            continue
        if not flags_follow(k + 2):
            continue
        start = starts[k + 1]
        where = _loc(chars, start, start + max(1, len(nxt))) or _loc(
            chars, starts[k], starts[k] + len(line)
        )
        if stripped:
            out.append(
                (
                    "pitfall:continuation-comment",
                    "a comment line inside a '\\'-continued command ends the command: the "
                    "flags below it never reach the server",
                    where,
                    line_no(k),
                )
            )
        else:
            out.append(
                (
                    "pitfall:continuation-blank",
                    "a blank line inside a '\\'-continued command ends the command: the flags "
                    "below it never reach the server",
                    where,
                    line_no(k),
                )
            )
    return out


_SWITCH = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?\+([^}]*)\}")
_FLAG = re.compile(r"(^|\s)--[a-z][a-z0-9-]+")


_SET = re.compile(
    r"(?:^|[\s;(])([A-Za-z_][A-Za-z0-9_]*)\+?=|\b(?:export|declare|local|readonly|typeset|read|for)\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE,
)
_MAX_SWITCHES = 100


def switches(chars: Chars) -> list[tuple[str, str, Location | None]]:
    """``${NAME:+--flag value}`` where NAME is set nowhere in the text: (name, text, where).
    The names the text sets are collected once (one pass); at most 100 switches are looked at."""
    found = [m for _, m in zip(range(_MAX_SWITCHES), _SWITCH.finditer(chars.text))]
    if not found:
        return []
    assigned = {a or b for a, b in _SET.findall(chars.text)}
    out = []
    for m in found:
        name, words = m.group(1), m.group(2)
        if _FLAG.search(words) and name not in assigned:  # set somewhere: the walker decides
            out.append((name, m.group(0), _loc(chars, m.start(), m.end())))
    return out


def attach(deployments: list[Deployment], chars: Chars) -> None:
    """Add each pitfall to the launch whose command ends on the line the break follows, and each
    switched-off flag to the launch it sits in."""
    if "${" in chars.text:
        for name, text, where in switches(chars):
            for dep in deployments:
                loc = dep.location
                if loc is None or where is None or loc.file != where.file or name in dep.env:
                    continue
                if (loc.line, loc.column) <= (where.line, where.column) and (
                    where.line,
                    where.column,
                ) <= (loc.end_line, loc.end_column):
                    dep.notes.append(
                        (
                            "pitfall:switch-off",
                            f"{text} passes its flags only when {name} is set, and {name} is set "
                            f"nowhere in the file: swacheck reads the launch without them (give --env "
                            f"{name}=1 to check it with them)",
                            where,
                        )
                    )
                    break
    if "\\" not in chars.text:
        return
    found = scan(chars)
    for kind, message, where, last_line in found:
        for dep in deployments:
            loc = dep.location
            if (
                loc is not None
                and where is not None
                and loc.file == where.file
                and loc.end_line == last_line
            ):
                dep.notes.append((kind, message, where))
                break
