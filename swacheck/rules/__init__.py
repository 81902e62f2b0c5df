"""The rule registry: one module per rule, listed here in code order.

A new rule is one new module (with CODE, NAME, SEVERITY, SUMMARY, a docstring in the
"what it does / why it matters / example / fix" shape, and ``check``) plus one line below.
"""

from __future__ import annotations

from types import ModuleType

from . import swa101, swa102, swa103, swa104, swa201, swa202, swa203, swa204, swa205, swa301, swa302, swa303, swa304
from .base import Context

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
    swa301,
    swa302,
    swa303,
    swa304,
)

BY_CODE = {rule.CODE: rule for rule in RULES}

__all__ = ["RULES", "BY_CODE", "Context", "get"]


def get(code: str) -> ModuleType | None:
    return BY_CODE.get(code.upper())
