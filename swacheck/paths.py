"""Canonical file identities, resolved once per run.

A run asks for the real path of the same files many times (the file cache, discovery,
pairing, suppressions, fixes). ``os.path.realpath`` does an ``lstat`` per path component, so
each answer is kept for the rest of the run; :func:`forget` starts a new run (the working
directory or symbolic links may have changed in between, in tests for instance).
"""

from __future__ import annotations

import os

_real: dict[str, str] = {}


def real(path: str) -> str:
    """``os.path.realpath(path)``, computed once per run; ``-`` (standard input) stays ``-``."""
    found = _real.get(path)
    if found is None:
        found = _real[path] = path if path == "-" else os.path.realpath(path)
    return found


def remember_real(path: str, found: str) -> str:
    """Record ``path``'s real path, found another way (a folder's real path and a file name)."""
    _real[path] = found
    return found


def forget() -> None:
    _real.clear()
