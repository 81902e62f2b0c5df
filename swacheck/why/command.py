"""``swacheck why`` as a command (called by cli.py): read, explain, match, then report.

The report is written by the ``why`` renderers of :mod:`swacheck.report` (``why_human``,
``why_json``), like every other output.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .match import WhyReport, explain
from .messages import EXAMPLE
from .parse import Parse, parse_text, read_log


def _is_file(text: str) -> bool:
    try:
        return "\n" not in text and os.path.isfile(text)
    except (OSError, ValueError):
        return False


def _read(settings: Any, text: str | None, log: str | None) -> tuple[Parse | None, str, str]:
    """(the parsed errors, their source in words, the position format of a malformed message);
    None after printing why nothing could be read."""
    from ..report.escape import print_error

    if log is None:
        return parse_text(text or ""), "the text", "swacheck why: line {}"
    if log == "-" and "-" in settings.paths:
        print(
            "swacheck why: --from-log - and the PATH - both read standard input; give one of them",
            file=sys.stderr,
        )
        return None, "", ""
    parse, problem = read_log(log)
    if parse is None:
        print_error(problem)
        return None, "", ""
    source = "standard input" if log == "-" else log
    where = "<stdin>:{}" if log == "-" else log.replace("{", "{{").replace("}", "}}") + ":{}"
    return parse, source, where


def _prints_server_args(path: str) -> bool:
    """A log file (within the size limit) holding SGLang's ``server_args=`` start-up line."""
    from .. import limits
    from ..inputs.server_output import is_server_log

    try:
        if not os.path.isfile(path) or os.path.getsize(path) > limits.MAX_FILE_SIZE:
            return False
        with open(path, encoding="utf-8", errors="replace") as fh:
            return is_server_log(fh.read())
    except OSError:
        return False


def _run(settings: Any, log: str | None) -> Any:
    """Check the paths given and, when the log holds SGLang's ``server_args=`` line, the server it
    describes (inputs/server_output.py): its run result (settings with the log among the paths),
    or the paths' alone when the log's server cannot be checked, or None when nothing was given.
    An input error of the logged arguments is a note (when files are given to compare them with):
    they help, they are not the question."""
    from dataclasses import replace

    from ..engine import run

    printed = log is not None and log != "-" and _prints_server_args(log)
    if not printed and not settings.paths:
        return None
    with_log = replace(settings, paths=[log, *settings.paths]) if printed else settings
    result = run(with_log)
    if printed:
        for error in [e for e in result.errors if e.file == log]:
            result.errors.remove(error)
            if settings.paths:  # said when the files are to be compared with what ran
                print(f"{error} (the server's logged arguments are not checked)", file=sys.stderr)
        if not any(r.deployment.file == log for r in result.results):
            result = run(settings) if settings.paths else None
    for error in result.errors if result is not None else ():
        print(error, file=sys.stderr)
    return result


def run_why(settings: Any, text: str | None, log: str | None, fmt: str) -> int:
    """Parse, explain, match, print; the exit code (0 explained, 2 nothing to explain / bad input)."""
    from ..report import get
    from ..report.escape import print_error

    if log is None and _is_file(text or ""):  # why LOGFILE [PATH...]: the log, read as a log
        text, log = None, text
    parse, source, where = _read(settings, text, log)
    if parse is None:
        return 2
    for bad in parse.malformed:
        times = f" ({bad.count} times)" if bad.count > 1 else ""
        print_error(
            f"{where.format(bad.line)}: malformed DSV4 target/draft message: {bad.problem}{times}"
        )
    if not parse.errors:
        if not parse.malformed:
            print_error(
                f'swacheck why: no DSV4 target/draft error found in {source} (expected e.g. "{EXAMPLE}")'
            )
        return 2

    run_result = _run(settings, log) if settings.paths or log else None
    items = explain(parse, run_result)
    if run_result is not None and run_result.settings is not settings:  # the log's server too
        from .disagree import note_disagreements

        note_disagreements(items, run_result, log)  # type: ignore[arg-type]
        settings = run_result.settings
    report = WhyReport(settings, items, source)
    get(fmt, "why").render(report, sys.stdout)
    return 2 if parse.malformed or (run_result is not None and run_result.errors) else 0
