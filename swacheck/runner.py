"""Running a command once its settings are made: check (streamed unit by unit, or whole for
``--fix``, ``--diff`` and ``--show-pairs``), explain, the rule list; where the report goes."""

from __future__ import annotations

import os
import sys

from .model.text import terminal, trim
from .report.escape import print_error
from .settings import Settings

SKIP_NOTE = "skipped, not a deployment"  # inputs._skip_note: counted, listed with -v


def check_paths(given: dict) -> int | None:  # type: ignore[type-arg]
    """``swacheck PATH...`` (with ``--format``, ``--output``, ``--fix`` at most), run without typer
    (``entry.py``): ``cli.check`` with every other option at its default, and what typer and
    ``cli.main`` do around a command: exit 130 on Ctrl-C, 1 when standard output is a closed
    pipe, one line for an internal error (2). None when a value is wrong: nothing has run, and
    typer is to say so as it does (``clisettings.BadValue``: checked before anything is read)."""
    from .clisettings import CHECK_DEFAULTS, BadValue, check_settings

    try:
        try:
            settings = check_settings({**CHECK_DEFAULTS, **given})
        except BadValue:
            return None
        return run_check(settings)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `swacheck ... | head`: the rest of the report is not wanted
        _drop_stdout()
        return 1
    except Exception as exc:
        return internal_error(exc)


def _drop_stdout() -> None:
    """Standard output cannot take the report (a closed pipe, a full disk): what is still
    buffered goes to the null device, so that flushing at exit succeeds."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def internal_error(exc: Exception) -> int:
    """A bug in swacheck: one line, never a traceback for the user; exit 2. An error in a worker
    process (``workers.WorkerFailed``) is said as the worker met it."""
    shown = getattr(exc, "shown", None) or f"{type(exc).__name__}: {exc}"
    print_error(f"swacheck: internal error: {shown} (please report it; exit 2)")
    return 2


def run_check(settings: Settings) -> int:
    from .engine import without_cyclic_gc

    with without_cyclic_gc():
        return _run_check(settings)


def _run_check(settings: Settings) -> int:
    from .engine import run
    from .report import get

    if settings.write_baseline:  # the one line it writes, not the report before it
        return _write_baseline_only(settings)
    renderer = get(settings.format)
    if settings.statistics and not settings.output:  # the table replaces the report
        from .report import statistics as renderer
    if renderer.STREAMS and not (settings.diff or settings.fix or settings.show_pairs):
        return _stream_check(settings, renderer)
    if settings.diff:
        from .fixer import show_diff

        return show_diff(settings)
    failed = fixed = 0
    result = None
    if settings.fix:
        from .fixer import apply_fixes
        from .fixworkers import fix_split

        planned, split = fix_split(settings, renderer)
        if split is not None and split.parts is not None:
            return _report_split_fix(settings, renderer, split)
        if split is not None:  # a write failed: the files as they are now
            failed, fixed = split.failed, split.fixed
        else:
            _, failed, fixed, result = apply_fixes(settings, planned)
    if result is None:  # with --fix: what is left, as written (the fixer's last check, if valid)
        result = run(settings)
    print_notes(settings, result.notes)
    for error in result.errors:
        print(error, file=sys.stderr)
    if settings.show_pairs:
        print_pairs(result)
    if not _deliver(settings, lambda out: renderer.render(result, out), result):
        return 2
    if settings.fix:
        from .fixer import summary

        print_error(summary(result, settings, fixed))
    code = 2 if failed else result.exit_code
    if settings.write_baseline:
        from .baseline import write_baseline

        return write_baseline(settings, result, code)
    return code


def _report_split_fix(settings: Settings, renderer, split) -> int:  # type: ignore[no-untyped-def]
    """The report of a ``--fix`` split between processes (``fixworkers.py``), as ``_run_check``
    writes the one-process fix's: the units' parts in the run's order, then the fix line."""
    from .fixer import summary_of

    totals = split.totals
    print_notes(settings, totals.notes)
    for error in totals.errors:
        print(error, file=sys.stderr)

    def write(out) -> None:  # type: ignore[no-untyped-def]
        stream = renderer.Stream(settings, out)
        for part in split.parts:
            stream.take(part)
        stream.finish(totals)

    if not _deliver(settings, write, totals):
        return 2
    print_error(summary_of(*split.remaining, split.fixed))
    return 2 if split.failed else totals.exit_code


def _write_baseline_only(settings: Settings) -> int:
    """``--write-baseline``: check unit by unit, print input errors (stderr), write the file and
    its one line; no report."""
    from .baseline import write_baseline
    from .engine import RunResult, run_units

    totals = RunResult(settings)
    for unit in run_units(settings, totals):
        totals.errors.extend(unit.errors)
        for error in unit.errors:
            print(error, file=sys.stderr)
    return write_baseline(settings, totals, totals.exit_code)


def _stream_check(settings: Settings, renderer) -> int:  # type: ignore[no-untyped-def]
    """Check and report unit by unit, holding one unit in memory at a time (``engine.run_units``)."""
    from .engine import RunResult, check_units, start

    totals = RunResult(settings)

    def report(out) -> None:  # type: ignore[no-untyped-def]
        stream = renderer.Stream(settings, out)
        job, units = start(settings, totals)
        printed = [0]

        def said(notes) -> None:  # type: ignore[no-untyped-def]
            print_notes(settings, notes)
            for error in totals.errors[printed[0] :]:
                print(error, file=sys.stderr)
            printed[0] = len(totals.errors)

        from .workers import jobs

        workers = _workers(job, units, stream, out, jobs(settings, units, stream))
        if workers is not None:
            from .workers import check_units as in_workers

            for part, notes in in_workers(workers, totals):
                said(notes)
                stream.take(part)
                trim()
        else:
            for unit in check_units(job, units, totals):
                totals.errors.extend(unit.errors)
                totals.skipped.extend(unit.skipped)
                totals.notes.extend(unit.notes)
                said(unit.notes)
                stream.unit(unit)
                trim()
        said([])
        stream.finish(totals)

    if not _deliver(settings, report, totals):
        return 2
    if settings.write_baseline:
        from .baseline import write_baseline

        return write_baseline(settings, totals, totals.exit_code)
    return totals.exit_code


def _workers(job, units, stream, out, n: int):  # type: ignore[no-untyped-def]
    """The run split ``n`` ways, this process and ``n - 1`` workers (``workers.start``), else None."""
    if n < 2:
        return None
    from .workers import start as start_workers

    flush = getattr(getattr(stream, "w", None), "flush", None)
    if flush is not None:
        flush()  # nothing buffered is copied into a worker
    out.flush()
    return start_workers(job, units, n, stream)


def print_notes(settings: Settings, notes) -> None:  # type: ignore[no-untyped-def]
    """The run's notes on standard error (not with -q), one line each. A file that holds no
    deployment is not among them: quiet by default, like ruff, because a glob or a pre-commit
    hook names every file it matches. It is counted in the summary line and listed with -v,
    named or walked alike."""
    if not settings.quiet:
        for note in notes:
            if not note.message.startswith(SKIP_NOTE):
                print(note, file=sys.stderr)


def _deliver(settings: Settings, write, totals) -> bool:  # type: ignore[no-untyped-def]
    """``write(stream)`` the report to ``--output`` (then ``totals``' summary line to the
    terminal) or to standard output. False when the output file cannot be written, or when
    the report is for standard output and swacheck was started with it closed."""
    if not settings.output:
        if sys.stdout is None:  # `swacheck PATH >&-`: nowhere to write the report
            print_error("swacheck: standard output is closed; give --output FILE for the report")
            return False
        try:
            write(sys.stdout)
            sys.stdout.flush()  # a full disk says so here, not at exit
        except BrokenPipeError:
            raise  # `swacheck ... | head`: exit 1, as typer does (check_paths, cli.main)
        except OSError as exc:
            print_error(f"swacheck: cannot write the report: {exc.strerror or exc}")
            _drop_stdout()
            return False
        return True
    from .safewrite import open_new_file  # never through a committed symbolic link

    try:
        with open_new_file(settings.output) as fh:
            write(fh)
    except OSError as exc:
        print_error(f"{settings.output}: cannot write the report: {exc.strerror or exc}")
        return False
    if settings.statistics:
        from .report.statistics import table

        sys.stdout.write(table(totals))
    if not settings.quiet:
        from .report.human import summary_text

        print(terminal(f"{summary_text(totals)} -> {settings.output}"))
    return True


def print_pairs(result) -> None:  # type: ignore[no-untyped-def]
    """``--show-pairs``: each pair and why; each PD server left alone and why (to stderr)."""
    for pair in result.pairs:
        print_error(
            f"pair: {pair.prefill.deployment.file} (prefill) + {pair.decode.deployment.file} (decode): {pair.how}"
        )
    for alone, why in result.alone:
        print_error(f"unpaired: {alone.deployment.file} ({alone.deployment.name}): {why}")
    if not result.pairs and not result.alone:
        print("no PD prefill/decode pairs among the checked deployments", file=sys.stderr)


def show_settings_and_exit(settings: Settings) -> None:
    """``--show-settings``: every effective setting and where it came from."""
    import typer

    from .config import describe

    for key, value, source in describe(settings):
        typer.echo(terminal(f"{key:<17} {value}  ({source})"))
    raise typer.Exit(0)


def run_explain(settings: Settings, fmt: str) -> int:
    """``swacheck explain``: how every geometry number was derived."""
    from .engine import run
    from .report import get

    result = run(settings)
    for error in result.errors:
        print(error, file=sys.stderr)
    get(fmt, "explain").render(result, sys.stdout)
    return 2 if result.errors else 0


def print_rules(fmt: str) -> None:
    """``swacheck rules``: every rule, in the format chosen."""
    from .report import get
    from .rules import RULES

    get(fmt, "rules").render(list(RULES), sys.stdout)


def print_rule(code: str) -> int:
    """``swacheck rule CODE|NAME``: a rule's documentation; 2 for an unknown rule."""
    from .rules import BY_CODE, RULES, get

    by_name = {r.NAME: r for r in RULES}
    rule = get(code) or by_name.get(code.lower().replace("_", "-"))
    if rule is None:
        import difflib

        wanted = code.upper().replace("O", "0")  # codes are SWA and digits: a letter O is a zero
        family = [c for c in BY_CODE if c.startswith(wanted)]  # SWA1 -> SWA101, SWA102, ...
        kin = [c for c in BY_CODE if c[:4] == wanted[:4]] or list(BY_CODE)  # SWA109 -> SWA1xx
        near = difflib.get_close_matches(wanted, kin, n=1) or difflib.get_close_matches(
            code.lower(), list(by_name), n=1
        )
        if wanted in BY_CODE:
            hint = f"; did you mean {wanted}?"
        elif family and len(family) < len(BY_CODE):
            shown = ", ".join(family[:8]) + (
                f" and {len(family) - 8} more" if len(family) > 8 else ""
            )
            hint = f"; {wanted} is a prefix: did you mean {'one of ' if len(family) > 1 else ''}{shown}?"
        elif near and not family:
            hint = f"; did you mean {near[0]}?"
        else:
            hint = "; `swacheck rules` lists them"
        print_error(f"unknown rule {code!r}{hint}")
        return 2
    from .report import get as renderer

    renderer("text", "rule").render(rule, sys.stdout)
    return 0
