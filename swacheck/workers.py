"""A run's units checked in worker processes, the report written by the parent in the run's order.

Once a run is planned (``engine.start``: discovered, read ahead and grouped into units), the
units are independent: each is read, resolved, paired and checked on its own. On Linux with
more than one processor a large run is split between worker processes forked from the
planned run (nothing is imported or read twice). Of ``n`` processes the run itself is the
first: it checks units ``0``, ``n``, ``2n``, ... while worker ``k`` (1 to ``n - 1``) checks units
``k``, ``k + n``, ... and sends back, unit by unit, what the report needs of each -- its text
as the format writes it (``Stream.part``), its counts, its input errors, notes and skipped
files. The run writes its own units and the workers' in the run's order (``Stream.take``), as
a run in one process would, byte for byte. (A run that only waited for its workers left a
processor idle for most of the run and made its workers share the rest with it.) A worker
that fails is an internal error, as it would be in one process.

Workers are used only when nothing crosses units but the report: a plain check (no baseline,
standard input or ``--command``; ``--fix`` is split by ``fixworkers.py``, which keeps the split
only when no fix crosses shares), a format whose stream makes parts (human without
a terminal, concise, json), two units or more, and a run whose reading ahead used
at most a quarter of the per-run read budget (``limits.MAX_RUN_BYTES``): each worker has the
run's budgets, so that a run within them reads the same files either way; one that goes past
them is stopped in each worker at the limit (at most ``MAX_WORKERS`` times the budget in all).

``jobs`` decides how many: ``SWACHECK_JOBS`` sets the number of processes (``1``: one
process; ``N``: up to N whenever the run qualifies, however small); unset, a run of
``MIN_FILES`` files or more uses one per processor (``os.sched_getaffinity``), at most
``MAX_WORKERS``. Its imports are light (``pickle`` and ``signal`` wait for a run that
forks), since every streamed check asks ``jobs``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

from .engine import check_unit
from .model.records import SEVERITY_RANK, Summary
from .model.text import trim
from .results import RunResult, count
from .settings import Settings

JOBS_ENV = "SWACHECK_JOBS"
MIN_FILES = 400  # below it forking and sending the parts cost about what a second process saves
MAX_WORKERS = 4


def jobs(settings: Settings, units, stream, fixing: bool = False) -> int:  # type: ignore[no-untyped-def]
    """How many processes check the run's units (``workers.py``; 1: this one, in order), or
    with ``fixing`` fix them (``fixworkers.py``: not ``--diff`` or ``--show-pairs``)."""
    if len(units) < 2 or not getattr(stream, "parts", False) or not splittable(settings, fixing):
        return 1
    if any(c.path == "-" for unit in units for c in unit):
        return 1
    from .limits import MAX_RUN_BYTES, run_bytes

    if run_bytes() * 4 > MAX_RUN_BYTES:  # reading ahead used a quarter of the run's budget
        return 1
    wanted = os.environ.get(JOBS_ENV, "").strip()
    if wanted:
        n = int(wanted) if wanted.isdigit() else 1
    elif sum(len(unit) for unit in units) >= MIN_FILES:
        n = len(os.sched_getaffinity(0))
    else:
        return 1
    return max(1, min(n, MAX_WORKERS, len(units)))


def splittable(settings: Settings, fixing: bool = False) -> bool:
    """What of a run's settings lets ``jobs`` split it: Linux, no ``--command``, standard input
    or baseline; a plain check, or with ``fixing`` a ``--fix`` (not ``--diff``, ``--show-pairs``
    or ``--statistics``)."""
    if sys.platform != "linux" or not hasattr(os, "fork") or settings.commands:
        return False
    if settings.fix != fixing or "-" in settings.paths:
        return False
    if fixing and (settings.diff or settings.show_pairs or settings.statistics):
        return False
    return settings.baseline is None and not settings.write_baseline


class WorkerFailed(Exception):
    """A worker process stopped on an error or without a word. ``shown``: the error as an
    internal error of one process says it (``runner.internal_error``)."""

    def __init__(self, shown: str):
        super().__init__(shown)
        self.shown = shown


class Split:
    """A run split ``n`` ways: this process and the ``n - 1`` workers ``start`` forked."""

    def __init__(self, job: Any, units: list[list[Any]], stream: Any, readers: list[Any]):
        self.job, self.units, self.stream = job, units, stream
        self.readers: list[tuple[Any, int]] = readers
        self.n = len(readers) + 1

    def message(self, i: int) -> tuple[Any, ...]:
        """Unit ``i`` as a worker sends it: checked here when it is this process's share."""
        if i % self.n:
            return receive(self.readers[i % self.n - 1])
        return _checked(self.job, self.units[i], self.stream)


def start(
    job: Any, units: list[list[Any]], n: int, stream: Any, work: Callable[[int], Any] | None = None
) -> Split | None:
    """Fork ``n - 1`` workers for the units; None when the system cannot start them all (a
    process limit): the ones started are stopped, and the run is checked in this process.
    ``work``: what worker ``k`` sends instead of its units one by one: ``work(k)``, once
    (``fixworkers.py``)."""
    sys.stdout.flush()  # nothing buffered is copied into a worker (a worker writes nothing)
    sys.stderr.flush()
    readers: list[tuple[Any, int]] = []

    def body(k: int) -> Callable[[Any], None]:
        def run(out: Any) -> None:
            mine = range(k, len(units), n)
            let_go_of_others(job, units, mine)
            if work is None:
                _work(job, units, mine, stream, out)
            else:
                _send(out, work(k))

        return run

    try:
        for k in range(1, n):
            readers.append(_start(body(k)))
    except OSError:
        stop(readers)
        return None
    if n > 1:
        let_go_of_others(job, units, range(0, len(units), n))
    return Split(job, units, stream, readers)


def let_go_of_others(job: Any, units: list[list[Any]], mine: range) -> None:
    """In a process of a split run: forget the units of the other processes (their candidates,
    what ``paths`` keeps of them, what the file cache read ahead of them). The plan holds about
    0.2 KB a file until then; what is let go here is reused by the check of this process's own
    units, so the peak memory of each process grows less with the run."""
    from .paths import forget_some

    gone = [c.path for i, unit in enumerate(units) if i not in mine for c in unit if c.path != "-"]
    job.files.let_go(gone)
    forget_some(gone)
    for i in range(len(units)):
        if i not in mine:
            units[i] = []


def check_units(split: Split, totals: RunResult) -> Iterator[tuple[Any, list[Any]]]:
    """Each unit's ``Stream.part``, in the run's order, from this process and the workers
    ``start`` forked; the units' counts, errors, notes and skipped files go to ``totals`` as
    ``engine.check_units`` puts them, and its end (``engine.finish``) once every unit is in.
    Yields (part, notes)."""
    from .engine import finish

    suppressed = 0
    done = False
    try:
        for i in range(len(split.units)):
            message = split.message(i)
            suppressed += take(totals, message)
            yield message[0], message[5]
        done = True
    finally:
        stop(split.readers, kill=not done)  # stopped early (an error, Ctrl-C, a closed pipe)
    totals.summary.suppressed = suppressed
    finish(totals)


def stop(readers: list[tuple[Any, int]], kill: bool = True) -> None:
    for reader, pid in readers:
        if kill:
            _kill(pid)
        reader.close()
        _reap(pid)


def _start(body: Callable[[Any], None]) -> tuple[Any, int]:
    """Fork a worker that runs ``body(its pipe)`` and exits (``_worker``)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        os.close(r)
        _worker(body, os.fdopen(w, "wb"))
    os.close(w)
    return os.fdopen(r, "rb"), pid


def _work(job: Any, units: list[list[Any]], mine: range, stream: Any, out: Any) -> None:
    """Check the units ``mine`` and send each one's part."""
    for i in mine:
        _send(out, _checked(job, units[i], stream))


def _worker(body: Callable[[Any], None], out: Any) -> None:
    """A worker's life: ``body(out)``, an error said to the parent; never returns."""
    status = 0
    try:
        body(out)
    except KeyboardInterrupt:  # the parent has its own
        os._exit(130)
    except BaseException as exc:  # said to the parent, which reports it
        status = 1
        try:
            _send(out, WorkerFailed(f"{type(exc).__name__}: {exc}"))  # pickled: (shown,)
        except BaseException:  # the parent sees the pipe end
            pass
    try:
        out.close()
    except OSError:
        status = 1
    os._exit(status)


def _checked(job: Any, candidates: list[Any], stream: Any) -> tuple[Any, ...]:
    """One unit checked, as a worker sends it (:func:`message_of`); the files it read are let
    go (as ``engine.check_units`` does between units)."""
    unit, filtered = check_unit(job, candidates, None, RunResult(job.settings))
    message = message_of(unit, filtered, stream)
    job.files.evict()
    trim()
    return message


def message_of(unit: RunResult, suppressed: int, stream: Any) -> tuple[Any, ...]:
    """What the report needs of a checked unit: (its ``Stream.part``, its counts alone
    (``results.count``), how many findings were suppressed, its errors, skipped files, notes)."""
    summary = Summary()
    count(summary, unit)
    return (stream.part(unit), summary, suppressed, unit.errors, unit.skipped, unit.notes)


def take(totals: RunResult, message: tuple[Any, ...]) -> int:
    """Add a unit's :func:`message_of` to the run's totals, as ``engine.check_units`` adds a
    unit; how many of its findings were suppressed."""
    _, summary, suppressed, errors, skipped, notes = message
    add(totals.summary, summary)
    totals.errors.extend(errors)
    totals.skipped.extend(skipped)
    totals.notes.extend(notes)
    return suppressed


def _send(out: Any, message: Any) -> None:
    import pickle  # imported by a run that uses workers only (about 3 ms with signal)

    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(8, "little"))
    out.write(data)


def receive(worker: tuple[Any, int]) -> Any:
    reader, _ = worker
    head = reader.read(8)
    if len(head) < 8:
        raise WorkerFailed("a worker process stopped before sending its units")
    import pickle

    message = pickle.loads(reader.read(int.from_bytes(head, "little")))
    if isinstance(message, WorkerFailed):
        raise message
    return message


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def add(into: Summary, unit: Summary) -> None:
    """Add a unit's counts (``results.count`` of that unit alone) to the run's, as ``count`` of
    the unit on the run's summary would have, field by field of ``Summary`` (so a field added to
    it is merged too): numbers summed, flags or-ed, tallies summed per key in the order the keys
    first appear, and each rule's severity the highest of the two."""
    for f in fields(Summary):
        mine, theirs = getattr(into, f.name), getattr(unit, f.name)
        if f.name == "severity_of":
            for code, severity in theirs.items():
                if code not in mine or SEVERITY_RANK[severity] > SEVERITY_RANK[mine[code]]:
                    mine[code] = severity
        elif isinstance(theirs, bool):
            setattr(into, f.name, mine or theirs)
        elif isinstance(theirs, int):
            setattr(into, f.name, mine + theirs)
        else:  # counts, by_code, releases
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
