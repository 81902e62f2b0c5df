"""Instrumented in-process run for bench.py: how often is each file loaded and parsed?

    python benchmarks/count_loads.py RESULT.json [swacheck arguments...]

Wraps ``swacheck.loading.load_file`` (every file swacheck reads goes through it) and
``swacheck.loading.parse_json``, counting calls per real path, runs the swacheck command line
once in this process, and writes {"exit_code", "load_file": {path: n}, "parse_json": {path: n}}
to RESULT.json. It changes nothing on disk but RESULT.json and what swacheck itself writes.
"""

from __future__ import annotations

import collections
import functools
import importlib
import json
import os
import pkgutil
import sys


def _key(path: object) -> str:
    path = os.fspath(path)  # type: ignore[arg-type]
    return path if path == "-" else os.path.realpath(path)


def _counting(fn, counter: collections.Counter, path_arg: int):  # type: ignore[no-untyped-def]
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        path = args[path_arg] if len(args) > path_arg else kwargs.get("path", "?")
        counter[_key(path)] += 1
        return fn(*args, **kwargs)

    return wrapper


def main(argv: list[str]) -> int:
    result_path, swacheck_args = argv[0], argv[1:]
    import swacheck
    import swacheck.loading as loading

    # Import every swacheck module first, so a module that did `from .loading import load_file`
    # is patched too (the CLI imports most of them lazily).
    for info in pkgutil.walk_packages(swacheck.__path__, "swacheck."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:
            pass

    counts: dict[str, collections.Counter] = {
        "load_file": collections.Counter(),
        "parse_json": collections.Counter(),
    }
    path_args = {"load_file": 0, "parse_json": 1}  # load_file(path, ...), parse_json(text, path)
    for name, counter in counts.items():
        original = getattr(loading, name, None)
        if original is None:
            continue
        wrapped = _counting(original, counter, path_args[name])
        for mod_name, mod in list(sys.modules.items()):
            if (mod_name == "swacheck" or mod_name.startswith("swacheck.")) and getattr(
                mod, name, None
            ) is original:
                setattr(mod, name, wrapped)

    from swacheck.cli import main as cli_main

    sys.argv = ["swacheck", *swacheck_args]
    try:
        cli_main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    with open(result_path, "w", encoding="utf-8") as fh:
        json.dump({"exit_code": code, **{k: dict(v) for k, v in counts.items()}}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
