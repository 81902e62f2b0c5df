"""What resolving one deployment yields: each KV pool's geometry, the values, the events.

Plain records, built by the stages in ``sglang/stages/`` and read by the rules and the reports.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from ..model.recordtype import record
from .events import Event, Kind

if TYPE_CHECKING:
    from ..model.deployment import Deployment
    from ..model.records import Val
    from .models import ModelConfig
    from .version import SGLangProfile


@record(repr=False, eq=False)
class Pool:
    """One KV pool (target or draft) as SGLang sizes it, every number with its provenance."""

    role: str  # "target" | "draft"
    model: ModelConfig | None
    unified: Val
    window: Val  # sliding_window of the model (unified_swa_window)
    ring_size: Val
    pages: Val
    page_size: Val
    ring_capacity: Val  # third element of the 0.5.23 paged tuple
    compression_ratios: Val | None = None

    def fields(self, mode: str, profile: SGLangProfile) -> list[tuple[str, Val]]:
        """The named values SGLang compares, in tuple order."""
        if mode == "unified":
            return [("window", self.window), ("ring_size", self.ring_size), ("pages", self.pages)]
        out = [("page_size", self.page_size), ("sliding_window", self.window)]
        if profile.paged_tuple_has_third:
            out.append(("ring_capacity", self.ring_capacity))
        return out

    def tuple(self, mode: str, profile: SGLangProfile) -> tuple:
        return tuple(v.value for _, v in self.fields(mode, profile))


@record(repr=False, eq=False)
class Resolution:
    """A deployment resolved as SGLang would: its values, events, pool mode and pools."""

    deployment: Deployment
    profile: SGLangProfile
    values: dict[str, Val]  # resolved server arguments and derived counts, by name
    events: list[Event]
    mode: str  # "unified" | "paged" | "skipped"
    skip_reason: str = ""
    target: Pool | None = None
    draft: Pool | None = None
    pd: bool = False
    checked_by_sglang: bool = False  # SGLang would run the DSV4 target/draft block
    duplicates: list = field(default_factory=list)  # duplicate keys in every file it read
    # Not swacheck's business (sglang/applicable.py): "other" -- another model, no finding at
    # all; "no-pools" / "unknown" -- only what the reader saw in the text (SWA306, SWA307).
    quiet: str = ""
    # pd.compared_values, made once: a --fix round pairs again the resolutions it kept
    compared: dict[str, Val] | None = None

    def events_of(self, *kinds: Kind) -> list[Event]:
        """The events of these kinds, in the order they were recorded (a string that names no
        kind is a ``ValueError``: a misspelt selection never silently selects nothing)."""
        wanted = _WANTED.get(kinds)
        if wanted is None:  # checked once per selection: rules ask the same ones every time
            wanted = _WANTED[kinds] = frozenset(Kind(k) for k in kinds)
        events = self.events
        return [e for e in events if e.kind in wanted] if events else []  # most have none


_WANTED: dict[tuple[Kind, ...], frozenset[Kind]] = {}  # a selection of kinds -> its set
