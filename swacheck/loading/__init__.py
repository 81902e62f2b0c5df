"""Bytes -> a position-keeping tree (``swacheck/model/tree.py``: :class:`Scalar`,
:class:`Mapping`, :class:`Sequence`, documents and files), for YAML (also multi-document) and
JSON.

Only regular files are read, within the size budgets of ``limits``; each file is read and
parsed once per run (:class:`FileCache`). The parsers live beside this module:

- ``yaml_events``: YAML from libyaml's events (safe loading only; any non-standard tag refused);
- ``json_parser``: an exact JSON parser of our own, because the standard library keeps no
  positions;
- ``lines``: offsets -> ``line:col``.

Every key and value keeps its 1-based ``line:col`` span, and duplicate keys are recorded
(the later one wins, as PyYAML and ``json`` do, since that is what SGLang reads).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import Any

from .. import limits
from ..model.records import InputProblem, Location
from ..model.text import one_line
from ..model.tree import (
    DEFAULT_MAX_FILE_SIZE,
    MAX_DEPTH,
    MAX_PLAIN_NODES,
    SourceFile,
)
from ..paths import fold, is_walked, real, run_memo
from .json_parser import _JsonParser, parse_json
from .lines import Lines
from .yaml_events import _SafeLoader, _YamlConverter, _YamlLoader, parse_yaml

__all__ = [
    "CHECKED",
    "DEFAULT_MAX_FILE_SIZE",
    "MAX_DEPTH",
    "MAX_PLAIN_NODES",
    "OVERLAY",
    "FileCache",
    "Lines",
    "_JsonParser",
    "_SafeLoader",
    "_YamlConverter",
    "_YamlLoader",
    "decode",
    "is_json_path",
    "load_file",
    "not_regular",
    "parse_json",
    "parse_yaml",
    "read_bytes",
    "read_stdin",
    "read_text",
    "special_kind",
    "walked_regular",
]


# --fix and --diff only (``fixer.py``): the digest of the exact bytes read of each file (real path
# -> sha256), so a fix is written only over the bytes that were checked; and proposed texts that
# stand in for files while the fixes are re-checked (real path -> bytes), so nothing is written
# before it has been verified.
CHECKED: dict[str, bytes] | None = None
OVERLAY: dict[str, bytes] = {}


def special_kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in a few words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(path: str, kind: str) -> InputProblem:
    if kind == "a directory":
        return InputProblem("is a directory, expected a file", file=path)
    return InputProblem(
        f"is {kind}, not a regular file: swacheck reads only regular files (use - for standard input)",
        file=path,
    )


_walked = run_memo()  # path -> True: a regular file, as the folder walk listed it


def walked_regular(path: str) -> None:
    """Record that the folder walk listed ``path`` as a regular file (the listing's own type, no
    ``stat``): it is opened without the ``stat`` that comes first for any other path. The
    ``fstat`` after the open still refuses it if it was swapped for something else since, and
    the open refuses a symbolic link swapped in (``O_NOFOLLOW``): the run took the file's real
    path from its folder's (``paths.Walked``), so a link there would be read as a file inside
    the root wherever it leads."""
    _walked[path] = True


_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_LINK = getattr(os, "O_NOFOLLOW", 0)
SWAPPED = "became a symbolic link after its folder was listed; not read"


def _read_regular(path: str, max_size: int, charge: bool = True) -> bytes:
    """The bytes of a regular file of at most ``max_size`` bytes (one more if it grows while it
    is read); a file that is not regular is refused before it is opened and again once it is."""
    flags = _OPEN_FLAGS
    if _walked.pop(path, None) is None:  # each listed file is read once: its entry goes
        kind = special_kind(os.stat(path).st_mode)
        if kind is not None:
            raise not_regular(path, kind)
        if is_walked(path):  # read again: still the file its folder listed, never a link
            flags |= _NO_LINK
    else:
        flags |= _NO_LINK
        if not _walked:  # the last one: a dictionary keeps its table when emptied by pops
            _walked.clear()
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and flags & _NO_LINK:
            raise InputProblem(SWAPPED, file=path) from None
        raise
    try:
        st = os.fstat(fd)
        kind = special_kind(st.st_mode)
        if kind is not None:
            raise not_regular(path, kind)
        size = st.st_size
        if size > max_size:
            raise InputProblem(
                f"file is {size} bytes, above the {max_size}-byte limit (--max-file-size)",
                file=path,
            )
        if charge:  # a file read again (FileCache.AHEAD_CHARS) is counted once
            limits.charge_read(size, path)
        # a regular file's size is known: never allocate more than one byte beyond it (that
        # byte tells a file that grew); a file system that gives less than asked is read on
        data = os.read(fd, size + 1)
        while 0 < len(data) < size and (more := os.read(fd, size + 1 - len(data))):
            data += more
        return data
    finally:
        os.close(fd)


def read_bytes(path: str, max_size: int) -> bytes:
    """A regular file's bytes through the same reader as every input (no FIFO or device opened
    so that it could block, every byte charged to the run's budget), for a file with a size
    limit of its own (``checkpoint.MAX_INDEX_BYTES``). Raises :class:`InputProblem` or ``OSError``."""
    data = _read_regular(path, max_size)
    if len(data) > max_size:  # a file that grew while it was read
        raise InputProblem(f"file is more than {max_size} bytes, above its limit", file=path)
    return data


def read_text(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE, charge: bool = True) -> str:
    """Read a regular file as UTF-8 text (a BOM is accepted), refusing binary and oversized files.

    Only regular files are opened: a FIFO, a device or a socket (``/dev/zero``, ``/dev/stdin``,
    a named pipe in a walked folder) is refused after a ``stat``, and the file is then opened
    with ``O_NONBLOCK`` and checked again with ``fstat`` (it may have been swapped in between),
    so no open or read can block. Every byte counts against the run's budget (``limits``).
    """
    if OVERLAY and path != "-" and real(path) in OVERLAY:
        return decode(OVERLAY[real(path)], path)
    max_size = min(max_size, limits.MAX_FILE_SIZE)
    if "\0" in path:
        raise InputProblem(
            "no such file: the name holds a NUL byte, which no file name can", file=path
        )
    try:
        data = _read_regular(path, max_size, charge)
    except InputProblem:
        raise
    except IsADirectoryError:
        raise InputProblem("is a directory, expected a file", file=path) from None
    except FileNotFoundError:
        raise InputProblem("no such file", file=path) from None
    except PermissionError:
        raise InputProblem("permission denied", file=path) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputProblem(f"cannot read: {reason}", file=path) from None
    if len(data) > max_size:  # a file that grew while it was read
        raise InputProblem(
            f"file is more than {max_size} bytes, above the limit (--max-file-size)", file=path
        )
    if CHECKED is not None and path != "-":
        import hashlib

        CHECKED.setdefault(real(path), hashlib.sha256(data).digest())
    return decode(data, path)


def read_stdin(stream, max_size: int = DEFAULT_MAX_FILE_SIZE) -> str:  # type: ignore[no-untyped-def]
    """Standard input (``-``), read up to the size limit: the one input that is not a regular file."""
    max_size = min(max_size, limits.MAX_FILE_SIZE)
    if stream is None or stream.closed:
        return ""
    raw = getattr(stream, "buffer", None)
    data = raw.read(max_size + 1) if raw is not None else stream.read(max_size + 1)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > max_size:
        raise InputProblem(
            f"standard input is more than {max_size} bytes, above the limit (--max-file-size)",
            file="-",
        )
    limits.charge_read(len(data), "-")
    return decode(data, "-")


def decode(data: bytes, path: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputProblem("file is UTF-16 encoded; save it as UTF-8", file=path)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputProblem(
            "NUL byte: this is a binary file, not YAML or JSON", Location(path, line, 1, line, 1)
        )
    try:  # "utf-8-sig" in C: that codec is written in Python (its offsets are the BOM-less ones)
        text = (data[3:] if data.startswith(b"\xef\xbb\xbf") else data).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1  # in characters
        raise InputProblem(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            Location(path, line, col, line, col + 1),
        ) from None
    return text


def is_json_path(path: str) -> bool:
    return path.lower().endswith(".json")


def load_file(
    path: str, max_size: int = DEFAULT_MAX_FILE_SIZE, text: str | None = None
) -> SourceFile:
    """Load one file into position-keeping documents. Raises :class:`InputProblem`."""
    if text is None:
        text = read_text(path, max_size)
    if is_json_path(path):
        return SourceFile(path, text, [parse_json(text, path)], "json")
    seen = [0]
    documents = list(parse_yaml(text, path, seen))
    return SourceFile(path, text, documents, "yaml", seen[0])


def _attempt(make: Callable[[], Any]) -> Any:
    """``make()``, or the :class:`InputProblem` it raised: the cache keeps either, so a file that
    cannot be read or parsed is tried once and reported wherever it is asked for."""
    try:
        return make()
    except InputProblem as problem:
        return problem


def _unwrap(hit: Any) -> Any:
    if isinstance(hit, InputProblem):
        raise hit
    return hit


class FileCache:
    """Loads each file once per run, however many deployments share it (model configs).

    Texts read ahead of their unit are kept up to ``AHEAD_CHARS`` characters in all (512 Ki, the
    texts of some 1,800 tiny configs; at 2 Mi they were a fifth of what 20,000 held); past that
    a file is read again when its unit loads it (its bytes counted once against the run's
    budget when the unit names it as it was read ahead, as a walk's units do), so that a run of
    many files does not hold every text from start to end.

    A run checked in units (``engine``) reads files ahead with :meth:`read` and drops a unit's
    files with :meth:`evict` once the unit is reported; a file that is still wanted is kept
    with :meth:`keep` (model configs, shared by every unit).
    """

    AHEAD_CHARS = 1 << 19

    def __init__(self, max_size: int = DEFAULT_MAX_FILE_SIZE, root: str | None = None):
        self.max_size = max_size
        self.root = root  # the run's root (a real path): referenced files are read only inside it
        self._files: dict[str, SourceFile | InputProblem] = {}
        self._ahead: dict[
            str, str | SourceFile | InputProblem
        ] = {}  # read (or parsed) ahead of its unit
        self._kept: set[str] = set()
        self._given: dict[str, str] = {}  # path -> text given in memory (provide)
        # a --fix session (recheck.py): nothing is evicted, so the next round reuses the parse
        # of every file it did not change; ``touched`` collects the real paths asked for
        self.persistent = False
        self.touched: set[str] | None = None
        self._ahead_chars = 0  # of the texts kept in _ahead
        # read ahead, not kept: read again, not charged again. Kept as named when read (the
        # candidate's own string; a walked file's real path is made when asked, ``paths.real``),
        # so a load that names the file another way charges its bytes a second time
        self._again: set[str] = set()

    def read(self, path: str) -> str:
        """A file's text, read now and kept until :meth:`load` parses it. Raises :class:`InputProblem`."""
        key = real(path)
        if self.touched is not None:
            self.touched.add(key)
        hit = self._ahead.get(key)
        if hit is None:
            loaded = self._files.get(key)
            if isinstance(loaded, SourceFile):
                return loaded.text
            hit = _attempt(lambda: read_text(path, self.max_size))
            if isinstance(hit, str) and self._ahead_chars + len(hit) > self.AHEAD_CHARS:
                self._again.add(path)
                return hit
            self._ahead[key] = hit
            self._ahead_chars += len(hit) if isinstance(hit, str) else 0
        hit = _unwrap(hit)
        return hit if isinstance(hit, str) else hit.text

    def parse_ahead(self, path: str) -> SourceFile:
        """Parse a file read with :meth:`read` now; :meth:`load` hands this parse to its unit."""
        key = real(path)
        hit = self._ahead.get(key)
        if not isinstance(hit, SourceFile):
            hit = self._ahead[key] = _attempt(
                lambda: load_file(path, self.max_size, self.read(path))
            )
        return _unwrap(hit)  # type: ignore[return-value]

    def load(self, path: str, text: str | None = None) -> SourceFile:
        key = real(path)
        if self.touched is not None:
            self.touched.add(key)
        hit = self._files.get(key)
        if hit is None:
            ahead = self._ahead.pop(key, None)
            if isinstance(ahead, str):
                self._ahead_chars -= len(ahead)
            elif ahead is None and text is None and path in self._again:
                self._again.discard(path)
                ahead = _attempt(lambda: read_text(path, self.max_size, charge=False))
            if isinstance(ahead, (InputProblem, SourceFile)):
                hit = ahead
            else:
                hit = _attempt(
                    lambda: load_file(path, self.max_size, text if text is not None else ahead)
                )
            self._files[key] = hit
        return _unwrap(hit)  # type: ignore[return-value]

    def provide(self, path: str, text: str) -> None:
        """Use ``text`` as the contents of ``path`` for this run (``--stdin-filename``,
        ``swacheck.check_text``): read, parsed and suppressed as that file, never read from disk."""
        self._given[real(path)] = text
        self._ahead[real(path)] = text
        self.keep(path)

    def provided(self, path: str) -> str | None:
        """The text given for ``path`` with :meth:`provide`, if any."""
        return self._given.get(real(path)) if self._given else None

    def text_of(self, path: str) -> str | None:
        """The text of a file this run has already read (loaded, read ahead or given), else None:
        never a new read."""
        key = real(path)
        for hit in (self._files.get(key), self._ahead.get(key), self._given.get(key)):
            if isinstance(hit, str):
                return hit
            if isinstance(hit, SourceFile):
                return hit.text
        return None

    def check_reference(self, path: str, at: Location | None, what: str = "file") -> None:
        """Refuse a file that an input refers to (``server:``, ``env_file``, a sourced script,
        ``--config``, ``pairs:``) when it lies outside the run's root or inside version-control
        metadata. The message names the path only: nothing of the file is read."""
        from ..paths import in_vcs_metadata, inside

        shown = one_line(path)
        if in_vcs_metadata(path):
            raise InputProblem(
                f"{what} {shown!r} is inside version-control metadata; swacheck never reads it",
                at,
                file=path,
            )
        if self.root is not None and path != "-" and not inside(path, self.root):
            raise InputProblem(
                f"{what} {shown!r} is outside the root {one_line(self.root)!r}; swacheck "
                f"reads files that inputs refer to only inside it (--root)",
                at,
                file=path,
            )

    def is_readable_reference(self, path: str) -> bool:
        """Whether :meth:`check_reference` lets ``path`` be read (for files read only when present)."""
        try:
            self.check_reference(path, None)
        except InputProblem:
            return False
        return True

    def remember(self, path: str, source: SourceFile) -> SourceFile:
        """Keep a file read another way (a shell script, a Dockerfile), so suppressions and fixes see it."""
        return self._files.setdefault(real(path), source)  # type: ignore[return-value]

    def keep(self, path: str) -> None:
        """Never evict this file (a model config: every unit may need it)."""
        self._kept.add(real(path))

    def evict(self) -> None:
        """Forget every file parsed so far except the kept ones: their unit has been reported.
        Files read ahead stay (they belong to later units)."""
        if not self.persistent:
            self._files = {k: v for k, v in self._files.items() if k in self._kept}
        fold()

    def release(self) -> None:
        """Forget everything read and parsed: the run is planned again with a new cache
        (``recheck.Recheck``), and whatever still refers to this one holds no file."""
        self._files, self._ahead, self._kept = {}, {}, set()
        self._ahead_chars = 0

    def forget(self, keys: set[str]) -> None:
        """Drop what was read and parsed of these files (real paths): their text changed."""
        for key in keys:
            self._files.pop(key, None)
            self._ahead.pop(key, None)

    def let_go(self, paths: list[str]) -> None:
        """Forget what was read ahead of these files (as named when read), unless they are
        kept: their units are checked by another process (``workers.let_go_of_others``)."""
        for path in paths:
            key = real(path)
            if key in self._kept:
                continue
            ahead = self._ahead.pop(key, None)
            if isinstance(ahead, str):
                self._ahead_chars -= len(ahead)
            self._again.discard(path)
            self._files.pop(key, None)
        self._again = set(self._again)  # a set keeps its table when entries are discarded

    def is_kept(self, key: str) -> bool:
        return key in self._kept

    def __len__(self) -> int:
        return len(self._files)
