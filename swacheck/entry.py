"""The ``swacheck`` console script and ``python -m swacheck``: the command line in a process of
its own.

Python's cyclic garbage collector is paused before anything is imported: importing typer and
swacheck builds tens of thousands of objects and almost no reference cycles, and the collector
rescanned them over and over (about 5% of a one-file run). A check already runs with it paused
(``engine.without_cyclic_gc``); reference counting still frees everything. ``cli.py`` is kept
free of this so that importing it (the tests, the API) changes nothing.
"""

import gc


def main() -> None:
    gc.disable()
    from .cli import main as run

    run()
