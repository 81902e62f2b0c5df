"""Helm chart and Jinja templates: recognised, never parsed as deployments.

``{{ .Values.image }}`` and ``{% if %}`` are not YAML until a template engine renders them.
A file is a template when it lies in the ``templates/`` folder of a Helm chart (a folder whose
parent holds ``Chart.yaml``), or when it does not parse as YAML and holds template markers.
(A Go-template string inside valid YAML, such as KServe's ``--model_name={{.Name}}``, is an
ordinary value the controller fills in; such files are read normally.)

In a walk a template is skipped (``-v`` says why); one that mentions SGLang is also reported
with a note (SWA307) so a chart of SGLang servers never passes as "0 deployments". Named
explicitly, a template is an input error whose message gives the fix:
``helm template CHART | swacheck -``.
"""

from __future__ import annotations

import os
import re

from ..paths import run_memo

_MARK = re.compile(r"\{\{-?\s*[-.$\w(\"'/]|\{%-?\s*\w|\{#")


_CHARTS = run_memo()  # folder as named -> its chart folder or None: one answer per folder


def in_helm_chart(path: str) -> str | None:
    """The chart folder when ``path`` is one of its templates."""
    named = os.path.dirname(path)
    if named not in _CHARTS:
        _CHARTS[named] = _chart_of(os.path.abspath(named))
    return _CHARTS[named]  # type: ignore[no-any-return]


def _chart_of(folder: str) -> str | None:
    while os.path.basename(folder) != "templates":
        parent = os.path.dirname(folder)
        if parent == folder or not folder:
            return None
        folder = parent
    chart = os.path.dirname(folder)
    return chart if os.path.isfile(os.path.join(chart, "Chart.yaml")) else None


def has_markers(text: str) -> bool:
    return bool(_MARK.search(text))


def describe(path: str, text: str, parses: bool) -> str | None:
    """What kind of template the file is, or None when it is not one."""
    if path != "-" and (chart := in_helm_chart(path)) is not None:
        return f"a Helm chart template (chart {os.path.basename(chart) or chart})"
    if not parses and has_markers(text):
        return "a Helm/Jinja template ({{ }} or {% %} is not YAML until rendered)"
    return None


def fix_hint(path: str) -> str:
    chart = in_helm_chart(path) if path != "-" else None
    target = os.path.relpath(chart) if chart else "CHART"
    return (
        f"render it first and check the result: helm template {target} | swacheck "
        f"- (or your template engine's output)"
    )


_LAUNCH = re.compile(r"sglang\.launch_server|sglang\s+serve|dynamo\.sglang")


def mentions_sglang(text: str) -> bool:
    """The template holds an SGLang launch (not merely a chart named sglang)."""
    return bool(_LAUNCH.search(text))
