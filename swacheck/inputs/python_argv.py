"""Python files that hold an SGLang launch as a literal argv list, read statically (never run).

``subprocess.run([sys.executable, "-m", "sglang.launch_server", "--model-path", MODEL, ...])``,
``subprocess.Popen(cmd)`` of ``cmd = ["python3", "-m", "sglang.launch_server", ...]`` (also
``+ [...]`` and later ``cmd += [...]`` / ``cmd.extend([...])`` / ``cmd.append(x)`` of the same
name), a shell string run with ``shell=True`` or ``os.system("python -m sglang.launch_server
...")``, and SGLang's own test harness ``popen_launch_server(MODEL, URL, other_args=[...])``.
The file is parsed with :mod:`ast` and nothing of it is executed or imported. An item the file
gives as a literal (a string, a number, ``str(8)``, a module-level ``NAME = "..."`` assigned
once, an f-string of those, ``sys.executable``) is known, and points at its text in the file;
anything else (a call, ``*args``, an attribute) is unknown, reported as a shell variable
nobody set is. Bounded: a file that does not parse is not a deployment; at most
``MAX_ITEMS`` items per list and ``MAX_LISTS`` launch lists per file are read.
"""

from __future__ import annotations

import ast
import os
import re

from ..loading import FileCache
from ..model.records import InputProblem, Val
from .launch import Found, collect, load_text, seed_env
from .recognise import Launch, LaunchContext, launches, script_launches
from .shell import Chars, Source, SpanRun, Unknown, Word

MAX_ITEMS = 4096  # items of one argv list
MAX_LISTS = 256  # launch lists read in one file
_MENTIONS = re.compile(r"sglang\.launch_server|sglang\W+serve|launch_server|dynamo\.sglang")
_LAUNCH_TEXT = re.compile(r"sglang\.launch_server|sglang\s+serve\b|dynamo\.sglang")
_UNKNOWN = "a Python expression: only known when the program runs"


def read_python(path: str, files: FileCache, platform: Val, env: dict[str, Val]) -> Found:
    found = Found()
    try:
        src = load_text(files, path)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    if not _MENTIONS.search(src.text):
        return found  # no SGLang launch here: not a deployment
    try:
        tree = ast.parse(src.text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return found  # not Python we can read: not a deployment
    reader = _Reader(src, tree)
    base_dir = os.path.dirname(path) or "."
    ctx = LaunchContext(
        os.path.basename(path),
        base_dir,
        seed_env(env),
        unset_reason="a Python value only known when the program runs",
    )
    items: list[Launch] = []
    try:
        for argv in reader.argvs():
            items.extend(launches(argv, seed_env(env), ctx))
        for word in reader.shell_strings():
            items.extend(script_launches(src, seed_env(env), ctx, Chars.of_word(word)))
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    collect(
        found,
        items,
        os.path.splitext(os.path.basename(path))[0],
        path,
        base_dir,
        files,
        platform,
        env,
    )
    return found


class _Reader:
    def __init__(self, src: Source, tree: ast.Module):
        self.src = src
        self.tree = tree
        self.line_starts = src.starts
        self.constants = _constants(tree)

    # -- positions

    def offset(self, line: int, col_bytes: int) -> int:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.src.text)
        text = self.src.text[start:end]
        return start + len(text.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))

    def node_span(self, node: ast.AST) -> tuple[int, int]:
        a = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        b = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return a, max(a, b)

    def literal(self, node: ast.Constant, text: str) -> Word:
        """A string literal's word: each character at its place when written as it reads."""
        a, b = self.node_span(node)
        whole = (self.src, a, b)
        written = self.src.text[a:b]
        for q in ('"""', "'''", '"', "'"):
            if written.startswith(q) and written.endswith(q) and len(written) >= 2 * len(q):
                inner = written[len(q) : -len(q)]
                if inner == text:
                    start = a + len(q)
                    return Word(text, SpanRun(self.src, start, start + len(text)), whole)  # type: ignore[arg-type]
        return Word(text, [whole] * len(text), whole)  # type: ignore[list-item]

    # -- items

    def item(self, node: ast.AST) -> list[Word]:
        """The words one list item gives (``*x`` gives an unknown number)."""
        text = self.known(node)
        a, b = self.node_span(node)
        whole = (self.src, a, b)
        if text is not None:
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return [self.literal(node, text)]
            return [Word(text, [whole] * len(text), whole)]  # type: ignore[list-item]
        shown = self.src.text[a:b]
        shown = shown if len(shown) <= 60 and "\n" not in shown else shown[:57] + "..."
        return [Word(shown, [whole] * len(shown), whole, [Unknown(shown, shown, _UNKNOWN, whole)])]  # type: ignore[list-item]

    def known(self, node: ast.AST, depth: int = 0) -> str | None:
        """The text of an item the file gives as a literal; None otherwise."""
        if depth > 8:
            return None
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (str, int, float))
            and not isinstance(node.value, bool)
        ):
            return str(node.value)
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "executable"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            return "python3"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "str"
            and len(node.args) == 1
        ):
            return self.known(node.args[0], depth + 1)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                inner = (
                    v.value
                    if isinstance(v, ast.FormattedValue)
                    and v.conversion == -1
                    and v.format_spec is None
                    else v
                )
                text = self.known(inner, depth + 1)
                if text is None:
                    return None
                parts.append(text)
            return "".join(parts)
        return None

    def words(
        self, node: ast.AST, names: dict[str, list[Word]], depth: int = 0
    ) -> list[Word] | None:
        """The words of a list expression: ``[...]``, ``(...)``, ``a + b``, a name bound to one."""
        if depth > 16:
            return None
        if isinstance(node, (ast.List, ast.Tuple)):
            out: list[Word] = []
            for elt in node.elts[:MAX_ITEMS]:
                if isinstance(elt, ast.Starred):
                    inner = self.words(elt.value, names, depth + 1)
                    out.extend(inner if inner is not None else self.item(elt))
                else:
                    out.extend(self.item(elt))
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = (
                self.words(node.left, names, depth + 1),
                self.words(node.right, names, depth + 1),
            )
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Name) and node.id in names:
            return list(names[node.id])
        return None

    # -- what launches

    def argvs(self) -> list[list[Word]]:
        """Every launch argv in the file: lists that run SGLang, in the order written."""
        out: list[list[Word]] = []
        for scope in _scopes(self.tree):
            out.extend(self._scope_argvs(scope))
            if len(out) >= MAX_LISTS:
                break
        return out[:MAX_LISTS]

    def _scope_argvs(self, body: list[ast.stmt]) -> list[list[Word]]:
        names: dict[str, list[Word]] = {}
        launch_names: dict[str, int] = {}  # name -> index in out of the launch it holds
        out: list[list[Word]] = []
        for stmt in _statements(body):
            for node in _expressions(stmt):
                if isinstance(node, ast.Call) and (harness := self.harness(node)) is not None:
                    out.append(harness)
            target, value, op = _binding(stmt)
            if target is None:
                self._inline_lists(stmt, out)
                continue
            words = self.words(value, names) if value is not None else None
            if op == "=":
                if words is None:
                    names.pop(target, None)
                    launch_names.pop(target, None)
                    self._inline_lists(stmt, out)
                    continue
                names[target] = words
                if _is_launch(words):
                    launch_names[target] = len(out)
                    out.append(words)
            elif target in names:  # cmd += [...], cmd.extend([...]), cmd.append(x)
                more = words if words is not None else self.item(value)  # type: ignore[arg-type]
                names[target] = names[target] + more
                if target in launch_names:
                    out[launch_names[target]] = names[target]
        return out

    def _inline_lists(self, stmt: ast.stmt, out: list[list[Word]]) -> None:
        """Launch lists written in place (``subprocess.run(["python3", "-m", ...])``)."""
        for node in _expressions(stmt):
            if isinstance(node, (ast.List, ast.Tuple)) and any(
                isinstance(e, ast.Constant) and e.value in ("sglang.launch_server", "serve", "-m")
                for e in node.elts[:MAX_ITEMS]
            ):
                words = self.words(node, {})
                if words is not None and _is_launch(words) and words not in out:
                    out.append(words)

    def harness(self, call: ast.Call) -> list[Word] | None:
        """``popen_launch_server(MODEL, URL, other_args=[...])`` (sglang.test.test_utils): the
        launch it builds, ``python3 -m sglang.launch_server --model-path MODEL`` + other_args."""
        if _func_name(call) != "popen_launch_server" or not call.args:
            return None
        other = next((k.value for k in call.keywords if k.arg == "other_args"), None)
        if other is None and len(call.args) > 3:
            other = call.args[3]
        extra = self.words(other, {}) if other is not None else []
        head = [
            Word.plain(t, (self.src, *self.node_span(call.func)))
            for t in ("python3", "-m", "sglang.launch_server", "--model-path")
        ]
        return head + self.item(call.args[0]) + (extra if extra is not None else self.item(other))  # type: ignore[arg-type]

    def shell_strings(self) -> list[Word]:
        """String literals passed to a call that hold a launch (``os.system("python -m
        sglang.launch_server ...")``, ``subprocess.Popen("...", shell=True)``)."""
        out: list[Word] = []
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call) or _func_name(node) not in _SHELL_CALLS:
                continue
            for arg in node.args[:1]:
                text = self.known(arg)
                if (
                    text is not None
                    and _LAUNCH_TEXT.search(text)
                    and isinstance(arg, (ast.Constant, ast.JoinedStr, ast.Name))
                ):
                    out.append(
                        self.literal(arg, text)
                        if isinstance(arg, ast.Constant)
                        else self.item(arg)[0]
                    )
            if len(out) >= MAX_LISTS:
                break
        return out


# calls that run a string with a shell (os, subprocess, asyncio)
_SHELL_CALLS = {"system", "popen", "run", "Popen", "call", "check_call", "check_output"}
_SHELL_CALLS |= {"getoutput", "getstatusoutput", "create_subprocess_shell"}


def _func_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _statements(body: list[ast.stmt], depth: int = 0) -> list[ast.stmt]:
    """The statements of a scope in the order written, those of ``if``/``for``/``with``/``try``
    blocks included (not those of nested functions and classes)."""
    out: list[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        if depth < 32 and not isinstance(
            stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            for field in ("body", "orelse", "finalbody"):
                out.extend(_statements(getattr(stmt, field, None) or [], depth + 1))
            for handler in getattr(stmt, "handlers", None) or []:
                out.extend(_statements(handler.body, depth + 1))
    return out


def _is_launch(words: list[Word]) -> bool:
    texts = [w.text for w in words]
    for k in range(len(texts) - 1):
        if texts[k] == "-m" and texts[k + 1] in ("sglang.launch_server", "dynamo.sglang"):
            return True
        if os.path.basename(texts[k]) == "sglang" and texts[k + 1] == "serve":
            return True
    return False


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level names assigned a string or number literal exactly once."""
    seen: dict[str, str | None] = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            name, value = stmt.targets[0].id, stmt.value
        elif (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.value is not None
        ):
            name, value = stmt.target.id, stmt.value
        else:
            continue
        ok = (
            isinstance(value, ast.Constant)
            and isinstance(value.value, (str, int, float))
            and not isinstance(value.value, bool)
        )
        seen[name] = None if name in seen or not ok else str(value.value)  # type: ignore[union-attr]
    return {k: v for k, v in seen.items() if v is not None}


def _scopes(tree: ast.Module) -> list[list[ast.stmt]]:
    """The module's body and every function's, each read as straight-line code."""
    out = [tree.body]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node.body)
    return out


def _expressions(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions of one statement, not those of the statements inside it (``_statements``
    gives them) nor of nested functions."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.stmt, ast.Lambda)):
                todo.append(child)
    return out


def _binding(stmt: ast.stmt) -> tuple[str | None, ast.AST | None, str]:
    """``NAME = value`` / ``NAME += value`` / ``NAME.extend(value)`` / ``NAME.append(value)``."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return stmt.targets[0].id, stmt.value, "="
    if (
        isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.value is not None
    ):
        return stmt.target.id, stmt.value, "="
    if (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.target, ast.Name)
        and isinstance(stmt.op, ast.Add)
    ):
        return stmt.target.id, stmt.value, "+="
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        f = call.func
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.attr in ("extend", "append")
            and len(call.args) == 1
        ):
            arg = call.args[0]
            if f.attr == "append":
                arg = ast.List(elts=[arg], ctx=ast.Load())
                ast.copy_location(arg, call.args[0])
                arg.end_lineno, arg.end_col_offset = (
                    call.args[0].end_lineno,
                    call.args[0].end_col_offset,
                )  # type: ignore[attr-defined]
            return f.value.id, arg, "+="
    return None, None, ""
