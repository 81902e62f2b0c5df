"""Output formats: one renderer module per format, registered here.

A renderer is a module with ``render(result, out)`` that writes the whole report to the
text stream ``out``. A new format is one new module plus one line in ``RENDERERS``.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

RENDERERS: dict[str, str] = {
    "human": "swacheck.report.human",
    "json": "swacheck.report.json_format",
    "github": "swacheck.report.github",
    "sarif": "swacheck.report.sarif",
    "junit": "swacheck.report.junit",
    "concise": "swacheck.report.concise",
    "gitlab": "swacheck.report.gitlab",
}


def get(name: str) -> ModuleType:
    """Import only the renderer in use (rich is not needed for JSON output)."""
    return import_module(RENDERERS[name])
