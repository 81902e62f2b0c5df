"""Command-line options for CI and editors: --stdin-filename, --config FILE, --extend-select,
--exclude, --output-format, --allow-empty (test_cli.py has the older ones)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import EAGLE, docs_text, run_cli

FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)


def swacheck(
    *args: str, cwd, stdin: str = "", no_config: bool = True
) -> subprocess.CompletedProcess[str]:
    """The installed entry point, as an editor or CI runs it (standard input given)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    first = ["--no-config"] if no_config else []
    return subprocess.run(
        [sys.executable, "-m", "swacheck", *first, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_stdin_filename_names_the_text_and_places_its_references(tree):
    root = tree({"deploy/server.yaml": "# on disk\n"})
    done = swacheck(
        "--format",
        "json",
        "--stdin-filename",
        "deploy/server.yaml",
        "-",
        cwd=root,
        stdin=FAILING.replace("models/", "../models/"),
    )
    assert done.returncode == 1, done.stderr
    assert '"file": "deploy/server.yaml"' in done.stdout
    assert (root / "deploy/server.yaml").read_text() == "# on disk\n"


def test_stdin_filename_alone_reads_stdin_and_refuses_fix(tree):
    """As ruff: ``--stdin-filename NAME`` without ``-`` reads standard input as NAME (editors
    rely on it); NAME among the paths is that input, not the file on disk."""
    root = tree({"server.yaml": EAGLE, "deploy/other.yaml": EAGLE.replace("models/", "../models/")})
    failing = FAILING.replace("models/", "../models/")
    for paths in ([], ["deploy/server.yaml"], ["deploy/other.yaml"]):
        done = swacheck(
            "--format",
            "concise",
            "--stdin-filename",
            "deploy/server.yaml",
            *paths,
            cwd=root,
            stdin=failing,
        )
        assert done.returncode == 1, done.stderr
        found = {line.split(":")[0] for line in done.stdout.splitlines() if ": SWA" in line}
        assert found == {"deploy/server.yaml"}, done.stdout
        checked = 2 if paths == ["deploy/other.yaml"] else 1
        assert f"Checked {checked} deployment" in done.stdout
    done = swacheck("--fix", "--stdin-filename", "server.yaml", "-", cwd=root, stdin=FAILING)
    assert done.returncode == 2 and "cannot edit standard input" in done.stderr
    assert (root / "server.yaml").read_text() == EAGLE


def test_config_file_option(tree):
    root = tree(
        {
            "server.yaml": FAILING,
            "ci/strict.toml": 'select = ["SWA2"]\nfail-on = "warning"\n',
            "pyproject.toml": '[tool.swacheck]\nignore = ["SWA2"]\n',
        }
    )
    found = run_cli("--format", "json", "server.yaml", cwd=root)
    assert [f["code"] for d in found.deployments for f in d["findings"]] == ["SWA102"]
    given = run_cli("--format", "json", "--config", "ci/strict.toml", "server.yaml", cwd=root)
    assert [f["code"] for d in given.deployments for f in d["findings"]] == ["SWA201"]
    assert given.exit_code == 1
    shown = run_cli("--config", "ci/strict.toml", "--show-settings", cwd=root).stdout
    assert 'select            ["SWA2"]  (ci/strict.toml)' in shown
    missing = run_cli("--config", "nope.toml", "server.yaml", cwd=root)
    assert missing.exit_code == 2 and "nope.toml: no such configuration file" in missing.stderr
    both = run_cli("--config", "ci/strict.toml", "--no-config", "server.yaml", cwd=root)
    assert both.exit_code == 2 and "exclude each other" in both.stderr


def test_extend_select_adds_to_the_configured_select(tree):
    root = tree({"server.yaml": FAILING, "swacheck.toml": 'select = ["SWA1"]\n'})
    only = run_cli("--format", "json", "server.yaml", cwd=root)
    assert [f["code"] for d in only.deployments for f in d["findings"]] == ["SWA102"]
    more = run_cli("--format", "json", "--extend-select", "SWA201", "server.yaml", cwd=root)
    assert [f["code"] for d in more.deployments for f in d["findings"]] == ["SWA102", "SWA201"]


def test_exclude_option_adds_names(tree):
    root = tree(
        {
            "d/a/server.yaml": EAGLE.replace("models/", "../../models/"),
            "d/b/server.yaml": FAILING.replace("models/", "../../models/"),
            "swacheck.toml": 'exclude = ["c"]\n',
        }
    )
    run = run_cli("--format", "json", "--exclude", "b", "d", cwd=root)
    assert [d["file"] for d in run.deployments] == ["d/a/server.yaml"]
    assert (
        'exclude           ["c", "b"]  (command line)'
        in run_cli("--exclude", "b", "--show-settings", cwd=root).stdout
    )


def test_output_format_is_an_alias_of_format(tree):
    root = tree({"server.yaml": EAGLE})
    assert (
        run_cli("--output-format", "json", "server.yaml", cwd=root).stdout
        == run_cli("--format", "json", "server.yaml", cwd=root).stdout
    )


def test_mistyped_command_gets_a_did_you_mean(tree):
    root = tree({"server.yaml": EAGLE})
    done = swacheck("rulse", cwd=root, no_config=False)
    assert done.returncode == 2
    assert (
        done.stderr
        == "swacheck: 'rulse' is neither a command nor a file; did you mean `swacheck rule`?\n"
    )
    done = swacheck("explian", "server.yaml", cwd=root, no_config=False)
    assert "did you mean `swacheck explain`" in done.stderr
    # a path is never taken for a command, even when it looks like one
    (root / "rulse").mkdir()
    (root / "rulse" / "server.yaml").write_text(EAGLE.replace("models/", "../models/"))
    assert swacheck("rulse", cwd=root, no_config=False).returncode == 0
    assert "no such file" in swacheck("deploy/x.yaml", cwd=root, no_config=False).stderr


def test_rules_as_json():
    import json

    data = json.loads(run_cli("rules", "--format", "json").stdout)
    assert data[0]["code"] == "SWA101" and data[0]["name"] == "unified-ring-mismatch"
    assert {"code", "name", "severity", "summary", "documentation"} == set(data[0])
    assert run_cli("rules", "--format", "yaml").exit_code == 2


def test_rule_by_name():
    by_code = run_cli("rule", "SWA101").stdout
    assert run_cli("rule", "unified-ring-mismatch").stdout == by_code
    miss = run_cli("rule", "unified-ring-mismatsh")
    assert miss.exit_code == 2 and "did you mean unified-ring-mismatch?" in miss.stderr


def test_pair_has_the_shared_options(tree):
    rocm = (
        "swacheck: 1\nplatform: rocm\n{env}server:\n  model-path: ../models/v4\n  "
        "disaggregation-mode: {role}\n  speculative-algorithm: EAGLE\n  "
        "speculative-num-steps: 3\n  speculative-eagle-topk: 1\n"
    )
    unified = "env:\n  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
    root = tree(
        {
            "d/prefill.yaml": rocm.format(env="", role="prefill"),
            "d/decode.yaml": rocm.format(env=unified, role="decode"),
        }
    )
    args = ("pair", "d/prefill.yaml", "d/decode.yaml")
    assert run_cli(*args, cwd=root).exit_code == 1
    assert run_cli(*args, "--exit-zero", cwd=root).exit_code == 0
    assert run_cli(*args, "--ignore", "SWA404", cwd=root).exit_code == 0
    assert run_cli(*args, "--select", "SWA1", cwd=root).exit_code == 0
    quiet = run_cli(*args, "-q", cwd=root).stdout
    assert quiet.startswith("d/decode.yaml:") and "Checked" not in quiet
    out = run_cli(*args, "-o", "report.json", "--format", "json", cwd=root)
    assert out.exit_code == 1 and (root / "report.json").read_text().startswith("{")
    assert run_cli(*args, "--statistics", cwd=root).stdout.startswith("1  SWA404  error")
    assert run_cli(*args, "-v", cwd=root).stdout.count("\n  ") > run_cli(
        *args, cwd=root
    ).stdout.count("\n  ")


def test_explain_help_has_its_own_exit_codes():
    text = run_cli("explain", "--help").stdout
    assert "0 every deployment was explained" in " ".join(text.split())


def test_glossary_in_explain_and_the_readme():

    from swacheck.glossary import GLOSSARY

    run = run_cli("explain", "--glossary")
    assert run.exit_code == 0
    readme = docs_text()
    for term, text in GLOSSARY:
        assert any(line.startswith(term) and text in line for line in run.stdout.splitlines()), term
        assert f"- **{term}**: {text}" in readme, term
    assert run_cli("explain").exit_code == 2  # no PATH, no --glossary


def test_baseline_reports_only_new_findings(tree):
    failing = (
        EAGLE + "speculative-draft-model-path: ../models/mtp256\ndisaggregation-mode: prefill\n"
    )
    root = tree(
        {
            "a/server.yaml": failing.replace("models/v4", "../models/v4"),
            "b/server.yaml": EAGLE.replace("models/", "../models/"),
        }
    )
    (root / ".git").mkdir()
    written = run_cli("--write-baseline", "baseline.json", "-q", ".", cwd=root)
    assert written.exit_code == 0  # the findings are accepted
    assert "wrote 1 finding to the baseline baseline.json" in written.stderr
    import json

    data = json.loads((root / "baseline.json").read_text())
    [(key, entry)] = data["fingerprints"].items()
    assert data["version"] == 2 and entry["code"] == "SWA102" and entry["file"] == "a/server.yaml"
    assert entry["severity"] == "error"
    again = run_cli("--format", "json", "--baseline", "baseline.json", ".", cwd=root)
    assert (
        again.exit_code == 0
        and again.data["summary"]["baselined"] == 1
        and again.data["summary"]["errors"] == 0
    )
    # a new finding elsewhere is reported; the old one stays out, also from a subfolder
    (root / "b/server.yaml").write_text(
        (EAGLE + "page-size: 64\n").replace("models/", "../models/")
    )
    new = run_cli(
        "--format",
        "concise",
        "--baseline",
        "../baseline.json",
        "--fail-on",
        "warning",
        "server.yaml",
        "../a",
        cwd=root / "b",
    )
    assert new.exit_code == 1
    found = [line for line in new.stdout.splitlines() if line.startswith(("server.yaml", "../a"))]
    assert [line.split(": ")[1].split()[0] for line in found] == ["SWA201"]
    assert "1 in the baseline" in next(
        l for l in new.stdout.splitlines() if l.startswith("Checked")
    )


def test_bad_baseline_is_exit_2(tree):
    root = tree({"server.yaml": EAGLE, "bad.json": "[1]\n"})
    for name, message in (
        ("bad.json", "not a swacheck baseline"),
        ("missing.json", "cannot read the baseline"),
    ):
        run = run_cli("--baseline", name, "server.yaml", cwd=root)
        assert run.exit_code == 2 and message in run.stderr


def test_shell_completion(tmp_path):
    # typer detects the shell from the process's ancestors unless told not to; then it takes the
    # shell named after the option (a run detached from any shell once failed "Shell  not supported")
    shown = subprocess.run(
        [sys.executable, "-m", "swacheck", "--show-completion", "bash"],
        capture_output=True,
        text=True,
        env={**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"},
        timeout=120,
    )
    assert shown.returncode == 0 and "_swacheck_completion" in shown.stdout
    env = {
        **os.environ,
        "_SWACHECK_COMPLETE": "complete_bash",
        "COMP_WORDS": "swacheck ru",
        "COMP_CWORD": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "swacheck"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.stdout.split() == ["rules", "rule"]
