"""SWA302 impossible-geometry: explicit geometry that breaks SGLang's own formulas."""

from __future__ import annotations

import pytest
from conftest import loc
from conftest import only as the_only


def only(run, code="SWA302"):
    return the_only(run, code)


@pytest.mark.parametrize(
    "geometry",
    [
        "{window: 128, ring_size: 131, pages: 33667}",
        "{window: 128, ring_size: 128, pages: 256}",
        "{window: 128}",
    ],
)
def test_consistent_geometry_passes(lint, geometry):
    run = lint({"d.yaml": f"swacheck: 1\ntarget: {{geometry: {geometry}}}\n"})
    assert run.exit_code == 0
    assert "SWA302" not in run.codes()


def test_pages_not_a_multiple_of_ring_size_is_an_error_at_pages(lint):
    run = lint(
        {"d.yaml": "swacheck: 1\ntarget: {geometry: {window: 128, ring_size: 131, pages: 33668}}\n"}
    )
    assert run.exit_code == 1
    f = only(run)
    assert f["severity"] == "error"
    assert f["message"] == (
        "target.geometry pages 33668 is not a multiple of ring_size 131 (33668 / 131 = 257.01): "
        "SGLang's pages are request slots x ring size"
    )
    assert loc(f) == ("d.yaml", 2, 57)
    assert f["fix"] == {
        "description": "Copy target.geometry again from SGLang's output.",
        "safe": True,
        "edits": [],
    }


def test_ring_smaller_than_window_is_an_error_at_ring_size(lint):
    deploy = (
        "swacheck: 1\ntarget:\n  geometry:\n    window: 128\n    ring_size: 100\n    pages: 3300\n"
    )
    run = lint({"d.yaml": deploy})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"] == (
        "target.geometry ring_size 100 is smaller than window 128: SGLang's ring is window + draft tokens - 1"
    )
    assert loc(f) == ("d.yaml", 5, 16)
    assert f["fix"]["edits"] == []


def test_both_checks_can_fire_on_one_pool(lint):
    deploy = "swacheck: 1\ntarget: {geometry: {window: 128, ring_size: 100, pages: 33667}}\n"
    run = lint({"d.yaml": deploy})
    assert [f["message"].split(" ")[1] for f in run.findings("SWA302")] == ["ring_size", "pages"]


def test_draft_geometry_is_checked_too(lint):
    deploy = (
        "swacheck: 1\n"
        "target: {geometry: {window: 128, ring_size: 131, pages: 33667}}\n"
        "draft: {geometry: {window: 128, ring_size: 131, pages: 33668}}\n"
    )
    run = lint({"d.yaml": deploy})
    assert run.exit_code == 1
    f = only(run)
    assert f["message"].startswith("draft.geometry pages 33668 is not a multiple of ring_size 131")
    assert loc(f) == ("d.yaml", 3, 56)


def test_an_error_even_when_a_server_without_pd_is_given(lint):
    deploy = (
        "swacheck: 1\n"
        "server: {model-path: models/v4}\n"
        "target: {geometry: {ring_size: 131, pages: 1000}}\n"
    )
    run = lint({"d.yaml": deploy})
    assert run.exit_code == 1
    assert only(run)["severity"] == "error"
