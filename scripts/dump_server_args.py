"""Dump the long options of an SGLang release's ``launch_server`` into swacheck's flag table.

    python scripts/dump_server_args.py WHEEL/sglang 0.5.12 > swacheck/sglang/data/server-args-0.5.12.tsv

Run by hand on a released wheel (``pip download --no-deps sglang==X -d DIR`` and unzip); SGLang is
never imported (it needs torch and a GPU stack). Instead ``ServerArgs.add_cli_args`` is taken out
of ``srt/server_args.py`` and run against a real ``argparse`` parser, with the module's own
top-level constants and ``argparse.Action`` classes executed first and every other name it
refers to replaced by an inert stand-in. Each option is then classified the way that release's
``--config`` merger (``srt/server_args_config_parser.py`` ``ConfigArgumentMerger``) treats it:

- ``refused:ACTION`` -- the key (dashes to underscores) is the ``dest`` of an action that is
  neither ``_StoreAction`` nor ``_StoreTrueAction``: the merger raises "Unsupported config option";
- ``store_true`` -- the key is the ``dest`` of a ``_StoreTrueAction`` (``true`` emits the flag);
- ``valued-flag:ACTION`` -- an option that takes no value, whose key the merger does not know as a
  store_true: ``key: true`` reaches argparse as ``--key true``, an error;
- ``store-list`` (``nargs`` ``+``/``*``/N) and ``store`` otherwise.

Only releases whose ``add_cli_args`` is plain ``parser.add_argument`` calls work (0.5.12-0.5.15);
the script checks itself against a table dumped another way (run it on 0.5.14 and diff).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys


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
        if (
            key in vars(__builtins__)
            if isinstance(__builtins__, type(sys))
            else key in __builtins__
        ):  # type: ignore[operator]
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
            continue
        if isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
            ns["__fields__"] = {
                i.target.id
                for i in node.body
                if isinstance(i, ast.AnnAssign) and isinstance(i.target, ast.Name)
            }
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "add_cli_args":
                    item.decorator_list = []
                    add_cli_args = item
            continue  # the dataclass itself: defaults are not needed
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            if not all(n.split(".")[0] in _STDLIB for n in names):
                continue
        if isinstance(
            node,
            (ast.Assign, ast.AnnAssign, ast.ClassDef, ast.FunctionDef, ast.Import, ast.ImportFrom),
        ):
            try:
                exec(compile(ast.Module([node], []), path, "exec"), ns)
            except Exception:
                pass
    if add_cli_args is None and need_cli:
        raise SystemExit(f"{path}: no ServerArgs.add_cli_args")
    return ns, add_cli_args


def dump(package: str, version: str) -> str:
    ns, fn = _load(os.path.join(package, "srt", "server_args.py"), package)
    assert fn is not None
    exec(compile(ast.Module([fn], []), "add_cli_args", "exec"), ns)
    parser = argparse.ArgumentParser(allow_abbrev=True)
    ns["add_cli_args"](parser)
    actions = [a for a in parser._actions if a.option_strings and "--help" not in a.option_strings]
    store_true = {a.dest for a in actions if isinstance(a, argparse._StoreTrueAction)}
    refused = {
        a.dest: a
        for a in actions
        if not isinstance(a, (argparse._StoreTrueAction, argparse._StoreAction))
        and "--config" not in a.option_strings
    }
    rows = []
    for a in actions:
        longs = [o[2:] for o in a.option_strings if o.startswith("--")]
        if not longs:
            continue
        # the option named after the ServerArgs field it sets: "--tensor-parallel-size", "--tp-size" -> tp-size
        fields = ns.get("__fields__") or set()
        named = [o for o in longs if o.replace("-", "_") in fields]
        canonical = named[0] if named else longs[0]
        for opt in longs:
            key = opt.replace("-", "_")
            if key in refused:
                kind = f"refused:{type(refused[key]).__name__}"
            elif key in store_true:
                kind = "store_true"
            elif a.nargs == 0:
                kind = f"valued-flag:{type(a).__name__}"
            elif a.nargs in ("+", "*") or (isinstance(a.nargs, int) and a.nargs > 1):
                kind = "store-list"
            else:
                kind = "store"
            typ = (
                getattr(a.type, "__name__", "-")
                if a.type is not None
                else ("-" if a.nargs == 0 else "str" if a.nargs is None else "-")
            )
            known = (
                a.choices
                and not isinstance(a.choices, _Stub)
                and not any(isinstance(c, _Stub) for c in a.choices)
            )
            choices = ",".join(str(c) for c in a.choices) if known else "-"
            rows.append((opt, canonical, kind, typ, choices))
    head = (
        f"# Long options of `python -m sglang.launch_server` in SGLang {version}, read from ServerArgs.add_cli_args\n"
        "# of the released wheel (srt/server_args.py). Columns: option, canonical option (aliases point at it),\n"
        "# how the --config merger treats it (store / store-list / store_true / refused:ACTION, see\n"
        "# srt/server_args_config_parser.py), argparse type, choices.\n"
    )
    return head + "".join("\t".join(r) + "\n" for r in sorted(rows))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.stdout.write(dump(sys.argv[1], sys.argv[2]))
