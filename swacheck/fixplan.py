"""Fix planning for ``--fix`` and ``--diff``: choose the fixes, verify them and converge, in memory.

A run goes in rounds:

1. check the files (proposed texts stand in for the files: ``loading.OVERLAY``);
2. verify the previous round: every changed file parses and the findings its fixes targeted
   are gone; otherwise that file's round is taken back and the reason is printed;
3. take the fixable findings (safe ones, and unsafe ones with ``--unsafe-fixes``; never through
   a YAML anchor or alias, never in a file outside the root, that failed to parse or changed
   since it was checked), safe ones first: a fix whose edits overlap one already taken waits
   for the next round, where it is derived again from the re-checked text (so two fixes of one
   key become one edit). Each file's result is parsed once; when it would not parse or would
   hold a key twice (a typo renamed and the same key inserted), its fixes are tried one at a
   time and the ones that do that wait;
4. repeat until no fixable finding is left (at most ``MAX_ROUNDS`` rounds that apply fixes, and
   at most ``MAX_TAKE_BACKS`` that are taken back).

Only then is anything written (:meth:`Fixer.write_all`, one file at a time by
``safewrite.write_verified``). The commands are ``fixer.py``'s.
"""

from __future__ import annotations

import bisect
import hashlib
import os
from collections import Counter

from . import fixes, fixverify, loading
from .fixstate import Applied, FileState, Outcome
from .model.records import Finding
from .model.recordtype import record
from .model.text import one_line
from .paths import in_vcs_metadata, inside, real
from .safewrite import write_verified

MAX_ROUNDS = 8  # real configs converge in 2-3; each round re-checks what it changed (recheck.py)
# A round taken back (in any file of the run) refuses, defers or serialises at least one fix and
# applies none: it does not count as one of the MAX_ROUNDS, or the files of a large tree would
# share them out (one file's refused fixes took the rounds another file's fixes needed).
MAX_TAKE_BACKS = 32


def identity(result, finding: Finding) -> tuple:  # type: ignore[no-untyped-def]
    """What stays the same about a finding while fixes move its lines."""
    dep = result.deployment
    return (
        finding.code,
        finding.field,
        dep.file,
        dep.name,
        finding.location.file if finding.location else "",
    )


def _is_yaml(state: FileState) -> bool:
    """Whether a file is read as YAML (not JSON, a launch script, a Dockerfile or a doc -- the
    file kinds of inputs/kinds.py): where anchors and aliases exist. A script's or a doc's fixes
    are checked by the next round's re-check alone."""
    from .inputs import kinds

    path = state.path
    return not (
        path.lower().endswith(".json")
        or kinds.file_kind(path) is not None
        or kinds.has_shell_shebang(state.original[:200])
    )


def _duplicates(text: str, path: str) -> Counter:
    """How often each key is written again, by document and key: a fix may delete duplicates but
    never make one (a typo renamed and the same key inserted, with another key's duplicate
    deleted in the same round, keeps the total and loses the user's value)."""
    return Counter(
        (doc.index, d.key)
        for doc in loading.load_file(path, text=text).documents
        for d in doc.duplicates
    )


# files written at once by --fix (Fixer.write_all): 2,072 files took 1.5 s one at a time, 0.65 s
# four or six at a time, 0.75 s eight and 0.86 s sixteen (their Python work waits on one lock)
WRITERS = 6
FALLBACK_FIXES = 50  # fixes tried one by one in a file whose fixes together would not parse


@record(repr=False, eq=False)
class _Taken:
    """A round's applied edits and the character spans they took, by file."""

    applied: Applied
    spans: dict[str, list[tuple[int, int, str]]]  # real path -> character spans of the round's text


class _FileRound:
    """One file during one round: its text, line starts, shared YAML, and the spans taken."""

    def __init__(self, state: FileState):
        self.state = state
        self.base = state.round_text
        self.starts = fixes.line_starts(self.base)
        self.yaml = _is_yaml(state)
        self.parsed = self.yaml or state.path.lower().endswith(".json")
        self._shared: list[tuple[int, int]] | None = None
        self._dups: Counter | None = None
        self.taken: list[tuple[int, int, str]] = []  # sorted, none overlapping

    def shared(self) -> list[tuple[int, int]]:
        if self._shared is None:
            self._shared = (
                fixes.anchored_spans(self.base) if ("&" in self.base or "*" in self.base) else []
            )
        return self._shared

    def conflicts(self, spans: list[tuple[int, int, str]]) -> bool:
        for s, e, r in spans:
            i = max(bisect.bisect_left(self.taken, (s,)) - 1, 0)
            while i < len(self.taken) and self.taken[i][0] <= e:
                a, b, q = self.taken[i]
                if (a, b, q) != (s, e, r) and (
                    max(s, a) < min(e, b) or (s == e and a < s < b) or (a == b and s < a < e)
                ):
                    return True
                i += 1
        return False

    def add(self, spans: list[tuple[int, int, str]]) -> None:
        for span in spans:
            bisect.insort(self.taken, span)

    def apply(self, taken: list[_Taken]) -> str:
        key = self.state.real
        return fixes.apply_spans(
            self.base, [span for t in taken for span in t.spans[key]], strict=False
        )[0]

    def accepts(self, new: str) -> bool:
        """Whether ``new`` parses and holds no more duplicate keys than the round's text."""
        if not self.parsed or new == self.base:
            return True
        try:
            if self._dups is None:
                self._dups = _duplicates(self.base, self.state.path)
            return not (_duplicates(new, self.state.path) - self._dups)
        except loading.InputProblem:
            return False


class Fixer:
    """The rounds of one ``--fix`` or ``--diff``. ``share``: the part of a planned run to fix
    (``recheck.Recheck``), with ``checked``, the digests of the files its planning read."""

    def __init__(self, settings, write: bool, share=None, checked=None):  # type: ignore[no-untyped-def]
        self.settings = settings
        self.write = write
        self.share = share
        self.out = Outcome()
        self.checked: dict[str, bytes] = {} if checked is None else checked  # added to, not copied
        self.rounds = self.take_backs = 0
        self.backs_at: set[int] = set()  # after which round (1, 2, ...) each take-back came
        self.unusable: dict[str, str] = {}  # real path -> why no fix is applied to it
        self.serial: set[str] = set()  # files whose fixes are applied one per round (blame)
        self.deferred: set[tuple] = set()  # findings whose fix waited once for the others'
        self.skip: set[tuple] = set()  # ... and wait in the next round
        self.checked_texts: dict[str, bytes] = {}  # loading.OVERLAY as the last check read it
        self.snapshots: dict = {}  # fixverify.snapshot's memo

    # ------------------------------------------------------------------ rounds

    def run(self) -> Outcome:
        from .recheck import Recheck

        loading.CHECKED, loading.OVERLAY = self.checked, {}
        self.checks = checks = Recheck(self.settings, self.share)
        try:
            pending: list[Applied] = []
            before: Counter = Counter()
            args: fixverify.Snapshot = {}
            while True:
                result = self._check(checks)
                self.out.result = result
                counts = Counter(identity(r, f) for r in result.results for f in r.findings)
                now = fixverify.snapshot(result, self.snapshots)
                if pending and self._take_back(pending, before, counts, result, (args, now)):
                    pending = []
                    self.take_backs += 1
                    self.backs_at.add(self.rounds)
                    if self.take_backs > MAX_TAKE_BACKS:
                        break
                    continue  # check again without the taken-back files' round
                self.out.applied.extend(pending)
                if self.rounds - self.take_backs == MAX_ROUNDS:  # the rounds planned and kept
                    break
                self.rounds += 1
                pending = self._round(result)
                pending = self._stop_cycles(pending)
                before, args = counts, now
                if not pending:
                    break
            if self.checked_texts != loading.OVERLAY:  # a cycle put files back after the check
                self.out.result = self._check(checks)
            self.out.final = True
        finally:
            loading.CHECKED, loading.OVERLAY = None, {}
        return self.out

    def _check(self, checks) -> object:  # type: ignore[no-untyped-def]
        """Check the run with the proposed texts: again only where a round changed them."""
        now, last = loading.OVERLAY, self.checked_texts
        changed = {k for k in now.keys() | last.keys() if now.get(k) != last.get(k)}
        self.checked_texts = dict(now)
        return checks.run(changed)

    def _stop_cycles(self, pending: list[Applied]) -> list[Applied]:
        """Put back every file whose text returns to one it had at an earlier round: the fixes of
        its findings undo each other (a config read by two launches that need different values
        in it). Its fixes are refused, with one line saying so; the rest of ``pending`` stays."""
        cycling = {
            k for k, s in self.out.states.items() if s.text != s.round_text and s.text in s.seen
        }
        if not cycling:
            return pending
        undone = [a for a in [*self.out.applied, *pending] if a.files & cycling]
        for a in undone:
            self.out.refused[a.ident] = "its fix and another undo each other"
        self.out.applied = [a for a in self.out.applied if not a.files & cycling]
        for key in cycling:
            state = self.out.states[key]
            state.text, state.fixes = state.original, []
            self._overlay(state)
            codes = ", ".join(sorted({a.code for a in undone if key in a.files}))
            self.out.say(
                key,
                f"{one_line(state.path)}: not fixed: the fixes of its findings ({codes}) undo each "
                "other: launches that read this file need different values in it; edit by hand",
            )
        return [a for a in pending if not a.files & cycling]

    def _take_back(
        self, pending: list[Applied], before: Counter, counts: Counter, result, args: tuple
    ) -> bool:  # type: ignore[no-untyped-def]
        """Undo this round in every file that no longer parses, where a fix did not remove its
        finding (one fewer finding of that identity at least) or changed an argument its finding
        does not name (``args``: the snapshots before and after); True when something was taken
        back. Only the fixes that failed are refused from now on; the others are derived again."""
        bad: dict[str, str] = {}
        self._unnamed(pending, bad, *args)
        errors = {real(e.file): e for e in result.errors}
        for key, state in self.out.states.items():
            if state.text != state.round_text and key in errors:
                bad[key] = f"the fixed file would not parse ({one_line(errors[key].message)})"
        self._not_removed(pending, before, counts, bad)
        if not bad:
            return False
        grew = True  # a fix that spans files is taken back in all of them
        while grew:
            grew = False
            for a in pending:
                if a.files & bad.keys() and not a.files <= bad.keys():
                    source = next(iter(a.files & bad.keys()))
                    for f in a.files - bad.keys():
                        bad[f] = bad[source] and (
                            f"taken back with {one_line(self.out.states[source].path)}"
                        )
                    grew = True
        for key, why in bad.items():
            state = self.out.states[key]
            state.text = state.round_text
            state.fixes = state.fixes[: state.round_fixes]
            self._overlay(state)
            if why:  # "": put back for a fix to be derived again, nothing to say
                self.out.say(
                    key,
                    f"{one_line(state.path)}: not fixed: {why}; nothing is written for this round of fixes",
                )
        self.out.applied.extend(a for a in pending if not a.files & bad.keys())
        return True

    def _not_removed(
        self, pending: list[Applied], before: Counter, counts: Counter, bad: dict[str, str]
    ) -> None:
        """The fixes whose finding is still reported (not one fewer of its identity): refused,
        unless another fix of its file was in the round (a typo renamed to the steps its draft
        tokens follow changed what it must be): then it waits a round and is derived again."""
        for a in pending:
            if counts[a.ident] < before[a.ident]:
                continue
            if a.ident not in self.deferred and any(
                b is not a and b.files & a.files for b in pending
            ):
                self.deferred.add(a.ident)
                self.skip.add(a.ident)
                for f in a.files:
                    bad.setdefault(f, "")  # put back without a word
                continue
            for f in a.files:
                bad.setdefault(
                    f, f"{a.code} is still reported after its fix ({one_line(a.fix.description)})"
                )
            self.out.refused[a.ident] = "its fix did not remove it"

    def _unnamed(self, pending: list[Applied], bad: dict[str, str], before, after) -> None:  # type: ignore[no-untyped-def]
        """The files where this round changed what no fix of it names (fixverify). A fix alone in
        its file is refused; several are tried again one per round, so the next one is."""
        for key, (blame, what) in fixverify.violations(before, after, pending).items():
            if blame is None and key in self.serial:
                blame = next(a for a in pending if key in a.files)
            if blame is None:
                self.serial.add(key)
                bad.setdefault(
                    key,
                    f"{what}, which no fix of this round names (its fixes are tried one at a time)",
                )
                continue
            self.out.refused[blame.ident] = "its fix changes what its finding does not name"
            bad.setdefault(
                key,
                f"{blame.code}'s fix ({one_line(blame.fix.description)}) is refused: {what}, "
                "which its finding does not name; edit by hand",
            )

    def _candidates(self, result) -> list[tuple[tuple, Finding]]:  # type: ignore[no-untyped-def]
        """(identity, finding) of every fix that may be applied: safe fixes first, then those
        that edit what is written before those that insert lines."""
        candidates = []
        for r in result.results:
            for f in r.findings:
                if f.fix is None or not f.fix.edits:
                    continue
                ident = identity(r, f)
                if ident in self.out.refused or ident in self.skip:
                    continue
                if not f.fix.safe and not self.settings.unsafe_fixes:
                    continue
                candidates.append((ident, f))
        candidates.sort(
            key=lambda c: (
                not c[1].fix.safe,
                any(e.line == e.end_line and e.column == e.end_column for e in c[1].fix.edits),
                c[1].code,
            )
        )
        return candidates

    def _round(self, result) -> list[Applied]:  # type: ignore[no-untyped-def]
        """Apply every fix that can be applied now, one after the other."""
        broken: dict[str, str] = {}  # real path -> its first input error, as said
        for e in result.errors:
            broken.setdefault(real(e.file), one_line(str(e)))
        model_files = {
            real(pool.model.file)
            for r in result.results
            for pool in (r.resolution.target, r.resolution.draft)
            if pool is not None and pool.model is not None and pool.model.file
        }
        candidates = self._candidates(result)
        self.inherited = fixverify.inherited(result)
        for state in self.out.states.values():
            state.round_text, state.round_fixes = state.text, len(state.fixes)
            state.seen.add(state.text)
        rounds: dict[str, _FileRound] = {}
        taken: list[_Taken] = []
        seen: set[tuple] = set()  # one finding reported twice (a server checked through two files)
        for ident, f in candidates:
            assert f.fix is not None
            if (ident, f.fix.edits) in seen:
                continue
            seen.add((ident, f.fix.edits))
            files = {}
            for e in f.fix.edits:
                key = self._usable(e.file, broken, model_files)
                if key is None:
                    break
                files[key] = e.file
            else:
                t = self._take(ident, f, files, rounds)
                if t is not None:
                    taken.append(t)
        self.skip.clear()
        return self._settle(taken, rounds)

    def _usable(self, path: str, broken: dict[str, str], model_files: set[str]) -> str | None:
        """The real path of a file a fix may edit, or None."""
        if path == "-" or not os.path.isfile(path):
            if path == "-" or self.settings.commands:
                self.out.unwritable.add(path)  # standard input, a --command text
            return None
        key = real(path)
        if key in self.unusable:
            return None
        if key in broken:  # a file that did not parse has no finding: one of its parts did not
            self._unusable(
                key,
                f"{one_line(path)}: not fixed: part of it cannot be read ({broken[key]}); "
                "mend that, then run --fix again",
            )
            return None
        root = self.settings.root or os.getcwd()
        if not inside(path, root) or in_vcs_metadata(path):
            self._unusable(
                key,
                f"{one_line(path)}: not fixed: it is outside the root {one_line(root)} (--root)",
            )
            return None
        if self.write and key in model_files and not self.settings.fix_model_configs:
            self.out.held.add(path)
            return None
        if key not in self.out.states:
            state = self._state(path, key)
            if state is None:
                return None
            self.out.states[key] = state
        return key

    def _unusable(self, key: str, message: str) -> None:
        if key not in self.unusable:
            self.unusable[key] = message
            self.out.say(key, message)

    def _state(self, path: str, key: str) -> FileState | None:
        """The file as it was checked: re-read, and refused when its bytes differ from those checked."""
        try:
            with open(key, "rb") as fh:
                data = fh.read(
                    self.settings.max_file_size + 1
                )  # larger: it changed (the digest says so)
        except OSError as exc:
            self._unusable(
                key, f"{one_line(path)}: not fixed: cannot read it again: {exc.strerror or exc}"
            )
            return None
        digest = hashlib.sha256(data).digest()
        if self.checked.get(key) != digest:
            self._unusable(
                key,
                f"{one_line(path)}: not fixed: it changed since it was checked (run swacheck again)",
            )
            return None
        text = loading.decode(data, path)
        bom = data.startswith(b"\xef\xbb\xbf")
        state = FileState(path, key, digest, bom, text, text)
        state.round_text = text
        state.seen.add(text)
        return state

    def _take(
        self, ident, f: Finding, files: dict[str, str], rounds: dict[str, _FileRound]
    ) -> _Taken | None:  # type: ignore[no-untyped-def]
        """Take a fix for this round unless it edits YAML shared through an anchor or overlaps an
        edit already taken (then it is derived again, from the re-checked text, next round)."""
        assert f.fix is not None
        by_file: dict[str, list[tuple[int, int, str]]] = {}
        for key in files:
            fr = rounds.get(key)
            if fr is None:
                fr = rounds[key] = _FileRound(self.out.states[key])
            if key in self.serial and fr.taken:
                return None  # one fix a round in this file: the next round takes the next one
            mine = fixes.spans(fr.base, [e for e in f.fix.edits if real(e.file) == key], fr.starts)
            if fr.yaml and fixes.touches(mine, fr.shared()):
                self.out.refused[ident] = "anchor"
                where = one_line(str(f.location)) if f.location else one_line(fr.state.path)
                self.out.say(
                    key,
                    f"{where}: {f.code} not fixable automatically: the value is shared through a YAML anchor or "
                    f"alias, and editing it there would change every place that uses it; edit "
                    f"by hand: {one_line(f.fix.description)}",
                )
                return None
            base = fixverify.inherited_by(mine, fr.base, fr.starts, self.inherited.get(key, ()))
            if base is not None:  # one line for the base's finding and each extender's
                self.out.refused[ident] = "extends"
                line = fixverify.inherited_line(f, fr.state.path, base)
                if line not in self.out.messages:
                    self.out.say(key, line)
                return None
            if fr.conflicts(mine):
                return None
            by_file[key] = mine
        for key, mine in by_file.items():
            rounds[key].add(mine)
        names = fixverify.names_of(
            f.field,
            f.fix.edits,
            {k: rounds[k].base for k in by_file},
            {k: rounds[k].starts for k in by_file},
        )
        return _Taken(Applied(ident, f.code, f.fix, frozenset(files), names), by_file)

    def _settle(self, taken: list[_Taken], rounds: dict[str, _FileRound]) -> list[Applied]:
        """Apply the fixes taken, file by file. A file whose result would not parse or would hold a
        key twice (a rename and an insertion of one key) is done again one fix at a time (at most
        ``FALLBACK_FIXES`` this round); a fix that spans files and is dropped in one is dropped in all."""
        dropped: set[int] = set()
        for key, fr in rounds.items():
            mine = [t for t in taken if key in t.spans]
            if not mine or fr.accepts(fr.apply(mine)):
                continue
            kept: list[_Taken] = []
            for n, t in enumerate(mine):
                if n >= FALLBACK_FIXES or len(t.spans) > 1 or not fr.accepts(fr.apply([*kept, t])):
                    dropped.add(id(t))
                else:
                    kept.append(t)
        done = [t for t in taken if id(t) not in dropped]
        for key, fr in rounds.items():
            mine = [t for t in done if key in t.spans]
            state = fr.state
            state.text = fr.apply(mine)
            state.fixes.extend((t.applied.code, t.applied.fix) for t in mine)
            self._overlay(state)
        return [t.applied for t in done]

    def _overlay(self, state: FileState) -> None:
        if state.text == state.original:
            loading.OVERLAY.pop(state.real, None)
        else:
            loading.OVERLAY[state.real] = state.data()

    # ------------------------------------------------------------------ writing

    def changed(self) -> list[FileState]:
        return [s for s in self.out.states.values() if s.text != s.original]

    def write_all(self) -> tuple[list[FileState], int]:
        """Write every changed file; the files written and how many writes failed. Each file is
        written as ``safewrite.write_verified`` writes one (checked under its lock, synced to
        disk, renamed over the file); several at a time, because the disk's sync is most of a
        file's time one after the other, and syncs at once share a journal commit (see
        :data:`WRITERS`)."""
        written, failed = [], 0
        changed = sorted(self.changed(), key=lambda s: s.real)  # the order of what is said
        root = self.settings.root or os.getcwd()
        if len(changed) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(WRITERS) as pool:
                problems = list(pool.map(lambda state: write_verified(state, root), changed))
        else:
            problems = [write_verified(state, root) for state in changed]
        for state, problem in zip(changed, problems, strict=True):
            if problem is None:
                written.append(state)
            else:
                kind, message = problem
                failed += kind == "failed"
                self.out.say(state.real, f"{one_line(state.path)}: {message}")
        return written, failed
