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
from dataclasses import field
from typing import TYPE_CHECKING

from .. import limits
from ..loading import FileCache
from ..model.deployment import Deployment
from ..model.records import InputError, InputProblem, Val
from ..model.recordtype import record
from ..model.tree import Document, Mapping, SourceFile, kind_name
from ..paths import real
from . import kinds
from .deployment_file import is_deployment_file, load_deployment, load_pairs
from .server_config import is_server_config, load_server_args
from .walk import EXTENSIONS, Candidate, _is_launch_file, discover

if TYPE_CHECKING:
    from .launch import Found

__all__ = [
    "Candidate",
    "Inputs",
    "discover",
    "read_inputs",
]


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
