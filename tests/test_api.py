"""The Python API (docs/api.md): ``swacheck.check`` and ``swacheck.check_text``."""

from __future__ import annotations

import dataclasses
import os

import pytest
from conftest import EAGLE, ROOT

import swacheck

FAILING = (
    EAGLE
    + "speculative-draft-model-path: models/mtp256\ndisaggregation-mode: prefill\npage-size: 64\n"
)


@pytest.fixture
def chdir(monkeypatch):
    def go(path):
        monkeypatch.chdir(path)
        return path

    return go


def test_the_promised_names_exist():
    for name in (
        "check",
        "check_text",
        "Report",
        "Finding",
        "Location",
        "Deployment",
        "InputError",
    ):
        assert hasattr(swacheck, name)
    assert [f.name for f in dataclasses.fields(swacheck.Report)][:3] == [
        "exit_code",
        "findings",
        "deployments",
    ]
    assert [f.name for f in dataclasses.fields(swacheck.Finding)][:4] == [
        "code",
        "severity",
        "message",
        "location",
    ]
    with pytest.raises(AttributeError):
        swacheck.no_such_thing  # noqa: B018


def test_check_a_folder(chdir):
    chdir(ROOT)
    report = swacheck.check("examples/rocm-draft-window")
    assert report.exit_code == 1 and not report.ok
    [finding] = report.findings
    assert (finding.code, finding.severity) == ("SWA101", "error")
    assert finding.location == swacheck.Location(
        "examples/rocm-draft-window/prefill.yaml", 12, 1, 12, 1
    )
    assert finding.deployment == "v4-flash-prefill-rocm-w256-draft"
    assert finding.fix.startswith("Remove speculative-draft-model-path")
    assert str(finding).startswith(
        "examples/rocm-draft-window/prefill.yaml:12:1: SWA101 error: DSV4 target and draft"
    )
    [dep] = report.deployments
    assert (dep.mode, dep.target, dep.draft) == ("unified", (128, 131, 33667), (256, 259, 66563))
    assert dep.findings == (finding,)


def test_check_takes_paths_and_path_objects(chdir):
    chdir(ROOT)
    report = swacheck.check([ROOT / "examples/rocm-unified/decode.yaml", "examples/cuda-nextn"])
    assert [d.file for d in report.deployments][-1] == "examples/cuda-nextn/prefill.yaml"
    assert [f.code for f in report.findings] == ["SWA202"]


def test_findings_are_sorted_by_file_and_position(tree, chdir):
    chdir(tree({"b.yaml": FAILING, "a.yaml": FAILING}))
    report = swacheck.check(["b.yaml", "a.yaml"])
    keys = [(f.location.file, f.location.line, f.location.column) for f in report.findings]
    assert keys == sorted(keys) and keys[0][0] == "a.yaml"


def test_input_errors_are_in_the_report_not_raised(tree, chdir):
    chdir(tree({"bad.yaml": "model-path: [\n", "good.yaml": EAGLE}))
    report = swacheck.check(["bad.yaml", "good.yaml", "missing.yaml"])
    assert report.exit_code == 2
    assert [str(e) for e in report.errors] == [
        "missing.yaml: no such file or directory",
        "bad.yaml:2:1: invalid YAML: did not find expected node content (while parsing a flow node)",
    ]
    assert [d.name for d in report.deployments] == ["good"]


def test_no_deployment_is_exit_2_unless_allowed(tree, chdir):
    chdir(tree({"values.yaml": "replicas: 3\n"}))
    assert swacheck.check("values.yaml").exit_code == 2
    allowed = swacheck.check("values.yaml", allow_empty=True)
    assert allowed.exit_code == 0 and allowed.skipped == ("values.yaml",)


def test_check_text_reads_the_text_as_the_file(tree, chdir):
    root = chdir(tree({"deploy/server.yaml": "# on disk: not what is checked\n"}))
    report = swacheck.check_text(FAILING.replace("models/", "../models/"), "deploy/server.yaml")
    assert report.exit_code == 1
    assert [(f.code, f.location.file) for f in report.findings] == [
        ("SWA102", "deploy/server.yaml"),
        ("SWA201", "deploy/server.yaml"),
    ]
    assert (root / "deploy/server.yaml").read_text() == "# on disk: not what is checked\n"
    # a file that does not exist: its folder still places the referenced files
    assert swacheck.check_text(EAGLE, "new.yaml").exit_code == 0
    # a launch script, told by its name
    script = (
        "python -m sglang.launch_server --model-path models/v4 --speculative-algorithm EAGLE "
        "--speculative-num-steps 3 --speculative-eagle-topk 1 --page-size 64\n"
    )
    assert [f.code for f in swacheck.check_text(script, "run.sh").findings] == ["SWA201"]


def test_check_text_with_an_inline_suppression(tree, chdir):
    chdir(tree({}))
    text = EAGLE + "page-size: 64  # swacheck: ignore[SWA201] kept for another model\n"
    assert swacheck.check_text(text, "server.yaml").findings == ()


def test_options(tree, chdir):
    chdir(tree({"server.yaml": FAILING}))
    assert [f.code for f in swacheck.check("server.yaml", select=["SWA2"]).findings] == ["SWA201"]
    assert [f.code for f in swacheck.check("server.yaml", ignore="SWA102").findings] == ["SWA201"]
    assert swacheck.check("server.yaml", ignore=["SWA102"], fail_on="warning").exit_code == 1
    assert swacheck.check("server.yaml", ignore=["SWA102"]).exit_code == 0
    assert swacheck.check("server.yaml", exit_zero=True).exit_code == 0
    rocm = swacheck.check(
        "server.yaml", platform="rocm", env={"SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton"}
    )
    assert rocm.deployments[0].mode == "unified"


def test_every_check_setting_of_the_configuration_file_is_an_option(tree, chdir):
    # gpu was once missing: the API could not run the SWA5xx preflight rules
    chdir(tree({"server.yaml": EAGLE}))
    assert swacheck.check("server.yaml").findings == ()
    assert "SWA503" in [f.code for f in swacheck.check("server.yaml", gpu="A100").findings]
    for printed_only in ("format", "color", "unsafe_fixes"):
        with pytest.raises(TypeError, match=f"unknown option '{printed_only}'"):
            swacheck.check("server.yaml", **{printed_only: None})


def test_bad_options_raise(tree, chdir):
    chdir(tree({"server.yaml": EAGLE}))
    with pytest.raises(TypeError, match="did you mean 'fail_on'"):
        swacheck.check("server.yaml", failon="warning")
    with pytest.raises(ValueError, match="fail-on must be one of"):
        swacheck.check("server.yaml", fail_on="fatal")
    with pytest.raises(ValueError, match="rule codes"):
        swacheck.check("server.yaml", select=["E501"])
    with pytest.raises(TypeError):
        swacheck.check_text(b"model-path: x", "a.yaml")


def test_the_configuration_file_applies_as_on_the_command_line(tree, chdir):
    root = chdir(
        tree(
            {
                "server.yaml": FAILING,
                "pyproject.toml": '[tool.swacheck]\nignore = ["SWA102"]\nfail-on = "warning"\n',
            }
        )
    )
    report = swacheck.check("server.yaml")
    assert [f.code for f in report.findings] == ["SWA201"] and report.exit_code == 1
    assert (
        swacheck.check("server.yaml", fail_on="error").exit_code == 0
    )  # an option wins over the file
    assert [f.code for f in swacheck.check("server.yaml", config=False).findings] == [
        "SWA102",
        "SWA201",
    ]
    (root / "other.toml").write_text('select = ["SWA1"]\n')
    assert [f.code for f in swacheck.check("server.yaml", config=root / "other.toml").findings] == [
        "SWA102"
    ]
    (root / "pyproject.toml").write_text('[tool.swacheck]\nfail-onn = "warning"\n')
    with pytest.raises(ValueError, match="did you mean 'fail-on'"):
        swacheck.check("server.yaml")


def test_nothing_is_printed(tree, chdir, capsys):
    chdir(tree({"server.yaml": FAILING, "values.yaml": "a: 1\n", "bad.yaml": "x: [\n"}))
    swacheck.check(["server.yaml", "values.yaml", "bad.yaml"])
    assert capsys.readouterr() == ("", "")


def test_report_is_immutable(chdir):
    chdir(ROOT)
    report = swacheck.check("examples/rocm-unified/decode.yaml")
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.exit_code = 0  # type: ignore[misc]
    assert os.getcwd() == str(ROOT)
