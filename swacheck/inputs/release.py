"""The SGLang release a launch's own file names: an image tag or a pip pin.

Real launches say which SGLang they run in the image they start (``lmsysorg/sglang:v0.5.19-cu129``,
``lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x``, ``rocm/sgl-dev:v0.5.22-rocm720-mi35x-20261020``)
or the package they install (``pip install sglang==0.5.22``, ``"sglang[all]==0.5.22"``). When
``--sglang-version`` is not given, that release decides the profile the deployment is checked
with (``engine``); an image without a release in its tag (``latest``, ``dev``, no tag) leaves the
default, and the report says so. A fork's package or image (``sglang-kt``, KTransformers images)
is recognised too (``fork``).

Only the text of the deployment's own file is read (the run already holds it); when the file
names several releases, the one nearest before the launch is taken (a Compose service's
``image:`` precedes its ``command:``), else the first after it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..model.records import Location
from ..model.recordtype import record

_VERSION = r"v?(0\.\d{1,3}\.\d{1,3}(?:\.post\d{1,3})?)"
# an image whose repository is SGLang's: lmsysorg/sglang, lmsysorg/sglang-rocm, rocm/sgl-dev,
# a mirror's .../sglang; then an optional :tag
_IMAGE = re.compile(
    r"(?<![\w./-])((?:[\w.-]+(?::\d+)?/)*(?:sglang(?:-rocm|-npu)?|sgl-dev))(?::([\w.-]{1,128}))?(?![\w/-])",
    re.IGNORECASE,
)
_TAG_RELEASE = re.compile(rf"(?:^|[^\d.]){_VERSION}(?![\d])")
# sglang==X (with extras, quotes): not amd-sglang, sglang-router, sglang-kt
_PIN = re.compile(
    rf"(?<![\w.-])sglang(?:\[[\w,\s-]{{0,80}}\])?\s*==\s*{_VERSION}(?![\w.])", re.IGNORECASE
)
_FORK = re.compile(
    r"(?<![\w.-])(sglang[-_]kt(?:\[[\w,\s-]{0,80}\])?\s*==\s*v?(\d{1,3}\.\d{1,3}\.\d{1,3}(?:\.post\d{1,3})?)"
    r"|sglang[-_]kt\b|[\w.-]+/ktransformers(?::[\w.-]{1,128})?)",
    re.IGNORECASE,
)
MAX_SCAN = 4 * 1024 * 1024  # the first 4 MiB of a file: where launches name their image


@record(frozen=True)
class Mention:
    """A place in a file that names an SGLang release (or names SGLang without one)."""

    line: int
    version: str  # "" for an image whose tag names no release (latest, dev, none)
    source: str  # "image tag lmsysorg/sglang:v0.5.19-cu129", "pip pin sglang==0.5.22"
    location: Location


def _loc(file: str, text: str, start: int, end: int) -> Location:
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    return Location(file, line, col, line, col + (end - start))


def _names_none(text: str) -> bool:
    """Whether the text can name no SGLang image, pin or fork: each of those holds ``sgl`` or
    ``ktransformers`` (the expressions ignore case; past ASCII, case folding has more ways to
    spell them, so only an ASCII text is passed over). Most server configs name none."""
    if not text.isascii():
        return False
    low = text.lower()
    return "sgl" not in low and "ktransformers" not in low


def mentions(file: str, text: str) -> list[Mention]:
    """Every image of SGLang's and every pip pin of SGLang in the text, in order."""
    text = text[:MAX_SCAN]
    if _names_none(text):
        return []
    out: list[Mention] = []
    for m in _IMAGE.finditer(text):
        repo, tag = m.group(1), m.group(2)
        if "/" not in repo and tag is None:
            continue  # a bare word "sglang" (python -m sglang.launch_server, a path): no image
        image = repo + (f":{tag}" if tag else "")
        r = _TAG_RELEASE.search(tag or "")
        version = r.group(1) if r else ""
        out.append(Mention(0, version, f"image tag {image}", _loc(file, text, m.start(), m.end())))
    for m in _PIN.finditer(text):
        pin = re.sub(r"\s+", "", m.group(0))
        source = f"pip pin {pin}"
        out.append(Mention(0, m.group(1), source, _loc(file, text, m.start(), m.end())))
    return sorted(
        (Mention(x.location.line, x.version, x.source, x.location) for x in out),
        key=lambda x: (x.location.line, x.location.column),
    )


def nearest(found: list[Mention], line: int | None) -> Mention | None:
    """The mention a launch at ``line`` runs with: the only release named, else the nearest before."""
    if not found:
        return None
    if len({m.version for m in found}) == 1 or line is None:
        return found[0]
    before = [m for m in found if m.line <= line]
    return before[-1] if before else found[0]


def fork(file: str, text: str) -> tuple[str, Location] | None:
    """A fork of SGLang the text installs or starts: ("sglang-kt", where), else None."""
    m = None if _names_none(text[:MAX_SCAN]) else _FORK.search(text[:MAX_SCAN])
    if m is None:
        return None
    return "sglang-kt", _loc(file, text, m.start(), m.end())


@lru_cache(maxsize=2)
def _scan(file: str, text: str) -> tuple[list[Mention], tuple[str, Location] | None]:
    """Once per file, however many deployments it holds (the text is the run's own object, so a
    hit costs no comparison of the text)."""
    return mentions(file, text), fork(file, text)


def note(dep, text: str | None) -> None:  # type: ignore[no-untyped-def]
    """Set ``dep.release`` (and ``dep.fork``) from the text of the deployment's own file."""
    from ..model.records import Val

    if not text:
        return
    found, f = _scan(dep.file, text)
    line = dep.location.line if dep.location is not None else None
    m = nearest(found, line)
    if m is not None:
        dep.release = Val(m.version, m.source, m.location)
    if f is not None:
        dep.fork = Val(f[0], "the file installs or starts sglang-kt", f[1])
