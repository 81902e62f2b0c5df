"""List every raise, assert and fatal exit on SGLang's DeepSeek-V4 start-up path, per release.

Reads a release wheel (a ``.whl`` file, or a folder holding the unpacked ``sglang`` package)
with the standard library's ``ast`` only: nothing of SGLang is imported or run.

The path is defined by ``conformance/inventory/roots.txt`` (committed): call-graph roots
(``module:qualname``, each with a depth), followed through the calls the source makes
statically -- a function or class named in the body (plain names, ``module.name``,
``Class.name``, ``self.name``/``cls.name`` through the class and its bases, ``super().name``;
a function passed as a value, as ``run_hook(handle_x, server_args)``, counts as called) -- to
the root's depth, inside the modules ``roots.txt`` allows (``follow`` lines). A class counts
as called through its ``__init__``/``__post_init__``. Nested functions belong to their
enclosing function.

Each site gets a stable id ``file::function::kind::hash`` where the hash covers the kind, the
exception's name, the assert's condition (``ast.unparse``) and the constant text of the
message (formatted values as ``{}``, whitespace collapsed): not the line, which moves between
releases. Sites that would share an id within one function get ``~2``, ``~3`` ... in source
order. Environment variables read by the same functions are listed too.

    python scripts/raise_inventory.py /work/wheels/0.5.23/sglang-0.5.23-*.whl \\
        -o conformance/inventory/sites-0.5.23.tsv --env-out conformance/inventory/env-0.5.23.tsv
    python scripts/raise_inventory.py WHEEL --check 0.5.23   # against the committed files

Exit status: 0 written (or --check identical), 1 --check differs, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import sys
import zipfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
INVENTORY = HERE / "conformance" / "inventory"
ROOTS = INVENTORY / "roots.txt"

SITE_HEADER = ("id", "kind", "exception", "file", "line", "function", "depth", "text")
ENV_HEADER = ("env", "file", "line", "function")
EXIT_CALLS = {"sys.exit", "os._exit", "exit", "quit", "os.abort", "_exit"}
ENV_FUNCS = {
    "get_bool_env_var",
    "get_int_env_var",
    "get_float_env_var",
    "get_str_env_var",
    "os.getenv",
    "getenv",
    "os.environ.get",
    "environ.get",
    "os.environ.setdefault",
    "envs.get",
}
MAX_TEXT = 160


class InventoryError(Exception):
    pass


# ---------------------------------------------------------------- reading the release


class Release:
    """The ``.py`` sources of a release: ``sglang/...`` relative path -> text."""

    def __init__(self, where: Path):
        self.sources: dict[str, str] = {}
        if where.is_file() and where.suffix == ".whl":
            with zipfile.ZipFile(where) as zf:
                for name in zf.namelist():
                    if name.startswith("sglang/") and name.endswith(".py"):
                        self.sources[name] = zf.read(name).decode("utf-8", "replace")
        elif where.is_dir():
            base = where if (where / "sglang").is_dir() else where.parent
            if not (base / "sglang").is_dir():
                raise InventoryError(f"{where}: no sglang package folder in it")
            for path in sorted((base / "sglang").rglob("*.py")):
                rel = path.relative_to(base).as_posix()
                self.sources[rel] = path.read_text("utf-8", "replace")
        else:
            raise InventoryError(f"{where}: not a .whl file or a folder")
        if not self.sources:
            raise InventoryError(f"{where}: no sglang sources found")

    def file_of(self, module: str) -> str | None:
        rel = module.replace(".", "/")
        for cand in (rel + ".py", rel + "/__init__.py"):
            if cand in self.sources:
                return cand
        return None


@dataclass
class Func:
    module: str
    qualname: str
    node: ast.AST
    cls: str | None  # the enclosing class's qualname, for self./cls.
    nested: list[str] = field(default_factory=list)


@dataclass
class Module:
    name: str
    file: str
    names: dict[str, tuple] = field(default_factory=dict)  # local name -> target
    funcs: dict[str, Func] = field(default_factory=dict)
    classes: dict[str, tuple[ast.ClassDef, list[ast.expr]]] = field(default_factory=dict)


class Index:
    def __init__(self, release: Release):
        self.release = release
        self.modules: dict[str, Module | None] = {}

    def module(self, name: str) -> Module | None:
        if name not in self.modules:
            self.modules[name] = None
            file = self.release.file_of(name)
            if file is not None:
                self.modules[name] = self._build(name, file)
        return self.modules[name]

    def _build(self, name: str, file: str) -> Module:
        try:
            tree = ast.parse(self.release.sources[file], filename=file)
        except SyntaxError as exc:
            raise InventoryError(f"{file}: cannot parse: {exc}") from None
        mod = Module(name, file)
        package = name if file.endswith("__init__.py") else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        mod.names[a.asname] = ("module", a.name)
                    else:
                        top = a.name.split(".")[0]
                        mod.names.setdefault(top, ("module", top))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                    base = ".".join(parts + ([node.module] if node.module else []))
                for a in node.names:
                    mod.names.setdefault(a.asname or a.name, ("from", base, a.name))
        self._defs(mod, tree.body, "", None)
        return mod

    def _defs(self, mod: Module, body, prefix: str, cls: str | None, parent: Func | None = None):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + node.name
                f = Func(mod.name, q, node, cls)
                mod.funcs.setdefault(q, f)
                if parent is not None:
                    parent.nested.append(q)
                self._defs(mod, node.body, q + ".", cls, f)
            elif isinstance(node, ast.ClassDef):
                q = prefix + node.name
                mod.classes.setdefault(q, (node, node.bases))
                if parent is None and not prefix:
                    mod.names.setdefault(node.name, ("class", mod.name, q))
                self._defs(mod, node.body, q + ".", q, None)
            elif isinstance(node, (ast.If, ast.Try, ast.With)) and parent is None:
                inner = list(getattr(node, "body", []))
                inner += list(getattr(node, "orelse", []))
                for h in getattr(node, "handlers", []):
                    inner += h.body
                self._defs(mod, inner, prefix, cls, None)
        if not prefix:
            for q in mod.funcs:
                if "." not in q:
                    mod.names.setdefault(q, ("func", mod.name, q))

    # -- resolution: a name in a module -> ("func", module, qualname) | ("class", ...) | ("module", m)

    def resolve(self, modname: str, name: str, seen=0):
        mod = self.module(modname)
        if mod is None or seen > 8:
            return None
        if name in mod.funcs and "." not in name:
            return ("func", modname, name)
        if name in mod.classes:
            return ("class", modname, name)
        target = mod.names.get(name)
        if target is None:
            return None
        if target[0] == "module":
            return target if self.module(target[1]) is not None or True else None
        if target[0] == "from":
            _, base, attr = target
            sub = f"{base}.{attr}" if base else attr
            if self.release.file_of(sub) is not None:
                return ("module", sub)
            return self.resolve(base, attr, seen + 1)
        return target

    def attr_of(self, target, attr: str):
        if target is None:
            return None
        if target[0] == "module":
            return self.resolve(target[1], attr)
        if target[0] == "class":
            return self.method(target[1], target[2], attr)
        return None

    def method(self, modname: str, clsname: str, attr: str, depth=0):
        mod = self.module(modname)
        if mod is None or clsname not in mod.classes or depth > 10:
            return None
        q = f"{clsname}.{attr}"
        if q in mod.funcs:
            return ("func", modname, q)
        for base in mod.classes[clsname][1]:
            b = self.expr_target(modname, base)
            if b and b[0] == "class":
                found = self.method(b[1], b[2], attr, depth + 1)
                if found:
                    return found
        return None

    def expr_target(self, modname: str, node: ast.expr):
        if isinstance(node, ast.Name):
            mod = self.module(modname)
            if mod is not None and node.id in mod.classes:
                return ("class", modname, node.id)
            return self.resolve(modname, node.id)
        if isinstance(node, ast.Attribute):
            return self.attr_of(self.expr_target(modname, node.value), node.attr)
        return None

    def func(self, target) -> Func | None:
        if target is None or target[0] != "func":
            return None
        mod = self.module(target[1])
        return mod.funcs.get(target[2]) if mod else None

    def callees(self, f: Func):
        """The functions ``f``'s own body (nested functions included) names."""
        out = []
        for node in _own_nodes(f.node, nested=True):
            t = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id == "cls" and f.cls:  # cls(...) in a classmethod: the class itself
                    t = ("class", f.module, f.cls)
                else:
                    t = self.expr_target(f.module, node)
            elif isinstance(node, ast.Attribute):
                v = node.value
                if isinstance(v, ast.Name) and v.id in ("self", "cls") and f.cls:
                    t = self.method(f.module, f.cls, node.attr)
                elif (
                    isinstance(v, ast.Call)
                    and isinstance(v.func, ast.Name)
                    and v.func.id == "super"
                    and f.cls
                ):
                    mod = self.module(f.module)
                    for base in mod.classes[f.cls][1]:
                        b = self.expr_target(f.module, base)
                        if b and b[0] == "class":
                            t = self.method(b[1], b[2], node.attr)
                            if t:
                                break
                else:
                    t = self.expr_target(f.module, node)
            if t is None:
                continue
            if t[0] == "class":
                for init in ("__init__", "__post_init__", "__new__"):
                    m = self.method(t[1], t[2], init)
                    if m:
                        out.append(m)
            elif t[0] == "func":
                out.append(t)
        return out


def _own_nodes(fnode, nested: bool):
    """Nodes of a function's body; nested defs' bodies only when ``nested``."""
    stack = list(ast.iter_child_nodes(fnode))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            if not nested and not isinstance(node, ast.Lambda):
                for d in getattr(node, "decorator_list", []):
                    stack.append(d)
                continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


# ---------------------------------------------------------------- the path


@dataclass
class Roots:
    roots: list[tuple[str, str, int]]
    follow: list[str]
    skip: list[str]


def read_roots(path: Path = ROOTS) -> Roots:
    roots, follow, skip = [], [], []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if parts[0] == "follow" and len(parts) == 2:
            follow.append(parts[1])
        elif parts[0] == "skip" and len(parts) == 2:
            skip.append(parts[1])
        elif parts[0] == "root" and len(parts) == 3 and ":" in parts[1] and parts[2].isdigit():
            mod, _, q = parts[1].partition(":")
            roots.append((mod, q, int(parts[2])))
        else:
            raise InventoryError(f"{path}:{n}: cannot read {raw!r}")
    return Roots(roots, follow, skip)


def _allowed(module: str, qualname: str, spec: Roots) -> bool:
    key = f"{module}:{qualname}"
    if any(key == s or (s.endswith("*") and key.startswith(s[:-1])) for s in spec.skip):
        return False
    return any(module == p or module.startswith(p + ".") for p in spec.follow)


def reachable(index: Index, spec: Roots):
    """``(module, qualname) -> depth`` of every function on the path; missing roots."""
    depth: dict[tuple[str, str], int] = {}
    missing = []
    queue = deque()
    for mod, q, limit in spec.roots:
        m = index.module(mod)
        expanded = []
        if m is not None:
            if q.endswith(".*"):
                cls = q[:-2]
                expanded = [k for k in m.funcs if k.startswith(cls + ".")]
            elif q == "*":
                expanded = list(m.funcs)
            elif q in m.funcs:
                expanded = [q]
        if not expanded:
            missing.append(f"{mod}:{q}")
        for k in expanded:
            queue.append(((mod, k), 0, limit))
    budget: dict[tuple[str, str], int] = {}
    while queue:
        key, d, limit = queue.popleft()
        left = limit - d
        if budget.get(key, -1) >= left:
            continue
        budget[key] = left
        depth[key] = min(depth.get(key, d), d)
        f = index.module(key[0]).funcs[key[1]]
        for q in f.nested:
            queue.append(((key[0], q), d, limit))
        if d >= limit:
            continue
        for t in index.callees(f):
            if _allowed(t[1], t[2], spec):
                queue.append(((t[1], t[2]), d + 1, limit))
    return depth, missing


# ---------------------------------------------------------------- the sites


def _text(node) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _text(node.left) + (_text(node.right) if isinstance(node.op, ast.Add) else "")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "format":
            return _text(node.func.value)
        if node.func.attr == "join":
            return "{}"
    if isinstance(node, ast.Call) and node.args:
        return _text(node.args[0])
    return "{}"


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


@dataclass
class Site:
    kind: str
    exception: str
    file: str
    line: int
    function: str
    depth: int
    text: str
    key: str
    id: str = ""


def _sites_of(f: Func, file: str, d: int):
    for node in _own_nodes(f.node, nested=False):
        if isinstance(node, ast.Raise):
            if node.exc is None:
                yield Site("reraise", "", file, node.lineno, f.qualname, d, "", "reraise")
                continue
            exc = node.exc
            name = _dotted(exc.func if isinstance(exc, ast.Call) else exc) or "?"
            msg = _text(exc.args[0]) if isinstance(exc, ast.Call) and exc.args else ""
            if isinstance(exc, ast.Call) and not exc.args and exc.keywords:
                msg = _text(exc.keywords[0].value)
            yield Site(
                "raise",
                name,
                file,
                node.lineno,
                f.qualname,
                d,
                _norm(msg),
                f"raise|{name}|{_norm(msg)}",
            )
        elif isinstance(node, ast.Assert):
            cond = _norm(ast.unparse(node.test))
            msg = _norm(_text(node.msg)) if node.msg is not None else ""
            yield Site(
                "assert",
                "AssertionError",
                file,
                node.lineno,
                f.qualname,
                d,
                msg or cond,
                f"assert|{cond}|{msg}",
            )
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in EXIT_CALLS:
                arg = _norm(ast.unparse(node.args[0])) if node.args else ""
                yield Site(
                    "exit", name, file, node.lineno, f.qualname, d, arg, f"exit|{name}|{arg}"
                )


def _envs_of(f: Func, file: str, index: Index):
    mod = index.module(f.module)
    env_modules = {
        local
        for local, t in mod.names.items()
        if (t[0] == "module" and t[1] == "sglang.srt.environ")
        or (t[0] == "from" and f"{t[1]}.{t[2]}" == "sglang.srt.environ")
        or (t[0] == "from" and t[1] == "sglang.srt.environ" and t[2] == "envs")
    }
    for node in _own_nodes(f.node, nested=False):
        var = None
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if (name in ENV_FUNCS or name.endswith("environ.get")) and node.args:
                a = node.args[0]
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    var = a.value
        elif isinstance(node, ast.Subscript) and _dotted(node.value).endswith("environ"):
            s = node.slice
            if isinstance(s, ast.Constant) and isinstance(s.value, str):
                var = s.value
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.In, ast.NotIn)) and _dotted(
                node.comparators[0]
            ).endswith("environ"):
                if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                    var = node.left.value
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in env_modules and re.fullmatch(r"[A-Z][A-Z0-9_]+", node.attr):
                var = node.attr
        if var:
            yield (var, file, node.lineno, f.qualname)


def inventory(release: Release, spec: Roots):
    index = Index(release)
    depth, missing = reachable(index, spec)
    sites: list[Site] = []
    envs = set()
    for (modname, q), d in sorted(depth.items()):
        mod = index.module(modname)
        f = mod.funcs[q]
        file = mod.file
        sites.extend(_sites_of(f, file, d))
        envs.update(_envs_of(f, file, index))
    sites.sort(key=lambda s: (s.file, s.line, s.kind))
    seen: dict[str, int] = {}
    for s in sites:
        digest = hashlib.sha1(s.key.encode()).hexdigest()[:10]
        base = f"{s.file}::{s.function}::{s.kind}::{digest}"
        seen[base] = seen.get(base, 0) + 1
        s.id = base if seen[base] == 1 else f"{base}~{seen[base]}"
    return sites, sorted(envs), missing, len(depth)


def _cell(v) -> str:
    s = str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    return s if len(s) <= MAX_TEXT else s[: MAX_TEXT - 1] + "…"


def render_sites(sites) -> str:
    rows = ["\t".join(SITE_HEADER)]
    for s in sites:
        rows.append(
            "\t".join(
                _cell(v)
                for v in (s.id, s.kind, s.exception, s.file, s.line, s.function, s.depth, s.text)
            )
        )
    return "\n".join(rows) + "\n"


def render_envs(envs) -> str:
    return "\n".join(["\t".join(ENV_HEADER)] + ["\t".join(map(str, e)) for e in envs]) + "\n"


# ---------------------------------------------------------------- the map: site -> rule or exclusion

MAP = INVENTORY / "map.tsv"
CATEGORIES = ("arch", "platform", "runtime", "kernel", "internal", "reraise", "feature", "gap")
RELEASES = ("0.5.22", "0.5.23")  # the releases whose inventories are committed and mapped


@dataclass
class MapRow:
    line: int
    selector: str
    verdict: str
    reason: str
    file: str = ""
    func: str = ""
    text: str | None = None
    kind: str | None = None
    used: int = 0

    def rank(self) -> tuple:
        """How specific the row is: an id, then ~TEXT, then @KIND, then the longest pattern."""
        if "::" in self.selector and self.selector.count("::") >= 3 and self.text is None:
            return (3, len(self.selector))
        literal = len(re.sub(r"[*?\[\]]", "", self.file + self.func))
        return (2 if self.text is not None else 1 if self.kind else 0, literal)


def read_map(path: Path = MAP) -> list[MapRow]:
    rows = []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if len(cells) != 3 or not all(c.strip() for c in cells):
            raise InventoryError(f"{path}:{n}: want selector, verdict, reason (tab-separated)")
        sel, verdict, reason = (c.strip() for c in cells)
        if verdict.startswith("exclude:"):
            if verdict[8:] not in CATEGORIES:
                raise InventoryError(f"{path}:{n}: unknown category {verdict[8:]!r}")
        elif verdict != "gap" and not re.fullmatch(r"SWA\d{3}", verdict):
            raise InventoryError(f"{path}:{n}: verdict must be a rule code or exclude:CATEGORY")
        row = MapRow(n, sel, "exclude:gap" if verdict == "gap" else verdict, reason)
        parts = sel.split("::")
        if len(parts) < 2:
            raise InventoryError(f"{path}:{n}: selector must be FILE::FUNCTION[::~TEXT|::@KIND]")
        row.file = parts[0] if parts[0].startswith("sglang/") else "sglang/srt/" + parts[0]
        row.func = parts[1]
        if len(parts) == 3 and parts[2].startswith("~"):
            row.text = parts[2][1:]
        elif len(parts) == 3 and parts[2].startswith("@"):
            row.kind = parts[2][1:]
        elif len(parts) != 2 and len(parts) != 4:
            raise InventoryError(f"{path}:{n}: cannot read selector {sel!r}")
        rows.append(row)
    return rows


def _matches(row: MapRow, site: dict) -> bool:
    import fnmatch

    if row.selector.count("::") == 3 and row.text is None and row.kind is None:
        return site["id"] == row.selector or site["id"].split("~")[0] == row.selector
    if not fnmatch.fnmatchcase(site["file"], row.file):
        return False
    if not fnmatch.fnmatchcase(site["function"], row.func):
        return False
    if row.text is not None and row.text not in site["text"]:
        return False
    return row.kind is None or row.kind == site["kind"]


def read_sites(version: str) -> list[dict]:
    path = INVENTORY / f"sites-{version}.tsv"
    lines = path.read_text().splitlines()
    head = lines[0].split("\t")
    if tuple(head) != SITE_HEADER:
        raise InventoryError(f"{path}: not a sites table")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:]]


def classify(sites: list[dict], rows: list[MapRow]):
    """``[(site, row or None)]``: the most specific row for each site."""
    out = []
    for site in sites:
        best = None
        for row in rows:
            if _matches(row, site) and (best is None or row.rank() > best.rank()):
                best = row
        if best is not None:
            best.used += 1
        out.append((site, best))
    return out


def coverage(versions=RELEASES, rows=None):
    """Per release: counts, and the sites no row maps. Also the rows that map nothing."""
    rows = read_map() if rows is None else rows
    report = {}
    for v in versions:
        pairs = classify(read_sites(v), rows)
        counts: dict[str, int] = {}
        for _, row in pairs:
            key = "unmapped" if row is None else row.verdict
            counts[key] = counts.get(key, 0) + 1
        report[v] = {
            "sites": len(pairs),
            "rule": sum(n for k, n in counts.items() if k.startswith("SWA")),
            "gap": counts.get("exclude:gap", 0),
            "excluded": sum(
                n for k, n in counts.items() if k.startswith("exclude:") and k != "exclude:gap"
            ),
            "unmapped": [s for s, r in pairs if r is None],
            "by_verdict": dict(sorted(counts.items())),
            "pairs": pairs,
        }
    dead = [r for r in rows if r.used == 0]
    return report, dead


def print_coverage(report, dead, out=None) -> bool:
    out = sys.stdout if out is None else out
    ok = not dead
    for v, r in report.items():
        print(
            f"SGLang {v}: {r['sites']} sites, {r['rule']} mapped to a rule, "
            f"{r['excluded']} excluded, {r['gap']} known gaps (no rule yet), "
            f"{len(r['unmapped'])} unmapped",
            file=out,
        )
        cats = {
            k[8:]: n
            for k, n in r["by_verdict"].items()
            if k.startswith("exclude:") and k != "exclude:gap"
        }
        print("  excluded by reason: " + ", ".join(f"{k} {n}" for k, n in cats.items()), file=out)
        for s in r["unmapped"]:
            print(f"  unmapped: {s['id']} ({s['file']}:{s['line']}) {s['text'][:80]}", file=out)
            ok = False
    for row in dead:
        print(f"  map.tsv:{row.line}: {row.selector} maps no site of any release", file=out)
    return ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "wheel", nargs="?", help="a sglang .whl file, or a folder holding the sglang package"
    )
    ap.add_argument(
        "--coverage",
        action="store_true",
        help="report how the committed inventories map to rules (map.tsv); 1 if a site is unmapped",
    )
    ap.add_argument("-o", "--output", help="write the sites here (default: stdout)")
    ap.add_argument("--env-out", help="write the environment variables read on the path here")
    ap.add_argument(
        "--check",
        metavar="VERSION",
        help="compare with conformance/inventory/{sites,env}-VERSION.tsv instead of writing",
    )
    ap.add_argument("--roots", default=str(ROOTS), help="the path definition (roots.txt)")
    args = ap.parse_args(argv)
    if args.coverage:
        try:
            report, dead = coverage()
        except (OSError, InventoryError) as exc:
            print(f"raise_inventory: {exc}", file=sys.stderr)
            return 2
        return 0 if print_coverage(report, dead) else 1
    if not args.wheel:
        ap.error("a wheel (or --coverage) is required")
    try:
        spec = read_roots(Path(args.roots))
        sites, envs, missing, nfuncs = inventory(Release(Path(args.wheel)), spec)
    except (OSError, InventoryError, zipfile.BadZipFile) as exc:
        print(f"raise_inventory: {exc}", file=sys.stderr)
        return 2
    for m in missing:
        print(f"raise_inventory: root not in this release: {m}", file=sys.stderr)
    text, env_text = render_sites(sites), render_envs(envs)
    print(
        f"raise_inventory: {nfuncs} functions on the path, {len(sites)} sites, "
        f"{len({e[0] for e in envs})} environment variables",
        file=sys.stderr,
    )
    if args.check:
        ok = True
        for name, new in (("sites", text), ("env", env_text)):
            path = INVENTORY / f"{name}-{args.check}.tsv"
            old = path.read_text() if path.exists() else ""
            if old != new:
                print(f"raise_inventory: {path} differs from the wheel's", file=sys.stderr)
                ok = False
        return 0 if ok else 1
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    if args.env_out:
        Path(args.env_out).write_text(env_text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
