"""Every example and every scenario under every release profile: verdict, tuples and wording.

The expected values are the data table ``tests/releases_table.py``, each change between
releases explained there by the profile fact (``swacheck/sglang/version.py``) or SGLang file and
line behind it. In-process (``swacheck.check``), one run of ``examples/`` per release. Also: the
release profile is the one source ``swacheck why`` reads, and a release newer than every profile
is predicted with the newest after one warning line (docs/releases.md).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import warnings

import pytest
from conftest import MTP_W256, ROOT, V4_FLASH, run_cli
from releases_table import EXAMPLES, SCENARIOS
from test_scenarios import SCENARIOS as SCENARIO_TESTS

import swacheck
from swacheck.sglang import version
from swacheck.sglang.version import NEWEST, PROFILES, release_key

RELEASES = list(PROFILES)


def expected(rows, release: str):
    """The row of ``rows`` (oldest first) that holds for ``release``."""
    held = [r for r in rows if release_key(r[0]) <= release_key(release)]
    assert held, f"no row for {release}"
    return held[-1]


@functools.cache
def examples_report(release: str):
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return swacheck.check("examples/", sglang_version=release, config=False)
    finally:
        os.chdir(cwd)


def check_deployment(dep, rows, release):
    _, findings, target, draft = expected(rows, release)
    got = [(f"{f.code}:{f.severity}", f.message) for f in dep.findings]
    assert [c for c, _ in got] == [c for c, _ in findings], (release, got)
    for (code, message), (_, wording) in zip(got, findings, strict=True):
        assert wording in message, (release, code, message)
    assert dep.target == target, release
    assert dep.draft == draft, release


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", sorted(EXAMPLES), ids=lambda c: f"{c[0]}:{c[1]}")
def test_example_under_every_release(release, case):
    report = examples_report(release)
    (dep,) = [d for d in report.deployments if (d.file, d.name) == case]
    check_deployment(dep, EXAMPLES[case], release)


@pytest.mark.parametrize("release", RELEASES)
def test_every_example_is_in_the_table_and_the_run_fails(release):
    report = examples_report(release)
    assert {(d.file, d.name) for d in report.deployments} == set(EXAMPLES)
    assert report.errors == ()
    assert report.exit_code == 1  # every release has examples SGLang refuses


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("releases")
    for name, text in (("v4", V4_FLASH), ("mtp256", MTP_W256)):
        (root / "models" / name).mkdir(parents=True)
        (root / "models" / name / "config.json").write_text(text)
    return root


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_under_every_release(models, release, name):
    text, options, rows = SCENARIOS[name]
    report = swacheck.check_text(
        text, str(models / "server.yaml"), sglang_version=release, config=False, **options
    )
    (dep,) = report.deployments
    check_deployment(dep, rows, release)
    errors = [f for f in dep.findings if f.severity == "error"]
    assert report.exit_code == (1 if errors else 0)


def test_the_scenario_inputs_are_those_of_test_scenarios():
    for name, lines, platform, *_ in SCENARIO_TESTS:
        text, options, _ = SCENARIOS[name]
        assert text.endswith("".join(line + "\n" for line in lines)), name
        given = dict(zip(platform[::2], platform[1::2], strict=True))
        assert options.get("platform") == given.get("--platform"), name
        env = dict(e.split("=", 1) for k, e in given.items() if k == "--env")
        assert options.get("env", {}) == env, name


def test_the_table_covers_every_release_from_the_oldest():
    oldest = RELEASES[0]
    for rows in [*EXAMPLES.values(), *(r for _, _, r in SCENARIOS.values())]:
        assert rows[0][0] == oldest
        assert [release_key(r[0]) for r in rows] == sorted(release_key(r[0]) for r in rows)
        assert all(r[0] in PROFILES for r in rows)


@pytest.mark.parametrize("release", RELEASES)
def test_disable_cuda_graph_in_a_config_file_under_every_release(models, release):
    """A deprecated store_true the --config loader refuses from 0.5.14; SGLang names
    cuda-graph-backend-{decode,prefill}=disabled in its place (server_args.py 0.5.14:6378,
    0.5.20:408, 0.5.23:413), which a --config file can say only from 0.5.20: before,
    cuda-graph-backend-prefill shares its dest with a deprecated alias the loader refuses."""
    report = swacheck.check_text(
        "model-path: models/v4\ndisable-cuda-graph: true\n",
        str(models / "server.yaml"),
        sglang_version=release,
        config=False,
        select=["SWA303"],
    )
    if release_key(release) < release_key("0.5.14"):
        assert report.findings == ()
        return
    (finding,) = report.findings
    assert finding.message.endswith(
        "ValueError: Unsupported config option 'disable_cuda_graph' with action "
        "'DeprecatedStoreTrueAction'"
    )
    if release_key(release) < release_key("0.5.20"):
        assert (
            finding.fix
            == "Remove 'disable-cuda-graph' from the file and pass it on the command line."
        )
    else:
        assert finding.fix.startswith(
            "Write cuda-graph-backend-decode: disabled, cuda-graph-backend-prefill: disabled in "
            f"place of 'disable-cuda-graph': SGLang {release} names them"
        )


# --- the profile is the one source of the release facts --------------------------------------


def test_why_reads_the_profiles():
    from swacheck.why import parse

    assert parse.WORDINGS is version.WORDINGS and parse.MESSAGE_LINES is version.MESSAGE_LINES
    with_checks = [v for v, p in PROFILES.items() if p.has_dsv4_block]
    assert list(version.VERSIONS) == with_checks
    for v in with_checks:
        p = PROFILES[v]
        assert len(p.message_lines) == 5 and list(p.message_lines) == sorted(p.message_lines)
        (paged,) = [w for w in version.WORDINGS if w.kind == "paged" and v in w.versions]
        assert p.msg_paged.startswith(paged.text)
        assert len(paged.fields) == (3 if p.paged_tuple_has_third else 2)
    assert not any(p.message_lines for p in PROFILES.values() if not p.has_dsv4_block)


def test_settings_default_is_the_newest_profile():
    from swacheck.settings import Settings

    assert Settings().sglang_version == NEWEST.version == RELEASES[-1]


# --- an unknown release ----------------------------------------------------------------------


@pytest.mark.parametrize("given", ["0.5.24", "v0.5.24", "0.5.23.post1", "0.6.0", "1.0.0"])
def test_lookup_of_a_newer_release_is_the_newest_profile_with_a_warning(given):
    profile, warning = version.lookup(given)
    assert profile is NEWEST
    assert warning == (
        f"SGLang {given.removeprefix('v')} is newer than the releases swacheck knows "
        f"(0.5.12 - {NEWEST.version}); predicting SGLang {NEWEST.version}'s behaviour"
    )


@pytest.mark.parametrize("given", ["0.5.15.post2", "0.5", "abc", "", "0.5.24rc1"])
def test_lookup_of_a_release_between_profiles_or_malformed_is_an_error(given):
    with pytest.raises(ValueError, match="must be one of 0.5.12, .*, a newer X.Y.Z or one older"):
        version.lookup(given)


@pytest.mark.parametrize("given", ["0.5.11", "0.5.10", "v0.4.0"])
def test_a_release_before_deepseek_v4_support_is_a_profile_that_says_so(given):
    profile, warning = version.lookup(given)
    assert warning is None and profile.before_dsv4
    assert profile.version == given.removeprefix("v")


def test_a_newer_release_on_the_command_line_warns_once_and_predicts_the_newest(tmp_path):
    newest = run_cli("--format", "json", "examples/cuda-draft-window", cwd=ROOT)
    newer = run_cli(
        "--format", "json", "--sglang-version", "0.5.24", "examples/cuda-draft-window", cwd=ROOT
    )
    assert newer.exit_code == newest.exit_code == 1
    assert newer.stdout == newest.stdout  # the report names SGLang 0.5.23, the profile used
    assert newer.stderr == (
        "swacheck: warning: --sglang-version: SGLang 0.5.24 is newer than the releases swacheck "
        f"knows (0.5.12 - {NEWEST.version}); predicting SGLang {NEWEST.version}'s behaviour\n"
    )


def test_a_newer_release_in_the_configuration_file_warns_with_its_place(tmp_path):
    (tmp_path / "swacheck.toml").write_text('sglang-version = "0.6.0"\n')
    (tmp_path / "s.yaml").write_text("model-path: /nowhere\n")
    run = run_cli("s.yaml", cwd=tmp_path)
    assert run.stderr.splitlines()[0] == (
        "swacheck: warning: swacheck.toml:1:1: SGLang 0.6.0 is newer than the releases swacheck "
        f"knows (0.5.12 - {NEWEST.version}); predicting SGLang {NEWEST.version}'s behaviour"
    )
    assert f"(SGLang {NEWEST.version}; exit {run.exit_code})" in run.stdout


@pytest.mark.parametrize("given", ["0.5.14.post3", "0.5.x"])
def test_a_malformed_release_or_one_between_profiles_exits_2(given):
    run = run_cli("--sglang-version", given, "examples/cuda-paged", cwd=ROOT)
    assert run.exit_code == 2
    assert "must be one of 0.5.12," in run.stderr and "warning" not in run.stderr


def test_a_newer_release_from_the_api_is_a_python_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = swacheck.check_text(
            "model-path: /nowhere\n", "s.yaml", sglang_version="0.5.24", config=False
        )
    assert [type(w.message) for w in caught] == [version.NewerReleaseWarning]
    assert report.exit_code in (0, 1, 2)


def test_the_installed_cli_prints_one_warning_line():
    cmd = [sys.executable, "-m", "swacheck", "--sglang-version", "0.5.24", "examples/cuda-paged"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "swacheck: warning: --sglang-version: SGLang 0.5.24 is newer"
    )
    assert f"(SGLang {NEWEST.version}; exit 0)" in done.stdout
