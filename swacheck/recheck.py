"""Checking a run again after a round of ``--fix``: only what the changed files touch.

The fixer (``fixplan.py``) checks the run once in full, then after each round of fixes asks
again with the real paths whose text the round changed (the proposed texts stand in for the
files: ``loading.OVERLAY``). The answer is the :class:`RunResult` a full check of those texts
gives, built from less work:

- a unit (``grouping.py``) none of whose files changed is the previous check's, as it was:
  nothing a unit reports depends on another unit;
- a unit with a changed file is read, paired, filtered and sorted again (a fix may change what
  pairs with what), but every deployment built only from files that did not change keeps its
  resolution and its deployment rules' findings (``engine.Checked``: the same texts give the
  same answers); the parse of every unchanged file is kept too (``FileCache.persistent``);
- everything is checked again, as the first time, when that is not known to be the same: a
  changed file could change the units (a deployment file, a ``pairs:`` document, a launch key:
  ``grouping.may_change_plan``), is a model config every unit may read, or is no file any unit
  read; and always for a run with a baseline, ``--command`` or standard input.
"""

from __future__ import annotations

from typing import Any

from . import engine, limits, loading
from .grouping import may_change_plan
from .inputs import Inputs, read_inputs
from .model.records import InputProblem
from .model.recordtype import record
from .paths import real
from .results import RunResult, count, totals_from
from .settings import Settings


@record(repr=False, eq=False)
class Checked:
    """A deployment as the last check left it, before pairing: its resolution, the deployment
    rules' findings, and the real paths of the files it was built from."""

    name: str
    resolution: Any
    findings: list
    files: frozenset[str]


class Memo:
    """What each deployment of a unit gave its last check (``engine.check_unit``), by the real
    path of its file and its place among that file's deployments; only the deployments none of
    whose files changed are offered (:meth:`take`)."""

    def __init__(
        self, kept: dict[tuple[str, int], Checked] | None = None, pairs: dict | None = None
    ) -> None:
        self.kept = kept or {}
        self.keys: dict[int, tuple[str, int]] = {}  # id of a deployment -> its key
        self.ordinal: dict[str, int] = {}
        # (ids of the two resolutions, how) -> (the two, the pair rules' findings): the last
        # check's pairs (offered) and this check's (kept); the resolutions are held, so their ids
        # stay theirs
        self.pairs: dict[tuple[int, int, str], tuple[Any, Any, list]] = pairs or {}
        self.pairs_now: dict[tuple[int, int, str], tuple[Any, Any, list]] = {}

    def valid(self, changed: set[str]) -> Memo:
        """A memo of the deployments none of whose files is in ``changed`` (a pair of two of them
        is of unchanged resolutions: its findings are offered too)."""
        return Memo({k: c for k, c in self.kept.items() if not c.files & changed}, self.pairs_now)

    def pair_findings(self, pair: Any) -> list | None:
        """The pair rules' findings of a pair of the same two resolutions last time, or None."""
        p, d = pair.prefill.resolution, pair.decode.resolution
        hit = self.pairs.get((id(p), id(d), pair.how))
        return list(hit[2]) if hit is not None and hit[0] is p and hit[1] is d else None

    def keep_pair(self, pair: Any) -> None:
        p, d = pair.prefill.resolution, pair.decode.resolution
        self.pairs_now[(id(p), id(d), pair.how)] = (p, d, list(pair.findings))

    def take(self, dep: Any) -> Checked | None:
        """What ``dep`` gave last time, if its files did not change (called for every
        deployment of the unit, in order)."""
        file = real(dep.file)
        key = (file, self.ordinal.get(file, 0))
        self.ordinal[file] = key[1] + 1
        hit = self.kept.pop(key, None)
        if hit is not None and hit.name == dep.name:
            self.keys[id(hit.resolution.deployment)] = key
            return hit
        self.keys[id(dep)] = key
        return None

    def keep(self, results: list) -> None:
        """Keep what this check gave each deployment (its findings before the pair rules')."""
        self.kept = {}
        for r in results:
            res = r.resolution
            made = [*engine.files_read(res), res.deployment.server.file]
            self.kept[self.keys[id(r.deployment)]] = Checked(
                r.deployment.name, res, list(r.findings), frozenset(real(p) for p in made if p)
            )


class _Unit:
    """One unit of the last check: its candidates, result, files read and deployments."""

    def __init__(self, candidates: list, commands: list[str] | None) -> None:
        self.candidates = candidates
        self.commands = commands
        self.result: RunResult | None = None
        self.suppressed = 0
        self.read: set[str] = set()  # real paths of every file its check read
        self.memo = Memo()
        # no deployment file, pairs: document or launch among its files: each file is read on
        # its own (as read_inputs reads it among the others), and kept while it does not change
        self.by_file = False
        self.pieces: list[Inputs] = []  # by candidate

    def _inputs(self, job, changed: set[str] | None) -> Inputs:  # type: ignore[no-untyped-def]
        """The unit's files as read: each changed file read again, the others as last time."""
        pieces: list[Inputs] = []
        for n, c in enumerate(self.candidates):
            kept = changed is not None and real(c.path) not in changed
            pieces.append(
                self.pieces[n]
                if kept
                else read_inputs([c], job.files, job.platform, job.env, job.stdin_text)
            )
        self.pieces = pieces
        whole = Inputs()
        for piece in pieces:
            whole.deployments.extend(piece.deployments)
            whole.errors.extend(piece.errors)
            whole.files.extend(piece.files)
            whole.skipped.extend(piece.skipped)
            whole.notes.extend(piece.notes)
        return whole

    def check(self, job, changed: set[str] | None) -> None:  # type: ignore[no-untyped-def]
        """Check the unit; with ``changed``, keep what the files not in it gave last time."""
        if changed is None:
            self.by_file = not job.single and not any(
                may_change_plan(job.files.text_of(c.path) or "\\") for c in self.candidates
            )
        if changed is None or job.single:
            memo = None if job.single else Memo()
        else:
            memo = self.memo.valid(changed)
        job.files.touched = touched = set()
        try:
            result, self.suppressed = engine.check_unit(
                job,
                self.candidates,
                self.commands,
                RunResult(job.settings),
                memo,
                self._inputs(job, changed) if self.by_file else None,
            )
        finally:
            job.files.touched = None
        self.result = result
        self.memo = memo or Memo()
        self.read = touched | {real(c.path) for c in self.candidates if c.path != "-"}
        self.read.update(f for c in self.memo.kept.values() for f in c.files)


class Replanned(Exception):
    """A share of a run (``fixworkers.py``) needed a full check again: its units may have moved."""


class Recheck:
    """The checks of one ``--fix`` or ``--diff`` session (see the module's docstring).
    ``share``: (the job, the discovery's result, the run's units, the indices of the units to
    check, strict) of a run planned already: only those units are checked first; a round that
    needs the run planned again raises :class:`Replanned` when strict, else plans it again."""

    def __init__(self, settings: Settings, share: tuple | None = None) -> None:
        self.settings = settings
        self.job = None
        self.units: list[_Unit] = []
        self.base: RunResult | None = None  # the discovery's errors and skips
        self.full_checks = self.partial_checks = 0  # for the tests: how each round went
        self.share = share
        self.strict = False

    def run(self, changed: set[str]) -> RunResult:
        """The run checked with the texts as they are now; ``changed``: the real paths whose
        text changed since the last call (ignored the first time)."""
        if self.job is None or not self._partial(changed):
            return self._full()
        self.partial_checks += 1
        self.job.files.forget(changed)
        limits.start_run()
        for unit in self.units:
            if unit.read & changed:
                unit.check(self.job, changed)
        return self._result()

    def _full(self) -> RunResult:
        self.full_checks += 1
        settings = self.settings
        if self.share is not None:  # used once: a run planned again holds no earlier job
            self.job, base, planned, mine, self.strict = self.share
            self.share = None
            candidates = [planned[i] for i in mine]
        elif self.strict:
            raise Replanned
        else:
            if self.job is not None:  # planned again: what the last plan read is let go
                self.job.files.release()
            base = RunResult(settings)
            self.job, candidates = engine.start(settings, base)
        self.job.files.persistent = True
        self.base = base
        self.units = [
            _Unit(c, settings.commands if n == len(candidates) - 1 else None)
            for n, c in enumerate(candidates)
        ]
        for unit in self.units:
            unit.check(self.job, None)
        return self._result()

    def _partial(self, changed: set[str]) -> bool:
        """Whether checking only what ``changed`` touches gives the answer of a full check."""
        s = self.settings
        if s.baseline is not None or s.write_baseline or s.commands or "-" in s.paths:
            return False
        files = self.job.files  # type: ignore[attr-defined]
        read = set().union(*(u.read for u in self.units))
        for key in changed:
            if key not in read or files.is_kept(key):
                return False  # read by no unit (a full check will say), or a model config
            before = files.text_of(key)
            try:
                after = loading.read_text(key, s.max_file_size)
            except InputProblem:
                after = ""  # unreadable now: its unit says so
            if before is None or may_change_plan(before) or may_change_plan(after):
                return False
        return True

    def _result(self) -> RunResult:
        """The whole run from its units, counted as ``engine.run_units`` counts a run."""
        assert self.base is not None
        totals = totals_from(self.base)
        for unit in self.units:
            assert unit.result is not None
            count(totals.summary, unit.result)
            engine.absorb(totals, unit.result)
        totals.summary.suppressed = sum(u.suppressed for u in self.units)
        engine.finish(totals)
        return totals
