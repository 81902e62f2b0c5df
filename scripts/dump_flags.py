"""Build a release profile's server-argument table (swacheck/sglang/data/server-args-X.tsv) from
the released SGLang wheel: the one script for every release.

    python scripts/dump_flags.py --sglang 0.5.23 [-o FILE] [--check]
    python scripts/dump_flags.py --sglang 0.5.12 --source DIR/sglang [-o FILE] [--check]
    python scripts/dump_flags.py --sglang 0.5.23 --deprecations   # the profile's `deprecated`

Two ways to get at the release's own ``argparse`` parser, one table format:

- ``--source DIR``: the ``sglang`` package folder of the unzipped wheel (``pip download --no-deps
  sglang==X -d DIR`` and unzip); SGLang is never imported (it needs torch and a GPU stack).
  ``ServerArgs.add_cli_args`` is taken out of ``srt/server_args.py`` and run against a real
  ``argparse`` parser, with the module's own top-level constants and ``argparse.Action`` classes
  executed first and every other name it refers to replaced by an inert stand-in; the release's
  ``ConfigArgumentMerger`` class is read the same way. Works for releases whose ``add_cli_args``
  is plain ``parser.add_argument`` calls (0.5.12 - 0.5.13); later ones build parts from
  dataclasses (``srt/arg_groups/arg_utils.py``) and need the second way.
- without ``--source``: builds (once) the release's conformance environment
  (``conformance/envs.py``: the wheel with the CPU build of torch, cached outside the
  repository), re-runs itself there and imports ``ServerArgs`` and the merger.

Each long spelling of each option becomes a row, classified the way the release's ``--config``
merger (``srt/utils/server_args_config_parser.py``; before 0.5.18 ``srt/server_args_config_parser.py``)
treats the key, asked of the merger's own tables (it looks a key up with ``-`` replaced by ``_``:
by ``dest`` up to 0.5.22, by every long spelling in 0.5.23):

- ``refused:ACTION``: a key of the actions it refuses (``ValueError: Unsupported config option``);
  checked first: a dest shared by a store_true field and a deprecated alias (0.5.17
  incremental-streaming-output) is refused;
- ``store_true``: a key of its store_true actions (``true`` emits the flag, ``false`` nothing);
- ``valued-flag:ACTION``: a flag it does not know by this spelling, so it emits ``--KEY true``;
- ``store-list``: an action with an explicit ``nargs`` (``*``, ``+``, ``?`` or a number);
- ``store``: every other action.

Columns: option (each long spelling), canonical option (the spelling named after the ServerArgs
field it sets, ``--tensor-parallel-size``/``--tp-size`` -> ``tp-size``, else its first long
spelling), kind, argparse type (the type callable's name; ``str`` for a store action without
one, ``-`` for other actions without one), choices (comma-separated in the parser's order; when
SGLang gives them as a set, whose order changes with string hashing, the committed table's
order if it holds the same set, else sorted; ``-`` when none, or when ``--source`` cannot know
them). Rows are sorted by option. ``--check`` compares with the committed table byte for byte (exit 1 and
a unified diff when they differ).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "conformance"
DATA = ROOT / "swacheck" / "sglang" / "data"
_MERGERS = ("srt/utils/server_args_config_parser.py", "srt/server_args_config_parser.py")

# ---------------------------------------------------------------------------------------------
# --source: the parser and merger read from the wheel's files, SGLang never imported
# ---------------------------------------------------------------------------------------------


class _Stub:
    """Any name the module imports from elsewhere: callable, attribute-able, empty."""

    def __init__(self, name: str = "stub"):
        self.__name__ = name

    def __getattr__(self, item: str) -> _Stub:
        if item.startswith("__"):
            raise AttributeError(item)
        return _Stub(item)

    def __call__(self, *args, **kwargs) -> _Stub:
        return _Stub(self.__name__)

    def __iter__(self):
        # a list built from an imported constant holds a stub: its choices are then unknown ("-"),
        # never a partial list that would refuse valid values
        return iter((_Stub(self.__name__),))

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<stub {self.__name__}>"


class _Namespace(dict):
    def __missing__(self, key: str):
        builtins = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)
        if key in builtins:
            raise KeyError(key)
        return _Stub(key)


_STDLIB = {
    "argparse",
    "json",
    "os",
    "re",
    "logging",
    "dataclasses",
    "typing",
    "enum",
    "math",
    "random",
    "tempfile",
    "sys",
    "copy",
    "functools",
    "pathlib",
}


def _module_file(root: str, module: str) -> str | None:
    """``sglang.srt.x.y`` -> ``ROOT/srt/x/y.py`` (ROOT is the ``sglang`` package folder)."""
    parts = module.split(".")
    if parts[0] != "sglang":
        return None
    base = os.path.join(root, *parts[1:])
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


def _import_from_sglang(node: ast.ImportFrom, root: str, ns: dict, depth: int) -> None:
    """Bind the names a ``from sglang... import`` gives that the module defines without imports
    of its own (argparse actions, small helpers); the rest stay stubs."""
    path = _module_file(root, node.module or "") if depth < 2 else None
    if path is None:
        return
    sub, _ = _load(path, root, depth + 1, need_cli=False)
    for alias in node.names:
        value = sub.get(alias.name)
        if value is not None and not isinstance(value, _Stub):
            ns[alias.asname or alias.name] = value


def _stdlib_import(node: ast.stmt) -> bool:
    names = (
        [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]  # type: ignore[union-attr]
    )
    return all(n.split(".")[0] in _STDLIB for n in names)


def _runnable(node: ast.stmt) -> bool:
    """A top-level statement executed in the stand-in namespace: constants, classes, functions
    and standard-library imports (every other import leaves its names as stubs)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return _stdlib_import(node)
    return isinstance(node, (ast.Assign, ast.AnnAssign, ast.ClassDef, ast.FunctionDef))


def _server_args(node: ast.ClassDef, ns: dict) -> ast.FunctionDef | None:
    """Record ``ServerArgs``' field names; its ``add_cli_args`` (the dataclass itself is not run)."""
    ns["__fields__"] = {
        i.target.id
        for i in node.body
        if isinstance(i, ast.AnnAssign) and isinstance(i.target, ast.Name)
    }
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "add_cli_args":
            item.decorator_list = []
            return item
    return None


def _load(
    path: str, root: str, depth: int = 0, need_cli: bool = True
) -> tuple[_Namespace, ast.FunctionDef | None]:
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    ns = _Namespace(__name__="sglang_server_args_dump", __builtins__=__builtins__)
    add_cli_args = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sglang."):
            _import_from_sglang(node, root, ns, depth)
        elif isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
            add_cli_args = _server_args(node, ns)
        elif _runnable(node):
            try:
                exec(compile(ast.Module([node], []), path, "exec"), ns)
            except Exception:
                pass
    if add_cli_args is None and need_cli:
        raise SystemExit(f"{path}: no ServerArgs.add_cli_args")
    return ns, add_cli_args


def from_source(package: str) -> tuple[argparse.ArgumentParser, object, str, set[str]]:
    """The release's parser and ``--config`` merger, read from its files without importing it."""
    ns, fn = _load(os.path.join(package, "srt", "server_args.py"), package)
    assert fn is not None
    exec(compile(ast.Module([fn], []), "add_cli_args", "exec"), ns)
    parser = argparse.ArgumentParser(allow_abbrev=True)
    try:
        ns["add_cli_args"](parser)
    except Exception as exc:
        raise SystemExit(
            f"{package}: add_cli_args cannot run without SGLang ({type(exc).__name__}: {exc}); "
            "drop --source to read it in the release's environment"
        ) from None
    where = next(m for m in _MERGERS if os.path.isfile(os.path.join(package, m)))
    merger_ns, _ = _load(os.path.join(package, where), package, need_cli=False)
    return parser, merger_ns["ConfigArgumentMerger"](parser), where, ns.get("__fields__") or set()


# ---------------------------------------------------------------------------------------------
# without --source: SGLang imported in the release's conformance environment
# ---------------------------------------------------------------------------------------------


def imported() -> tuple[argparse.ArgumentParser, object, str, set[str]]:
    import dataclasses

    from sglang.srt.server_args import ServerArgs

    try:
        from sglang.srt.utils.server_args_config_parser import ConfigArgumentMerger

        where = _MERGERS[0]
    except ImportError:
        from sglang.srt.server_args_config_parser import ConfigArgumentMerger

        where = _MERGERS[1]
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    # the ServerArgs fields; from 0.5.19 ServerArgs is composed of argument groups and each
    # action's dest is the field it sets
    fields = (
        {f.name for f in dataclasses.fields(ServerArgs)}
        if dataclasses.is_dataclass(ServerArgs)
        else {a.dest for a in parser._actions}
    )
    return parser, ConfigArgumentMerger(parser), where, fields


# ---------------------------------------------------------------------------------------------
# The table, the same from either
# ---------------------------------------------------------------------------------------------


def _kind(name: str, action: argparse.Action, merger) -> str:
    key = name.replace("-", "_")
    if key in merger.unsupported_actions:
        return f"refused:{type(merger.unsupported_actions[key]).__name__}"
    if key in merger.store_true_actions:
        return "store_true"
    if action.nargs == 0:
        return f"valued-flag:{type(action).__name__}"
    if action.nargs is not None:
        return "store-list"
    return "store"


def _type(action: argparse.Action) -> str:
    if action.type is None:  # argparse stores text; flags and custom actions take none
        return "str" if isinstance(action, argparse._StoreAction) else "-"
    return getattr(action.type, "__name__", type(action.type).__name__)


def _choices(action: argparse.Action, committed: str | None) -> str:
    if not action.choices or any(isinstance(c, _Stub) for c in action.choices):
        return "-"
    values = [str(c) for c in action.choices]
    if isinstance(action.choices, (set, frozenset)):
        # a set has no order (it changes with string hashing): keep the committed table's order
        # when the set is the same, else sort
        if committed is not None and sorted(committed.split(",")) == sorted(values):
            return committed
        values.sort()
    return ",".join(values)


def committed_choices(version: str) -> dict[str, str]:
    """Option -> choices column of the committed table of ``version`` (empty when there is none)."""
    path = DATA / f"server-args-{version}.tsv"
    if not path.is_file():
        return {}
    rows = (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines())
    return {r[0]: r[4] for r in rows if len(r) == 5 and not r[0].startswith("#")}


def table(
    version: str, parser: argparse.ArgumentParser, merger, merger_path: str, fields: set[str]
) -> str:
    committed = committed_choices(version)
    rows = []
    for action in parser._actions:
        longs = [o[2:] for o in action.option_strings if o.startswith("--")]
        if not longs or "help" in longs:
            continue
        named = [o for o in longs if o.replace("-", "_") in fields]
        canonical = named[0] if named else longs[0]
        typ, choices = _type(action), _choices(action, committed.get(longs[0]))
        for name in longs:
            rows.append((name, canonical, _kind(name, action, merger), typ, choices))
    rows.sort()
    header = (
        f"# Long options of `python -m sglang.launch_server` in SGLang {version}, read from ServerArgs.add_cli_args\n"
        "# of the released wheel (srt/server_args.py). Columns: option, canonical option (aliases point at it),\n"
        "# how the --config merger treats it (store / store-list / store_true / refused:ACTION, see\n"
        f"# {merger_path}), argparse type, choices.\n"
    )
    return header + "".join("\t".join(r) + "\n" for r in rows)


def deprecations(parser: argparse.ArgumentParser) -> str:
    """Each deprecated option and the replacement SGLang names (``new_flag=``), one a line: what
    the profile's ``deprecated`` table is written from (swacheck/sglang/version.py)."""
    rows = []
    for action in parser._actions:
        new_flag = getattr(action, "new_flag", None)
        longs = [o for o in action.option_strings if o.startswith("--")]
        if new_flag and longs:
            rows.append(f"{longs[0]}\t{new_flag}\n")
    return "".join(sorted(rows))


def _in_release_env(version: str, argv: list[str]) -> int:
    sys.path.insert(0, str(CONFORMANCE))
    import envs

    venv = envs.ensure_venv(version, log=lambda m: print(m, file=sys.stderr))
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run(
        [str(envs.python_of(venv)), str(Path(__file__).resolve()), *argv], env=env, cwd="/"
    ).returncode


def _imported(version: str) -> tuple[argparse.ArgumentParser, object, str, set[str]]:
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    sys.path.insert(0, str(CONFORMANCE))
    import sglang_driver  # the stand-ins for GPU-only modules some releases import with server_args

    sglang_driver.install_platform("cuda", version)
    return imported()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang", required=True, metavar="VERSION")
    ap.add_argument(
        "--source", metavar="DIR", help="the wheel's sglang folder: read it, never import it"
    )
    ap.add_argument(
        "--deprecations",
        action="store_true",
        help="list the deprecated options and the replacement each names, instead of the table",
    )
    ap.add_argument("-o", "--output", help="write the table here (default: standard output)")
    ap.add_argument(
        "--check",
        action="store_true",
        help="compare with swacheck/sglang/data/server-args-VERSION.tsv byte for byte",
    )
    args = ap.parse_args(argv)
    if not args.source and importlib.util.find_spec("sglang") is None:  # not in its environment
        return _in_release_env(args.sglang, argv)
    parsed = from_source(args.source) if args.source else _imported(args.sglang)
    if args.deprecations:
        sys.stdout.write(deprecations(parsed[0]))
        return 0
    text = table(args.sglang, *parsed)
    if args.check:
        name = f"server-args-{args.sglang}.tsv"
        shipped = (DATA / name).read_text(encoding="utf-8")
        diff = difflib.unified_diff(
            shipped.splitlines(True), text.splitlines(True), f"committed/{name}", "wheel"
        )
        sys.stdout.writelines(diff)
        same = shipped == text
        print(
            f"{'identical' if same else 'differs'}: {len(text.splitlines())} lines from the "
            f"wheel, {len(shipped.splitlines())} committed",
            file=sys.stderr,
        )
        return 0 if same else 1
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
