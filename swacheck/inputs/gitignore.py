"""gitignore-style patterns, matched as git matches them (``gitignore(5)``), without git.

Used for two things: the ``.gitignore`` files (and ``.git/info/exclude``) a walk honours, and the
``exclude`` / ``extend-exclude`` patterns of the configuration and the command line.

The rules implemented:

- a blank line or one starting with ``#`` is no pattern; ``\\#`` and ``\\!`` start a pattern with
  that character; trailing spaces are dropped unless escaped (``\\ ``);
- ``!`` negates: a later match re-includes what an earlier one excluded (the last match wins);
  a file inside an excluded folder stays excluded, since the walk never enters the folder;
- a trailing ``/`` matches only a folder;
- a pattern with a ``/`` at its start or middle is anchored: it matches the path relative to the
  folder that holds the ``.gitignore`` (``/build``, ``data/x.yaml``); one without matches a name at
  any depth (``*.json``, ``venv``);
- ``*`` matches anything but ``/``, ``?`` one character but ``/``, ``[...]`` a class (``[!...]``
  negated); ``**/`` at the start, ``/**/`` in the middle and ``/**`` at the end match any number of
  folders (a ``**`` elsewhere is a plain ``*``).

Everything here is bounded, since a pull request writes these files: a ``.gitignore`` is read up
to :data:`MAX_BYTES` and :data:`MAX_PATTERNS`, a pattern up to :data:`MAX_PATTERN`; every ``*``
that a fixed part follows compiles to an atomic group (as ``fnmatch`` does), so no pattern
backtracks more than linearly within a name, and ``**`` is matched segment by segment.
"""

from __future__ import annotations

import os
import re
import stat
from functools import lru_cache

MAX_BYTES = 1 << 20  # of one .gitignore file
MAX_PATTERNS = 10_000  # per file
MAX_PATTERN = 4096  # characters of one pattern

__all__ = ["Pattern", "Rules", "WalkRules", "parse", "read_ignore_file", "top_rules"]


class Pattern:
    """One line of a ``.gitignore``, compiled."""

    __slots__ = ("text", "negated", "dir_only", "anchored", "segments")
    segments: tuple[str | re.Pattern[str], ...]

    def __init__(self, text: str, negated: bool, dir_only: bool, anchored: bool, body: str):
        self.text = text
        self.negated = negated
        self.dir_only = dir_only
        self.anchored = anchored
        # each segment: "**" (any number of folders) or a compiled regex for one name
        segments: list[str | re.Pattern[str]] = []
        for part in body.split("/") if anchored else [body]:
            if part != "**" or not anchored:
                segments.append(_segment(part))
            elif not segments or segments[-1] != "**":  # a/**/**/b is a/**/b
                segments.append("**")
        self.segments = tuple(segments)

    def matches(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        """Whether the path ``parts`` (relative to the pattern's folder, split at ``/``) matches."""
        if self.dir_only and not is_dir:
            return False
        if not self.anchored:
            rx = self.segments[0]
            return bool(parts) and rx.fullmatch(parts[-1]) is not None  # type: ignore[union-attr]
        return _match(self.segments, parts)


def _match(segments: tuple[str | re.Pattern[str], ...], parts: tuple[str, ...]) -> bool:
    """Segment-wise matching with ``**``: memoised over (segment, part) positions, so its cost
    is bounded by their product however many ``**`` a pattern holds."""
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(segments):
            if j == len(parts):
                return True
            continue
        seg = segments[i]
        if seg == "**":
            stack.extend((i + 1, k) for k in range(j, len(parts) + 1))
        elif j < len(parts) and seg.fullmatch(parts[j]) is not None:  # type: ignore[union-attr]
            stack.append((i + 1, j + 1))
    return False


@lru_cache(maxsize=4096)
def _segment(glob: str) -> re.Pattern[str]:
    """A regex for one name: ``*`` and ``?`` never match ``/``; each ``*`` that a fixed part
    follows is an atomic lazy group, the last ``*`` a plain one (``fnmatch.translate``'s way)."""
    chunks: list[str] = []  # regex text of the fixed parts, split at each run of stars
    current: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        i += 1
        if c == "*":
            while i < n and glob[i] == "*":
                i += 1
            chunks.append("".join(current))
            current = []
        elif c == "?":
            current.append("[^/]")
        elif c == "\\" and i < n:
            current.append(re.escape(glob[i]))
            i += 1
        elif c == "[":
            cls, i = _class(glob, i)
            current.append(cls)
        else:
            current.append(re.escape(c))
    chunks.append("".join(current))
    head, *rest = chunks
    out = [head]
    for k, chunk in enumerate(rest):
        if k == len(rest) - 1:
            out.append(f"[^/]*{chunk}")
        else:
            out.append(f"(?>[^/]*?{chunk})")
    return re.compile("".join(out), re.DOTALL)


def _class(glob: str, i: int) -> tuple[str, int]:
    """A ``[...]`` class starting after the ``[`` at ``i - 1``: (its regex, the index after it);
    an unclosed ``[`` is the character itself."""
    j = i
    if j < len(glob) and glob[j] in "!^":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    while j < len(glob) and glob[j] != "]":
        j += 1
    if j >= len(glob):
        return re.escape("["), i
    body = glob[i:j]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
    return (f"[^/{body}]" if negate else f"[{body}]"), j + 1


def parse_line(line: str) -> Pattern | None:
    """One line of a ``.gitignore`` (or an ``exclude`` entry) as a pattern; None for a blank line
    or a comment."""
    if not line or line.startswith("#") or len(line) > MAX_PATTERN:
        return None
    text = line
    # trailing spaces are dropped unless escaped with a backslash
    stripped = line.rstrip(" ")
    if stripped != line and stripped.endswith("\\"):
        stripped += " "
    line = stripped
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith(("\\!", "\\#")):
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if dir_only else line
    if not line:
        return None
    anchored = "/" in line
    body = line[1:] if line.startswith("/") else line
    if not body:
        return None
    if not anchored and body == "**":
        body = "*"
    pattern = Pattern(text, negated, dir_only, anchored, body)
    if anchored and body.endswith("/**"):
        # git: "x/**" matches everything inside x, at any depth, but not x
        pattern.segments = pattern.segments[:-1] + (_segment("*"), "**")
    return pattern


def parse(text: str) -> list[Pattern]:
    """Every pattern of a ``.gitignore``'s text, in order (at most :data:`MAX_PATTERNS`)."""
    out = []
    for line in text.splitlines():
        pattern = parse_line(line.rstrip("\r"))
        if pattern is not None:
            out.append(pattern)
            if len(out) >= MAX_PATTERNS:
                break
    return out


def read_ignore_file(path: str) -> list[Pattern]:
    """The patterns of a ``.gitignore`` or ``info/exclude`` file; none when it is missing, not a
    regular file, a symbolic link (git does not follow them either) or unreadable. At most
    :data:`MAX_BYTES` are read."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_BYTES)
    except OSError:
        return []
    finally:
        os.close(fd)
    return parse(data.decode("utf-8", "replace"))


class Rules:
    """The patterns that apply in one folder of a walk: each source's patterns with the folder
    they are relative to. The last matching pattern decides (git's order: ``info/exclude``, then
    the ``.gitignore`` files from the top down)."""

    __slots__ = ("sources",)

    def __init__(self, sources: tuple[tuple[str, tuple[Pattern, ...]], ...] = ()):
        self.sources = sources  # (absolute folder, its patterns), in order of precedence

    def add(self, base: str, patterns: list[Pattern]) -> Rules:
        """These rules and ``patterns`` (relative to ``base``) after them."""
        if not patterns:
            return self
        return Rules(self.sources + ((base, tuple(patterns)),))

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether the absolute ``path`` is excluded."""
        verdict = False
        for base, patterns in self.sources:
            rel = _relative(path, base)
            if rel is None:
                continue
            parts = tuple(rel.split("/"))
            for pattern in patterns:
                if pattern.negated == verdict and pattern.matches(parts, is_dir):
                    verdict = not pattern.negated
        return verdict

    def __bool__(self) -> bool:
        return bool(self.sources)


def _relative(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` with ``/`` separators; None when it is not inside it."""
    prefix = base.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix) :]
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def top_rules(folder: str) -> Rules:
    """The ``.gitignore`` rules in force at ``folder`` (absolute) before its own ``.gitignore``:
    the enclosing repository's ``.git/info/exclude`` and the ``.gitignore`` files of the folders
    from its top down to ``folder``'s parent (git's order: a deeper file wins). Outside a
    repository, none: only the ``.gitignore`` files the walk meets."""
    chain = []
    here = folder
    while not os.path.lexists(os.path.join(here, ".git")):
        parent = os.path.dirname(here)
        if parent == here:
            return Rules()
        chain.append(parent)
        here = parent
    rules = Rules().add(here, read_ignore_file(os.path.join(here, ".git", "info", "exclude")))
    for above in reversed(chain):
        rules = rules.add(above, read_ignore_file(os.path.join(above, ".gitignore")))
    return rules


class WalkRules:
    """What a walk leaves out in one folder: git's rules (None: ``--no-respect-gitignore``) and
    the run's ``exclude`` patterns. Either excluding a path is enough: a ``!`` in a
    ``.gitignore`` never brings back what ``exclude`` left out."""

    __slots__ = ("git", "exclude")

    def __init__(self, git: Rules | None, exclude: Rules):
        self.git = git
        self.exclude = exclude

    def enter(self, folder: str) -> WalkRules:
        """The rules inside ``folder`` (absolute): its own ``.gitignore`` added."""
        if self.git is None:
            return self
        patterns = read_ignore_file(os.path.join(folder, ".gitignore"))
        return WalkRules(self.git.add(folder, patterns), self.exclude) if patterns else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        return bool(
            (self.exclude and self.exclude.ignored(path, is_dir))
            or (self.git and self.git.ignored(path, is_dir))
        )
