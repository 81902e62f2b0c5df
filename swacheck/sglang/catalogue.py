"""swacheck's built-in catalogue of the published DeepSeek-V4 checkpoints: what their config.json
files say, offline.

The data (``data/checkpoints.json``) is built by ``scripts/build_catalogue.py`` from the shared
research file (``shared/data/dsv4-published-checkpoints.json``) and held to it by
``tests/test_catalogue.py``. It is asked only when no ``config.json`` was found (``--model-config``,
a local folder, the Hugging Face cache: ``models.locate``), and never with
``--no-builtin-models`` / ``builtin-models = false``.

A model path matches an entry when it is the entry's hub id (any case), with no revision, ``main``,
or a revision the entry reflects (its commit, at least 7 hex digits of it, or a later commit whose
config.json is the same); or, for a local path, when its last folder is exactly the checkpoint's
name (any case: ``/models/DeepSeek-V4-Flash``; ``-Base`` is its own entry, never the Instruct one).
A path of the form ``ORG/NAME`` is a hub id (SGLang loads it from the Hub when no such folder
exists): ``someone/DeepSeek-V4-Flash`` matches nothing.

Status: ``confirmed`` entries hold the file byte for byte (a key they lack is absent from it);
``partial`` and ``geometry-only`` ones only what is confirmed, and every other key is unknown:
the catalogue supplies no value it does not confirm.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from typing import Any

from ..model.records import Location
from ..model.recordtype import record
from ..model.tree import Mapping, Pair, Scalar, Sequence

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "checkpoints.json")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")


@record(repr=False, eq=False)
class Entry:
    """One published checkpoint as the catalogue holds it."""

    id: str
    revision: str | None
    status: str  # "confirmed" | "partial" | "geometry-only"
    config: dict[str, Any]
    uncertain: tuple[str, ...]  # keys with single-source readings only: unknown to swacheck
    total_size: int | None
    expert_format: str | None  # "mxfp4" | "fp8" | "nvfp4" | None (unknown)
    same_config_revisions: tuple[str, ...]
    no_nextn_head: bool = False  # DSpark stages and no NextN head (a NEXTN/EAGLE draft cannot load)
    dspark_draft_bytes: int | None = None  # bytes of the files holding the DSpark stages

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]

    @property
    def label(self) -> str:
        """``swacheck's catalogue: deepseek-ai/DeepSeek-V4-Flash @60d8d707`` (and its status
        when it is not a full copy)."""
        notes = [] if self.status == "confirmed" else [self.status]
        if not self.revision:
            notes.append("revision not known")
        rev = f" @{self.revision[:8]}" if self.revision else ""
        return f"swacheck's catalogue: {self.id}{rev}" + (f" ({', '.join(notes)})" if notes else "")

    def confirms(self, key: str) -> bool:
        """Whether the entry gives ``key`` (top level or under ``text_config``)."""
        text = self.config.get("text_config")
        return key in self.config or (isinstance(text, dict) and key in text)


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    with open(DATA, encoding="utf-8") as fh:
        data = json.load(fh)
    return tuple(
        Entry(
            e["id"],
            e["revision"],
            e["status"],
            e["config"],
            tuple(e["uncertain"]),
            e["total_size"],
            e["expert_format"],
            tuple(e["same_config_revisions"]),
            e["no_nextn_head"],
            e["dspark_draft_bytes"],
        )
        for e in data["entries"]
    )


def by_id(model_id: str) -> Entry | None:
    low = model_id.lower()
    return next((e for e in entries() if e.id.lower() == low), None)


def revision_matches(entry: Entry, revision: str | None) -> bool:
    """No revision or ``main``: the entry (which names the revision it reflects); a commit: only
    the entry's own, or one whose config.json the research shows to be the same."""
    if revision is None or revision == "main":
        return True
    if not _COMMIT.match(revision) or entry.revision is None:
        return False
    rev = revision.lower()
    return any(known.startswith(rev) for known in (entry.revision, *entry.same_config_revisions))


def is_hub_id(model_path: str) -> bool:
    return bool(_HUB_ID.match(model_path)) and not os.path.isabs(model_path)


def match(model_path: str, revision: str | None = None) -> Entry | None:
    """The entry a model path names (see the module's docstring), or None."""
    path = model_path.strip()
    if not path:
        return None
    if is_hub_id(path):
        entry = by_id(path)
        return entry if entry is not None and revision_matches(entry, revision) else None
    return by_name(os.path.basename(path.rstrip("/\\")))


def by_name(folder: str) -> Entry | None:
    """The entry whose checkpoint name is exactly ``folder`` (any case)."""
    name = folder.lower()
    return next((e for e in entries() if e.name.lower() == name), None)


def missed_revision(model_path: str, revision: str | None) -> Entry | None:
    """The entry of a hub id whose pinned revision the catalogue does not reflect (for the
    not-found message), else None."""
    if not is_hub_id(model_path.strip()):
        return None
    entry = by_id(model_path.strip())
    return entry if entry is not None and not revision_matches(entry, revision) else None


def tree(entry: Entry) -> Mapping:
    """The entry's config as the position-keeping tree a config.json loads into; every value
    is read through ``ModelConfig``, which gives it the catalogue's name, never this position."""
    loc = Location(entry.label, 1, 1, 1, 1)

    def node(value: Any) -> Any:
        if isinstance(value, dict):
            return Mapping(loc, {k: Pair(k, loc, node(v)) for k, v in value.items()})
        if isinstance(value, list):
            return Sequence(loc, [node(v) for v in value])
        return Scalar(value, loc)

    return node(entry.config)
