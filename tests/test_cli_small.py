"""Small promises of the command line (issue 28, item 4): ``dir(swacheck)``, ``--write-baseline``
printing only its line, ``--diff`` in file order, ``--show-settings`` in TOML's syntax, the
did-you-mean of ``swacheck rule``, metavars that name what is expected, and help texts that say
what the program does (``--stdin-filename`` alone: tests/test_cli_options.py)."""

from __future__ import annotations

import re
import tomllib

import pytest
from conftest import EAGLE, run_cli

import swacheck
from swacheck.inputs import EXTENSIONS
from swacheck.inputs.kinds import MARKDOWN_SUFFIXES, SCRIPT_SUFFIXES

# one SWA102 error (draft window 256, no fix with edits) and one SWA201 warning with a safe fix
FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)


def test_dir_lists_the_api():
    names = dir(swacheck)
    assert {"check", "check_text", "Report", "Finding", "__version__"} <= set(names)
    assert names == sorted(names)


def test_write_baseline_prints_only_its_line(tree):
    root = tree({"a.yaml": FAILING})
    run = run_cli("--write-baseline", "baseline.json", "a.yaml", cwd=root)
    assert run.exit_code == 0
    assert run.stdout == ""  # no report before it
    assert run.stderr == "swacheck: wrote 2 findings to the baseline baseline.json\n"
    assert (root / "baseline.json").is_file()


def test_diff_is_ordered_by_file(tree):
    files = {
        name: FAILING.replace("models/", "../" * name.count("/") + "models/")
        for name in ("z.yaml", "a.yaml", "m/b.yaml", "b.yaml")
    }
    root = tree(files)
    run = run_cli("--diff", "z.yaml", "m/", "b.yaml", "a.yaml", cwd=root)
    assert run.exit_code == 1, run.stderr
    headers = re.findall(r"^--- a/(\S+)$", run.stdout, re.M)
    assert headers == ["a.yaml", "b.yaml", "m/b.yaml", "z.yaml"]


def test_show_settings_prints_toml_values(tree):
    root = tree(
        {
            "pyproject.toml": '[tool.swacheck]\nselect = ["SWA1"]\nexclude = ["x y"]\n'
            'env = { A = "b c" }\nper-file-ignores = { "a/*.yaml" = ["SWA301", "SWA2"] }\n',
        }
    )
    shown = run_cli("--show-settings", cwd=root).stdout
    values = {}
    for line in shown.splitlines():
        key, rest = line.split(None, 1)
        value = rest.rsplit("  (", 1)[0]
        assert "(" not in value or value.startswith("(none"), line  # never a Python tuple
        if not value.startswith("(none"):
            values[key] = tomllib.loads(f"v = {value}")["v"]
    assert values["select"] == ["SWA1"] and values["exclude"] == ["x y"]
    assert values["env"] == {"A": "b c"}
    assert values["per-file-ignores"] == {"a/*.yaml": ["SWA301", "SWA2"]}
    assert values["fail-on"] == "error" and values["exit-zero"] is False
    assert values["max-file-size"] == 10485760


@pytest.mark.parametrize(
    ("given", "offered", "not_offered"),
    [
        ("SWA1", "SWA101, SWA102", "SWA901"),
        ("swa10", "SWA101", "SWA901"),
        ("SWA1O1", "did you mean SWA101?", "prefix"),
        ("SWA109", "did you mean SWA1", "SWA4"),
    ],
)
def test_rule_did_you_mean_stays_in_the_family(given, offered, not_offered):
    run = run_cli("rule", given)
    assert run.exit_code == 2
    assert offered in run.stderr and not_offered not in run.stderr, run.stderr


COMMANDS = ["check", "pair", "explain", "why", "rules", "rule", "dump-flags"]


@pytest.mark.parametrize("command", COMMANDS)
def test_metavars_name_what_is_expected(command):
    run = run_cli(command, "--help")
    if run.exit_code == 2 and "No such command" in run.stderr:  # pragma: no cover
        pytest.skip(f"no {command} command")
    assert run.exit_code == 0
    assert not re.search(r"<(str|int|float|text|integer|choice)\b", run.stdout), run.stdout


def test_check_help_lists_every_file_type_the_walk_reads():
    text = " ".join(run_cli("check", "--help").stdout.split())
    for suffix in (*EXTENSIONS, *SCRIPT_SUFFIXES, *MARKDOWN_SUFFIXES):
        assert f"*{suffix}" in text, suffix
    assert "Dockerfiles" in text and "Slurm" in text


def test_pair_help_does_not_mention_allow_empty():
    text = run_cli("pair", "--help").stdout
    assert "--allow-empty" not in text
    assert "Exit codes:" in text
