"""The renderer contract (swacheck/report/renderer.py): every registered renderer of every
command satisfies ``Renderer``, and a report written unit by unit through ``Stream`` is the
report ``render`` writes for the whole run, byte for byte."""

from __future__ import annotations

import inspect
import io
from importlib import import_module

import pytest
from conftest import ROOT

from swacheck.report import REGISTRY, STATISTICS, formats_for, get
from swacheck.report.renderer import Renderer, ReportStream

EVERY = [(command, name) for command, formats in REGISTRY.items() for name in formats]
# several units (no launch file, which would make the run one group), PD pairs among them
FOLDERS = [
    "examples/rocm-unified",
    "examples/cuda-paged",
    "examples/cuda-draft-window",
    "examples/pd-unified-one-side",
]


@pytest.mark.parametrize(("command", "name"), EVERY)
def test_every_registered_renderer_satisfies_the_protocol(command, name):
    renderer = get(name, command)
    assert isinstance(renderer, Renderer)
    assert isinstance(renderer.STREAMS, bool)
    assert list(inspect.signature(renderer.render).parameters)[:2] in (
        ["result", "out"],
        ["report", "out"],
        ["rules", "out"],
        ["rule", "out"],
    )
    stream = renderer.Stream(None if command in ("rules", "rule") else _settings(), io.StringIO())
    assert isinstance(stream, ReportStream)


def test_the_statistics_table_satisfies_the_protocol():
    assert isinstance(import_module(STATISTICS), Renderer)


def test_a_protocol_check_that_can_fail():
    class NoStream:
        STREAMS = True

        def render(self, result, out):
            pass

    assert not isinstance(NoStream(), Renderer)


def test_every_command_offers_the_registry_formats():
    assert formats_for("check")[0] == "human"
    assert formats_for("explain") == formats_for("why") == ("human", "json")
    assert formats_for("rules") == ("text", "json")
    assert formats_for("rule") == ("text",)


def _settings(**kw):
    from swacheck.settings import Settings

    return Settings(paths=list(FOLDERS), color="never", **kw)


@pytest.mark.parametrize(
    ("command", "name"), [(c, n) for c, n in EVERY if c in ("check", "explain")]
)
def test_unit_by_unit_is_the_whole_report(command, name, monkeypatch):
    """What ``check`` streams (cli._stream_check) equals ``render`` of ``engine.run``'s result,
    for the formats that stream and for those whose Stream keeps the units (WholeRun)."""
    from swacheck.engine import RunResult, run, run_units

    monkeypatch.chdir(ROOT)
    for var in ("GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "CI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    renderer = get(name, command)
    whole = io.StringIO()
    renderer.render(run(_settings()), whole)

    settings = _settings()
    totals = RunResult(settings)
    streamed = io.StringIO()
    stream = renderer.Stream(settings, streamed)
    units = 0
    for unit in run_units(settings, totals):
        totals.errors.extend(unit.errors)
        totals.skipped.extend(unit.skipped)
        totals.notes.extend(unit.notes)
        stream.unit(unit)
        units += 1
    stream.finish(totals)
    assert units > 1
    assert streamed.getvalue() == whole.getvalue()
    assert "pd-unified-one-side" in whole.getvalue()  # the last unit's findings are there
