"""What a server printed, as deployments: its start-up log and its ``/server_info`` answer.

SGLang prints the arguments it really ran with: at start-up the log line
``server_args={...}`` (0.5.19 and later: ``ServerArgs.resolved_dict()``, every hook's decision
applied, ``srt/entrypoints/engine.py`` ``_server_args_for_logging``; earlier releases
``server_args=ServerArgs(...)``, the dataclass ``repr``), and a running server answers
``GET /server_info`` (``/get_server_info`` forwards to it) with the same resolved values plus
``launch_command`` (what was asked for) and ``version`` (``srt/entrypoints/http_server.py``).

Each becomes a deployment whose arguments are those values (:attr:`Deployment.evidence` says
where they come from): every server argument the release accepts on its command line and the
record holds set (``None`` and a false flag are what SGLang sets when nothing is asked for), at
its position in the log line or the JSON file. The model's ``config.json`` is found the usual
way, from ``model_path``. Nothing is evaluated: the log's values are read by
``loading.pyrepr``, bounded like every input. These files are evidence, never edited: their
findings carry no edits (``--fix`` edits the files that launched the server).
"""

from __future__ import annotations

import os
import re

from ..loading import FileCache
from ..loading.pyrepr import parse_repr
from ..model.deployment import Arg, Deployment, ServerArgs
from ..model.records import InputProblem, Location, Val
from ..model.tree import Mapping, Scalar
from ..sglang import flags
from ..sglang.version import DEFAULT
from .launch import Found, load_text

MAX_LOG_SERVERS = 64  # server_args lines read from one log; the rest is said, not dropped
_LOG_LINE = re.compile(r"server_args=(?=[{(A-Z])")


def is_server_log(text: str) -> bool:
    return _LOG_LINE.search(text) is not None


def _deployment(
    mapping: Mapping, name: str, path: str, platform: Val, env: dict[str, Val], evidence: str
) -> Deployment:
    """A deployment whose arguments are the values of a resolved ``ServerArgs`` record."""
    table = flags.options(DEFAULT)
    entries: list[Arg] = []
    for key, pair in mapping.pairs.items():
        option = table.get(key.replace("_", "-"))
        if option is None or option.canonical != option.name:
            continue  # not a command-line option of the release (a field set only by SGLang)
        node = pair.value
        if isinstance(node, Scalar) and (node.value is None or node.value is False):
            continue  # what SGLang sets when nothing is asked for
        if isinstance(node, Mapping) and not node.pairs:
            continue
        entries.append(
            Arg(option.canonical, option.name, pair, "exact", flags.cli_kind(option), True)
        )
    if not any(a.name == "model-path" for a in entries):
        raise InputProblem(f"{evidence}: no model_path among the server's arguments", mapping.loc)
    server = ServerArgs(
        {a.name: a for a in entries}, mapping, path, os.path.dirname(path) or ".", entries
    )
    dep = Deployment(name, path, mapping.loc, platform, dict(env), server)
    dep.evidence = evidence
    return dep


def load_server_info(
    doc: object, path: str, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    """A saved ``/server_info`` (or ``/get_server_info``) JSON answer: one deployment."""
    found = Found()
    root = doc.root  # type: ignore[attr-defined]
    version = root.get("version")
    said = (
        f"SGLang {version.value.value}"
        if version is not None and isinstance(version.value, Scalar)
        else "SGLang"
    )
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        found.deployments.append(
            _deployment(root, stem, path, platform, env, f"{said}'s /server_info answer")
        )
    except InputProblem as problem:
        found.errors.append(problem.to_error())
    return found


def _read_line(
    found: Found,
    text: str,
    path: str,
    line: int,
    line_start: int,
    start: int,
    end: int,
    first: bool,
    stem: str,
    platform: Val,
    env: dict[str, Val],
) -> None:
    """One ``server_args=`` line: its deployment, or the error that says why it cannot be read."""
    try:
        node = parse_repr(text, path, line, line_start, start, end)
        if isinstance(node, Mapping):
            evidence = f"the server_args line of its log, line {line}"
            name = stem if first else f"{stem}@{line}"
            found.deployments.append(_deployment(node, name, path, platform, env, evidence))
    except InputProblem as problem:
        found.errors.append(problem.to_error())


def read_server_log(path: str, files: FileCache, platform: Val, env: dict[str, Val]) -> Found:
    """An SGLang log: one deployment per ``server_args=`` line that differs from the one before
    it (ranks and restarts of one server print the same line again)."""
    found = Found()
    try:
        src = load_text(files, path)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    text = src.text
    stem = os.path.splitext(os.path.basename(path))[0]
    # One pass: each line is looked at once (the line number is counted from the last match, the
    # search goes on after the matched line), a line like the one before is passed over before it
    # is parsed, and every other line, read or not, counts against MAX_LOG_SERVERS.
    pos, line, distinct, last = 0, 1, 0, None
    while (match := _LOG_LINE.search(text, pos)) is not None:
        line += text.count("\n", pos, match.start())
        line_start = text.rfind("\n", pos, match.start()) + 1 or pos
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        pos = line_end + 1
        raw = text[match.end() : line_end].rstrip()
        if raw == last:
            line += 1
            continue
        last = raw
        if distinct == MAX_LOG_SERVERS:
            found.errors.append(
                InputProblem(
                    f"more than {MAX_LOG_SERVERS} servers' arguments in one log; the rest is not "
                    f"read (split the log)",
                    Location(path, line, 1, line, 1),
                ).to_error()
            )
            break
        distinct += 1
        _read_line(
            found,
            text,
            path,
            line,
            line_start,
            match.end(),
            line_end,
            distinct == 1,
            stem,
            platform,
            env,
        )
        line += 1
    return found
