"""Output formats: one renderer module per command and format, registered here.

Every command writes its output through a renderer of this package: ``check`` (the report),
``explain`` (how each number was derived), ``why`` (a failed launch's error explained),
``rules`` (the rule list) and ``rule`` (one rule's documentation). A renderer module satisfies
:class:`swacheck.report.renderer.Renderer`: ``Stream(settings, out)`` with ``unit(part)`` and
``finish(totals)``, ``render(whole, out)`` and ``STREAMS``. The formats a command offers are
the keys of its entry in ``REGISTRY`` (``formats_for``); a new format is one new module plus
one line here.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

REGISTRY: dict[str, dict[str, str]] = {
    "check": {
        "human": "swacheck.report.human",
        "json": "swacheck.report.json_format",
        "github": "swacheck.report.github",
        "sarif": "swacheck.report.sarif",
        "junit": "swacheck.report.junit",
        "concise": "swacheck.report.concise",
        "gitlab": "swacheck.report.gitlab",
    },
    "explain": {"human": "swacheck.report.explain_human", "json": "swacheck.report.explain_json"},
    "why": {"human": "swacheck.report.why_human", "json": "swacheck.report.why_json"},
    "rules": {"text": "swacheck.report.rules_text", "json": "swacheck.report.rules_json"},
    "rule": {"text": "swacheck.report.rule_text"},
}
# ``--statistics``: the table that replaces the check report (not a --format of its own)
STATISTICS = "swacheck.report.statistics"
RENDERERS = REGISTRY["check"]  # the check command's formats (config.FORMATS)


def formats_for(command: str) -> tuple[str, ...]:
    """The format names ``command`` offers, the first its default (``--format`` choices)."""
    return tuple(REGISTRY[command])


def get(name: str, command: str = "check") -> ModuleType:
    """Import only the renderer in use (rich is not needed for JSON output)."""
    return import_module(REGISTRY[command][name])
