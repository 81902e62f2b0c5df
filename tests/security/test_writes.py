"""--output and --write-baseline never write through a symbolic link (issue 23).

A pull request can commit ``swacheck.sarif -> ../../somewhere`` (a dangling link too) where the
workflow writes its report: following it would overwrite a file outside the checkout (a ``.pth``
file in site-packages runs the pull request's code in every later Python process of the job).
The report and the baseline are opened without following a link, as ``--fix`` writes are: a link
is refused with one line, exit 2, and nothing outside the tree is touched."""

from __future__ import annotations

import os

import pytest
from budgets_common import GOOD, run_child, run_cli, write_tree

REFUSED = "it is a symbolic link, and swacheck does not write through links (give the file itself)"


def _repo(tmp_path):
    repo = write_tree(tmp_path / "repo", {})
    outside = tmp_path / "outside"
    return repo, outside


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
@pytest.mark.parametrize("existing", [True, False], ids=["to-a-file", "dangling"])
def test_a_committed_link_at_the_report_path_is_refused(tmp_path, option, existing):
    repo, outside = _repo(tmp_path)
    if existing:
        outside.write_text("KEEP\n")
    os.symlink("../outside", repo / "swacheck.sarif")
    run = run_cli("--format", "sarif", option, "swacheck.sarif", GOOD, cwd=repo)
    what = "report" if option == "--output" else "baseline"
    assert f"swacheck.sarif: cannot write the {what}: {REFUSED}" in run.stderr.splitlines()
    assert run.exit_code == 2
    if existing:
        assert outside.read_text() == "KEEP\n"
    else:
        assert not outside.exists()
    assert os.readlink(repo / "swacheck.sarif") == "../outside"  # the link is left as it was
    assert "internal error" not in run.stderr


def test_a_folder_link_on_the_report_path_is_refused(tmp_path):
    repo, outside = _repo(tmp_path)
    outside.mkdir()
    os.symlink("../outside", repo / "reports")
    run = run_cli("--output", "reports/x.pth", GOOD, cwd=repo)
    assert run.stderr.splitlines() == [
        "reports/x.pth: cannot write the report: 'reports' on its path is a symbolic link, and "
        "swacheck does not write through links (give the file itself)"
    ]
    assert run.exit_code == 2
    assert list(outside.iterdir()) == []


def test_an_absolute_path_through_a_link_in_the_working_directory_is_refused(tmp_path):
    repo, outside = _repo(tmp_path)
    os.symlink("../outside", repo / "swacheck.sarif")
    run = run_cli("--output", str(repo / "swacheck.sarif"), GOOD, cwd=repo)
    assert run.exit_code == 2 and REFUSED in run.stderr
    assert not outside.exists()


def test_a_report_and_a_baseline_are_still_written_to_plain_paths(tmp_path):
    repo, _ = _repo(tmp_path)
    (repo / "out").mkdir()
    (repo / "out" / "old.json").write_text("x" * 10000)  # truncated, not appended to
    run = run_cli("--format", "json", "--output", "out/old.json", GOOD, cwd=repo)
    assert run.exit_code == 0, run.stderr
    assert (repo / "out" / "old.json").read_text().startswith("{")
    run = run_cli("--write-baseline", "out/../base.json", GOOD, cwd=repo)
    assert run.exit_code == 0, run.stderr
    assert '"fingerprints"' in (repo / "base.json").read_text()
    run = run_cli("--output", str(tmp_path / "elsewhere.txt"), GOOD, cwd=repo)  # outside the cwd
    assert run.exit_code == 0, run.stderr
    assert (tmp_path / "elsewhere.txt").exists()


def test_a_fifo_at_the_report_path_does_not_hang(tmp_path):
    repo, _ = _repo(tmp_path)
    os.mkfifo(repo / "swacheck.sarif")
    run = run_child(["--output", "swacheck.sarif", GOOD], cwd=repo, timeout=30)  # no reader
    assert run.exit_code == 2
    assert run.stderr.startswith("swacheck.sarif: cannot write the report: ")
