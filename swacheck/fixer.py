"""``--fix`` and ``--diff``: the commands, on top of the planning (``fixplan.py``: choose the
fixes, verify them, converge, all in memory) and the writing (``safewrite.py``: each file only
over the exact bytes that were checked). Nothing is written with ``--diff``; with ``--fix``
nothing is written before the rounds have converged.
"""

from __future__ import annotations

import os
import sys

from . import fixes
from .fixplan import Fixer
from .fixstate import FileState
from .model.text import one_line
from .report.escape import diff_output, print_error


def _relative(state: FileState, root: str) -> str:
    rel = os.path.relpath(state.real, root)
    return rel.replace(os.sep, "/")


def count_remaining(result, settings) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(the findings left, how many of them only ``--unsafe-fixes`` would fix)."""
    remaining = sum(len(r.findings) for r in result.results)
    unsafe = sum(
        1
        for r in result.results
        for f in r.findings
        if f.fix is not None and f.fix.edits and not f.fix.safe
    )
    return remaining, 0 if settings.unsafe_fixes else unsafe


def show_diff(settings) -> int:  # type: ignore[no-untyped-def]
    """``--diff``: the fixes ``--fix`` would write, as one unified diff on standard output."""
    fixer = Fixer(settings, write=False)
    out = fixer.run()
    result = out.result
    for error in result.errors:
        print(error, file=sys.stderr)
    root = settings.root or os.getcwd()
    chunks = []
    for state in sorted(fixer.changed(), key=lambda s: _relative(s, root)):  # by file, as git
        head = "".join(
            f"swacheck: {code} {'safe' if fix.safe else 'unsafe'} fix: {one_line(fix.description)}\n"
            for code, fix in state.fixes
        )
        bom = "\ufeff" if state.bom else ""
        chunks.append(
            head
            + fixes.unified_diff(bom + state.original, bom + state.text, _relative(state, root))
        )
    patch = diff_output(  # escaped where a person or the runner reads it, else exact bytes
        "".join(chunks), _read_by_a_person(), os.environ.get("GITHUB_ACTIONS") == "true"
    )
    if hasattr(sys.stdout, "buffer"):  # bytes: CRLF and lone CR stay as the files have them
        sys.stdout.flush()
        sys.stdout.buffer.write(patch.encode("utf-8"))
    else:
        sys.stdout.write(patch)
    sys.stdout.flush()
    for message in out.said():  # by file, each file's in the order the rounds met them
        print_error(message)
    _say_unwritable(out)
    n = len(chunks)
    _, unsafe = count_remaining(result, settings)
    more = f"; {unsafe} more with --unsafe-fixes" if unsafe else ""
    print_error(
        f"swacheck: {n} file{'s' if n != 1 else ''} would change "
        f"({len(out.applied)} fix{'es' if len(out.applied) != 1 else ''}{more})"
    )
    return 2 if result.errors else (1 if chunks else 0)


def _read_by_a_person() -> bool:
    """Standard output is a terminal, or a CI log (GitHub Actions): not a pipe or a file."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty or os.environ.get("GITHUB_ACTIONS") == "true"


def apply_fixes(settings, planned=None):  # type: ignore[no-untyped-def]
    """``--fix``: converge in memory, then write the changed files. Returns (a file was written,
    writes that failed, findings fixed, the check of the files as written: the rounds' last
    check when every changed file was written as checked, else None). ``planned``: the run as
    ``fixworkers.fix_split`` planned it, (job, discovery result, units, digests read)."""
    if planned is None:
        fixer = Fixer(settings, write=True)
    else:
        job, base, units, checked = planned
        share = (job, base, units, range(len(units)), False)
        fixer = Fixer(settings, write=True, share=share, checked=checked)
    out = fixer.run()
    wrote, failed, fixed, everything = write_fixes(fixer)
    return wrote, failed, fixed, out.result if everything else None


def write_fixes(fixer: Fixer) -> tuple[bool, int, int, bool]:
    """Write what the rounds of ``fixer`` (run already) changed and say so; (a file was written,
    writes that failed, findings fixed, every changed file was written as checked). A line per
    file written, in the order of their real paths, after the lines saying why a fix was not
    made or written (by file, each file's as the rounds met them: the same however the run was
    split)."""
    out = fixer.out
    written, failed = fixer.write_all()
    everything = out.final and len(written) == len(fixer.changed())
    for message in out.said():
        print_error(message)
    for state in sorted(written, key=lambda s: s.real):
        print_error(f"swacheck: fixed {one_line(state.path)}")
    _say_unwritable(out)
    for path in sorted(out.held):
        print_error(
            f"swacheck: not fixing {one_line(path)}: it belongs to a model checkpoint (add --fix-model-configs)"
        )
    done = {s.real for s in written}
    fixed = sum(1 for a in out.applied if a.files <= done)
    return bool(written), failed, fixed, everything


def _say_unwritable(out) -> None:  # type: ignore[no-untyped-def]
    """Why a fix of standard input or a ``--command`` text is left out: they are not files."""
    for path in sorted(out.unwritable):
        what, instead = (
            ("standard input", "name the file instead of -")
            if path == "-"
            else (f"the --command text {one_line(path)}", "put the command in a script and name it")
        )
        print_error(f"swacheck: not fixing {what}: --fix and --diff edit files only ({instead})")


def summary(result, settings, fixed: int) -> str:  # type: ignore[no-untyped-def]
    return summary_of(*count_remaining(result, settings), fixed)


def summary_of(remaining: int, unsafe: int, fixed: int) -> str:
    extra = f" ({unsafe} need{'s' if unsafe == 1 else ''} --unsafe-fixes)" if unsafe else ""
    return f"swacheck: {fixed} fixed, {remaining} remaining{extra}"
