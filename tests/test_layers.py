"""The shape of swacheck/ (docs/architecture.md, "Layers"): no import cycle, every import pointing
down the layers, the engine imported only by the commands, no module over 600 lines.

Imports are read from the source (ast), not from a running interpreter, so that none escapes:
module-level imports, imports under ``if TYPE_CHECKING:`` (a type-only cycle is still a cycle for
whoever reads the code) and imports inside functions (deferred for start-up time, but a
dependency all the same).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "swacheck"

# Bottom to top. A module may import modules of its own layer and of the layers below it, never
# above, and never a layer this table names as its sibling (SIBLINGS). An entry names one module,
# or with ".*" a package and everything in it; the longest entry that matches a module gives its
# layer.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "model",  # the deployment model and the leaf tables every stage uses: owned by no stage
        (
            "swacheck",  # the package: __version__ (and the lazy Python API, see LAZY_API)
            "swacheck.model.*",  # records, the position-keeping tree, Deployment, text primitives
            "swacheck.limits",  # the budgets (the tree's plain values are charged to them)
            "swacheck.paths",
            "swacheck.glossary",
            "swacheck.settings",  # the plain Settings
            "swacheck.report",  # the format registry: format names -> module names
        ),
    ),
    ("loading", ("swacheck.loading.*", "swacheck.suppress", "swacheck.fixes")),
    (
        "releases",  # what each SGLang release accepts, which the readers check flags against
        (
            "swacheck.sglang",
            "swacheck.sglang.version",
            "swacheck.sglang.flags",
            "swacheck.sglang.gpus",
        ),
    ),
    ("inputs", ("swacheck.inputs.*",)),  # normalise: files -> Deployment
    ("sglang", ("swacheck.sglang.*",)),  # resolve: Deployment -> Resolution, as SGLang does
    ("results", ("swacheck.results", "swacheck.fingerprints")),
    ("rules", ("swacheck.rules.*",)),
    ("engine", ("swacheck.engine", "swacheck.grouping", "swacheck.pairing")),
    ("report", ("swacheck.report.*", "swacheck.explain", "swacheck.why.*")),
    (
        "commands",
        (
            "swacheck.cli",
            "swacheck.__main__",
            "swacheck.entry",
            "swacheck.options",
            "swacheck.clisettings",
            "swacheck.runner",
            "swacheck.workers",
            "swacheck.fixworkers",
            "swacheck.baseline",
            "swacheck.api",
            "swacheck.config",
            "swacheck.fixer",
            "swacheck.fixplan",
            "swacheck.fixstate",
            "swacheck.fixverify",
            "swacheck.recheck",
            "swacheck.safewrite",
            "swacheck.why",  # the package: `swacheck why` (why/command.py runs the check)
            "swacheck.why.command",
        ),
    ),
)
# Layers that stand side by side although one is listed above the other: neither imports the
# other. The readers (inputs) and SGLang's resolution (sglang) both stand on the model, so a
# change to a reader cannot break a formula; the rules and the reports read the model, the
# resolution and the results, never a reader.
SIBLINGS: tuple[tuple[str, str], ...] = (
    ("sglang", "inputs"),
    ("results", "inputs"),
    ("rules", "inputs"),
    ("report", "inputs"),
)
# The engine runs a check; only the commands run one. The report layer renders a RunResult
# (results.py) and never imports the engine, though it sits above it.
ENGINE = "swacheck.engine"
ENGINE_USERS = "commands"

# The one import that points up: the package's PEP 562 ``__getattr__`` imports the Python API
# (api.py) on first use of ``swacheck.check`` & co., so that importing swacheck costs nothing.
LAZY_API = ("swacheck", "swacheck.api")

MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _known(name: str) -> str:
    """The module ``name`` refers to: itself, else the package holding it."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports_of(module: str) -> dict[str, list[int]]:
    """Every swacheck module ``module`` imports -> the lines importing it (module level, under
    ``if TYPE_CHECKING:`` and inside functions alike)."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    out: dict[str, list[int]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, node.module] if node.module else package)
            else:
                base = node.module or ""
            # `from . import x` imports the submodule x when there is one, else a name of base
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        for target in targets:
            if target == "swacheck" or target.startswith("swacheck."):
                target = _known(target)
                if target != module:
                    out.setdefault(target, []).append(node.lineno)
    return out


GRAPH: dict[str, dict[str, list[int]]] = {m: imports_of(m) for m in MODULES}


def layer_of(module: str) -> int:
    best, layer = -1, None
    for n, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if entry.endswith(".*"):
                package = entry[:-2]
                if (module == package or module.startswith(package + ".")) and len(package) > best:
                    best, layer = len(package), n
            elif module == entry and len(entry) + 1 > best:
                best, layer = len(entry) + 1, n
    assert layer is not None, (
        f"{module} is in no layer: add it to LAYERS (and docs/architecture.md)"
    )
    return layer


def cycles(graph: dict[str, dict[str, list[int]]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def cycle_path(component: frozenset[str], graph: dict[str, dict[str, list[int]]]) -> str:
    """One cycle through ``component``, as ``a.py:LINE -> b -> ... -> a`` for the failure text."""
    start = min(component)
    path, seen = [start], {start}
    while True:
        here = path[-1]
        nxt = sorted(m for m in graph[here] if m in component)
        back = [m for m in nxt if m == start]
        step = (
            back[0] if back and len(path) > 1 else next((m for m in nxt if m not in seen), nxt[0])
        )
        path.append(step)
        if step in seen:
            break
        seen.add(step)
    loop = path[path.index(path[-1]) :]
    return (
        " -> ".join(f"{a} (line {graph[a][b][0]})" for a, b in zip(loop, loop[1:]))
        + f" -> {loop[-1]}"
    )


def test_the_graph_is_read():
    # the reader finds what is there: a relative, a type-only and a function-level import
    assert "swacheck.results" in GRAPH["swacheck.engine"]
    assert "swacheck.sglang.resolve" in GRAPH["swacheck.results"]  # under `if TYPE_CHECKING:`
    assert "swacheck.api" in GRAPH["swacheck"]  # inside __getattr__
    assert "swacheck.rules.swa400" in GRAPH["swacheck.rules"]  # `from . import swa400`


def test_the_checks_catch_what_they_are_for():
    graph = {"a": {"b": [1]}, "b": {"c": [2]}, "c": {"a": [3]}, "d": {"a": [4]}}
    assert cycles(graph) == [frozenset("abc")]
    assert cycle_path(frozenset("abc"), graph) == "a (line 1) -> b (line 2) -> c (line 3) -> a"
    assert cycles({"a": {"b": [1]}, "b": {}}) == []
    assert layer_of("swacheck.model.text") == 0
    assert layer_of("swacheck.report.escape") == [n for n, _ in LAYERS].index("report")
    assert layer_of("swacheck.report.human") == [n for n, _ in LAYERS].index("report")
    assert layer_of("swacheck.sglang.flags") < layer_of("swacheck.inputs.launch")
    assert layer_of("swacheck.inputs.launch") < layer_of("swacheck.sglang.resolve")


def test_no_import_cycle():
    found = cycles(GRAPH)
    assert not found, "import cycles:\n" + "\n".join(cycle_path(c, GRAPH) for c in found)


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_imports_point_down_the_layers():
    names = [name for name, _ in LAYERS]
    wrong = []
    for module, targets in GRAPH.items():
        for target, lines in targets.items():
            if (module, target) == LAZY_API:
                continue
            if layer_of(target) > layer_of(module):
                wrong.append(
                    f"{MODULES[module].relative_to(ROOT)}:{lines[0]}: {module} ({names[layer_of(module)]}) "
                    f"imports {target} ({names[layer_of(target)]})"
                )
    assert not wrong, "imports pointing up the layers:\n" + "\n".join(wrong)


def test_the_lazy_api_import_stays_lazy():
    # the one upward import is inside a function of swacheck/__init__.py, never at import time
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    top_level = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert not top_level
    assert GRAPH["swacheck"].keys() <= {"swacheck.api"}


def test_only_the_commands_import_the_engine():
    users = [n for n, _ in LAYERS].index(ENGINE_USERS)
    wrong = [
        f"{MODULES[m].relative_to(ROOT)}:{targets[ENGINE][0]}: {m} imports the engine"
        for m, targets in GRAPH.items()
        if ENGINE in targets and layer_of(m) != users
    ]
    assert not wrong, "\n".join(wrong) + "\n(import run results from swacheck.results)"


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(
    "path",
    sorted(PACKAGE.rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_module_over_600_lines(path):
    lines = lines_of(path)
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"


def test_siblings_do_not_import_each_other():
    names = [name for name, _ in LAYERS]
    wrong = []
    for module, targets in GRAPH.items():
        for target, lines in targets.items():
            pair = (names[layer_of(module)], names[layer_of(target)])
            if pair in SIBLINGS:
                wrong.append(
                    f"{MODULES[module].relative_to(ROOT)}:{lines[0]}: {module} ({pair[0]}) "
                    f"imports {target} ({pair[1]})"
                )
    assert not wrong, "imports between sibling layers:\n" + "\n".join(wrong)


def test_the_model_imports_nothing_above_it():
    # the bottom layer: every module of swacheck/model/ imports only the model (and limits)
    for module, targets in GRAPH.items():
        if module.startswith("swacheck.model"):
            above = {t for t in targets if layer_of(t) != 0}
            assert not above, f"{module} imports {sorted(above)}"
