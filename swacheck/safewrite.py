"""Writing a fixed file safely: only over the exact bytes that were checked.

Each file is written under an exclusive ``flock`` and only when it still holds the bytes that
were checked (their SHA-256 recorded by ``loading.read_text``): a file that changed in between
is skipped with a message. Files are written through a symbolic link inside the root to its
target (the link stays), never outside the root, in place when the file has other hard links or
an owner this process cannot give a new file, else atomically (temporary file + rename, mode and
owner kept). Read-only files are refused.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Protocol

from .paths import inside
from .records import one_line


class Checked(Protocol):
    """A file as it was checked (``fixplan.FileState``): its real path, the SHA-256 of the bytes
    that were checked, and the bytes to write."""

    real: str
    digest: str

    def data(self) -> bytes: ...


def write_verified(state: Checked, root: str) -> tuple[str, str] | None:
    """Write ``state``'s text over its file if the file still holds the checked bytes.

    None when written, else (``"skipped"`` or ``"failed"``, a message). The file's real path is
    written (through a symbolic link, which stays), only inside ``root``; under an exclusive
    ``flock`` (concurrent swacheck runs take turns and the second sees the file changed).
    """
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
        if hashlib.sha256(data).hexdigest() != state.digest:
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
