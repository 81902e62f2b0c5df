"""The ``swacheck`` console script and ``python -m swacheck``: the command line in a process of
its own.

Python's cyclic garbage collector is paused before anything is imported: importing typer and
swacheck builds tens of thousands of objects and almost no reference cycles, and the collector
rescanned them over and over (about 5% of a one-file run). A check already runs with it paused
(``engine.without_cyclic_gc``); reference counting still frees everything. ``cli.py`` is kept
free of this so that importing it (the tests, the API) changes nothing. For the same reason the
process ends with ``os._exit`` once the command is done (:func:`leave`).

The commonest runs, ``swacheck PATH...`` with at most ``--format``, ``--output`` and ``--fix``, are checked
without typer: importing typer and building its command took about a third of a one-file run,
and these few words need no parser. The settings are the check command's defaults
(``clisettings.CHECK_DEFAULTS``, held equal to ``cli.check``'s by tests/test_entry.py) with the
values given, checked by ``clisettings`` as through typer, and the run is ``runner.run_check``.
Anything else goes through ``cli.py``: another option, an option without a value or with one
that starts with ``-``, ``-`` for standard input, a command name, a first argument that is no
file (it may be a mistyped command), shell completion, and Windows, where click expands
wildcards itself.
"""

import gc
import os
import sys

# the names of the commands (``cli.py``); a first argument that is one of them runs it
COMMANDS = ("check", "pair", "explain", "rules", "rule", "why")

# the options a run without typer may carry, by every name typer knows them by (options.py)
FAST_OPTIONS = {
    "--format": "format",
    "-f": "format",
    "--output-format": "format",
    "--output": "output",
    "-o": "output",
}
# the switches (no value) a run without typer may carry: ``--fix`` is a check run too, and typer's
# import and command tree were about a twentieth of it
FAST_FLAGS = {"--fix": "fix"}


def fast_values(args: list[str]) -> dict[str, str | bool | list[str]] | None:
    """``{"paths": [...], "format": ..., "output": ..., "fix": True}`` (the last three when given;
    the last of each, as typer takes it) for ``args`` that ``runner.check_paths`` runs without typer, else
    None."""
    if (
        not args
        or os.name == "nt"
        or args[0] in COMMANDS
        or any(name.endswith("_COMPLETE") for name in os.environ)
        or (not args[0].startswith("-") and not os.path.lexists(args[0]))
    ):
        return None
    values: dict[str, str | bool | list[str]] = {}
    paths: list[str] = []
    words = iter(args)
    for word in words:
        if not word.startswith("-"):
            paths.append(word)
            continue
        if word in FAST_FLAGS:
            values[FAST_FLAGS[word]] = True
            continue
        name, eq, value = word.partition("=")
        if name not in FAST_OPTIONS or (eq and not name.startswith("--")):
            return None  # another option, "-", "--", or "-f=x" (click reads "=x")
        if not eq:
            value = next(words, "")
        if not value or value.startswith("-"):
            return None
        values[FAST_OPTIONS[name]] = value
    if not paths:
        return None
    values["paths"] = paths
    return values


def main() -> None:
    gc.disable()
    try:
        values = fast_values(sys.argv[1:])
        if values is not None:
            from .runner import check_paths

            code = check_paths(values)
            if code is not None:
                raise SystemExit(code)
        from .cli import main as run

        run()
    except SystemExit as done:
        leave(done.code)


def leave(code: object) -> None:
    """End the process with ``code`` as ``sys.exit`` would, without tearing the interpreter down.

    Every report has been written and its files closed by now; what Python would still do is
    free every object and module one by one (a full collection included), about a tenth of a
    one-file run. Standard output and error are flushed here, and a failed flush of standard
    output exits 120, as Python's own shutdown does."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): the message on standard error, exit 1
        print(code, file=sys.stderr)
        status = 1
    try:
        if sys.stdout is not None:  # None: started with standard output closed
            sys.stdout.flush()
    except (OSError, ValueError):
        status = 120
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)
