"""The rule registry: one module per rule, listed here in code order.

A new rule is one new module (with CODE, NAME, SEVERITY, SUMMARY, a docstring in the
"what it does / why it matters / example / fix" shape, and ``check``) plus one line below.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    swa101,
    swa102,
    swa103,
    swa104,
    swa201,
    swa202,
    swa203,
    swa204,
    swa205,
    swa206,
    swa207,
    swa208,
    swa209,
    swa210,
    swa211,
    swa301,
    swa302,
    swa303,
    swa304,
    swa305,
    swa306,
    swa307,
    swa400,
    swa401,
    swa402,
    swa403,
    swa404,
    swa405,
    swa406,
    swa407,
    swa408,
    swa409,
    swa410,
    swa411,
    swa501,
    swa502,
    swa503,
    swa504,
    swa505,
    swa506,
    swa901,
    swa902,
)
from .base import RuleContext

# Rules with check(resolution, context), run on every deployment.
DEPLOYMENT_RULES: tuple[ModuleType, ...] = (
    swa101,
    swa102,
    swa103,
    swa104,
    swa201,
    swa202,
    swa203,
    swa204,
    swa205,
    swa206,
    swa207,
    swa208,
    swa209,
    swa210,
    swa211,
    swa301,
    swa302,
    swa303,
    swa304,
    swa305,
    swa306,
    swa307,
    swa501,
    swa502,
    swa503,
    swa504,
    swa505,
    swa506,
)
# Rules with check_pair(pair, context), run on every PD prefill/decode pair (swacheck/pairing.py).
PAIR_RULES: tuple[ModuleType, ...] = (
    swa401,
    swa402,
    swa403,
    swa404,
    swa405,
    swa406,
    swa407,
    swa408,
    swa409,
    swa410,
    swa411,
)
# Rules with check_suppressions(...), run once over the inline suppressions of the run.
SUPPRESSION_RULES: tuple[ModuleType, ...] = (swa901, swa902)

# SWA400 (check_alone) is reported by the pairing stage for servers left without a partner.
RULES: tuple[ModuleType, ...] = tuple(
    sorted(DEPLOYMENT_RULES + (swa400,) + PAIR_RULES + SUPPRESSION_RULES, key=lambda r: r.CODE)
)

BY_CODE = {rule.CODE: rule for rule in RULES}

__all__ = [
    "RULES",
    "DEPLOYMENT_RULES",
    "PAIR_RULES",
    "SUPPRESSION_RULES",
    "BY_CODE",
    "RuleContext",
    "get",
    "swa400",
]


def get(code: str) -> ModuleType | None:
    return BY_CODE.get(code.upper())
