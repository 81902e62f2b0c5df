"""SWA601: a row of the known-failures table (its documentation is built from the row)."""

from __future__ import annotations

from ._known import define

CODE, NAME, SEVERITY, SCOPE, FIX_SAFETY, SUMMARY, __doc__, check = define("SWA601")
