"""SWA301 duplicate-key: the same key twice in one mapping (the last one silently wins)."""

from __future__ import annotations

import pytest
from conftest import EAGLE, V4_FLASH, edits, loc
from conftest import only as the_only


def only(run, code="SWA301"):
    return the_only(run, code)


DUP_SERVER = EAGLE + "max-running-requests: 64\nmax-running-requests: 16\n"  # lines 5 and 6


def test_no_duplicates_pass(lint):
    run = lint({"server.yaml": EAGLE + "max-running-requests: 16\n"})
    assert run.exit_code == 0
    assert run.codes() == []


def test_duplicate_server_key_is_a_warning_at_the_later_key(lint):
    run = lint({"server.yaml": DUP_SERVER})
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "warning"
    assert (
        f["message"]
        == "duplicate key 'max-running-requests': the value at line 6 is used and the one at line 5 is ignored"
    )
    assert loc(f) == ("server.yaml", 6, 1)
    assert [(r["line"], r["message"]) for r in f["related"]] == [(5, "first occurrence, ignored")]


def test_fix_deletes_the_ignored_first_entry(lint):
    f = only(lint({"server.yaml": DUP_SERVER}))
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_fail_on_warning_makes_it_fail(lint):
    assert lint({"server.yaml": DUP_SERVER}, "--fail-on", "warning").exit_code == 1


def test_the_last_value_is_the_one_used(lint):
    server = (
        EAGLE + "disaggregation-mode: decode\nmax-running-requests: 64\nmax-running-requests: 16\n"
    )
    run = lint(
        {"server.yaml": server},
        "--platform",
        "rocm",
        "--env",
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton",
    )
    assert run.deployments[0]["target"]["pages"] == 6419  # (16 + 32 + 1) x 131


def test_duplicate_key_in_a_model_config_json(lint):
    dup = V4_FLASH.replace(
        '"sliding_window": 128,', '"sliding_window": 256,\n  "sliding_window": 128,'
    )
    run = lint(
        {"models/dup/config.json": dup, "server.yaml": EAGLE.replace("models/v4", "models/dup")}
    )
    assert run.exit_code == 0
    f = only(run)
    assert (
        f["message"]
        == "duplicate key 'sliding_window': the value at line 15 is used and the one at line 14 is ignored"
    )
    assert loc(f) == ("models/dup/config.json", 15, 3)
    assert f["fix"]["edits"] == []  # JSON objects are flow style: no line deletion
    assert run.deployments[0]["target"]["sliding_window"] == 128


def test_page_underscore_size_is_not_a_second_spelling_but_refused(lint):
    # `page_size` never reaches --page-size: SGLang stops on it (SWA303), so SWA301 says nothing
    run = lint({"server.yaml": EAGLE + "page-size: 256\npage_size: 256\n"})
    assert run.codes() == ["SWA303"]


def test_duplicate_in_a_deployment_file(lint):
    run = lint(
        {"d.yaml": "swacheck: 1\nplatform: cuda\nplatform: rocm\nserver: {model-path: models/v4}\n"}
    )
    f = only(run)
    assert loc(f) == ("d.yaml", 3, 1)
    assert edits(f) == [("d.yaml", 2, 1, 3, 1, "")]
    assert run.deployments[0]["platform"] == "rocm"


def test_duplicate_in_nested_geometry(lint):
    run = lint({"d.yaml": "swacheck: 1\ntarget:\n  geometry:\n    window: 128\n    window: 256\n"})
    f = only(run)
    assert loc(f) == ("d.yaml", 5, 5)
    assert edits(f) == [("d.yaml", 4, 1, 5, 1, "")]


def test_duplicate_in_a_server_config_referenced_by_a_deployment(lint):
    files = {
        "d.yaml": "swacheck: 1\nserver: s.yaml\n",
        "s.yaml": "model-path: models/v4\npage-size: 256\npage-size: 256\n",
    }
    run = lint(files)
    assert len(run.deployments) == 1
    f = only(run)
    assert loc(f) == ("s.yaml", 3, 1)
    assert edits(f) == [("s.yaml", 2, 1, 3, 1, "")]


def test_flow_mapping_duplicate_has_no_line_deletion(lint):
    run = lint({"d.yaml": "swacheck: 1\nserver: {model-path: models/v4, tp-size: 8, tp-size: 4}\n"})
    f = only(run)
    assert loc(f) == ("d.yaml", 2, 45)
    assert f["fix"]["edits"] == []


@pytest.mark.parametrize(
    "server",
    ["model: models/mtp256\n" + EAGLE, EAGLE + "speculative-algo: NEXTN\n"],
    ids=["alias-model", "prefix-speculative-algo"],
)
def test_alias_or_prefix_of_the_same_argument_is_reported(lint, server):
    run = lint({"server.yaml": server})
    assert "SWA301" in run.codes()


def test_duplicates_on_one_line_are_told_apart_by_column(lint):
    run = lint({"d.yaml": "swacheck: 1\nserver: {model-path: models/v4, tp-size: 4, tp-size: 8}\n"})
    (f,) = run.findings("SWA301")
    assert (
        f["message"]
        == "duplicate key 'tp-size': the value at 2:45 is used and the one at 2:33 is ignored"
    )
