"""The ``swacheck`` console script and ``python -m swacheck``: the command line in a process of
its own.

Python's cyclic garbage collector is paused before anything is imported: importing typer and
swacheck builds tens of thousands of objects and almost no reference cycles, and the collector
rescanned them over and over (about 5% of a one-file run). A check already runs with it paused
(``engine.without_cyclic_gc``); reference counting still frees everything. ``cli.py`` is kept
free of this so that importing it (the tests, the API) changes nothing.

``swacheck PATH...`` with no option at all, the commonest run, is checked without typer:
importing typer and building its command took about a third of a one-file run, and with no
option there is nothing to parse. The settings are the check command's defaults
(``clisettings.CHECK_DEFAULTS``, held equal to ``cli.check``'s by tests/test_entry.py) and the
run is ``runner.run_check``, as through typer. Anything else goes through ``cli.py``: an option
(anything starting with ``-``, ``-`` for standard input included), a command name, a first
argument that is no file (it may be a mistyped command), shell completion, and Windows, where
click expands wildcards itself.
"""

import gc
import os
import sys

# the names of the commands (``cli.py``); a first argument that is one of them runs it
COMMANDS = ("check", "pair", "explain", "rules", "rule", "why")


def paths_only(args: list[str]) -> bool:
    """Whether ``args`` are paths alone, which ``runner.check_paths`` checks without typer."""
    return (
        bool(args)
        and os.name != "nt"
        and args[0] not in COMMANDS
        and not any(a.startswith("-") for a in args)
        and os.path.lexists(args[0])
        and not any(name.endswith("_COMPLETE") for name in os.environ)
    )


def main() -> None:
    gc.disable()
    args = sys.argv[1:]
    if paths_only(args):
        from .runner import check_paths

        raise SystemExit(check_paths(args))
    from .cli import main as run

    run()
