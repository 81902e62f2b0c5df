"""Find input files, classify each document by its content, normalise into Deployments.

Kinds: a swacheck deployment document (top-level ``swacheck: 1``) or an
SGLang server config (a ``model-path`` key). Other files are skipped: silently in a walked
directory, with a note (``Inputs.notes``) when named explicitly, since a shell glob such as
``configs/*.yaml`` or a pre-commit hook names every file it matches. A typo still never passes:
a path that does not exist is an input error, and so is a run that finds no deployment at all
(``engine.finish``; ``--allow-empty`` allows it).

Launch commands (``launch.py`` and the modules it names): shell scripts (``*.sh``, or a file
named explicitly that starts with a shell ``#!``), Dockerfiles (``Dockerfile``, ``*.Dockerfile``,
``Dockerfile.*``) and ``--command`` text; Kubernetes manifests (``kubernetes.py``) and Compose files (``compose.py``)
are YAML documents recognised by their content. A manifest or Compose file without an SGLang
launch is skipped like any other file that is not a deployment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING

from .. import limits
from ..loading import FileCache, not_regular, special_kind, walked_regular
from ..model.deployment import Deployment
from ..model.records import InputError, InputProblem, Val
from ..model.recordtype import record
from ..model.text import one_line
from ..model.tree import Document, Mapping, SourceFile, kind_name
from ..paths import VCS_DIRS, folder_in_vcs_metadata, in_vcs_metadata, real, remember_real
from . import gitignore, kinds
from .deployment_file import is_deployment_file, load_deployment, load_pairs
from .server_config import is_server_config, load_server_args

if TYPE_CHECKING:
    from .launch import Found

__all__ = [
    "Candidate",
    "Inputs",
    "discover",
    "read_inputs",
]

EXTENSIONS = (".yaml", ".yml", ".json")
# a named or walked file in .git, or a link to one: never opened (the job's token is in .git/config)
IN_VCS = (
    "inside version-control metadata (.git, .hg, .svn), or a link to it; swacheck never reads it"
)


@record(unsafe_hash=True)
class Candidate:
    """A file to read: named, found by walking a folder, or a PD partner found beside a named one."""

    path: str
    explicit: bool  # named on the command line (vs found by walking a directory)
    partner: bool = (
        False  # not named: a PD server beside a named one (kept only when paired with it)
    )


@record(repr=False, eq=False)
class Inputs:
    """What reading a unit's files gave: deployments, input errors, files read and skipped, notes."""

    deployments: list[Deployment] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # files that held at least one deployment
    skipped: list[str] = field(default_factory=list)  # files that hold no deployment of their own
    notes: list[InputError] = field(
        default_factory=list
    )  # why each file named explicitly was skipped


def discover(
    paths: list[str],
    exclude: tuple[str, ...] = (),
    root: str | None = None,
    special: dict[str, str] | None = None,
    respect_gitignore: bool = True,
    exclude_base: str = ".",
) -> tuple[list[Candidate], list[InputError]]:
    """Expand directories (sorted, hidden folders skipped, symlinked folders not followed).

    A walk leaves out what ``exclude`` matches (gitignore-style patterns, relative to
    ``exclude_base``: ``vendored``, ``*.json``, ``data/x.yaml``) and, with
    ``respect_gitignore``, what git ignores (``.gitignore`` files, nested ones too, and
    ``.git/info/exclude``; ``gitignore.py``). A file named explicitly is always read.

    Only regular files are candidates: a FIFO, device or socket found while walking is left out
    (``special`` receives it and why, for ``-v``), and one named explicitly is an input error,
    so nothing can make the run block on an open or a read.

    A file that lies in ``root`` as named but outside it once symbolic links are followed (a
    link a pull request added, to ``/proc/self/environ`` say) is an input error and never read.
    """
    out: list[Candidate] = []
    errors: list[InputError] = []
    seen: set[str] = set()
    lexical_root = root.rstrip(os.sep) + os.sep if root else None

    def add(path: str, explicit: bool, key: str | None = None, vcs: bool | None = None) -> None:
        walked, key = key is not None, key or real(path)
        if vcs is None:  # else the walk knew: its folder's answer, or the file's name
            vcs = path != "-" and in_vcs_metadata(path, walked)
        if vcs:  # .git/config, or a link to it
            if key not in seen:  # named and walked: one error
                errors.append(InputError(path, None, None, IN_VCS))  # type: ignore[arg-type]
            return seen.add(key)
        if lexical_root and path != "-" and not (key + os.sep).startswith(lexical_root):
            named = os.path.abspath(path)
            if (named + os.sep).startswith(lexical_root) or (
                os.path.realpath(os.path.dirname(named)) + os.sep
            ).startswith(lexical_root):
                errors.append(
                    InputError(
                        path,
                        None,
                        None,
                        f"a symbolic link to outside the root {one_line(root)!r}; not read (--root)",
                    )
                )  # type: ignore[arg-type]
                return
        if key not in seen:
            seen.add(key)
            out.append(Candidate(path, explicit))

    excluded = gitignore.Rules().add(
        os.path.abspath(exclude_base), [p for e in exclude if (p := gitignore.parse_line(e))]
    )
    for raw in paths:
        if raw == "-":
            add(raw, True)
        elif os.path.isdir(raw):
            folder = os.path.abspath(raw)
            rules = gitignore.WalkRules(
                gitignore.top_rules(folder) if respect_gitignore else None, excluded
            )
            _walk(raw, folder, rules, special, add)
        elif os.path.exists(raw):
            kind = _special(raw)
            if kind is not None:
                errors.append(not_regular(raw, kind).to_error())
            else:
                add(raw, True)
        elif os.path.lexists(raw):
            errors.append(
                InputError(
                    raw, None, None, "a symbolic link that leads nowhere (broken, or a loop)"
                )
            )
        else:
            errors.append(InputError(raw, None, None, "no such file or directory"))
    return out, errors


def _walk(
    top: str,
    absolute: str,
    rules: gitignore.WalkRules,
    special: dict[str, str] | None,
    add: Callable[[str, bool, str | None], None],
) -> None:
    """The candidate files under the folder ``top``, in sorted order, each given to ``add``.

    The order and the choices are ``os.walk``'s (a folder's files, then each sorted subfolder in
    turn; a symbolic link to a folder is not followed; a folder that cannot be listed is passed
    over), but each directory entry's type comes from the listing itself: a regular file costs
    no ``stat`` here, and none before it is opened (``loading.walked_regular``). The walk keeps
    its own stack (a tree a thousand folders deep, which git checks out happily, is no
    ``RecursionError``): a folder nested deeper than ``limits.MAX_WALK_DEPTH`` below ``top`` is
    not walked, and ``special`` receives it and why (a skip, counted and listed with ``-v``)."""
    stack = [(top, absolute, rules, 0)]
    while stack:
        folder, folder_abs, outer, depth = stack.pop()
        subfolders, inner = _walk_folder(folder, folder_abs, outer, special, add)
        if subfolders and depth >= limits.MAX_WALK_DEPTH:
            if special is not None:
                for sub in subfolders:
                    special[os.path.join(folder, sub)] = (
                        f"a folder nested more than {limits.MAX_WALK_DEPTH} levels deep "
                        "below the path named: not walked (the limit on a walk)"
                    )
            continue
        stack.extend(
            (os.path.join(folder, sub), os.path.join(folder_abs, sub), inner, depth + 1)
            for sub in reversed(subfolders)
        )


def _walk_folder(
    top: str,
    absolute: str,
    rules: gitignore.WalkRules,
    special: dict[str, str] | None,
    add: Callable[[str, bool, str | None], None],
) -> tuple[list[str], gitignore.WalkRules]:
    """``_walk`` for one folder (``absolute``: its absolute path): its candidate files given to
    ``add``; its subfolders to walk (sorted, no link, hidden, excluded or ignored one) returned,
    with the rules in force inside it (its own ``.gitignore`` added)."""
    try:
        with os.scandir(top) as listing:
            entries = list(listing)
    except OSError:
        return [], rules
    rules = rules.enter(absolute)
    folders: list[os.DirEntry[str]] = []
    files: list[os.DirEntry[str]] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if not is_dir:
            files.append(entry)
        elif not entry.name.startswith(".") and not rules.ignored(
            os.path.join(absolute, entry.name), True
        ):
            folders.append(entry)
    real_dir = real(top)  # one lookup per folder; a file's own is only needed for a link
    # a file's path and real path lie in version-control metadata when its folder's do (its
    # real path is the folder's and its name): asked once per folder, not once per file
    vcs = folder_in_vcs_metadata(top, real_dir)
    # a name from a listing is one component: the folder's paths, each made once, and the name
    # after them are what os.path.join and normpath would make of each file (a third of a walk)
    inside, named, real_in = _prefix(absolute), _prefix(os.path.normpath(top)), _prefix(real_dir)
    for entry in sorted(files, key=_name):
        name = entry.name
        if not (name.lower().endswith(EXTENSIONS) or _is_launch_file(name)) or rules.ignored(
            inside + name, False
        ):
            continue
        path = named + name
        link = entry.is_symlink()
        kind = _special(path) if link else _entry_kind(entry)
        if kind is not None:
            if special is not None:
                special[path] = f"{kind}, not a regular file"
            continue
        if link:
            add(path, False)
        else:
            walked_regular(path)
            add(path, False, remember_real(path, real_in + name), vcs or name in VCS_DIRS)
    return [f.name for f in sorted(folders, key=_name) if not f.is_symlink()], rules


def _prefix(folder: str) -> str:
    """What a file name follows in a path in ``folder`` (a normal path): ``folder`` and one
    separator, nothing for ``.`` (``normpath`` drops it), no second one after a root."""
    if folder == os.curdir:
        return ""
    return folder if folder.endswith((os.sep, os.altsep or os.sep)) else folder + os.sep


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _entry_kind(entry: os.DirEntry[str]) -> str | None:
    """What a listed file that is no symbolic link is when it is not a regular file; None when it
    is (known from the listing, without a ``stat``, on the usual file systems), or when it is
    gone since the listing (reading it says so)."""
    try:
        if entry.is_file(follow_symlinks=False):
            return None
        return special_kind(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return None


def _special(path: str) -> str | None:
    """What ``path`` is when it is not a regular file (symbolic links followed); None when it is,
    or when it cannot be stat'ed (reading it reports why)."""
    try:
        return special_kind(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _is_launch_file(path: str) -> bool:
    return kinds.file_kind(path) is not None


def _read_launch_file(
    cand: Candidate, files: FileCache, platform: Val, env: dict[str, Val]
) -> Found:
    kind = kinds.file_kind(cand.path) or kinds.kind_named(
        "script"
    )  # a file named explicitly with a shell #!
    return kind.read(cand.path, files, platform, env)  # type: ignore[no-any-return]


def _what(source: SourceFile) -> str:
    """What a file that is not a deployment holds, in a few words."""
    if not source.documents:
        return "the file is empty" if not source.text.strip() else "the file holds only comments"
    root = source.documents[0].root
    if isinstance(root, Mapping):
        keys = ", ".join(list(root.pairs)[:3])
        return f"a mapping with keys {keys}" if keys else "an empty mapping"
    return f"{kind_name(root)} at the top level"


def read_inputs(
    candidates: list[Candidate],
    files: FileCache,
    platform: Val,
    env: dict[str, Val],
    stdin_text: str | None = None,
    commands: list[str] | None = None,
) -> Inputs:
    """Read and classify ``candidates`` into deployments. A deployment file and the server config
    it names are always among the same candidates (``grouping.plan`` keeps them in one unit)."""
    reader = _Reader(files, platform, env, stdin_text)
    for cand in candidates:
        with limits.budget(cand.path):  # the file's own budgets (limits.py)
            reader.read(cand)
    result = reader.result
    # A server config that a deployment file in this run points at is checked through that
    # deployment (with its platform and env), not a second time on its own.
    dropped: set[str] = set()
    for dep, is_standalone in reader.ordered:
        if is_standalone and real(dep.file) in reader.referenced_servers:
            dropped.add(
                dep.file
            )  # read through its deployment file: neither checked alone nor skipped
        else:
            result.deployments.append(dep)
    if dropped:
        result.files = [f for f in result.files if f not in dropped]
    if commands:
        from . import script

        deployments, errors = script.read_commands(commands, files, platform, env)
        result.deployments.extend(deployments)
        result.errors.extend(errors)
        result.files.extend(dict.fromkeys(d.file for d in deployments))
    return result


class _Reader:
    """Reads candidates one at a time into ``result`` and ``ordered``."""

    def __init__(
        self, files: FileCache, platform: Val, env: dict[str, Val], stdin_text: str | None
    ) -> None:
        self.files = files
        self.platform = platform
        self.env = env
        self.stdin_text = stdin_text
        self.result = Inputs()
        self.ordered: list[tuple[Deployment, bool]] = []  # (deployment, a standalone server config)
        self.referenced_servers: set[str] = set()

    def read(self, cand: Candidate) -> None:
        files, result = self.files, self.result
        if cand.path != "-" and (
            _is_launch_file(cand.path) or (cand.explicit and _shell_script(cand.path, files))
        ):
            self._launch_file(cand)
            return
        try:
            text = self.stdin_text if cand.path == "-" else None
            source = files.load(cand.path, text)
        except InputProblem as problem:
            if self._template(cand, parses=False):
                return
            if cand.path != "-" and not could_be_deployment(cand.path, files):
                # unparsable, over a budget, or an unrelated document (a tokenizer.json, a
                # dataset): not ours, walked or named alike (one classification per file)
                why = f"not read: {problem.to_error()}"
                result.skipped.append(Skipped.of(cand.path, why))
                if cand.explicit:
                    result.notes.append(_skip_note(cand.path, why))
                return
            result.errors.append(problem.to_error())
            return
        if self._template(cand, parses=True):
            return
        found = 0
        launch_kind = ""  # "a Kubernetes manifest" / "a Compose file" without an SGLang launch
        for doc in source.documents:
            try:
                count, what = self._document(cand, source, doc)
            except InputProblem as problem:
                result.errors.append(problem.to_error())
                count, what = 1, ""
            found += count
            launch_kind = launch_kind or what
        if found:
            result.files.append(cand.path)
            return
        why = _not_a_deployment(source, launch_kind)
        result.skipped.append(Skipped.of(cand.path, why))
        if cand.explicit:
            result.notes.append(_skip_note(cand.path, why))

    def _template(self, cand: Candidate, parses: bool) -> bool:
        return _template(
            cand,
            self.files,
            self.stdin_text,
            parses,
            self.result,
            self.ordered,
            self.platform,
            self.env,
        )

    def _launch_file(self, cand: Candidate) -> None:
        result = self.result
        try:
            self.files.read(cand.path)
        except InputProblem as problem:  # over the size budget: a launch file only if it says so
            if not could_be_deployment(cand.path, self.files):
                why = f"not read: {problem.to_error()}"
                result.skipped.append(Skipped.of(cand.path, why))
                if cand.explicit:
                    result.notes.append(_skip_note(cand.path, why))
                return
        launched = _read_launch_file(cand, self.files, self.platform, self.env)
        self.ordered.extend((dep, False) for dep in launched.deployments)
        result.errors.extend(dict.fromkeys(launched.errors))  # a spent budget is one line
        if launched.deployments:
            result.files.append(cand.path)
        if not launched.any:
            kind = kinds.file_kind(cand.path) or kinds.kind_named("script")
            why = kind.absent
            result.skipped.append(Skipped.of(cand.path, why))
            if cand.explicit:
                result.notes.append(_skip_note(cand.path, why))

    def _document(self, cand: Candidate, source: SourceFile, doc: Document) -> tuple[int, str]:
        """Read one YAML document: how many deployments and errors it gave, and what launch
        kind it is (\"\" for none)."""
        files, platform, env = self.files, self.platform, self.env
        root = doc.root
        if is_deployment_file(root) and "pairs" in root.pairs:  # type: ignore[union-attr]
            load_pairs(root, cand.path, files)  # type: ignore[arg-type]  # its errors; grouping.plan took the pairs
            return 1, ""
        if is_deployment_file(root):
            limits.current().deployment(root.loc)
            dep = load_deployment(root, cand.path, doc.index, files, platform, env)  # type: ignore[arg-type]
            dep.duplicates[:0] = doc.duplicates
            if dep.server.file and dep.server.file != cand.path:
                self.referenced_servers.add(real(dep.server.file))
            self.ordered.append((dep, False))
            return 1, ""
        if is_server_config(root):
            if source.raw_documents > 1:
                raise InputProblem(
                    "an SGLang server config must be a single YAML document (SGLang reads it "
                    "with yaml.safe_load)",
                    root.loc,
                )
            stem = os.path.splitext(os.path.basename(cand.path))[0]
            server = load_server_args(root, cand.path)
            dep = Deployment(
                stem,
                cand.path,
                root.loc,
                platform,
                dict(env),
                server,
                duplicates=list(doc.duplicates),
            )
            self.ordered.append((dep, True))
            return 1, ""
        if (kind := kinds.document_kind(root)) is not None:
            launched = kind.read(doc, cand.path, files, platform, env)
            self.ordered.extend((dep, False) for dep in launched.deployments)
            errors = list(dict.fromkeys(launched.errors))  # a spent budget is one line
            self.result.errors.extend(errors)
            return len(launched.deployments) + len(errors), kind.what
        return 0, ""


def _not_a_deployment(source: SourceFile, launch_kind: str) -> str:
    """Why a file named explicitly holds no deployment."""
    if launch_kind:
        return (
            f"{launch_kind} in which no container or service runs python -m "
            f"sglang.launch_server or sglang serve"
        )
    return (
        f"{_what(source)}, not an SGLang server config (a 'model-path' key) or a "
        f"swacheck deployment file ('swacheck: 1')"
    )


class Skipped(str):
    """A skipped file's path, with why it was skipped (``-v`` prints it)."""

    reason: str = "not a deployment"

    @classmethod
    def of(cls, path: str, reason: str) -> Skipped:
        out = cls(path)
        out.reason = reason
        return out


def _template(
    cand: Candidate,
    files: FileCache,
    stdin_text: str | None,
    parses: bool,
    result: Inputs,
    ordered: list,
    platform: Val,
    env: dict[str, Val],
) -> bool:
    """A Helm/Jinja template (``templates.py``): not read. One that holds an SGLang launch is a
    deployment that is not checked (SWA307 note, with the fix: render it first); any other is
    skipped, with a note giving the fix when it was named explicitly (a pre-commit hook or a
    shell glob names every YAML file: a chart's templates must not fail the run). True when
    ``cand`` is one."""
    from ..model.deployment import unread
    from . import templates

    try:
        text = (stdin_text or "") if cand.path == "-" else files.read(cand.path)
    except InputProblem:
        return False
    what = templates.describe(cand.path, text, parses)
    if what is None:
        return False
    if templates.mentions_sglang(text):
        from ..model.records import Location

        stem = os.path.splitext(os.path.basename(cand.path))[0]
        ordered.append(
            (
                unread(
                    stem,
                    cand.path,
                    Location(cand.path, 1, 1, 1, 1),
                    platform,
                    env,
                    f"{what} that mentions SGLang: not checked until rendered; {templates.fix_hint(cand.path)}",
                ),
                False,
            )
        )
        result.files.append(cand.path)
    else:
        result.skipped.append(Skipped.of(cand.path, what))
        if cand.explicit:
            result.notes.append(
                _skip_note(
                    cand.path, f"{what}: not YAML until rendered; {templates.fix_hint(cand.path)}"
                )
            )
    return True


SNIFF_BYTES = 65536  # how much of a file that cannot be read whole is looked at
_DEPLOYMENT_MARKS = re.compile(
    r"""(?:^|[{,\s-])["']?(?:swacheck|model[-_]path)["']?[ \t]*:"""
    r"|--model[-_]path\b|sglang[. ]launch_server|sglang[ \t]+serve\b|\bsglang_config\b"
    r"|\bpython[0-9.]*[ \t]+-m[ \t]+sglang\b"
    r"|\b(?:lmsysorg/sglang|rocm/sgl-dev)\b",  # an SGLang image (a Compose service, a container)
    re.MULTILINE,
)


def could_be_deployment(path: str, files: FileCache) -> bool:
    """Whether a file that cannot be parsed or read whole (invalid YAML, over the size or node
    budget) may be a deployment: its text (its first ``SNIFF_BYTES`` when it is too large to
    read) names a swacheck deployment, a model path, an SGLang launch or image. One that does
    not (a tokenizer.json, a dataset, someone else's broken YAML) is skipped, not an input
    error. A file that cannot be opened at all is assumed to be one: nothing says it is not.
    A file read whole is searched whole (a launch after 64 KiB of aliased items is found)."""
    try:
        text = files.read(path)
    except InputProblem:
        try:
            with open(path, "rb") as fh:
                text = fh.read(SNIFF_BYTES).decode("utf-8", "replace")
        except OSError:
            return True
    # NULs dropped: a UTF-16 deployment still shows its keys
    head = text.replace("\x00", "").lstrip("\ufeff\ufffd")  # and its BOM
    return _DEPLOYMENT_MARKS.search(head) is not None


def _skip_note(path: str, what: str) -> InputError:
    """The note printed for a file named explicitly that holds no deployment."""
    return InputError(path, None, None, f"skipped, not a deployment: {what}")


def _shell_script(path: str, files: FileCache) -> bool:
    """A file named explicitly without a known extension that starts with a shell ``#!``."""
    if path.lower().endswith(EXTENSIONS) or not os.path.isfile(path):
        return False  # a pipe (/dev/fd/N, /dev/stdin) is read once, by the loader
    try:
        with open(path, "rb") as fh:
            head = fh.read(200).decode("utf-8", "replace")
    except OSError:
        return False
    return kinds.has_shell_shebang(head)
