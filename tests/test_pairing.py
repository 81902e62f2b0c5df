"""PD prefill/decode pairing: which servers are paired and why, and how pair findings are reported.

Golden outputs for examples/pd-unified-one-side/ are the case tests/golden/pair-pd-unified-one-side
(test_golden.py).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT, run_cli

ONLY = "the only prefill and decode servers of this model in the run"
UNIFIED_ENV = "env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}\n"


def server(role: str, extra: str = "", model: str = "../models/v4") -> str:
    return f"model-path: {model}\ndisaggregation-mode: {role}\n{extra}"


def rocm(role: str, env: str = "") -> str:
    # line 2 platform; line 3 the env when given (backend value at column 37)
    return f"swacheck: 1\nplatform: rocm\n{env}server:\n  model-path: ../models/v4\n  disaggregation-mode: {role}\n"


def pair_names(run) -> list[tuple[str, str]]:
    return [(p["prefill"]["file"], p["decode"]["file"]) for p in run.data["pairs"]]


def codes_by_file(run) -> dict[str, list[str]]:
    return {d["file"]: [f["code"] for f in d["findings"]] for d in run.deployments}


# --- automatic pairing ------------------------------------------------------------------------


@pytest.fixture
def estate(tree):
    """Several deployments under one root: only pd/ makes a pair, only multi/ is ambiguous."""
    return tree(
        {
            "models/v4copy/config.json": (
                ROOT / "examples/models/DeepSeek-V4-Flash/config.json"
            ).read_text(),
            # a lone server: nothing to compare with
            "lone/decode.yaml": server("decode"),
            # the usual layout: one folder per deployment
            "pd/prefill.yaml": server("prefill", "tp-size: 8\n"),
            "pd/decode.yaml": server("decode", "tp-size: 4\n"),
            # two decode servers for one prefill: ambiguous
            "multi/prefill.yaml": server("prefill"),
            "multi/decode-a.yaml": server("decode"),
            "multi/decode-b.yaml": server("decode"),
            # the same model, but in different folders
            "split-p/prefill.yaml": server("prefill", "tp-size: 8\n"),
            "split-d/decode.yaml": server("decode", "tp-size: 4\n"),
            # one folder, different models
            "models2/prefill.yaml": server("prefill", "tp-size: 8\n"),
            "models2/decode.yaml": server("decode", "tp-size: 4\n", model="../models/v4copy"),
        }
    )


def test_auto_pairing_over_a_directory(estate):
    run = run_cli("--format", "json", ".", cwd=estate)
    assert run.exit_code == 0
    assert pair_names(run) == [("pd/prefill.yaml", "pd/decode.yaml")]
    assert run.data["pairs"][0]["how"] == ONLY
    codes = codes_by_file(run)
    assert codes["pd/decode.yaml"] == ["SWA410"]  # tp 8 vs 4
    assert codes["pd/prefill.yaml"] == []
    assert codes["lone/decode.yaml"] == []
    assert codes["multi/prefill.yaml"] == ["SWA400"]
    assert codes["multi/decode-a.yaml"] == ["SWA400"]
    assert codes["multi/decode-b.yaml"] == ["SWA400"]
    for name in (
        "split-p/prefill.yaml",
        "split-d/decode.yaml",
        "models2/prefill.yaml",
        "models2/decode.yaml",
    ):
        assert codes[name] == [], name  # never paired, and no note either


def test_servers_in_different_folders_are_never_paired(tree):
    root = tree(
        {
            "a/prefill.yaml": server("prefill", "tp-size: 8\n"),
            "b/decode.yaml": server("decode", "tp-size: 4\n"),
        }
    )
    run = run_cli("--format", "json", "a", "b", cwd=root)
    assert run.data["pairs"] == []
    assert run.findings("SWA410") == [] and run.findings("SWA400") == []


def test_different_models_are_never_paired(tree):
    root = tree(
        {
            "models/v4copy/config.json": (
                ROOT / "examples/models/DeepSeek-V4-Flash/config.json"
            ).read_text(),
            "d/prefill.yaml": server("prefill"),
            "d/decode.yaml": server("decode", model="../models/v4copy"),
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.data["pairs"] == []


def test_the_same_model_spelled_differently_is_one_model(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill", model="../models/./v4"),
            "d/decode.yaml": server("decode", model="../models/v4/"),
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert pair_names(run) == [("d/prefill.yaml", "d/decode.yaml")]


def test_deployment_files_pair_with_server_configs(tree):
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": server("decode")})
    run = run_cli("--format", "json", "d", cwd=root)
    assert pair_names(run) == [("d/prefill.yaml", "d/decode.yaml")]
    compared = run.data["pairs"][0]["compared"]["platform"]
    assert (compared["prefill"], compared["decode"], compared["prefill_from"]) == (
        "rocm",
        "cuda",
        "d/prefill.yaml:2:11",
    )


def test_a_server_without_a_pd_role_is_never_paired(tree):
    root = tree({"d/server.yaml": "model-path: ../models/v4\n", "d/decode.yaml": server("decode")})
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.data["pairs"] == []
    assert run.findings("SWA400") == []


def test_pairs_is_an_empty_list_without_pd_servers(tree):
    root = tree({"server.yaml": "model-path: models/v4\n"})
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert run.data["pairs"] == []


def test_both_roles_in_one_multi_document_file_pair(tree):
    two = (
        "swacheck: 1\nname: v4-prefill\nserver: {model-path: ../models/v4, disaggregation-mode: prefill}\n"
        "---\n"
        "swacheck: 1\nname: v4-decode\nserver: {model-path: ../models/v4, disaggregation-mode: decode, tp-size: 4}\n"
    )
    root = tree({"d/pd.yaml": two})
    run = run_cli("--format", "json", "d", cwd=root)
    assert pair_names(run) == [("d/pd.yaml", "d/pd.yaml")]
    p = run.data["pairs"][0]
    assert (p["prefill"]["name"], p["decode"]["name"]) == ("v4-prefill", "v4-decode")
    [f] = p["findings"]
    assert (f["code"], f["location"]["line"], f["location"]["column"]) == ("SWA410", 7, 74)


def test_name_fallback_ignores_where_the_role_word_stands(tree):
    root = tree(
        {
            "d/v4-prefill-prod.yaml": server("prefill"),
            "d/v4-prod-decode.yaml": server("decode"),
            "d/v4-canary-prefill.yaml": server("prefill"),
            "d/v4-canary-decode.yaml": server("decode"),
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert ("d/v4-prefill-prod.yaml", "d/v4-prod-decode.yaml") in pair_names(run)


# --- --show-pairs -------------------------------------------------------------------------------


def test_show_pairs_lists_pairs_and_unpaired_servers_on_stderr(estate):
    run = run_cli("--show-pairs", "--color", "never", ".", cwd=estate)
    lines = run.stderr.splitlines()
    assert f"pair: pd/prefill.yaml (prefill) + pd/decode.yaml (decode): {ONLY}" in lines
    assert (
        "unpaired: multi/prefill.yaml (prefill): 2 decode servers of the same model could be its partner"
        in lines
    )
    assert (
        "unpaired: multi/decode-a.yaml (decode-a): 1 prefill server of the same model could be its partner"
        in lines
    )
    assert (
        "unpaired: multi/decode-b.yaml (decode-b): 1 prefill server of the same model could be its partner"
        in lines
    )
    assert len(lines) == 4
    assert "unpaired:" not in run.stdout and "\npair: " not in run.stdout


def test_show_pairs_names_the_name_fallback(tree):
    root = tree(
        {
            "d/v4-prod-prefill.yaml": server("prefill"),
            "d/v4-prod-decode.yaml": server("decode"),
            "d/v4-canary-prefill.yaml": server("prefill"),
            "d/v4-canary-decode.yaml": server("decode"),
        }
    )
    run = run_cli("--show-pairs", "--format", "json", "d", cwd=root)
    assert sorted(run.stderr.splitlines()) == [
        "pair: d/v4-canary-prefill.yaml (prefill) + d/v4-canary-decode.yaml (decode): "
        "same model and the same name without prefill/decode ('v4-canary')",
        "pair: d/v4-prod-prefill.yaml (prefill) + d/v4-prod-decode.yaml (decode): "
        "same model and the same name without prefill/decode ('v4-prod')",
    ]
    json.loads(run.stdout)  # stdout stays pure JSON


def test_show_pairs_without_pd_servers(tree):
    root = tree({"server.yaml": "model-path: models/v4\n"})
    run = run_cli("--show-pairs", "-q", "server.yaml", cwd=root)
    assert run.stderr.strip() == "no PD prefill/decode pairs among the checked deployments"


def test_without_show_pairs_nothing_about_pairs_goes_to_stderr(estate):
    run = run_cli("--color", "never", ".", cwd=estate)
    assert run.stderr == ""


# --- swacheck pair --------------------------------------------------------------------------------


def test_pair_command_exit_1_on_an_error(tree):
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": rocm("decode", UNIFIED_ENV)})
    run = run_cli("pair", "d/prefill.yaml", "d/decode.yaml", "--format", "json", cwd=root)
    assert run.exit_code == 1
    assert pair_names(run) == [("d/prefill.yaml", "d/decode.yaml")]
    assert run.data["pairs"][0]["how"] == "named as a pair (d/prefill.yaml + d/decode.yaml)"
    assert [f["code"] for f in run.data["pairs"][0]["findings"]] == ["SWA404"]


def test_pair_command_exit_0_when_the_pair_agrees(tree):
    root = tree({"d/prefill.yaml": server("prefill"), "d/decode.yaml": server("decode")})
    run = run_cli("pair", "d/prefill.yaml", "d/decode.yaml", "--format", "json", cwd=root)
    assert run.exit_code == 0
    assert pair_names(run) == [("d/prefill.yaml", "d/decode.yaml")]
    assert run.data["pairs"][0]["findings"] == []


def test_pair_command_exit_0_with_a_note_and_1_with_fail_on_note(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill", "tp-size: 8\n"),
            "d/decode.yaml": server("decode", "tp-size: 4\n"),
        }
    )
    assert run_cli("pair", "d/prefill.yaml", "d/decode.yaml", cwd=root).exit_code == 0
    assert (
        run_cli("pair", "d/prefill.yaml", "d/decode.yaml", "--fail-on", "note", cwd=root).exit_code
        == 1
    )


def test_pair_command_exit_2_for_a_missing_file(tree):
    root = tree({"d/decode.yaml": server("decode")})
    run = run_cli("pair", "d/nope.yaml", "d/decode.yaml", cwd=root)
    assert run.exit_code == 2
    assert "d/nope.yaml: no such file or directory" in run.stderr


def test_pair_command_exit_2_without_both_arguments(tree):
    root = tree({"d/decode.yaml": server("decode")})
    assert run_cli("pair", "d/decode.yaml", cwd=root).exit_code == 2


def test_pair_command_pairs_across_folders(tree):
    root = tree(
        {
            "a/prefill.yaml": server("prefill", "tp-size: 8\n"),
            "b/decode.yaml": server("decode", "tp-size: 4\n"),
        }
    )
    run = run_cli("pair", "a/prefill.yaml", "b/decode.yaml", "--format", "json", cwd=root)
    assert pair_names(run) == [("a/prefill.yaml", "b/decode.yaml")]
    [f] = run.data["pairs"][0]["findings"]
    assert f["code"] == "SWA410"
    assert f["message"].endswith("[prefill a/prefill.yaml vs decode b/decode.yaml]")


def test_pair_command_settles_an_ambiguous_folder(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode-a.yaml": server("decode", "tp-size: 4\n"),
            "d/decode-b.yaml": server("decode"),
        }
    )
    run = run_cli("pair", "d/prefill.yaml", "d/decode-a.yaml", "--format", "json", cwd=root)
    assert pair_names(run) == [("d/prefill.yaml", "d/decode-a.yaml")]
    assert run.findings("SWA400") == []
    assert sorted(d["file"] for d in run.deployments) == [
        "d/decode-a.yaml",
        "d/prefill.yaml",
    ]  # only the two named files


def test_pair_command_with_a_multi_document_file_is_not_silently_dropped(tree):
    two = (
        "swacheck: 1\nname: decode-a\nserver: {model-path: ../models/v4, disaggregation-mode: decode}\n"
        "---\n"
        "swacheck: 1\nname: decode-b\nserver: {model-path: ../models/v4, disaggregation-mode: decode}\n"
    )
    root = tree({"d/prefill.yaml": server("prefill"), "d/decodes.yaml": two})
    run = run_cli("pair", "d/prefill.yaml", "d/decodes.yaml", "--format", "json", cwd=root)
    assert run.data["pairs"] or run.exit_code == 2 or "named as a pair" in run.stdout


# --- JSON shape ----------------------------------------------------------------------------------


COMPARED = [
    "page_size",
    "kv_cache_dtype",
    "kv_layout",
    "unified_kv",
    "unified_kv_fp8",
    "speculative",
    "online_compress",
    "speculative_num_draft_tokens",
    "speculative_eagle_topk",
    "speculative_num_steps",
    "tp_size",
    "attn_dp_size",
    "attn_tp_size",
    "attn_cp_size",
    "pp_size",
    "kv_cache_sharding",
    "kv_checksum",
    "sampling_mask",
    "platform",
]


def test_json_pair_shape(tree):
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": rocm("decode", UNIFIED_ENV)})
    run = run_cli("--format", "json", "d", cwd=root)
    [pair] = run.data["pairs"]
    assert set(pair) == {"prefill", "decode", "how", "compared", "findings"}
    assert pair["prefill"] == {"file": "d/prefill.yaml", "name": "prefill"}
    assert pair["decode"] == {"file": "d/decode.yaml", "name": "decode"}
    assert pair["how"] == ONLY
    assert list(pair["compared"]) == COMPARED
    for name, row in pair["compared"].items():
        assert set(row) == {"prefill", "decode", "differs", "prefill_from", "decode_from"}, name
        assert row["differs"] == (row["prefill"] != row["decode"]), name
        assert isinstance(row["prefill_from"], str) and isinstance(row["decode_from"], str)
    assert [n for n, row in pair["compared"].items() if row["differs"]] == ["unified_kv"]
    assert (
        pair["compared"]["unified_kv"]["decode_from"]
        == "ROCm and SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton"
    )
    assert pair["compared"]["tp_size"] == {
        "prefill": 1,
        "decode": 1,
        "differs": False,
        "prefill_from": "SGLang default (--tp-size)",
        "decode_from": "SGLang default (--tp-size)",
    }
    # the pair's findings are exactly the decode deployment's pair findings, in the same form
    by_file = {d["file"]: d for d in run.deployments}
    assert pair["findings"] == by_file["d/decode.yaml"]["findings"]
    [f] = pair["findings"]
    assert set(f) == {"code", "severity", "message", "location", "related", "fix"}
    assert (f["code"], f["location"]["file"], f["location"]["line"], f["location"]["column"]) == (
        "SWA404",
        "d/decode.yaml",
        3,
        37,
    )
    assert [(r["file"], r["line"], r["column"]) for r in f["related"]] == [
        ("d/prefill.yaml", 2, 11)
    ]
    assert run.data["summary"]["errors"] == 1


# --- suppression and rule selection ------------------------------------------------------------


def test_suppressing_a_pair_finding_on_the_decode_side(tree):
    decode = rocm(
        "decode",
        "env:\n  # swacheck: ignore[SWA404] the launcher rebuilds the decode pool\n "
        " SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n",
    )
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": decode})
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.exit_code == 0
    assert run.findings("SWA404") == []  # gone from the deployment findings
    assert run.data["pairs"][0]["findings"] == []  # and from the pair's
    assert (
        run.findings("SWA902") == [] and run.findings("SWA901") == []
    )  # the suppression was used, with a reason
    assert run.data["summary"]["suppressed"] == 1


def test_suppressing_one_pair_finding_keeps_the_others(tree):
    decode = rocm(
        "decode",
        "env:\n"
        "  # swacheck: ignore[SWA404] the launcher rebuilds the decode pool\n"
        "  SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton\n"
        '  SGLANG_ENABLE_DISAGG_SAMPLING_MASK: "1"\n',
    )
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": decode})
    run = run_cli("--format", "json", "d", cwd=root)
    assert [f["code"] for f in run.data["pairs"][0]["findings"]] == ["SWA409"]
    assert [f["code"] for f in run.findings("SWA409")] == ["SWA409"]


def test_an_unused_suppression_of_a_pair_rule_is_reported(tree):
    decode = rocm(
        "decode",
        "env:\n  # swacheck: ignore[SWA404] not needed\n  SGLANG_HACK_FLASHMLA_BACKEND: auto\n",
    )
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": decode})
    run = run_cli("--format", "json", "d", cwd=root)
    assert len(run.findings("SWA902")) == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), ["SWA404"]),
        (("--select", "SWA4"), ["SWA404"]),
        (("--select", "SWA404"), ["SWA404"]),
        (("--select", "SWA1"), []),
        (("--ignore", "SWA4"), []),
        (("--ignore", "SWA404"), []),
        (("--ignore", "SWA40"), []),
        (("--ignore", "SWA41"), ["SWA404"]),
    ],
)
def test_select_and_ignore_switch_pair_rules(tree, args, expected):
    root = tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": rocm("decode", UNIFIED_ENV)})
    run = run_cli("--format", "json", *args, "d", cwd=root)
    assert [f["code"] for f in run.data["pairs"][0]["findings"]] == expected
    assert [f["code"] for d in run.deployments for f in d["findings"]] == expected
    assert run.exit_code == (1 if expected else 0)


def test_ignore_swa4_also_drops_the_ambiguity_notes(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode-a.yaml": server("decode"),
            "d/decode-b.yaml": server("decode"),
        }
    )
    run = run_cli("--format", "json", "--ignore", "SWA4", "d", cwd=root)
    assert run.findings("SWA400") == []


# --- other output formats -----------------------------------------------------------------------


@pytest.fixture
def unified_one_side(tree):
    return tree({"d/prefill.yaml": rocm("prefill"), "d/decode.yaml": rocm("decode", UNIFIED_ENV)})


def test_sarif_carries_the_pair_finding_with_related_locations(unified_one_side):
    run = run_cli("--format", "sarif", "d", cwd=unified_one_side)
    assert run.exit_code == 1
    sarif = json.loads(run.stdout)
    results = sarif["runs"][0]["results"]
    [r] = [r for r in results if r["ruleId"] == "SWA404"]
    assert r["level"] == "error"
    region = r["locations"][0]["physicalLocation"]
    assert region["artifactLocation"]["uri"] == "d/decode.yaml"
    assert (region["region"]["startLine"], region["region"]["startColumn"]) == (3, 37)
    [rel] = r["relatedLocations"]
    assert rel["physicalLocation"]["artifactLocation"]["uri"] == "d/prefill.yaml"
    assert (
        rel["physicalLocation"]["region"]["startLine"],
        rel["physicalLocation"]["region"]["startColumn"],
    ) == (2, 11)
    assert rel["message"]["text"] == "prefill unified_kv False comes from here"
    rule_ids = [rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert rule_ids[r["ruleIndex"]] == "SWA404"
    assert {"SWA400", "SWA401", "SWA410"} <= set(rule_ids)


def test_github_annotates_the_pair_finding_on_the_decode_file(unified_one_side, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    run = run_cli("--format", "github", "d", cwd=unified_one_side)
    assert run.exit_code == 1
    [line] = [l for l in run.stdout.splitlines() if l.startswith("::error ")]
    assert line.startswith(
        "::error "
        "file=d/decode.yaml,line=3,col=37,endLine=3,endColumn=54,title=SWA404 "
        "pd-unified-kv::unified KV on the decode server only"
    )
    assert "%0Arelated: d/prefill.yaml:2:11: prefill unified_kv False comes from here" in line


def test_junit_fails_the_decode_test_case(unified_one_side):
    run = run_cli("--format", "junit", "d", cwd=unified_one_side)
    assert run.exit_code == 1
    root = ET.fromstring(run.stdout)
    assert root.get("failures") == "1"
    cases = {case.get("classname"): case for case in root.iter("testcase")}
    failure = cases["d/decode.yaml"].find("failure")
    assert failure is not None and failure.get("type") == "SWA404"
    assert "related: d/prefill.yaml:2:11: prefill unified_kv False comes from here" in failure.text
    assert cases["d/prefill.yaml"].find("failure") is None


def test_human_report_has_a_pair_table_and_the_finding(unified_one_side):
    run = run_cli("--color", "never", "d", cwd=unified_one_side)
    assert run.exit_code == 1
    assert f"PD pair: d/prefill.yaml (prefill) + d/decode.yaml (decode)  ({ONLY})" in run.stdout
    assert "d/decode.yaml:3:37: SWA404 error: unified KV on the decode server only" in run.stdout
    assert (
        "    related: d/prefill.yaml:2:11: prefill unified_kv False comes from here" in run.stdout
    )
