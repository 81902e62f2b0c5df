"""The five DSV4 target/draft messages, per SGLang release: their wordings, tuple fields and lines.

SGLang raises them in ``setup_state_kv_args`` (``python/sglang/srt/disaggregation/utils.py`` of
each release 0.5.16 - 0.5.23), in the order of ``CHECK_ORDER``; ``MESSAGE_LINES`` holds the
line of each message in that file, per release, to date a traceback frame.
"""

from __future__ import annotations

from dataclasses import dataclass

VERSIONS = ("0.5.16", "0.5.17", "0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")

# The line of each message in srt/disaggregation/utils.py, in check order:
# (draft_ratios, unified_mode, ring, mapping, paged)
MESSAGE_LINES = {
    "0.5.16": (965, 969, 985, 998, 1010),
    "0.5.17": (1141, 1145, 1161, 1174, 1186),
    "0.5.18": (1192, 1196, 1212, 1225, 1237),
    "0.5.19": (1252, 1256, 1272, 1285, 1297),
    "0.5.20": (1596, 1600, 1616, 1629, 1641),
    "0.5.21": (1620, 1624, 1640, 1653, 1665),
    "0.5.22": (1720, 1724, 1740, 1753, 1765),
    "0.5.23": (1786, 1790, 1806, 1819, 1836),
}
CHECK_ORDER = ("draft_ratios", "unified_mode", "ring", "mapping", "paged")


@dataclass(frozen=True, slots=True)
class Wording:
    kind: str  # "draft_ratios" | "unified_mode" | "ring" | "mapping" | "paged"
    text: str  # the message, up to and including "geometry:" for the tuple messages
    fields: tuple[str, ...]  # the tuple's fields; () for the messages without tuples
    versions: tuple[str, ...]  # the releases that print this wording
    check: str  # what SGLang compares there, in a few words

    @property
    def version_range(self) -> str:
        return (
            self.versions[0]
            if len(self.versions) == 1
            else f"{self.versions[0]} – {self.versions[-1]}"
        )


WORDINGS = (
    Wording(
        "draft_ratios",
        "DSV4 draft state transfer expects SWA-only NextN layers",
        (),
        VERSIONS,
        "draft compression ratios (check 1 of 5)",
    ),
    Wording(
        "unified_mode",
        "DSV4 target and draft pools must use the same unified-KV mode",
        (),
        VERSIONS,
        "unified-KV mode of the two pools (check 2 of 5)",
    ),
    Wording(
        "ring",
        "DSV4 target and draft pools must share SWA ring geometry:",
        ("window", "ring_size", "pages"),
        VERSIONS,
        "unified KV: SWA ring geometry (window, ring_size, pages)",
    ),
    Wording(
        "mapping",
        "DSV4 target and draft pools must share the SWA index mapping",
        (),
        VERSIONS,
        "paged KV: the SWA index mapping object (compared with `is`)",
    ),
    Wording(
        "paged",
        "DSV4 target and draft pools must share paged SWA geometry:",
        ("page_size", "sliding_window"),
        VERSIONS[:7],
        "paged KV: SWA geometry (page_size, sliding_window)",
    ),
    Wording(
        "paged",
        "DSV4 target and draft pools must share SWA geometry:",
        ("page_size", "sliding_window", "ring_capacity"),
        VERSIONS[7:],
        "paged KV: SWA geometry (page_size, sliding_window, ring_capacity)",
    ),
)

EXAMPLE = "DSV4 target and draft pools must share SWA ring geometry: target=(...), draft=(...)"
