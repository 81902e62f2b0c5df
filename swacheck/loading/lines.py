"""Character offsets -> 1-based line:column, as editors, CI annotations and ``--fix`` count them."""

from __future__ import annotations

import bisect
import re
from itertools import accumulate

from ..model.records import Location

_BREAKS = re.compile(r"\r\n|\r|\n")


class Lines:
    """Character offset -> 1-based line:column, breaking lines at CR, LF and CRLF only.

    libyaml also breaks lines at U+0085, U+2028 and U+2029; editors, CI annotations and
    ``--fix`` do not, so positions are recomputed from the mark's character index.
    """

    def __init__(self, text: str):
        if "\r" in text:
            self.starts = [0] + [m.end() for m in _BREAKS.finditer(text)]
        else:  # the usual text: each line starts one past the end of the one before (all in C)
            self.starts = list(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))
            self.starts.pop()  # the "line" after the text

    def pos(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def loc(self, path: str, start: int, end: int) -> Location:
        (l1, c1), (l2, c2) = self.pos(start), self.pos(end)
        return Location(path, l1, c1, l2, c2)

    def mark(self, path: str, mark) -> Location:  # type: ignore[no-untyped-def]
        return self.loc(path, mark.index, mark.index)
