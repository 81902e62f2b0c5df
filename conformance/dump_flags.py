"""Dump a released SGLang's server flag table in the format of swacheck/sglang/data/server-args-*.tsv.

    python conformance/dump_flags.py --sglang 0.5.23 [-o FILE]      # default: standard output
    python conformance/dump_flags.py --sglang 0.5.23 --check         # diff against the shipped table

Builds (once) the release's conformance environment (envs.py) and re-runs itself there. The
table is read from the wheel's own ``ServerArgs.add_cli_args`` (``srt/server_args.py``) on a
plain ``argparse.ArgumentParser``, as ``prepare_server_args`` builds it, and classified the way
the ``--config`` merger (``srt/utils/server_args_config_parser.py``; before 0.5.18
``srt/server_args_config_parser.py``) treats each spelling, asked of the release's own
``ConfigArgumentMerger`` (it looks a key up with ``-`` replaced by ``_``: by ``dest`` up to
0.5.22, by every long spelling in 0.5.23):

- ``store_true``: a key of its store_true actions (``true`` emits the flag, ``false`` nothing);
- ``refused:ACTION``: a key of the actions it refuses (``ValueError: Unsupported config option``);
- ``valued-flag:ACTION``: a flag it does not know by this spelling, so it emits ``--KEY true``;
- ``store-list``: an action with an explicit ``nargs`` (``*``, ``+``, ``?`` or a number);
- ``store``: every other action.

Columns: option (each long spelling), canonical option (the action's first long spelling),
kind, argparse type (the type callable's name; ``str`` for a store action without one, ``-`` for
other actions without one), choices (comma-separated in the parser's order, sorted when SGLang
gives them as a set, whose order changes with string hashing; ``-`` when none). Rows are sorted by
option.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "swacheck" / "sglang" / "data"


def _merger_path() -> str:
    if importlib.util.find_spec("sglang.srt.utils.server_args_config_parser") is not None:
        return "srt/utils/server_args_config_parser.py"
    return "srt/server_args_config_parser.py"


def _merger(parser):
    try:
        from sglang.srt.utils.server_args_config_parser import ConfigArgumentMerger
    except ImportError:
        from sglang.srt.server_args_config_parser import ConfigArgumentMerger
    return ConfigArgumentMerger(parser)


def _kind(name: str, action: argparse.Action, merger) -> str:
    """How the release's own merger treats the key ``name`` (it looks keys up with underscores)."""
    key = name.replace("-", "_")
    # the merger checks refusals first: a dest shared by a store_true field and a deprecated
    # alias (0.5.17 incremental-streaming-output) is refused
    if key in merger.unsupported_actions:
        return f"refused:{type(merger.unsupported_actions[key]).__name__}"
    if key in merger.store_true_actions:
        return "store_true"
    if action.nargs == 0:  # a flag the merger does not know by this spelling: it emits --KEY true
        return f"valued-flag:{type(action).__name__}"
    if action.nargs is not None:  # *, +, ?, N: a YAML list becomes several values
        return "store-list"
    return "store"


def _type(action: argparse.Action) -> str:
    if action.type is None:  # argparse stores text; flags and custom actions take none
        return "str" if isinstance(action, argparse._StoreAction) else "-"
    return getattr(action.type, "__name__", type(action.type).__name__)


SET_CHOICES: set[str] = set()  # options whose choices SGLang gives as a set (filled by table())


def _choices(action: argparse.Action) -> str:
    if not action.choices:
        return "-"
    values = [str(c) for c in action.choices]
    if isinstance(action.choices, (set, frozenset)):  # no stable order (string hashing): sort
        values.sort()
    return ",".join(values)


def table(version: str) -> str:
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    merger = _merger(parser)
    rows = []
    for action in parser._actions:
        longs = [o[2:] for o in action.option_strings if o.startswith("--")]
        if not longs or "help" in longs:
            continue
        typ = _type(action)
        choices = _choices(action)
        if isinstance(action.choices, (set, frozenset)):
            SET_CHOICES.update(longs)
        for name in longs:
            rows.append((name, longs[0], _kind(name, action, merger), typ, choices))
    rows.sort()
    header = (
        f"# Long options of `python -m sglang.launch_server` in SGLang {version}, read from ServerArgs.add_cli_args\n"
        "# of the released wheel (srt/server_args.py). Columns: option, canonical option (aliases point at it),\n"
        "# how the --config merger treats it (store / store-list / store_true / refused:ACTION, see\n"
        f"# {_merger_path()}), argparse type, choices.\n"
    )
    return header + "".join("\t".join(r) + "\n" for r in rows)


def _as_sets(text: str) -> list[str]:
    """The table with the choices of set-valued options sorted (their order is hash-dependent)."""
    out = []
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) == 5 and cols[0] in SET_CHOICES and cols[4] != "-":
            cols[4] = ",".join(sorted(cols[4].split(",")))
        out.append("\t".join(cols))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang", required=True, metavar="VERSION")
    ap.add_argument("-o", "--output", help="write the table here (default: standard output)")
    ap.add_argument(
        "--check",
        action="store_true",
        help="compare with swacheck/sglang/data/server-args-VERSION.tsv",
    )
    args = ap.parse_args(argv)
    if importlib.util.find_spec("sglang") is None:  # not in the release's environment yet
        sys.path.insert(0, str(HERE))
        import envs

        venv = envs.ensure_venv(args.sglang, log=lambda m: print(m, file=sys.stderr))
        env = dict(os.environ, PYTHONWARNINGS="ignore")
        return subprocess.run(
            [str(envs.python_of(venv)), __file__, *(argv if argv is not None else sys.argv[1:])],
            env=env,
            cwd="/",
        ).returncode
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    sys.path.insert(0, str(HERE))
    import sglang_driver  # the stand-ins for GPU-only modules some releases import with server_args

    sglang_driver.install_platform("cuda", args.sglang)
    text = table(args.sglang)
    if args.check:
        shipped = (DATA / f"server-args-{args.sglang}.tsv").read_text(encoding="utf-8")
        diff = list(
            difflib.unified_diff(
                shipped.splitlines(True),
                text.splitlines(True),
                f"shipped/server-args-{args.sglang}.tsv",
                f"wheel/sglang-{args.sglang}",
            )
        )
        sys.stdout.writelines(diff)
        same = _as_sets(shipped) == _as_sets(text)
        verdict = (
            "identical"
            if not diff
            else ("identical but for the order of set-valued choices" if same else "differs")
        )
        print(
            f"{verdict}: {len(text.splitlines())} lines from the wheel, {len(shipped.splitlines())} shipped"
            + (f" (set-valued choices: {', '.join(sorted(SET_CHOICES))})" if SET_CHOICES else ""),
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
