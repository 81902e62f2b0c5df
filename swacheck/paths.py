"""Canonical file identities, resolved once per run.

A run asks for the real path of the same files many times (the file cache, discovery,
pairing, suppressions, fixes). ``os.path.realpath`` does an ``lstat`` per path component, so
each answer is kept for the rest of the run; :func:`forget` starts a new run (the working
directory or symbolic links may have changed in between, in tests for instance).
"""

from __future__ import annotations

import os


class Walked:
    """A folder the walk listed: its path as named and its real path, each ending where a file
    name follows. The real path of a regular file the walk listed there is ``prefix`` and the
    file's name, made when asked: keeping one for each file was a third of what a walk of
    20,000 files held."""

    __slots__ = ("named", "prefix", "folder", "peers")

    def __init__(self, named: str, prefix: str) -> None:
        self.named, self.prefix = named, prefix
        self.folder = os.path.dirname(prefix + "-")  # the real path of the folder itself
        self.peers: list[Walked] = []  # the walked folders with this real path, this one too

    def real_of(self, path: str) -> str:
        """The real path of ``path``, a file listed in this folder."""
        return self.prefix + path[len(self.named) :]


_real: dict[str, str | Walked] = {}
_unfolded: dict[str, Walked] = {}  # walked files whose real path real() made, until fold()
MAX_UNFOLDED = 1024  # so many at most (a few units' files; a plan makes one for every file)
_memos: list[dict] = []  # other per-run answers about files (run_memo), forgotten with _real


def real(path: str) -> str:
    """``os.path.realpath(path)``, computed once per run; ``-`` (standard input) stays ``-``."""
    found = _real.get(path)
    if found is None:
        if path == "-":
            found = path
        elif "\0" in path:  # no file has this name (realpath would raise): reading it says so
            found = os.path.abspath(path.replace("\0", "\\0"))
        else:
            found = os.path.realpath(path)
        _real[path] = found
    elif found.__class__ is Walked:  # made now, and kept until the next fold()
        if len(_unfolded) >= MAX_UNFOLDED:
            fold()
        _unfolded[path] = found  # type: ignore[assignment]
        found = _real[path] = found.real_of(path)  # type: ignore[union-attr]
    return found  # type: ignore[return-value]


def fold() -> None:
    """Let go of the real paths made for walked files since the last fold (each is made again
    when asked): called between units (``FileCache.evict``) and once the run is planned, so the
    run holds the real paths of the files it is checking, not of every file it walked."""
    # a copy made at once: --fix's writer threads ask for real paths too (fixplan.WRITERS), and
    # a real path made while this runs is correct whether it is folded or not
    for path, folder in list(_unfolded.items()):
        if path in _real:  # not forgotten since (forget_some)
            _real[path] = folder
    _unfolded.clear()


def walked_folder(named: str, prefix: str) -> Walked:
    """A folder the walk lists (its path as named and its real path, each with the separator a
    name follows), kept for :func:`spellings`."""
    folder = Walked(named, prefix)
    folder.peers = _walked.setdefault(prefix, [])
    folder.peers.append(folder)
    return folder


def remember_walked(path: str, folder: Walked) -> None:
    """Record that ``path`` is a regular file the walk listed in ``folder`` (and took)."""
    _real[path] = folder


def _listed_in(path: str) -> Walked | None:
    """The folder whose listing ``path`` was taken from, whether its real path is made or not."""
    found = _real.get(path)
    return found if found.__class__ is Walked else _unfolded.get(path)  # type: ignore[return-value]


def is_walked(path: str) -> bool:
    """Whether ``path`` is a regular file the walk took, its real path its folder's and name."""
    return _listed_in(path) is not None


def names(path: str, key: str) -> bool:
    """Whether ``path`` names the file whose real path is ``key``: ``real(path) == key``,
    without keeping a walked file's real path."""
    found = _real.get(path)
    if found.__class__ is Walked:
        return found.real_of(path) == key  # type: ignore[union-attr]
    return real(path) == key


def identity(path: str) -> tuple[str, str]:
    """(the key a table of the run's files holds ``path`` by, the real path of its folder): the
    path as named for a regular file the walk took (its real path is not made), else its real
    path."""
    folder = _listed_in(path)
    if folder is not None:
        return path, folder.folder
    key = real(path)
    return key, os.path.dirname(key)


def spellings(key: str) -> list[str]:
    """The paths, as the walk named them, of the regular files it took whose real path is
    ``key``: a run's tables of files hold a walked file by its path as named, not by a real path
    of its own."""
    cut = key.rfind(os.sep) + 1
    folders = _walked.get(key[:cut])
    if not folders:
        return []
    name = key[cut:]
    return [p for f in folders if _listed_in(p := f.named + name) is f]


def forget_some(paths: list[str]) -> None:
    """Forget the real paths of ``paths`` (asked again, they are found again), in a table of the
    size the rest needs (a dictionary keeps its table when entries are popped)."""
    global _real
    for path in paths:
        _real.pop(path, None)
    _real = dict(_real)


def run_memo() -> dict:
    """A dictionary for answers about the file system that hold for one run (what folder is a
    Helm chart...): emptied by :func:`forget`, with the real paths."""
    memo: dict = {}
    _memos.append(memo)
    return memo


_in_vcs = run_memo()  # path -> in_vcs_metadata(path)
_walked: dict[str, list[Walked]] = run_memo()  # a walked folder's real path -> its Walked


def forget() -> None:
    _real.clear()
    _unfolded.clear()
    for memo in _memos:
        memo.clear()


# --------------------------------------------------------------------------- the run's root

# version-control metadata: never read as a referenced input (``actions/checkout`` leaves the
# job's token in ``.git/config``)
VCS_DIRS = (".git", ".hg", ".svn")


def find_root(paths: list[str], cwd: str | None = None) -> str:
    """The root of a run given no ``--root``: the version-control top-level above the first
    named path (a folder holding ``.git``, ``.hg`` or ``.svn``), else the working directory.
    Returned as a real path."""
    here = os.path.realpath(cwd or os.getcwd())
    first = next((p for p in paths if p != "-"), None)
    if first is None:
        return here
    start = os.path.realpath(os.path.join(here, first))
    if not os.path.isdir(start):
        start = os.path.dirname(start)
    folder = start
    while True:
        if any(os.path.exists(os.path.join(folder, d)) for d in VCS_DIRS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent


def inside(path: str, root: str) -> bool:
    """Whether ``path``'s real path (symbolic links followed) lies in the real folder ``root``."""
    target = real(path)
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def in_vcs_metadata(path: str, walked: bool = False) -> bool:
    """Whether ``path`` (as named, or its real path) lies in a ``.git``, ``.hg`` or ``.svn`` folder.
    ``walked``: a file the folder walk found, asked once: the answer is not kept (a run of 20,000
    files held 20,000 of them)."""
    if walked:
        return _in_vcs_metadata(path)
    found = _in_vcs.get(path)
    if found is None:
        found = _in_vcs[path] = _in_vcs_metadata(path)
    return found


def _in_vcs_metadata(path: str) -> bool:
    for p in (os.path.abspath(path), real(path)):
        if (
            any(part in VCS_DIRS for part in p.split(os.sep)[:-1])
            or os.path.basename(p) in VCS_DIRS
        ):
            return True
    return False


def folder_in_vcs_metadata(folder: str, real_folder: str) -> bool:
    """Whether a folder (as named, and its real path ``real_folder``) lies in or is a ``.git``,
    ``.hg`` or ``.svn`` folder: :func:`in_vcs_metadata` of a file in it that is no link, but
    its name (the walk asks this once per folder)."""
    return any(
        part in VCS_DIRS for p in (os.path.abspath(folder), real_folder) for part in p.split(os.sep)
    )
