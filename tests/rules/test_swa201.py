"""SWA201 page-size-replaced: an explicit page-size SGLang replaces for DeepSeek-V4."""

from __future__ import annotations

import pytest
from conftest import EAGLE, edits, loc
from conftest import only as the_only


def only(run, code="SWA201"):
    return the_only(run, code)


def test_page_size_256_is_not_reported(lint):
    run = lint({"server.yaml": EAGLE + "page-size: 256\n"})
    assert run.exit_code == 0
    assert run.codes() == []


def test_page_size_64_is_a_warning_that_does_not_fail_by_default(lint):
    run = lint({"server.yaml": EAGLE + "page-size: 64\n"})
    assert run.exit_code == 0
    f = only(run)
    assert f["severity"] == "warning"
    assert (
        f["message"]
        == "page-size 64 is replaced by 256 for DeepSeek-V4: SGLang's DSV4 override sets page_size=256"
    )
    assert loc(f) == ("server.yaml", 5, 1)


def test_fix_deletes_the_page_size_line(lint):
    run = lint({"server.yaml": EAGLE + "page-size: 64\nmax-running-requests: 16\n"})
    f = only(run)
    assert (
        f["fix"]["description"]
        == "Remove page-size: SGLang uses 256 for DeepSeek-V4 whatever is configured."
    )
    assert edits(f) == [("server.yaml", 5, 1, 6, 1, "")]


def test_fail_on_warning_makes_it_fail(lint):
    run = lint({"server.yaml": EAGLE + "page-size: 64\n"}, "--fail-on", "warning")
    assert run.exit_code == 1


def test_geometry_still_uses_256(lint):
    run = lint({"server.yaml": EAGLE + "page-size: 64\n"})
    assert run.deployments[0]["target"]["page_size"] == 256


@pytest.mark.parametrize("value", ["128", "256"])
def test_npu_accepts_only_128(lint, value):
    run = lint({"server.yaml": EAGLE + f"page-size: {value}\n"}, "--platform", "npu")
    if value == "128":
        assert "SWA201" not in run.codes()
    else:
        assert only(run)["message"].startswith("page-size 256 is replaced by 128 for DeepSeek-V4")


def test_reported_without_speculative_decoding_too(lint):
    run = lint({"server.yaml": "model-path: models/v4\npage-size: 64\n"})
    assert loc(only(run)) == ("server.yaml", 2, 1)


def test_quoted_number_is_read_as_an_integer(lint):
    run = lint({"server.yaml": "model-path: models/v4\npage-size: '64'\n"})
    assert only(run)["message"].startswith("page-size 64 is replaced by 256")
    assert "SWA304" not in run.codes()


def test_flow_mapping_fix_replaces_the_value(lint):
    run = lint({"d.yaml": "swacheck: 1\nserver: {model-path: models/v4, page-size: 64}\n"})
    f = only(run)
    assert loc(f) == ("d.yaml", 2, 33)
    assert edits(f) == [("d.yaml", 2, 44, 2, 46, "256")]


def test_non_dsv4_target_is_skipped(lint):
    other = '{"architectures": ["LlamaForCausalLM"], "sliding_window": 128}'
    run = lint(
        {
            "models/llama/config.json": other,
            "server.yaml": "model-path: models/llama\npage-size: 64\n",
        }
    )
    assert run.exit_code == 0
    assert run.deployments[0]["mode"] == "skipped"
    assert "SWA201" not in run.codes()
