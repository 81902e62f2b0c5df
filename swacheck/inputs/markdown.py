"""Docs: SGLang launch commands in Markdown, MDX and reStructuredText code blocks.

Where DeepSeek-V4 launch commands are published (the SGLang cookbook, a repository's README)
they sit in fenced code blocks. Read are:

- Markdown/MDX fences (```` ``` ```` or ``~~~``, up to three spaces of indent) whose info
  string is a shell (``bash``, ``sh``, ``shell``, ``zsh``, ``console``, ``shell-session``) or
  empty; ``console`` blocks keep only the lines after a ``$``/``#`` prompt (and their
  ``\\`` continuations), and so does any shell block whose first line starts with a ``$``
  prompt (a session written in a ``bash`` or unmarked fence);
- reStructuredText ``.. code-block:: bash`` / ``.. code:: shell`` / ``.. prompt:: bash``
  directives (the indented body);
- YAML blocks (``yaml``/``yml``) that hold an SGLang server config (a ``model-path`` key among
  SGLang options) or a Kubernetes/Compose/srt-slurm/SkyPilot document that launches SGLang.

Each block is read as a shell script (``recognise.script_launches``) with every position in the
doc, so findings point at the doc's line and column. Blocks of a doc are independent: a
variable set in one block is not known in the next.

**Placeholders** are what a reader fills in: ``<DeepSeek-V4-Flash>``, ``<your-model-path>``,
``/path/to/model``, ``YOUR_MODEL``, and variables set nowhere in the block (``$MODEL``). They
are never parsed as shell redirections or missing models: a launch whose model path is a
placeholder is reported as "fill in" (rule SWA307) and not checked; a placeholder in another
argument leaves that argument unset, with a "fill in" note.

A shell block that does not parse is ignored unless it holds an SGLang launch (docs hold
pseudo-shell); then it is a note, and so is a launch that cannot be resolved (a ``--config``
file an earlier block writes, an argument argparse refuses): a doc shows a launch, it does not
run one, so it never makes a run exit 2. In a walk, a doc is read only when it holds an SGLang
launch.
"""

from __future__ import annotations

import os
import re

from ..loading import FileCache
from ..model.deployment import Deployment, unread
from ..model.records import InputProblem, Location, Val
from ..model.recordtype import record
from .argv import parse_args
from .launch import Found, LaunchDeployment, build, load_text, names_for, seed_env
from .pitfalls import attach
from .recognise import Launch, LaunchContext, script_launches
from .shell import Chars, Source, Var

YAML_LANGS = {"yaml", "yml"}
SHELL_LANGS = {
    "",
    "bash",
    "sh",
    "shell",
    "zsh",
    "console",
    "shell-session",
    "shellsession",
    "terminal",
    "bash-session",
    "sh-session",
    "ksh",
}
PROMPT_LANGS = {
    "console",
    "shell-session",
    "shellsession",
    "terminal",
    "bash-session",
    "sh-session",
}
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`{]*)")
_RST = re.compile(r"^(\s*)\.\.\s+(code-block|code|sourcecode|prompt)::\s*(\S*)")
_LAUNCH = re.compile(r"sglang\.launch_server|sglang\s+serve")
# <DeepSeek-V4-Flash>, <your model path>: angle brackets around words, never `2>&1` or `< file`
_ANGLE = re.compile(r"<([A-Za-z][\w.\-/: ]{0,80}?)>")
_PLACEHOLDER_TEXT = re.compile(r"(^|/)path/to/|^/?(your|my)[-_]|YOUR_|<|\{\{|xxx", re.IGNORECASE)
_FILL = "SWACHECK_FILL_IN_"


def _blocks(src: Source) -> list[tuple[str, int, int, int]]:
    """(language, first body line index, end line index (exclusive), indent) of each code block."""
    lines = src.text.split("\n")
    out: list[tuple[str, int, int, int]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m:
            indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
            j = i + 1
            while j < len(lines) and not (
                lines[j].lstrip(" ").startswith(fence[0] * len(fence))
                and lines[j].strip().strip(fence[0]) == ""
            ):
                j += 1
            out.append((lang, i + 1, j, indent))
            i = j + 1
            continue
        r = _RST.match(lines[i])
        if r:
            base = len(r.group(1))
            lang = r.group(3).lower()
            j = i + 1
            while j < len(lines) and (
                not lines[j].strip()
                or lines[j].lstrip().startswith(":")
                and len(lines[j]) - len(lines[j].lstrip()) > base
            ):
                j += 1  # blank lines and directive options
            start = j
            body_indent = None
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base
            ):
                if lines[j].strip() and body_indent is None:
                    body_indent = len(lines[j]) - len(lines[j].lstrip())
                j += 1
            out.append(("console" if r.group(2) == "prompt" else lang, start, j, body_indent or 0))
            i = j
            continue
        i += 1
    return out


# a prompt before a command in a transcript: "$ ", "user@host:~$ ", "(venv) $ "; "# " (root) only
# in a block marked as a session, where it cannot be a comment
_PROMPT = re.compile(r"(\([\w.-]+\)\s*)?[\w@.:~/-]*[$#]\s")
_DOLLAR_PROMPT = re.compile(r"(\([\w.-]+\)\s*)?[\w@.:~/-]*\$\s")


def _transcript(src: Source, start: int, end: int) -> bool:
    """A ``bash``, ``shell`` or unmarked block written as a session: its first line that is not
    blank starts with a ``$`` prompt (SGLang's own docs show launches so)."""
    for n in range(start, end):
        a = src.starts[n]
        b = src.starts[n + 1] if n + 1 < len(src.starts) else len(src.text)
        line = src.text[a:b].strip()
        if line:
            return _DOLLAR_PROMPT.match(line) is not None
    return False


def _chars(src: Source, lang: str, start: int, end: int, indent: int = 0) -> Chars:
    """The block's text with positions in the doc, without the block's own indentation (a
    fence in a list item, an rst directive's body); prompt blocks (a session, or a shell block
    written as one) keep only their commands."""
    prompt = _PROMPT if lang in PROMPT_LANGS else _DOLLAR_PROMPT
    prompts = lang in PROMPT_LANGS or _transcript(src, start, end)
    if not prompts and indent == 0:
        a = src.starts[start] if start < len(src.starts) else len(src.text)
        b = src.starts[end] if end < len(src.starts) else len(src.text)
        return Chars.of_source(src, a, b)
    text: list[str] = []
    spans: list = []
    continued = False
    for n in range(start, end):
        a = src.starts[n]
        b = src.starts[n + 1] if n + 1 < len(src.starts) else len(src.text)
        line = src.text[a:b]
        if not prompts:
            skip = min(indent, len(line) - len(line.lstrip(" ")))
        else:
            stripped = line.lstrip()
            skip = len(line) - len(stripped)
        if prompts and not continued:
            m = prompt.match(stripped)
            if m is None:
                continue  # output
            skip += m.end()
        text.append(line[skip:])
        spans.extend((src, k, k + 1) for k in range(a + skip, b))
        continued = line.rstrip("\r\n").endswith("\\")
        if not line.endswith("\n"):
            text.append("\n")
            spans.append(None)
    return Chars("".join(text), spans)


def _fill_placeholders(chars: Chars) -> tuple[Chars, dict[str, tuple[str, Location | None]]]:
    """``<X>`` -> a variable set nowhere, remembered as a placeholder to fill in."""
    found: dict[str, tuple[str, Location | None]] = {}
    text: list[str] = []
    spans: list = []
    last = 0
    for m in _ANGLE.finditer(chars.text):
        before = chars.text[max(0, m.start() - 1) : m.start()]
        if before in ("<", "$") or chars.text[m.end() : m.end() + 1] in ("&", "("):
            continue
        name = f"{_FILL}{len(found) + 1}"
        first, final = chars.spans[m.start()], chars.spans[m.end() - 1]
        where = (
            (first[0], first[1], final[2])
            if first is not None and final is not None and first[0] is final[0]
            else first
        )
        found[name] = (m.group(0), where[0].location(where[1], where[2]) if where else None)
        text.append(chars.text[last : m.start()])
        spans.extend(chars.spans[last : m.start()])
        ref = "${" + name + "}"
        text.append(ref)
        spans.extend([where] * len(ref))
        last = m.end()
    if not found:
        return chars, found
    text.append(chars.text[last:])
    spans.extend(chars.spans[last:])
    return Chars("".join(text), spans), found


def _fill_in(
    launch: Launch, holes: dict[str, tuple[str, Location | None]]
) -> tuple[str, Location | None] | None:
    """The placeholder the model path is, when it is one (argument errors are build's to report)."""
    try:
        parsed = parse_args(launch)
    except InputProblem:
        return None
    for u in parsed.unresolved:
        if u.kind == "argument" and u.name == "model-path":
            shown = holes[u.variable][0] if u.variable in holes else u.shown
            return shown, u.location
    for a in parsed.entries:
        if (
            a.name == "model-path"
            and isinstance(a.value, str)
            and _PLACEHOLDER_TEXT.search(a.value)
        ):
            return a.value, a.value_loc
    if not any(a.name == "model-path" for a in parsed.entries):
        extra = next((u for u in parsed.unresolved if u.kind == "arguments"), None)
        if extra is not None:
            return extra.shown, extra.location
    return None


def _yaml_block(
    found: Found,
    src: Source,
    start: int,
    end: int,
    path: str,
    label: str,
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
) -> None:
    """A YAML code block: an SGLang server config, or a Kubernetes/Compose/srt-slurm/SkyPilot
    document that launches SGLang, read with positions in the doc (the lines around the block
    are blanked, so every line and column is the doc's). A block that does not parse, or holds
    something else, is ignored: docs hold fragments."""
    from ..loading import parse_yaml
    from ..model.deployment import Deployment
    from . import kinds
    from .server_config import is_server_config, load_server_args

    a = src.starts[start] if start < len(src.starts) else len(src.text)
    b = src.starts[end] if end < len(src.starts) else len(src.text)
    body = src.text[a:b]
    if not re.search(r"model[-_]path|sglang", body):
        return
    text = "\n" * start + body
    try:
        documents = list(parse_yaml(text, path))
    except InputProblem:
        return
    for doc in documents:
        root = doc.root
        try:
            if is_server_config(root):
                server = load_server_args(root, path)
                found.deployments.append(
                    Deployment(
                        f"{label}:{start + 1}",
                        path,
                        root.loc,
                        platform,
                        dict(env),
                        server,
                        duplicates=list(doc.duplicates),
                    )
                )  # type: ignore[union-attr]
            elif (kind := kinds.document_kind(root)) is not None:
                launched = kind.read(doc, path, files, platform, env)
                found.deployments.extend(launched.deployments)
                found.errors.extend(launched.errors)
        except InputProblem as problem:
            found.errors.append(problem.to_error())


def read_doc(path: str, files: FileCache, platform: Val, env: dict[str, Val]) -> Found:
    found = Found()
    try:
        src = load_text(files, path)
    except InputProblem as problem:
        found.errors.append(problem.to_error())
        return found
    if not _LAUNCH.search(src.text) and not re.search(r"model[-_]path:", src.text):
        return found  # a doc without an SGLang launch or server config: not ours
    doc = _Doc(
        src, path, os.path.basename(path), os.path.dirname(path) or ".", files, platform, env
    )
    for lang, start, end, indent in _blocks(src):
        if lang in YAML_LANGS:
            _yaml_block(found, src, start, end, path, doc.label, files, platform, env)
        elif lang in SHELL_LANGS:
            chars = _chars(src, lang, start, end, indent)
            if _LAUNCH.search(chars.text):
                found.deployments.extend(_shell_block(doc, chars, start))
    return found


@record
class _Doc:
    """What reading each code block of one doc needs."""

    src: Source
    path: str
    label: str
    base_dir: str
    files: FileCache
    platform: Val
    env: dict[str, Val]


def _shell_block(doc: _Doc, chars: Chars, start: int) -> list:
    """The deployments of a shell code block that mentions an SGLang launch (line ``start``)."""
    src, label, env = doc.src, doc.label, doc.env
    chars, holes = _fill_placeholders(chars)
    fallback = seed_env(env)
    reasons = {f"${{{n}}}": f"a placeholder to fill in: {shown}" for n, (shown, _) in holes.items()}
    for n, (shown, where) in holes.items():
        fallback[n] = Var(None, True, "placeholder", f"a placeholder to fill in: {shown}", where)
    unset = (
        f"not set in this code block of {label} (a placeholder to fill in, or set in another block)"
    )
    ctx = LaunchContext(label, doc.base_dir, fallback, opaque_reasons=reasons, unset_reason=unset)
    stem = f"{label}:{start + 1}"
    block_loc = src.location(
        src.starts[start - 1] if start > 0 else 0, src.starts[start - 1] if start > 0 else 0
    )
    try:
        items = script_launches(src, dict(fallback), ctx, chars)
    except InputProblem as problem:
        return [
            unread(
                stem,
                doc.path,
                problem.location or block_loc,
                doc.platform,
                env,
                f"the code block at line {start} holds an SGLang launch but is not valid "
                f"shell ({problem.message}); not checked",
            )
        ]
    block = [
        _block_deployment(doc, launch, name, holes)
        for launch, name in zip(items, names_for(stem, len(items)))
    ]
    attach(block, chars)
    return block


def _block_deployment(doc: _Doc, launch: Launch, name: str, holes: dict) -> Deployment:
    """One launch of a code block: a note when it is a placeholder or cannot be resolved."""
    hole = _fill_in(launch, holes)
    if hole is not None:
        shown, where = hole
        return unread(
            name,
            doc.path,
            where or launch.whole,
            doc.platform,
            doc.env,
            f"fill in {shown} (the model path) to check this launch",
        )
    try:
        dep = build(launch, name, doc.path, doc.base_dir, doc.files, doc.platform, doc.env)
    except InputProblem as problem:
        # a doc shows a launch, it does not run one: what cannot be resolved in it (a
        # --config file written by an earlier block, a refused argument) is a note
        return unread(
            name,
            doc.path,
            problem.location or launch.whole,
            doc.platform,
            doc.env,
            f"not checked: {problem.message}",
        )
    if hasattr(dep, "unresolved"):  # else a launch assembled at run time: a note as it is
        _placeholder_notes(dep, holes)
    return dep


def _placeholder_notes(dep: LaunchDeployment, holes: dict) -> None:
    """Placeholders in other arguments: "fill in" notes, not SWA305."""
    kept = []
    for u in dep.unresolved:
        if u.kind == "env" and u.name in holes:
            continue  # the placeholder's own stand-in variable
        if u.variable in holes or (
            u.kind == "argument" and "not set in this code block" in u.reason
        ):
            shown = holes[u.variable][0] if u.variable in holes else u.shown
            dep.notes.append(
                (
                    "note",
                    f"fill in {shown} for --{u.name or 'arguments'}; the argument is checked as "
                    f"unset",
                    u.location,
                )
            )
        else:
            kept.append(u)
    dep.unresolved = kept
