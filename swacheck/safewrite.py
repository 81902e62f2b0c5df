"""Writing a fixed file safely: only over the exact bytes that were checked.

Each file is written under an exclusive ``flock`` and only when it still holds the bytes that
were checked (their SHA-256 recorded by ``loading.read_text``): a file that changed in between
is skipped with a message. Files are written through a symbolic link inside the root to its
target (the link stays), never outside the root, in place when the file has other hard links or
an owner this process cannot give a new file, else atomically (temporary file + rename, mode and
owner kept). Read-only files are refused.

The report (``--output``) and the baseline (``--write-baseline``) are opened with
:func:`open_new_file`, which never follows a symbolic link.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Protocol

from .model.text import one_line
from .paths import inside


class Checked(Protocol):
    """A file as it was checked (``fixplan.FileState``): its real path, the SHA-256 of the bytes
    that were checked, and the bytes to write."""

    real: str
    digest: bytes

    def data(self) -> bytes: ...


def write_verified(state: Checked, root: str) -> tuple[str, str] | None:
    """Write ``state``'s text over its file if the file still holds the checked bytes.

    None when written, else (``"skipped"`` or ``"failed"``, a message). The file's real path is
    written (through a symbolic link, which stays), only inside ``root``; under an exclusive
    ``flock`` (concurrent swacheck runs take turns and the second sees the file changed).
    """
    import hashlib  # here: a report written with --output needs no digest (2.7 ms to import)

    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no advisory locks, the digest check stays
        fcntl = None  # type: ignore[assignment]

    path = state.real
    if not inside(path, root):
        return "skipped", f"not written: it is outside the root {one_line(root)}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        return "failed", f"cannot write the fix: {exc.strerror or exc}; the file is unchanged"
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        st = os.fstat(fd)
        now = os.lstat(path)
        if (st.st_dev, st.st_ino) != (now.st_dev, now.st_ino):
            return (
                "skipped",
                "not written: it changed since it was checked (replaced); run swacheck again",
            )
        data = _read_all(fd, st.st_size)
        if hashlib.sha256(data).digest() != state.digest:
            return "skipped", "not written: it changed since it was checked; run swacheck again"
        if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
            return (
                "failed",
                "not written: the file is read-only (make it writable to apply the fix)",
            )
        new = state.data()
        try:
            if st.st_nlink > 1 or not _replace(path, new, st):
                _write_in_place(
                    path, new
                )  # keeps hard links (and an owner we could not give a new file)
        except OSError as exc:
            return "failed", f"cannot write the fix: {exc.strerror or exc}; the file is unchanged"
        return None
    finally:
        os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    """The file's bytes, at most ``size`` + 1 of them (its size when it was opened): enough to
    compare with the checked bytes, never more than the file held."""
    chunks, left = [], size + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _replace(path: str, data: bytes, st: os.stat_result) -> bool:
    """Write a temporary file next to ``path`` with its mode and owner and rename it over
    ``path``. False (nothing changed) when the owner cannot be given to the new file."""
    import tempfile

    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".swacheck", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))
            if _owner_differs(os.fstat(fh.fileno()), st):
                try:
                    os.fchown(fh.fileno(), st.st_uid, st.st_gid)
                except PermissionError:
                    os.unlink(tmp)
                    return False
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return True
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _owner_differs(mine: os.stat_result, st: os.stat_result) -> bool:
    return (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid)


def _write_in_place(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- reports and baselines


class LinkRefused(OSError):
    """``--output``/``--write-baseline`` named a symbolic link (or a path through one)."""

    def __init__(self, name: str, last: bool) -> None:
        what = (
            "it is a symbolic link"
            if last
            else f"{one_line(name)!r} on its path is a symbolic link"
        )
        text = f"{what}, and swacheck does not write through links (give the file itself)"
        super().__init__(text)
        self.strerror = text


def open_new_file(path: str):  # type: ignore[no-untyped-def]
    """``open(path, "w")`` for the report (``--output``) and the baseline (``--write-baseline``),
    without following a symbolic link: a checkout can hold a committed link (a dangling one too)
    where the workflow writes its report, which would make swacheck overwrite a file outside the
    tree. The file itself, and every folder of the path that lies in the working directory, must
    not be a link (opened one by one relative to each other, so nothing can be swapped in
    between); a folder above or outside the working directory is the caller's own. Raises
    :class:`LinkRefused` (an ``OSError``) for a link, ``OSError`` for anything else."""
    parts, start = _own_parts(path)
    fd = os.open(start, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    for part in parts[:-1]:  # each step closes the folder it opened from
        fd = _step(fd, part, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), False)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = _step(fd, parts[-1], flags, True)
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):  # pragma: no cover - O_WRONLY refuses a folder
            raise IsADirectoryError(21, "Is a directory")
        os.set_blocking(fd, True)  # opened without blocking (a FIFO), written as a file
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def _own_parts(path: str) -> tuple[list[str], str]:
    """``path``'s components to open without following links, and the folder they start from
    (opened as named): the working directory for a path inside it, else the path's folder."""
    here = os.getcwd()
    full = os.path.join(here, path)
    norm = os.path.normpath(full)
    if not os.path.isabs(path) or norm == here or norm.startswith(here.rstrip(os.sep) + os.sep):
        rel = os.path.relpath(full, here) if os.path.isabs(path) else path
        parts = [p for p in rel.split(os.sep) if p not in ("", ".")]
        if parts:
            return parts, "."
    folder, name = os.path.split(norm)
    return [name or "."], folder or os.sep


def _step(fd: int, name: str, flags: int, last: bool) -> int:
    """Open ``name`` in the folder ``fd`` (then closed) without following a link there."""
    try:
        try:
            return os.open(name, flags | getattr(os, "O_NOFOLLOW", 0), 0o666, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and _is_link(fd, name):
                raise LinkRefused(name, last) from None
            raise
    finally:
        os.close(fd)


def _is_link(fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode)
    except OSError:
        return False
