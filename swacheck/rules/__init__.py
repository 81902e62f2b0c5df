"""The rule registry: one module per rule, listed here in code order.

A new rule is one new module plus one line in the import list and one in ``RULES``
(docs/architecture.md, "Add a rule"). A rule module holds CODE, NAME, SEVERITY, SCOPE, SUMMARY,
FIX_SAFETY, a docstring in the "what it does / why it matters / example / fix" shape, and the
function its SCOPE names (``SCOPES`` below); the engine runs each rule by its SCOPE alone.
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
    swa212,
    swa213,
    swa214,
    swa215,
    swa217,
    swa218,
    swa219,
    swa220,
    swa221,
    swa222,
    swa223,
    swa224,
    swa230,
    swa240,
    swa241,
    swa242,
    swa243,
    swa244,
    swa245,
    swa246,
    swa247,
    swa248,
    swa260,
    swa261,
    swa301,
    swa302,
    swa303,
    swa304,
    swa305,
    swa306,
    swa307,
    swa308,
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
    swa412,
    swa413,
    swa414,
    swa415,
    swa416,
    swa417,
    swa418,
    swa501,
    swa502,
    swa503,
    swa504,
    swa505,
    swa506,
    swa600,
    swa601,
    swa602,
    swa603,
    swa604,
    swa901,
    swa902,
)
from .base import RuleContext

# Every rule, in code order.
RULES: tuple[ModuleType, ...] = (
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
    swa212,
    swa213,
    swa214,
    swa215,
    swa217,
    swa218,
    swa219,
    swa220,
    swa221,
    swa222,
    swa223,
    swa224,
    swa230,
    swa240,
    swa241,
    swa242,
    swa243,
    swa244,
    swa245,
    swa246,
    swa247,
    swa248,
    swa260,
    swa261,
    swa301,
    swa302,
    swa303,
    swa304,
    swa305,
    swa306,
    swa307,
    swa308,
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
    swa412,
    swa413,
    swa414,
    swa415,
    swa416,
    swa417,
    swa418,
    swa501,
    swa502,
    swa503,
    swa504,
    swa505,
    swa506,
    swa600,
    swa601,
    swa602,
    swa603,
    swa604,
    swa901,
    swa902,
)

# A rule's SCOPE -> the function the engine calls (swacheck/engine.py):
SCOPES = {
    "deployment": "check",  # check(resolution, context), on every deployment
    "pair": "check_pair",  # check_pair(pair, context), on every PD prefill/decode pair (pairing.py)
    "unpaired": "check_alone",  # check_alone([(result, why)]), on each PD server left unpaired
    "suppressions": "check_suppressions",  # check_suppressions(suppressions, enabled), per file
}


def in_scope(scope: str) -> tuple[ModuleType, ...]:
    """The rules of one SCOPE, in code order."""
    return tuple(rule for rule in RULES if rule.SCOPE == scope)


DEPLOYMENT_RULES = in_scope("deployment")
PAIR_RULES = in_scope("pair")
UNPAIRED_RULES = in_scope("unpaired")
SUPPRESSION_RULES = in_scope("suppressions")

BY_CODE = {rule.CODE: rule for rule in RULES}

__all__ = [
    "RULES",
    "SCOPES",
    "DEPLOYMENT_RULES",
    "PAIR_RULES",
    "UNPAIRED_RULES",
    "SUPPRESSION_RULES",
    "BY_CODE",
    "RuleContext",
    "get",
    "in_scope",
]


def get(code: str) -> ModuleType | None:
    return BY_CODE.get(code.upper())
