"""Property: over generated configs (anchors/aliases, flow mappings, block scalars, empty values,
multi-document streams, tabs, CRLF, BOM, no final newline) and launch scripts, ``--fix`` and ``--fix --unsafe-fixes``
leave every file parsable, change only lines about the keys a fix touches, converge (a second
``--fix`` writes nothing), and ``--diff`` is a patch ``git apply`` applies to the same result."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from configs import is_subsequence, make_case, untouched_lines
from conftest import MTP_W256, V4_FLASH, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from swacheck.loading import load_file


def _write_models(root) -> None:  # type: ignore[no-untyped-def]
    for name, text in {
        "models/v4/config.json": V4_FLASH,
        "models/mtp256/config.json": MTP_W256,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@settings(
    max_examples=examples(0.6),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # 4 CLI runs + 2 git repos each
@given(rnd=st.randoms(use_true_random=False), unsafe=st.booleans())
def test_fix_never_breaks_a_file_and_converges(tmp_path_factory, rnd: random.Random, unsafe: bool):
    root = tmp_path_factory.mktemp("fixprop")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    _write_models(root)
    case = make_case(rnd)
    path = root / case.name
    path.write_bytes(case.data())
    flags = ["--unsafe-fixes"] if unsafe else []

    checked = run_cli("--format", "json", case.name, cwd=root)
    diff = run_cli("--diff", *flags, case.name, cwd=root)
    fixed_run = run_cli("--fix", *flags, "--format", "json", case.name, cwd=root)
    assert "internal error" not in fixed_run.stderr + diff.stderr
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") == case.bom
    text = data.decode("utf-8-sig")

    # no input error that was not there before (a launch script still tokenises and resolves)
    if not checked.data["errors"]:
        assert fixed_run.data["errors"] == [], (case.text, text)
    # a YAML file still parses (when it parsed before); one that did not is never written
    if not case.name.endswith(".sh"):
        if _parses(path.name, case.data().decode("utf-8-sig")):
            assert _parses(path.name, text), text
        else:
            assert data == case.data()
    # only lines about the touched keys changed; line breaks are the file's own
    assert is_subsequence(untouched_lines(case.text, case.newline), text.split(case.newline)), (
        case.text,
        text,
    )
    if case.newline == "\r\n":
        assert "\n" not in text.replace("\r\n", "")
    # converged: a second --fix writes nothing
    mtime = path.stat().st_mtime_ns
    again = run_cli("--fix", *flags, case.name, cwd=root)
    assert path.read_bytes() == data, again.stderr
    assert path.stat().st_mtime_ns == mtime
    # --diff is the patch --fix applied: git apply turns the original into the fixed file
    copy = tmp_path_factory.mktemp("fixprop-apply")
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    (copy / case.name).write_bytes(case.data())
    patch = copy / "fix.patch"
    patch.write_bytes(diff.stdout_bytes)
    if diff.stdout:
        applied = subprocess.run(
            ["git", "apply", "fix.patch"], cwd=copy, capture_output=True, text=True
        )
        assert applied.returncode == 0, (applied.stderr, diff.stdout)
    assert (copy / case.name).read_bytes() == data


def _parses(name: str, text: str) -> bool:
    try:
        load_file(name, text=text)
    except Exception:
        return False
    return True
