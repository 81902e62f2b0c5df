"""Start-up: the version and help paths import only what they print (no PyYAML, no rich, no
reader or report format), and ``settings`` is a leaf. These assert the modules imported, never a
time (timings are benchmarks/bench.py's)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

RUN_CLI = """
import json, sys
sys.argv = ["swacheck", *sys.argv[1:]]
from swacheck.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)))
"""


def _modules(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", RUN_CLI, *args], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stderr.splitlines()[-1]))


@pytest.mark.parametrize(
    "args", [("--version",), ("--help",), ("check", "--help"), ("pair", "--help"), ("why", "-h")]
)
def test_version_and_help_import_neither_yaml_nor_rich(args):
    modules = _modules(*args)
    assert "swacheck.cli" in modules
    heavy = {m for m in modules if m.split(".")[0] in ("yaml", "rich", "tomllib", "pydantic")}
    assert heavy == set(), heavy
    ours = {m for m in modules if m.startswith("swacheck.")}
    # the command line's own modules; no loader, engine, rule, reader or report format
    assert ours <= {
        "swacheck.cli",
        "swacheck.options",
        "swacheck.settings",
        "swacheck.report",  # the format registry: names only
        "swacheck.sglang",
        "swacheck.sglang.version",  # --version names the releases
    }, ours


def test_settings_is_a_leaf():
    code = "import sys, swacheck.settings; print(sorted(m for m in sys.modules if m.startswith('swacheck')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['swacheck', 'swacheck.settings']"


def test_the_settings_constants_agree_with_their_sources():
    from swacheck import limits, records, settings

    assert settings.MAX_FILE_SIZE == limits.MAX_FILE_SIZE == settings.Settings().max_file_size
    assert settings.FAIL_ON == records.SEVERITIES


def test_the_default_release_is_the_newest_profile():
    from swacheck import settings
    from swacheck.sglang.version import NEWEST

    assert settings.Settings().sglang_version == NEWEST.version
