"""A tiny mutation tester: how many small changes to a module do its tests notice?

    python conformance/mutation.py [--minutes 15] [--sample N] [--seed 0] [--at MODULE:LINE ...]
        [--tests T ...] MODULE.py ...

Copies the repository's tracked files to a scratch folder, and for each mutant of the given
modules (one operator applied at one place: ``==``/``!=``, ``<``/``>=``, ``>``/``<=``, ``in``/
``not in``, ``is``/``is not``, ``and``/``or``, dropping a ``not``, ``True``/``False``, an integer
``n`` -> ``n + 1``) writes the mutated module there and runs the focused tests against the copy
(``PYTHONPATH``), stopping at the first failure. A mutant is *killed* when the tests fail, *survives*
when they pass, and is *timed out* after two minutes (counted as killed). Prints every survivor
(file:line, the change) and the score. With ``--sample`` (or when the time box would be
exceeded) a seeded random sample of the mutants is run.

Nothing here is a dependency of swacheck; it is run by hand.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWAPS = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def mutants(source: str) -> list[tuple[int, str, object]]:
    """(line, description, key) for every mutation point; key re-finds the node in a fresh parse."""
    tree = ast.parse(source)
    out = []
    for index, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in SWAPS:
                    new = SWAPS[type(op)].__name__
                    out.append((node.lineno, f"{type(op).__name__} -> {new}", (index, "cmp", k)))
        elif isinstance(node, ast.BoolOp):
            new = "Or" if isinstance(node.op, ast.And) else "And"
            out.append((node.lineno, f"{type(node.op).__name__} -> {new}", (index, "bool", 0)))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((node.lineno, "drop not", (index, "not", 0)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            out.append((node.lineno, f"{node.value} -> {not node.value}", (index, "boolc", 0)))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            out.append((node.lineno, f"{node.value} -> {node.value + 1}", (index, "int", 0)))
    return out


class _DropNot(ast.NodeTransformer):
    def __init__(self, target):
        self.target = target

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        return node.operand if node is self.target else node


def apply(source: str, key) -> str:
    tree = ast.parse(source)
    index, kind, k = key
    node = list(ast.walk(tree))[index]
    if kind == "cmp":
        node.ops[k] = SWAPS[type(node.ops[k])]()
    elif kind == "bool":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "not":
        tree = _DropNot(node).visit(tree)
    elif kind == "boolc":
        node.value = not node.value
    elif kind == "int":
        node.value = node.value + 1
    return ast.unparse(ast.fix_missing_locations(tree))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="+", help="files under swacheck/ to mutate")
    ap.add_argument("--tests", nargs="+", required=True, help="the focused test selection")
    ap.add_argument("--minutes", type=float, default=15.0)
    ap.add_argument("--sample", type=int, help="run this many mutants (a seeded random sample)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--at",
        nargs="+",
        metavar="MODULE:LINE",
        help="only the mutants on these lines (e.g. the survivors of an earlier run, against more tests)",
    )
    args = ap.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="swacheck-mutation-"))
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in files:
        dest = scratch / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, dest)
    env = dict(os.environ, PYTHONPATH=str(scratch))
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *args.tests]

    start = time.monotonic()
    base = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True)
    per_run = time.monotonic() - start
    if base.returncode != 0:
        print("the focused tests fail without any mutation:\n" + base.stdout[-2000:])
        return 2
    # the modules as copied: editing the working tree while this runs changes nothing here
    sources = {module: (scratch / module).read_text() for module in args.modules}
    todo = []
    for module, source in sources.items():
        todo += [(module, line, what, key) for line, what, key in mutants(source)]
    if args.at:
        wanted = set(args.at)
        todo = [m for m in todo if f"{m[0]}:{m[1]}" in wanted]
    total = len(todo)
    budget = max(1, int(args.minutes * 60 / max(per_run, 1.0)))
    count = min(args.sample or total, budget, total)
    rng = random.Random(args.seed)
    chosen = sorted(rng.sample(todo, count), key=lambda m: (m[0], m[1])) if count < total else todo
    print(
        f"{total} mutants in {len(args.modules)} modules; running {len(chosen)} "
        f"(one test run takes {per_run:.0f} s)",
        flush=True,
    )
    killed = survived = 0
    survivors = []
    for module, line, what, key in chosen:
        original = sources[module]
        target = scratch / module
        target.write_text(apply(original, key))
        try:
            proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, timeout=120)
            dead = proc.returncode != 0
        except subprocess.TimeoutExpired:
            dead = True
        finally:
            target.write_text(original)
        if dead:
            killed += 1
        else:
            survived += 1
            survivors.append(f"{module}:{line}: {what}")
            print(f"  survived {module}:{line}: {what}", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    score = 100.0 * killed / max(1, killed + survived)
    print(f"killed {killed} of {killed + survived} mutants ({score:.1f}%); {total} in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
