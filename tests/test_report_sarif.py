"""``--format sarif``: SARIF 2.1.0 valid against the official schema, for GitHub code scanning.

The schema is tests/data/sarif-schema-2.1.0.json (OASIS errata 01; see tests/data/README.md);
nothing is fetched at test time.

The golden outputs are the ``expected.sarif`` files of tests/golden/ (test_golden.py). They hold
the whole document except ``tool.driver.rules``, which every new rule or docstring edit would
change; ``test_driver_lists_every_rule`` checks that part.
"""

from __future__ import annotations

import copy
import hashlib
import json
from functools import lru_cache

import jsonschema
import pytest
from conftest import EAGLE, ROOT, run_cli

from swacheck import __version__
from swacheck.model.records import Location
from swacheck.report import sarif
from swacheck.rules import RULES

GOLDEN = ROOT / "tests" / "golden"
SCHEMA_FILE = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
CASES = [
    "rocm-unified-draft-window",
    "cuda-no-pd-draft-window",
    "cuda-nextn",
    "rocm-unified-decode",
    "formats-ci",  # an input error, a deployment with two errors, safe and unsafe fixes
]
RULES_PLACEHOLDER = "every rule in swacheck.rules.RULES (checked by test_driver_lists_every_rule)"

FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)


@lru_cache(maxsize=1)
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.fixture(autouse=True)
def _no_workspace(monkeypatch):
    # Under GitHub Actions GITHUB_WORKSPACE would move every path; tests that want it set it.
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)


def assert_valid(doc: dict) -> None:
    errors = sorted(validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def sarif_run(*args: str, cwd=ROOT) -> tuple[dict, object]:
    run = run_cli("--format", "sarif", *args, cwd=cwd)
    return json.loads(run.stdout), run


def results(doc: dict) -> list[dict]:
    return doc["runs"][0]["results"]


def test_schema_file_is_the_official_one():
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert (
        schema["id"]
        == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert (
        hashlib.sha256(SCHEMA_FILE.read_bytes()).hexdigest()
        == "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
    )
    assert isinstance(validator(), jsonschema.Draft4Validator)


def test_schema_rejects_invalid_sarif():
    # The validator really checks: a wrong level and a missing message are refused.
    doc, _ = sarif_run("examples/rocm-draft-window/prefill.yaml")
    bad = copy.deepcopy(doc)
    bad["runs"][0]["results"][0]["level"] = "fatal"
    del bad["runs"][0]["results"][0]["message"]
    assert len(list(validator().iter_errors(bad))) >= 2


def test_examples_are_valid_sarif():
    doc, run = sarif_run("examples/")
    assert run.exit_code == 1
    assert run.stderr == ""
    assert_valid(doc)
    assert doc["version"] == "2.1.0"
    assert doc["$schema"] == sarif.SCHEMA_URI
    assert len(doc["runs"]) == 1
    found = {r["ruleId"] for r in results(doc)}
    assert {"SWA101", "SWA102", "SWA202", "SWA204", "SWA303"} <= found
    assert doc["runs"][0]["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]


GOLDEN_SARIF = sorted(GOLDEN.glob("*/expected.sarif"))


@pytest.mark.parametrize("path", GOLDEN_SARIF, ids=lambda p: p.parent.name)
def test_golden_outputs_are_valid_sarif(path):
    """Each golden SARIF document, with its rules filled in again, is valid SARIF 2.1.0."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["rules"] == RULES_PLACEHOLDER
    driver["rules"] = [sarif.rule_descriptor(rule) for rule in RULES]
    assert_valid(doc)


def test_golden_outputs_cover_the_cases():
    assert sorted(p.parent.name for p in GOLDEN_SARIF) == sorted(CASES)


def test_driver_lists_every_rule():
    doc, _ = sarif_run("examples/rocm-unified/decode.yaml")
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "swacheck"
    assert driver["version"] == __version__
    assert driver["informationUri"] == "https://github.com/swacheck/swacheck"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [rule.CODE for rule in RULES] + ["input-error"]
    assert rules[-1]["defaultConfiguration"] == {"level": "error"}
    for descriptor, rule in zip(rules, RULES):
        doc_text = rule.__doc__.strip()
        assert descriptor["name"] == "".join(w.capitalize() for w in rule.NAME.split("-"))
        assert descriptor["shortDescription"] == {"text": rule.SUMMARY}
        what = descriptor["fullDescription"]["text"]
        assert what and what in doc_text and "## " not in what, rule.CODE
        assert doc_text.index(what) > doc_text.index("## What it does")
        assert descriptor["help"] == {"text": doc_text, "markdown": doc_text}
        assert descriptor["defaultConfiguration"] == {"level": rule.SEVERITY}


def test_results_point_at_rules_and_locations():
    doc, _ = sarif_run("examples/rocm-draft-window/prefill.yaml")
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    (result,) = results(doc)
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "SWA101"
    assert result["level"] == "error"
    assert result["message"]["text"].startswith(
        "DSV4 target and draft pools must share SWA ring geometry"
    )
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {
        "uri": "examples/rocm-draft-window/prefill.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    assert loc["region"] == {"startLine": 12, "startColumn": 1}  # an insert position: no endColumn
    related = result["relatedLocations"]
    assert [r["id"] for r in related] == [1, 2]
    assert related[1]["physicalLocation"] == {
        "artifactLocation": {
            "uri": "examples/models/DeepSeek-V4-Flash-MTP-w256/config.json",
            "uriBaseId": "%SRCROOT%",
        },
        "region": {"startLine": 14, "startColumn": 21, "endLine": 14, "endColumn": 24},
    }
    assert related[1]["message"] == {"text": "draft window 256 comes from here"}
    logical = "examples/rocm-draft-window/prefill.yaml#v4-flash-prefill-rocm-w256-draft/window"
    assert result["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": logical, "kind": "member"}
    ]
    expected = hashlib.sha256(
        f"examples/rocm-draft-window/prefill.yaml\0SWA101\0{logical}".encode()
    ).hexdigest()
    assert result["partialFingerprints"] == {"swacheck/v2": expected}


def test_region():
    assert sarif.region(Location("f", 3, 2, 3, 7)) == {
        "startLine": 3,
        "startColumn": 2,
        "endLine": 3,
        "endColumn": 7,
    }
    assert sarif.region(Location("f", 3, 2, 3, 2)) == {"startLine": 3, "startColumn": 2}
    assert sarif.region(Location("f", 3, 2, 5, 1)) == {
        "startLine": 3,
        "startColumn": 2,
        "endLine": 5,
        "endColumn": 1,
    }


def test_fingerprints_survive_lines_moving(tree, tmp_path):
    moved_text = "# a comment\n\n\n# and blank lines above\n\n" + FAILING
    before, _ = sarif_run("server.yaml", cwd=tree({"server.yaml": FAILING}))
    (tmp_path / "server.yaml").write_text(moved_text)
    after, _ = sarif_run("server.yaml", cwd=tmp_path)
    assert_valid(before)
    assert_valid(after)
    assert (
        [r["ruleId"] for r in results(before)]
        == [r["ruleId"] for r in results(after)]
        == ["SWA102", "SWA201"]
    )
    for b, a in zip(results(before), results(after)):
        assert b["partialFingerprints"] == a["partialFingerprints"]
        b_line = b["locations"][0]["physicalLocation"]["region"]["startLine"]
        a_line = a["locations"][0]["physicalLocation"]["region"]["startLine"]
        assert a_line == b_line + 5
    fingerprints = [r["partialFingerprints"]["swacheck/v2"] for r in results(before)]
    assert len(set(fingerprints)) == len(fingerprints)


def test_fingerprints_distinct_for_repeated_findings(tree):
    # the same key duplicated twice in one file: same code, deployment and field
    text = EAGLE + "page-size: 64\npage-size: 64\npage-size: 64\n"
    doc, _ = sarif_run("server.yaml", cwd=tree({"server.yaml": text}))
    assert_valid(doc)
    fingerprints = [r["partialFingerprints"]["swacheck/v2"] for r in results(doc)]
    assert len(fingerprints) >= 2
    assert len(set(fingerprints)) == len(fingerprints)


def test_special_characters_in_uris(tree):
    space = FAILING.replace("models/", "../models/")
    root = tree({"a,b:c%.yaml": FAILING, "dir with space/x y.yaml": space})
    doc, run = sarif_run("a,b:c%.yaml", "dir with space/x y.yaml", cwd=root)
    assert run.exit_code == 1
    assert_valid(doc)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results(doc)]
    assert {"uri": "a%2Cb%3Ac%25.yaml", "uriBaseId": "%SRCROOT%"} in uris
    assert {"uri": "dir%20with%20space/x%20y.yaml", "uriBaseId": "%SRCROOT%"} in uris


def test_paths_are_relative_to_the_working_directory(tree):
    root = tree({"sub/server.yaml": FAILING.replace("models/", "../models/")})
    doc, run = sarif_run(str(root / "sub" / "server.yaml"), cwd=root)  # absolute path inside cwd
    assert run.exit_code == 1
    assert_valid(doc)
    result = results(doc)[0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "sub/server.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    related = result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
    assert related == {"uri": "models/v4/config.json", "uriBaseId": "%SRCROOT%"}


def test_paths_outside_the_working_directory_are_file_uris(tree, tmp_path):
    root = tree({"server.yaml": FAILING})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    doc, run = sarif_run(str(root / "server.yaml"), cwd=elsewhere)
    assert run.exit_code == 1
    assert_valid(doc)
    artifact = results(doc)[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (root / "server.yaml").as_uri()}


def test_input_errors_are_results_and_tool_execution_notifications(tree):
    """Code scanning shows results, not notifications: an input error is both."""
    doc, run = sarif_run(
        "bad.yaml", "server.yaml", cwd=tree({"bad.yaml": "model-path: [\n", "server.yaml": FAILING})
    )
    assert run.exit_code == 2
    assert_valid(doc)
    (invocation,) = doc["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["exitCode"] == 2
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert note["message"]["text"].startswith("invalid YAML")
    assert note["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "bad.yaml", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 2, "startColumn": 1},
            }
        }
    ]
    assert [r["ruleId"] for r in results(doc)] == [
        "SWA102",
        "SWA201",
        "input-error",
    ]  # the other file is still checked
    error = results(doc)[-1]
    assert error["level"] == "error"
    assert error["message"]["text"] == note["message"]["text"]
    assert error["locations"] == note["locations"]
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert rules[error["ruleIndex"]]["id"] == "input-error"
    assert len(error["partialFingerprints"]["swacheck/v2"]) == 64


# --- stable fingerprints and workspace-relative paths ---------------------------------------------


def _fingerprints(doc: dict) -> dict[tuple[str, str], str]:
    """(file URI, rule) -> fingerprint, for every result."""
    out = {}
    for r in results(doc):
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        out[uri, r["ruleId"]] = r["partialFingerprints"]["swacheck/v2"]
    return out


def _two_folders(tree) -> object:
    # the same deployment (same name, same findings) in two folders
    return tree(
        {
            "b/server.yaml": FAILING.replace("models/", "../models/"),
            "c/server.yaml": FAILING.replace("models/", "../models/"),
        }
    )


def test_fingerprints_hold_the_file_path(tree):
    root = _two_folders(tree)
    doc, _ = sarif_run(".", cwd=root)
    prints = _fingerprints(doc)
    assert set(prints) == {
        ("b/server.yaml", "SWA102"),
        ("b/server.yaml", "SWA201"),
        ("c/server.yaml", "SWA102"),
        ("c/server.yaml", "SWA201"),
    }
    assert (
        prints["b/server.yaml", "SWA102"] != prints["c/server.yaml", "SWA102"]
    )  # not moved between files


def test_fingerprints_stable_when_an_unrelated_folder_is_added_or_renamed(tree):
    root = _two_folders(tree)
    before = _fingerprints(sarif_run(".", cwd=root)[0])
    # a folder that sorts first, holding the same deployment: once each file's alerts moved to it
    (root / "a").mkdir()
    (root / "a" / "server.yaml").write_text(FAILING.replace("models/", "../models/"))
    added = _fingerprints(sarif_run(".", cwd=root)[0])
    assert {k: v for k, v in added.items() if not k[0].startswith("a/")} == before
    (root / "a").rename(root / "z")
    renamed = _fingerprints(sarif_run(".", cwd=root)[0])
    assert {k: v for k, v in renamed.items() if not k[0].startswith("z/")} == before
    # and the run order does not matter
    assert _fingerprints(sarif_run("c", "z", "b", cwd=root)[0]) == renamed


def test_paths_are_relative_to_the_git_top_level_not_the_working_directory(tree):
    root = tree({"deploy/server.yaml": FAILING.replace("models/", "../models/")})
    (root / ".git").mkdir()
    doc, run = sarif_run(
        "server.yaml", cwd=root / "deploy"
    )  # a step with working-directory: deploy
    assert run.exit_code == 1
    assert_valid(doc)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results(doc)}
    assert uris == {"deploy/server.yaml"}


def test_paths_are_relative_to_github_workspace(tree, monkeypatch):
    root = tree({"repo/deploy/server.yaml": FAILING.replace("models/", "../../models/")})
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root / "repo"))
    doc, run = sarif_run("server.yaml", cwd=root / "repo" / "deploy")
    assert_valid(doc)
    artifact = results(doc)[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "deploy/server.yaml", "uriBaseId": "%SRCROOT%"}
    # the model config lies outside the workspace: an absolute file URI
    related = results(doc)[0]["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
    assert related == {"uri": (root / "models" / "v4" / "config.json").as_uri()}


def test_a_run_without_deployments_is_a_notification_without_a_file(tree):
    root = tree({"a/values.yaml": "replicas: 3\n", "b/values.yaml": "replicas: 4\n"})
    doc, run = sarif_run("a", "b", cwd=root)
    assert run.exit_code == 2
    assert_valid(doc)
    (note,) = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note == {
        "level": "error",
        "message": {
            "text": "no deployments found in 2 inputs (--allow-empty allows a run without any)"
        },
    }
