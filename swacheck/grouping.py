"""Split a run into units that are checked and reported one after another.

A unit is a set of folders whose files refer to each other. Checking a repository unit by unit
keeps memory bounded (each unit's trees and resolutions are dropped once it is reported) and
gives exactly the answers of checking everything at once, because nothing a unit reports
depends on another unit:

- PD servers are paired automatically only within a folder (``pairing``), and every folder is
  in one unit;
- a deployment file's ``server:`` config and the deployment file are in one unit, and so are
  all deployment files naming the same server config (a server config that a deployment file
  loads is checked through it, not again on its own, and its inline suppressions are counted
  over all of them);
- the two files of an explicit pair (``--pair``, ``pairs:`` documents) are in one unit;
- model ``config.json`` files are shared by every unit; they hold no suppressions (JSON).

Launch commands (shell scripts, Dockerfiles, Kubernetes manifests, Compose files, ``--command``)
can read any file through ``--config``. A run that may hold one is checked as a single unit,
as is a run reading standard input.

To find deployment files and ``pairs:`` documents, every YAML and JSON input is read ahead (the
texts are kept for the check, so no file is read twice) and only the texts that can hold a
``swacheck`` key are parsed here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import field

from .inputs import Candidate, kinds
from .inputs.deployment_file import is_deployment_file, load_pairs
from .loading import FileCache, load_file
from .model.records import InputProblem
from .model.recordtype import record
from .model.tree import Mapping, Scalar
from .paths import identity, inside, real, spellings

EXTENSIONS = (".yaml", ".yml", ".json")
# a key that can make a YAML document one of the launch kinds that may read other files, written
# as a key (at a line's start, after a list dash, or inside a flow mapping): a bare substring
# test took every server config with `max-running-requests` for a SkyPilot task (`run`), and a
# walk of a repository became a single unit
_LAUNCH_MARKS = tuple(m for k in kinds.DOCUMENT_KINDS if k.refers for m in k.marks)
_LAUNCH_KEYS = re.compile(
    r"(?m)(?:^[ \t]*(?:-[ \t]+)?|[{,][ \t]*)[\"']?(?:"
    + "|".join(re.escape(m) for m in _LAUNCH_MARKS)
    + r")[\"']?[ \t]*:"
)
# the same test, found from the marks (str.find) rather than tried at every position: the
# regular expression above took 8% of a walk of 2,000 server configs (benchmarks/)
_AFTER_MARK = re.compile(r"[\"']?[ \t]*:")


def _has_launch_key(text: str) -> bool:
    """``_LAUNCH_KEYS.search(text)``, faster, and linear: what comes before each mark is read
    backwards from it, never from the start of its line again (one 330 KB line of
    ``apiVersion:`` kept a walk busy past 30 s)."""
    for mark in _LAUNCH_MARKS:
        at = text.find(mark)
        while at >= 0:
            if _AFTER_MARK.match(text, at + len(mark)) and _key_start(text, at):
                return True
            at = text.find(mark, at + 1)
    return False


def _blanks_before(text: str, i: int) -> int:
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i


def _key_start(text: str, at: int) -> bool:
    """``_BEFORE_MARK``: ``text[at]`` starts a key: after an optional quote, blanks, and a line's
    start (with an optional list dash) or ``{``/``,``. Only the blanks just before are read (each
    stops at the character before them), so the test costs no more than the text."""
    i = at - 1 if at > 0 and text[at - 1] in "\"'" else at
    j = _blanks_before(text, i)
    if j == 0 or text[j - 1] in "\n{,":
        return True
    if text[j - 1] == "-" and j < i:  # "- key:" in a block list
        k = _blanks_before(text, j - 1)
        return k == 0 or text[k - 1] == "\n"
    return False


def may_change_plan(text: str) -> bool:
    """Whether a change to a YAML or JSON file with this text (before or after) could change the
    units :func:`plan` makes of a run: the file may be a deployment file, a ``pairs:`` document
    or a launch that reads other files. A server config's is not (``recheck.py``)."""
    return "swacheck" in text or "\\" in text or _has_launch_key(text)


@record(repr=False, eq=False)
class Plan:
    """The run's units (the files checked together) and the pairs named by ``pairs:`` documents."""

    units: list[list[Candidate]] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)  # from `pairs:` documents, in order
    single: bool = False  # one unit: a launch command (or standard input) may read any file


# text every PD server's file holds (``--disaggregation-mode``, ``disaggregation-mode:``, ``disaggregation_mode``)
PD_MARK = "disaggregation"


def add_partners(
    candidates: list[Candidate], files: FileCache, exclude: tuple[str, ...] = ()
) -> list[Candidate]:
    """``candidates`` and, for each file named explicitly that can hold a PD server, the files
    beside it that can hold one too, as ``partner`` candidates: a pre-commit hook names only the
    staged files, and a decode server staged alone must still be checked against its prefill
    server. The engine keeps a partner's deployments only when they pair with a named server."""
    if not any(c.explicit for c in candidates):  # a walk: nothing named, every file is in it
        return candidates
    out = list(candidates)
    seen = {real(c.path) for c in candidates if c.path != "-"}
    folders: set[str] = set()
    for c in candidates:
        if not c.explicit or c.path == "-" or not _holds(files, c.path, PD_MARK):
            continue
        folder = os.path.dirname(c.path) or "."
        if real(folder) not in folders:
            folders.add(real(folder))
            out.extend(_partners_in(folder, files, exclude, seen))
    return out


def _partners_in(
    folder: str, files: FileCache, exclude: tuple[str, ...], seen: set[str]
) -> Iterator[Candidate]:
    """The files of ``folder`` not in ``seen`` that can hold a PD server (added to ``seen``)."""
    from .inputs import _is_launch_file

    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        path = os.path.normpath(os.path.join(folder, name))
        if (
            name in exclude
            or not (name.lower().endswith(EXTENSIONS) or _is_launch_file(name))
            or real(path) in seen
        ):
            continue
        if files.root is not None and not inside(path, files.root):
            continue  # a link to outside the root is never read (it was not named)
        if os.path.isfile(path) and _holds(files, path, PD_MARK):
            seen.add(real(path))
            yield Candidate(path, False, partner=True)


def _holds(files: FileCache, path: str, mark: str) -> bool:
    try:
        return mark in files.read(path)
    except InputProblem:
        return False


def plan(
    candidates: list[Candidate],
    files: FileCache,
    explicit_pairs: list[tuple[str, str]],
    commands: bool = False,
    stdin_text: str | None = None,
) -> Plan:
    """Group ``candidates`` (in order) into units; files named by ``pairs:`` documents that were
    not given are added as explicit candidates, as they are checked too."""
    planner = _Planner(files, candidates, commands)
    for c in list(planner.candidates):  # the candidates added on the way are not read ahead
        text = planner.text_of(c, stdin_text)
        if text is not None:
            planner.read_ahead(c, text)
    for p, d in explicit_pairs:
        planner.unite(planner.folder(p), planner.folder(d))
    return planner.result()


class _Planner:
    """The folders of a run, united (union-find) when their files refer to each other."""

    def __init__(self, files: FileCache, candidates: list[Candidate], commands: bool) -> None:
        self.files = files
        self.out = Plan()
        self.single = commands or any(c.path == "-" for c in candidates)
        self.candidates = list(candidates)
        # a candidate -> its folder's real path (the unit key): by its real path, or by its path
        # as named for a file the walk took, whose real path is not kept (paths.Walked)
        self.folder_of: dict[str, str] = {}
        folders: dict[str, str] = {}  # one string per folder, not per file
        for c in candidates:
            if c.path != "-":
                key, folder = identity(c.path)
                self.folder_of[key] = folders.setdefault(folder, folder)
        self.parent: dict[str, str] = {}
        # server config -> folder of the first deployment file naming it
        self.first_claim: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    def unite(self, a: str | None, b: str | None) -> None:
        if a is not None and b is not None:
            self.parent[self.find(a)] = self.find(b)

    def folder(self, path: str) -> str | None:
        """The unit key of the candidate ``path`` names (any spelling), else None. A path that is
        a key of ``folder_of`` is that candidate's: as named by the walk, or a real path, which
        no other file has."""
        found = self.folder_of.get(path)
        return found if found is not None else self.folder_of_key(real(path))

    def folder_of_key(self, key: str) -> str | None:
        """The unit key of the candidate whose real path is ``key``, else None."""
        found = self.folder_of.get(key)
        if found is None:
            for named in spellings(key):
                found = self.folder_of.get(named)
                if found is not None:
                    break
        return found

    def text_of(self, c: Candidate, stdin_text: str | None) -> str | None:
        """The text of a YAML or JSON candidate that may be a deployment file or a ``pairs:``
        document, else None; a candidate that may read any file makes the run one unit."""
        if c.path == "-":
            text = stdin_text or ""
        elif (kind := kinds.file_kind(c.path)) is not None or not c.path.lower().endswith(
            EXTENSIONS
        ):
            # a launch command may read any file with --config
            self.single = self.single or kind is None or kind.refers
            return None
        else:
            try:
                text = self.files.read(c.path)
            except InputProblem:
                return None  # reported when its unit is checked
        if _has_launch_key(text):
            self.single = True
        if "swacheck" not in text and "\\" not in text:  # a key can also be spelt with escapes
            return None
        return text

    def read_ahead(self, c: Candidate, text: str) -> None:
        """Unite the folders a deployment file or ``pairs:`` document refers to."""
        try:
            source = (
                self.files.parse_ahead(c.path)
                if c.path != "-"
                else load_file("-", self.files.max_size, text)
            )
        except InputProblem:
            return
        for doc in source.documents:
            root = doc.root
            if not is_deployment_file(root):
                continue
            assert isinstance(root, Mapping)
            if "pairs" in root.pairs:
                self.add_pairs(root, c)
            else:
                self.claim_server(root, c)

    def add_pairs(self, root: Mapping, c: Candidate) -> None:
        try:
            named = load_pairs(root, c.path, self.files)
        except InputProblem:
            return  # reported when its unit is checked
        self.out.pairs.extend(named)
        for p, d in named:
            for path in (p, d):
                if self.folder(path) is None:
                    self.candidates.append(Candidate(path, True))  # checked too
                    self.folder_of[real(path)] = os.path.dirname(real(path))
            self.unite(self.folder(p), self.folder(d))

    def claim_server(self, root: Mapping, c: Candidate) -> None:
        """A deployment file is in the unit of its ``server:`` config and of the other
        deployment files naming that config."""
        server = root.pairs.get("server")
        if (
            server is None
            or not isinstance(server.value, Scalar)
            or not isinstance(server.value.value, str)
        ):
            return
        path = os.path.normpath(os.path.join(os.path.dirname(c.path) or ".", server.value.value))
        key = real(path)
        if key == real(c.path):
            return  # an error, reported when its unit is checked
        if c.path != "-":
            here = self.folder(c.path)
            self.unite(here, self.folder_of_key(key))
            self.unite(here, self.first_claim.setdefault(key, here))

    def result(self) -> Plan:
        out = self.out
        out.single = self.single
        if self.single:
            out.units = [self.candidates] if self.candidates else []
            return out
        units: dict[str, list[Candidate]] = {}
        for c in self.candidates:
            units.setdefault(self.find(self.folder(c.path)), []).append(c)  # type: ignore[arg-type]
        out.units = list(units.values())
        return out
