"""Finding the input files: the paths named, and the folders walked (sorted, hidden and ignored
folders left out, symbolic links to folders not followed), as :class:`Candidate` files."""

from __future__ import annotations

import os
from collections.abc import Callable

from .. import limits
from ..loading import not_regular, special_kind, walked_regular
from ..model.records import InputError
from ..model.recordtype import record
from ..model.text import one_line
from ..paths import (
    VCS_DIRS,
    Walked,
    folder_in_vcs_metadata,
    in_vcs_metadata,
    real,
    remember_walked,
    spellings,
    walked_folder,
)
from . import gitignore, kinds

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


def _is_launch_file(path: str) -> bool:
    return kinds.file_kind(path) is not None


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

    def taken(key: str, folder: Walked | None) -> bool:
        """Whether a file with the real path ``key`` is in the run already (or refused as
        version-control metadata): ``seen`` holds a walked regular file by its path as named.
        A file listed in ``folder`` has no other such path unless the folder was walked before
        by another path (or the same one, named twice)."""
        if key in seen:
            return True
        return (folder is None or len(folder.peers) > 1) and bool(spellings(key))

    def add(
        path: str, explicit: bool, folder: Walked | None = None, vcs: bool | None = None
    ) -> None:
        # a walked regular file's real path is its folder's and its name (paths.Walked)
        key = real(path) if folder is None else folder.real_of(path)
        if vcs is None:  # else the walk knew: its folder's answer, or the file's name
            vcs = path != "-" and in_vcs_metadata(path, folder is not None)
        if vcs:  # .git/config, or a link to it
            if not taken(key, folder):  # named and walked: one error
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
        if not taken(key, folder):
            if folder is None:
                seen.add(key)
            else:
                seen.add(path)
                remember_walked(path, folder)
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
    add: Callable[[str, bool, Walked | None], None],
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
    add: Callable[[str, bool, Walked | None], None],
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
    here = walked_folder(named, real_in)
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
            add(path, False, here, vcs or name in VCS_DIRS)
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
