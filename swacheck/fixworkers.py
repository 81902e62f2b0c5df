"""``--fix`` of a large run in worker processes, kept only when it is the fix one process makes.

A run's units are independent as long as no fix of one edits a file another reads. So, as
``workers.py`` does for a check, a planned run of ``workers.MIN_FILES`` files or more is split
``n`` ways (this process and ``n - 1`` workers forked from it): each runs the rounds
(``fixplan.Fixer``) over its share of the units, in memory, and writes nothing. A process
fixes its share in chunks of :data:`CHUNK_FILES` files, one after another, each a share of its
own, and keeps only what the run needs of it (``Share``): the rounds hold every tree and
resolution of their units, so memory stays flat however large the run (one process too, when
there are two chunks or more). The run then keeps the shares' result only when each share's
rounds are, unit for unit, the rounds of the whole run:

- no file a share's fixes edited (changed in the end or not) is read by a unit of another
  share (a script two folders source, a model config with ``--fix-model-configs``), and each
  share edited only files it read;
- no share needed the run planned again (``recheck.Replanned``) or came near the round limit
  (``MAX_ROUNDS`` rounds; ``MAX_TAKE_BACKS`` rounds taken back, counted as one process would:
  the rounds after which a share took one back, ``_take_backs``),
  and no two shares have a line to say about the same file. A round a share takes back (a fix
  that waits for another one of its file, or one refused with a reason) is the whole run's: it
  puts back files of that share only, and the other shares' next round is derived from the same
  texts either way. The lines saying why a fix was not made (a file that changed since it was
  checked, a fix through a YAML anchor, a file with an input error) are each about one file,
  and are said by file (each file's in the order they came), in one process too.

Otherwise the split is dropped and the run is fixed in one process from the start, so the
files written and the report are the same either way; only a split that is dropped costs more
time than one process. The files are written by this process only (``fixer.write_fixes``), and
the report of the files as written is the shares' last check, unit by unit in the run's order
(``Stream.take``), as the check in workers writes it.
"""

from __future__ import annotations

import io
import os
from collections import Counter
from typing import Any

from . import engine, loading
from .fixplan import MAX_ROUNDS, MAX_TAKE_BACKS, Fixer
from .model.recordtype import record
from .model.text import trim
from .recheck import Replanned
from .results import RunResult, totals_from
from .workers import jobs, message_of, receive, splittable, stop, take

# files of a share fixed together: its rounds hold every file, tree and resolution of its units
# in memory (about 2 MB for a folder of 100 tiny server configs), so a share is fixed in runs of
# this many files, one after another, and what the run keeps of each is its Share
CHUNK_FILES = 400


@record(repr=False, eq=False)
class Share:
    """What one share's rounds give the run: ``kept`` False when they are not the run's."""

    kept: bool
    take_backs: frozenset[int] = frozenset()  # after which of its rounds a round was taken back
    states: list = None  # type: ignore[assignment]  # the files it changed (FileState)
    applied: list = None  # type: ignore[assignment]
    held: set = None  # type: ignore[assignment]
    read: set = None  # type: ignore[assignment]  # real paths its units read
    touched: set = None  # type: ignore[assignment]  # real paths a fix of its edited, changed or not
    units: list = None  # type: ignore[assignment]  # (index, workers message) per unit
    remaining: tuple[int, int] = (0, 0)  # fixer.count_remaining of its units
    said: list = None  # type: ignore[assignment]  # (file, line): why a fix was not made


@record(repr=False, eq=False)
class Done:
    """A split ``--fix``: what ``runner`` reports."""

    failed: int
    fixed: int
    parts: (
        Parts | None
    )  # each unit's Stream.part, in the run's order; None: check again (a write failed)
    totals: RunResult
    remaining: tuple[int, int]


def fix_split(settings: Any, renderer: Any) -> tuple[tuple | None, Done | None]:
    """(None, the run fixed in ``workers.jobs`` processes, written and ready to report), or the
    run to fix in one process: (the run as planned, None) when it is not worth splitting, else
    (None, None) (a split whose rounds are not the run's: it is planned again from the start)."""
    if not renderer.STREAMS or not splittable(settings, fixing=True):
        return None, None
    checked: dict[str, bytes] = {}
    loading.CHECKED = checked  # the digests of what the planning reads, for every share
    try:
        base = RunResult(settings)
        job, units = engine.start(settings, base)
    finally:
        loading.CHECKED = None
    stream = _stream(settings, renderer)
    planned = (job, base, units, checked)
    n = jobs(settings, units, stream, fixing=True)
    if n < 2 and not _chunked(units, stream):
        return planned, None
    spools = [Spool(k) for k in range(n)]
    shares = _run_split(settings, planned, n, stream, spools)
    if shares is None or not _one_run(shares):
        for spool in spools:
            spool.close()
        return None, None
    return None, _write(settings, base, shares, spools)


def _write(settings: Any, base: RunResult, shares: list[Share], spools: list[Spool]) -> Done:
    """Write what the shares' rounds changed (this process only), and what the report needs."""
    from .fixer import write_fixes

    fixer = Fixer(settings, write=True)
    for share in shares:
        fixer.out.states.update((s.real, s) for s in share.states)
        fixer.out.applied.extend(share.applied)
        fixer.out.held |= share.held
        for file, line in share.said:
            fixer.out.say(file, line)
    fixer.out.final = True
    _, failed, fixed, everything = write_fixes(fixer)
    messages = sorted((i, m) for share in shares for i, m in share.units)
    totals = _totals(base, [m for _, m in messages])
    remaining = tuple(sum(s.remaining[k] for s in shares) for k in (0, 1))
    parts = Parts([m[0] for _, m in messages], spools) if everything else None
    if parts is None:
        for spool in spools:
            spool.close()
    return Done(failed, fixed, parts, totals, remaining)  # type: ignore[arg-type]


class Spool:
    """The report parts of one process's units, kept on disk until the run writes the report
    (at 20,000 tiny configs a JSON report is 54 MB, which the processes held in memory until
    then). An unnamed temporary file made before the workers are forked: each process writes its
    own at the offsets it keeps (``os.pwrite``), and the run reads them back once the workers
    have ended. A part that cannot be written (a full disk) is kept in memory instead."""

    def __init__(self, index: int) -> None:
        import tempfile

        self.index = index  # what a part's place names it by (a place is sent between processes)
        try:
            self.file: Any = tempfile.TemporaryFile()
        except OSError:
            self.file = None
        self.end = 0

    def put(self, part: Any) -> tuple[int, Any, int]:
        """Where ``part`` now is: (this spool's index, offset, size), or (-1, the part, 0)."""
        import pickle

        if self.file is None:
            return -1, part, 0
        data = pickle.dumps(part, pickle.HIGHEST_PROTOCOL)
        try:
            done = 0
            while done < len(data):
                done += os.pwrite(self.file.fileno(), data[done:], self.end + done)
        except OSError:
            return -1, part, 0
        at, self.end = self.end, self.end + len(data)
        return self.index, at, len(data)

    def get(self, at: int, size: int) -> Any:
        import pickle

        chunks, done = [], 0
        while done < size:
            chunk = os.pread(self.file.fileno(), size - done, at + done)
            if not chunk:
                raise OSError("the temporary file of the report's parts ended early")
            chunks.append(chunk)
            done += len(chunk)
        return pickle.loads(b"".join(chunks))

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


class Parts:
    """Each unit's part, in the run's order, read back from the spools one at a time as the
    report is written; the spools are closed at the end."""

    def __init__(self, refs: list[tuple[int, Any, int]], spools: list[Spool]):
        self.refs, self.spools = refs, spools

    def __iter__(self) -> Any:
        try:
            for k, at, size in self.refs:
                yield at if k < 0 else self.spools[k].get(at, size)
        finally:
            for spool in self.spools:
                spool.close()


def _stream(settings: Any, renderer: Any) -> Any:
    """A Stream of the report's format to make parts with: on a stand-in for where the report
    goes (a terminal or not; what a Stream writes as it starts is dropped)."""
    import sys

    tty = False
    if not settings.output:
        try:
            tty = sys.stdout.isatty()
        except (AttributeError, ValueError):  # no standard output, or a closed one
            tty = False
    return renderer.Stream(settings, _Like(tty))


class _Like(io.StringIO):
    """A report's destination as a Stream sees it: a terminal or not."""

    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def _run_split(
    settings: Any, planned: tuple, n: int, stream: Any, spools: list[Spool]
) -> list[Share] | None:
    """Each share's rounds: this process's (share 0) and the workers'; None when the system
    cannot start the workers (the run is fixed in one process)."""
    from .workers import start

    job, base, units, checked = planned

    def work(k: int) -> list[Share]:
        out = []
        for chunk in chunks(units, range(k, len(units), n)):
            out.append(_share(settings, job, base, units, chunk, checked, (stream, spools[k])))
            job.files.persistent = False  # the chunk's files are let go: the next reads its own
            job.files.evict()
            if not out[-1].kept:
                break  # the split is dropped anyway
        return out

    split = start(job, units, n, stream, work)
    if split is None:
        return None
    done = False
    try:
        shares = work(0)
        for reader in split.readers:
            shares.extend(receive(reader))
        done = True
    finally:
        stop(split.readers, kill=not done)
    return shares


def _chunked(units: list[list[Any]], stream: Any) -> bool:
    """Whether one process fixes the run in chunks: two or more, and parts that stand for the
    units (``workers.jobs`` asks the same of a split: not rich's lines for a terminal, which wrap
    to the terminal's width)."""
    return bool(getattr(stream, "parts", False)) and len(chunks(units, range(len(units)))) > 1


def chunks(units: list[list[Any]], mine: range) -> list[list[int]]:
    """The units ``mine`` (indices) in runs of :data:`CHUNK_FILES` files or more (the last may
    hold fewer), in order: each run is fixed on its own, as a share of its own."""
    out: list[list[int]] = [[]]
    files = 0
    for i in mine:
        if files >= CHUNK_FILES:
            out.append([])
            files = 0
        out[-1].append(i)
        files += len(units[i])
    return out


def _share(settings, job, base, units, mine: list[int], checked, report) -> Share:  # type: ignore[no-untyped-def]
    """The rounds over the units ``mine``, in memory; ``report``: (the Stream that makes each
    unit's part, the Spool the part is put in)."""
    from .fixer import count_remaining

    stream, spool = report
    fixer = Fixer(settings, write=True, share=(job, base, units, mine, True), checked=checked)
    try:
        out = fixer.run()
    except Replanned:
        return Share(False)
    if fixer.rounds >= MAX_ROUNDS or out.unwritable or not out.final:
        return Share(False)
    messages = []
    for i, unit in zip(mine, fixer.checks.units, strict=True):
        message = message_of(unit.result, unit.suppressed, stream)
        messages.append((i, (spool.put(message[0]), *message[1:])))
    read = set().union(*(u.read for u in fixer.checks.units))
    states = fixer.changed()
    trim()
    return Share(
        True,
        frozenset(fixer.backs_at),
        states,
        list(out.applied),
        set(out.held),
        read,
        set(out.states),
        messages,
        count_remaining(out.result, settings),
        list(zip(out.about, out.messages)),
    )


def _one_run(shares: list[Share]) -> bool:
    """Whether the shares' rounds are those of the whole run (the module's docstring)."""
    if not all(s.kept for s in shares) or len(_take_backs(shares)) > MAX_TAKE_BACKS:
        return False
    about = [{file for file, _ in s.said} for s in shares]
    if sum(len(a) for a in about) > len(set().union(*about)):
        return False  # two shares say something of one file: in what order would one process?
    readers = Counter(f for s in shares for f in s.read)
    for s in shares:  # each edited only files it read, and that no other share reads
        if any(f not in s.read or readers[f] > 1 for f in s.touched):
            return False
    return True


def _take_backs(shares: list[Share]) -> set[int]:
    """After which rounds one process would take a round back: after round ``i`` when a share
    did. A share's ``i``-th round is the run's ``i``-th: a take-back is followed by a round in
    every unit (the shares that took nothing back go on with their next one), and no round is
    taken back twice, so the shares' take-backs after one round are one of the run's."""
    return set().union(*(s.take_backs for s in shares))


def _totals(base: RunResult, messages: list[tuple]) -> RunResult:
    """The run's totals from the units' messages, as ``recheck.Recheck`` counts a run."""
    totals = totals_from(base)
    totals.summary.suppressed = sum(take(totals, message) for message in messages)
    engine.finish(totals)
    return totals
