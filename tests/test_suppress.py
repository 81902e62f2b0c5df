"""Inline suppressions: with a reason, without one, unused, and where they apply."""

from __future__ import annotations

from conftest import EAGLE

PD = "disaggregation-mode: decode\n"


def test_trailing_comment_suppresses_the_finding_on_its_line(lint):
    run = lint(
        {
            "server.yaml": EAGLE
            + PD
            + "page-size: 64  # swacheck: ignore[SWA201] pinned by our template\n"
        }
    )
    assert run.codes() == []
    assert run.data["summary"]["suppressed"] == 1


def test_comment_on_the_line_above_suppresses(lint):
    run = lint(
        {
            "server.yaml": EAGLE
            + PD
            + "# swacheck: ignore[SWA201] pinned by our template\npage-size: 64\n"
        }
    )
    assert run.codes() == []


def test_comment_two_lines_above_does_not_suppress(lint):
    run = lint(
        {"server.yaml": EAGLE + PD + "# swacheck: ignore[SWA201] too far away\n\npage-size: 64\n"}
    )
    assert sorted(run.codes()) == ["SWA201", "SWA902"]


def test_prefix_and_lists_of_codes(lint):
    run = lint({"server.yaml": EAGLE + PD + "page-size: 64  # swacheck: ignore[SWA2] template\n"})
    assert run.codes() == []
    # one code used, one unused: the unused one is reported, without an edit (the comment stays)
    run = lint(
        {"server.yaml": EAGLE + PD + "page-size: 64  # swacheck: ignore[SWA201,SWA303] template\n"}
    )
    (unused,) = run.findings("SWA902")
    assert unused["message"] == "unused suppression: no SWA303 finding on line 6"
    assert unused["fix"]["edits"] == []
    assert run.findings("SWA201") == []


def test_suppression_without_reason_is_a_finding(lint):
    run = lint({"server.yaml": EAGLE + PD + "page-size: 64  # swacheck: ignore[SWA201]\n"})
    (finding,) = run.findings("SWA901")
    assert finding["severity"] == "warning"
    assert finding["location"]["line"] == 6 and finding["location"]["column"] == 16
    assert run.findings("SWA201") == []


def test_unused_suppression_is_reported_with_a_removal_edit(lint):
    line = "max-running-requests: 8  # swacheck: ignore[SWA201] not needed"
    run = lint({"server.yaml": EAGLE + PD + line + "\n"})
    (finding,) = run.findings("SWA902")
    (edit,) = finding["fix"]["edits"]
    # removes the comment and the spaces before it, keeps the value
    assert (edit["line"], edit["column"], edit["end_column"], edit["replacement"]) == (
        6,
        24,
        len(line) + 1,
        "",
    )


def test_unused_suppression_of_an_ignored_rule_is_not_reported(lint):
    run = lint(
        {
            "server.yaml": EAGLE
            + PD
            + "max-running-requests: 8  # swacheck: ignore[SWA201] template\n"
        },
        "--ignore",
        "SWA201",
    )
    assert run.codes() == []


def test_suppression_text_inside_a_quoted_value_is_not_a_comment(lint):
    run = lint(
        {
            "server.yaml": EAGLE
            + PD
            + 'served-model-name: "x # swacheck: ignore[SWA201] no"\npage-size: 64\n'
        }
    )
    assert run.codes() == ["SWA201"]


def test_suppressing_a_geometry_error_in_the_server_config(lint):
    files = {
        "server.yaml": EAGLE
        + PD
        + "# swacheck: ignore[SWA102] the launcher overrides the draft window\n"
        + "speculative-draft-model-path: models/mtp256\n"
    }
    run = lint(files)
    assert run.codes() == [] and run.exit_code == 0
