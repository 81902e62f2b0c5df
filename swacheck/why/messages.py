"""The five DSV4 target/draft messages, per SGLang release: their wordings, tuple fields and lines.

SGLang raises them in ``setup_state_kv_args`` (``python/sglang/srt/disaggregation/utils.py`` of
each release 0.5.16 - 0.5.23), in the order of ``CHECK_ORDER``; ``MESSAGE_LINES`` holds the
line of each message in that file, per release, to date a traceback frame. They are release
facts: the release profiles (``swacheck/sglang/version.py``) hold them, ``why`` reads them here.
"""

from __future__ import annotations

from ..sglang.version import CHECK_ORDER, MESSAGE_LINES, VERSIONS, WORDINGS, Wording

__all__ = ["CHECK_ORDER", "MESSAGE_LINES", "VERSIONS", "WORDINGS", "Wording", "EXAMPLE"]

EXAMPLE = "DSV4 target and draft pools must share SWA ring geometry: target=(...), draft=(...)"
