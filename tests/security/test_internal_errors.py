"""No input makes swacheck fail with "internal error": every one below once did (or would have,
had the earlier line not been fixed), and each is now one ``file:line:col: message`` line with
exit 2 while the good file named alongside is still checked.
"""

from __future__ import annotations

import os
import sys

import pytest
from budgets_common import EAGLE, GOOD, assert_error_lines, run_cli, write_tree

SERVER = EAGLE  # model-path, EAGLE, steps, top-k: four lines, so an added key is on line 5


@pytest.mark.parametrize(
    "extra, line",
    [
        # PyYAML's constructors assume the implicit resolver chose the tag (KeyError, IndexError)
        ("enable-hisparse: !!bool maybe", "5:18: bad bool value 'maybe'"),
        ('tp-size: !!int ""', "5:10: bad int value ''"),
        (
            "tp-size: !!int 0x",
            "5:10: bad int value '0x': invalid literal for int() with base 16: ''",
        ),
        (
            "tp-size: !!float abc",
            "5:10: bad float value 'abc': could not convert string to float: 'abc'",
        ),
        (
            "page-size: !!binary aGVsbG8=",
            "5:12: unsupported YAML tag 'tag:yaml.org,2002:binary': swacheck reads plain data only",
        ),
        (
            "x: !!set {a, b}",
            "5:4: unsupported YAML tag 'tag:yaml.org,2002:set' on a mapping: swacheck reads plain data only",
        ),
        ("x: *nothing", "5:4: invalid YAML: found undefined alias 'nothing'"),
        ("x: &a 1\ny: &a 2", "6:4: invalid YAML: the anchor &a is defined twice (first on line 5)"),
        ("? [a, b]\n: 1", "5:3: a mapping key must be a plain scalar"),
        # an alias inside its own anchor: a value that contains itself (once a RecursionError)
        (
            "json-model-override-args: &a {x: *a}",
            "5:27: this value contains itself (a YAML alias inside its own anchor)",
        ),
    ],
    ids=[
        "bool-maybe",
        "int-empty",
        "int-0x",
        "float-abc",
        "binary",
        "set",
        "undefined-alias",
        "duplicate-anchor",
        "list-key",
        "alias-cycle",
    ],
)
def test_odd_yaml(tmp_path, extra, line):
    root = write_tree(tmp_path, {"odd.yaml": SERVER + extra + "\n"})
    run = run_cli("--format", "json", "odd.yaml", GOOD, cwd=root)
    assert_error_lines(run, f"odd.yaml:{line}")


def test_a_nul_byte_in_a_referenced_path(tmp_path):
    root = write_tree(tmp_path, {"dep.yaml": 'swacheck: 1\nserver: "a\\0b"\n'})
    run = run_cli("--format", "json", "dep.yaml", GOOD, cwd=root)
    assert_error_lines(
        run,
        "dep.yaml:2:9: server config 'a\\x00b': no such file: the name holds a NUL byte, which no file name can",
    )


def test_a_nul_byte_in_a_sourced_path_and_a_model_path(tmp_path):
    script = (
        '#!/bin/sh\n. "./a\\0b"\npython -m sglang.launch_server --model-path "$(printf x)\\0"\n'
    )
    root = write_tree(tmp_path, {"nul.sh": script})
    run = run_cli("--format", "json", "nul.sh", GOOD, cwd=root)
    assert "internal error" not in run.stderr and run.exit_code == 2
    assert [line.split(": ", 1)[0] for line in run.stderr.splitlines()] == ["nul.sh:3:46"]


def test_a_compose_env_file_entry_without_a_path(tmp_path):
    compose = (
        "services: &s\n  a: {image: x, command: python -m sglang.launch_server, env_file: *s}\n"
    )
    root = write_tree(tmp_path, {"compose.yaml": compose})
    run = run_cli("--format", "json", "compose.yaml", GOOD, cwd=root)
    assert_error_lines(run, "compose.yaml:2:58: env_file entries must be paths, got nothing")


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_an_undecodable_file_name_in_a_walked_folder(tmp_path):
    """A name that is not UTF-8 is carried with surrogateescape; the report shows it escaped (\\xff)."""
    write_tree(tmp_path, {})
    (tmp_path / "deploy").mkdir()
    with open(os.path.join(os.fsencode(tmp_path / "deploy"), b"bad\xff.yaml"), "wb") as fh:
        fh.write(b"model-path: ../models/v4\n")
    run = run_cli("--format", "json", "deploy", cwd=tmp_path)
    assert "internal error" not in run.stderr
    assert run.exit_code == 0
    assert [d["file"] for d in run.deployments] == ["deploy/bad\\xff.yaml"]
