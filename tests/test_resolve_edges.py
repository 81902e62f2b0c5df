"""Edges of the resolver's stages a mutation run found unguarded (SGLang 0.5.23 unless named).

Each is a server config run through the CLI and read as a user reads the report: which rule
fires, where, and with which words; ``human_int`` is checked against what SGLang's own
``human_readable_int`` returned for the same texts.
"""

from __future__ import annotations

import json

import pytest
from conftest import V4_FLASH, run_cli

from swacheck.sglang.stages.memory_pool import human_int

EAGLE = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\n"


def check(tree, server: str, **models: dict):
    files = {"server.yaml": server}
    for name, config in models.items():
        files[f"models/{name}/config.json"] = json.dumps(config, indent=1)
    return run_cli("--format", "json", "server.yaml", cwd=tree(files))


def findings(run, code: str) -> list[dict]:
    return run.findings(code)


# What SGLang 0.5.23's srt/utils/common.py human_readable_int returned (run in the conformance
# environment, 2026-12-02); None where it raised ArgumentTypeError.
HUMAN_READABLE_INT = {
    "300": 300,
    "1k": 1000,
    "1K": None,
    "2M": 2_000_000,
    "1G": 1_000_000_000,
    "1T": 1_000_000_000_000,
    "1Ki": 1024,
    "2Mi": 2_097_152,
    "1Gi": 1_073_741_824,
    "1Ti": 1_099_511_627_776,
    "1.5k": 1500,
    "0.5M": 500_000,
    "1.5Gi": None,
    "1.5": None,
    "-1": -1,
    "1e3": None,
    "64 ": 64,
}


@pytest.mark.parametrize(("text", "tokens"), HUMAN_READABLE_INT.items())
def test_max_total_tokens_is_read_as_sglangs_human_readable_int(text, tokens):
    assert human_int(text) == tokens


def test_the_c128_ring_is_checked_when_the_checkpoint_has_no_c4_layers(tree):
    # no ratio 4: the c128 ring (256 entries) serves 130 draft tokens; 131 overflow it
    no_c4 = json.loads(V4_FLASH)
    no_c4["compress_ratios"] = [0 if r == 4 else r for r in no_c4["compress_ratios"]]
    server = EAGLE.replace("models/v4", "models/no4") + "disaggregation-mode: decode\n"
    over = check(tree, server + "speculative-num-steps: 130\n", no4=no_c4)
    (f,) = findings(over, "SWA243")
    assert "exceeds what the c128 compress state ring can keep resident" in f["message"]
    assert "(ring_size=256 serves at most 130 draft tokens)" in f["message"]
    fits = check(tree, server + "speculative-num-steps: 129\n", no4=no_c4)
    assert findings(fits, "SWA243") == []


def test_dp_replicas_with_attention_dp_point_at_attn_dp_size(tree):
    run = check(tree, "model-path: models/v4\ndp-size: 2\nattn-dp-size: 2\ntp-size: 8\n")
    (f,) = findings(run, "SWA304")
    assert "data-parallel replicas combined with attention data parallelism" in f["message"]
    assert (f["location"]["line"], f["location"]["column"]) == (3, 1)  # attn-dp-size


@pytest.mark.parametrize("value", ["true", "false"])
def test_a_yaml_boolean_for_a_choice_reaches_argparse_as_lower_case_text(tree, value):
    run = check(tree, f"model-path: models/v4\nkv-cache-dtype: {value}\n")
    (f,) = findings(run, "SWA304")
    assert f"rejects the boolean {value};" in f["message"]
    assert f"invalid choice: '{value}'" in f["message"]


def test_only_a_yaml_null_gets_the_quote_null_hint(tree):
    null = check(tree, "model-path: models/v4\nkv-cache-dtype: null\n")
    (f,) = findings(null, "SWA304")
    assert "(quote 'null': an unquoted YAML null reaches SGLang as the text None)" in f["message"]
    assert "invalid choice: 'None'" in f["message"]
    other = check(tree, "model-path: models/v4\nkv-cache-dtype: foo\n")
    (g,) = findings(other, "SWA304")
    assert "quote 'null'" not in g["message"] and "invalid choice: 'foo'" in g["message"]


@pytest.mark.parametrize(("block", "refused"), [(1, False), (0, True)])
def test_a_dspark_block_size_of_one_is_the_smallest_sglang_takes(tree, block, refused):
    server = (
        "model-path: models/v4\nspeculative-algorithm: DSPARK\n"
        f"speculative-draft-model-path: models/v4\nspeculative-dspark-block-size: {block}\n"
    )
    run = check(tree, server)
    got = [f["message"] for f in findings(run, "SWA212")]
    if refused:
        assert got == [
            "ValueError: DSpark requires --speculative-dspark-block-size to be positive, got 0. "
            "(argument resolution, arg_groups/speculative_hook.py _handle_dspark)"
        ]
    else:
        assert got == [] and run.exit_code == 0


def test_an_adaptive_config_written_as_a_mapping_is_refused_not_read(tree):
    # the --config loader passes the mapping on as its JSON text and the adaptive loader opens
    # that as a path (conformance/cases/adaptive-config-mapping.yaml): SWA242 says so, not
    # SWA304 (argparse takes the text), and no steps are read from it
    server = EAGLE + (
        "speculative-num-steps: 3\nspeculative-adaptive: true\nspeculative-adaptive-config: {a: 1}\n"
    )
    run = check(tree, server)
    (f,) = findings(run, "SWA242")
    assert f["message"].startswith("speculative-adaptive-config is a mapping: ")
    assert """No such file or directory: '{"a": 1}'""" in f["message"]
    assert (f["location"]["line"], f["location"]["column"]) == (6, 30)
    assert findings(run, "SWA304") == []


# --- the --config merger's keys and values (stages/config_merge.py), SGLang 0.5.23 ---------


def codes_at(run) -> list[tuple[str, int, int, str]]:
    return [
        (f["code"], f["location"]["line"], f["location"]["column"], f["message"])
        for dep in json.loads(run.stdout)["deployments"]
        for f in dep["findings"]
    ]


def merged(tree, server: str, *args: str, name: str = "server.yaml", **files: str):
    root = tree({name: server, **files})
    return run_cli("--format", "json", "--sglang-version", "0.5.23", *args, name, cwd=root)


NOT_YAML = (
    "SGLang's --config accepts only .yaml/.yml files: ValueError: Config file must be YAML "
    "format, got: .json"
)


def test_a_json_server_config_is_refused_where_sglang_would_read_it(tree):
    """server_args_config_parser.py _validate_yaml_file (0.5.23:155-159): the suffix decides."""
    alone = merged(tree, '{"model-path": "models/v4"}\n', name="server.json")
    assert codes_at(alone) == [("SWA303", 1, 1, NOT_YAML)] and alone.exit_code == 1
    named = merged(
        tree,
        "swacheck: 1\nserver: s.json\n",
        name="d.yaml",
        **{"s.json": '{"model-path": "models/v4"}'},
    )
    assert [(c, line, col) for c, line, col, _ in codes_at(named)] == [("SWA303", 1, 1)]
    assert named.findings("SWA303")[0]["location"]["file"].endswith("s.json")


def test_a_json_deployment_file_with_an_inline_server_is_no_config_file(tree):
    run = merged(tree, '{"swacheck": 1, "server": {"model-path": "models/v4"}}', name="d.json")
    assert codes_at(run) == [] and run.exit_code == 0


def test_a_fork_key_is_a_note_not_an_unknown_argument(tree):
    run = merged(tree, "model-path: models/v4\nkt-foo: 1\n")
    assert codes_at(run) == [
        (
            "SWA303",
            2,
            1,
            "SGLang-KT flags, not options of SGLang 0.5.23: kt-foo; swacheck leaves them unchecked",
        )
    ]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("max_running_requests: 8", "'max_running_requests' is spelled with underscores"),
        ("enable_torch_compile: true", "'enable_torch_compile' is spelled with underscores"),
        ("enable_torch_compile: false", None),  # _add_boolean_arg emits nothing (0.5.23:196-198)
        (
            "enable_dp_attention: true",  # refused first (0.5.23:170-173), whatever the spelling
            "SGLang's --config loader refuses 'enable_dp_attention': ValueError: Unsupported "
            "config option 'enable_dp_attention' with action 'DeprecatedStoreTrueAction'",
        ),
    ],
)
def test_an_underscored_key_is_named_unless_the_merger_drops_or_refuses_it(tree, line, said):
    run = merged(tree, f"model-path: models/v4\n{line}\n")
    got = codes_at(run)
    if said is None:
        assert got == [] and run.exit_code == 0
    else:
        assert len(got) == 1 and got[0][:3] == ("SWA303", 2, 1) and got[0][3].startswith(said)


def test_an_ambiguous_abbreviation_names_its_candidates(tree):
    (f,) = codes_at(merged(tree, "model-path: models/v4\nspeculative-draft: x\n"))
    assert f[:3] == ("SWA303", 2, 1)
    assert f[3].startswith("'speculative-draft' is an ambiguous abbreviation: argparse refuses it")


def test_a_prefix_key_has_its_value_checked_as_the_option_it_abbreviates(tree):
    (f,) = codes_at(merged(tree, "model-path: models/v4\nmax-running-req: abc\n"))
    assert f == (
        "SWA304",
        2,
        18,
        "max-running-req: SGLang's argument parser rejects the string 'abc'; expected an integer "
        "(argparse: error: argument --max-running-requests: invalid int value: 'abc')",
    )


def test_more_unknown_keys_than_listed_end_in_one_finding_at_the_first_unlisted(tree):
    keys = "".join(f"no-such-key-{i}: 1\n" for i in range(1, 67))
    got = codes_at(merged(tree, "model-path: models/v4\n" + keys))
    assert len(got) == 65 and got[63][3].startswith("unknown server argument 'no-such-key-64'")
    assert got[64] == (
        "SWA303",
        66,
        1,
        "2 more server arguments argparse does not take as written, from 'no-such-key-65' on "
        "(not listed one by one: more than 64 in one deployment): error: unrecognized arguments",
    )


def test_several_items_for_a_one_value_key_show_the_merged_text(tree):
    """_add_list_arg (0.5.23:202-206) emits str(item): a YAML true in a list is True."""
    (f,) = codes_at(merged(tree, "model-path: models/v4\nmax-running-requests: [8, true]\n"))
    assert f[:3] == ("SWA304", 2, 23)
    assert f[3].endswith(
        "expected a single value (SGLang's --config loader passes it on as "
        "--max-running-requests 8 True: error: unrecognized arguments: True)"
    )
    # argparse takes the first value, then refuses the rest as unrecognized: a bad second
    # item is not an invalid int
    (g,) = codes_at(merged(tree, "model-path: models/v4\nmax-running-requests: [8, abc]\n"))
    assert g[3].endswith("--max-running-requests 8 abc: error: unrecognized arguments: abc)")


def test_a_one_item_list_of_a_boolean_reaches_argparse_as_the_text_true(tree):
    (f,) = codes_at(merged(tree, "model-path: models/v4\nkv-cache-dtype: [true]\n"))
    assert f[:3] == ("SWA304", 2, 18)
    assert f[3].startswith("kv-cache-dtype: SGLang's argument parser rejects the string 'True';")
    assert "passes the list on as --kv-cache-dtype True: argparse: error: argument " in f[3]


# --- the DSV4 hook and the model stage ---------------------------------------------------


@pytest.mark.parametrize(("pp", "refused"), [(None, False), (1, False), (2, True)])
def test_0_5_12_refuses_pipeline_parallel_pd_only_when_pp_size_is_above_one(tree, pp, refused):
    """0.5.12 deepseek_v4_hook.py:54-59 (pp_size defaults to 1)."""
    server = "model-path: models/v4\ndisaggregation-mode: decode\n"
    server += f"pp-size: {pp}\n" if pp is not None else ""
    root = tree({"server.yaml": server})
    run = run_cli("--format", "json", "--sglang-version", "0.5.12", "server.yaml", cwd=root)
    got = [(f["location"]["line"], f["message"]) for f in run.findings("SWA506")]
    want = "ValueError: V4 PD disaggregation requires pp_size=1, got pp_size=2."
    assert got == ([(3, want + " (SGLang 0.5.12, deepseek_v4_hook.py)")] if refused else [])
    assert run.findings("SWA304") == []  # pp-size 1 is a valid value


@pytest.mark.parametrize(
    ("archs", "said"), [(["LlamaForCausalLM"], "LlamaForCausalLM"), ([], "none")]
)
def test_a_target_of_another_architecture_is_skipped_and_named(tree, archs, said):
    """ModelConfig's DeepSeek-V4 branch (compress_ratios) is only for DeepSeek-V4 classes."""
    config = {"architectures": archs, "model_type": "llama", "sliding_window": 128}
    run = check(
        tree, EAGLE.replace("models/v4", "models/other"), other={**config, "compress_rates": [4]}
    )
    (dep,) = json.loads(run.stdout)["deployments"]
    assert dep["skip_reason"] == f"not a DeepSeek-V4 target (architectures: {said})"
    assert dep["findings"] == [] and run.exit_code == 0


def test_a_refused_eagle_top_k_resolves_as_the_one_sglang_accepts(tree):
    """deepseek_v4_hook.py 0.5.23:155-157 accepts only top-k 1 for EAGLE: a file's top-k 2 is
    refused (SWA202) and resolves as 1, so ``why --from-log`` of a server that ran top-k 1
    names the steps these files changed, not the top-k."""
    from test_server_output import ERROR, ROCM, log_text, resolved

    deploy = (
        "model-path: ../models/v4\nspeculative-draft-model-path: ../models/mtp256\ntp-size: 8\n"
        "disaggregation-mode: prefill\nspeculative-algorithm: EAGLE\n"
        "speculative-num-steps: 2\nspeculative-eagle-topk: 2\n"
    )
    root = tree({"server.log": log_text(resolved()) + f"{ERROR}\n", "deploy/prefill.yaml": deploy})
    run = run_cli("why", "--format", "json", "--from-log", "server.log", *ROCM, "deploy", cwd=root)
    (item,) = run.data["errors"]
    (files,) = [d for d in item["deployments"] if d["file"] == "deploy/prefill.yaml"]
    assert "speculative_num_steps 3 (server.log:2:" in files["note"]
    assert "speculative_eagle_topk" not in files["note"]


def test_an_unconfirmed_catalogue_window_names_the_path_as_written(tree):
    """The hub id matches the catalogue case-blind; --model-config takes the path as written."""
    run = check(tree, EAGLE.replace("models/v4", "deepseek-ai/deepseek-v4-pro-0813"))
    assert run.exit_code == 2
    assert run.stderr.strip().endswith(
        "does not confirm sliding_window (single-source readings only): it is unknown; point "
        "at the checkpoint's config.json with --model-config deepseek-ai/deepseek-v4-pro-0813=PATH"
    )
    assert "server.yaml:1:13: no config.json found" in run.stderr


def test_a_dspark_top_k_resolves_as_1_whatever_was_written(tree):
    """_handle_dspark sets any other top-k to 1 (arg_groups/speculative_hook.py 0.5.23:774-789,
    0.5.22:699-714): a server that ran DSPARK logs top-k 1, and files writing 2 ran the same."""
    from test_server_output import ERROR, ROCM, log_text, resolved

    logged = resolved(speculative_algorithm="DSPARK", speculative_draft_model_path="models/v4")
    deploy = (
        "model-path: ../models/v4\nspeculative-draft-model-path: ../models/v4\ntp-size: 8\n"
        "disaggregation-mode: prefill\nspeculative-algorithm: DSPARK\n"
        "speculative-num-steps: 2\nspeculative-eagle-topk: 2\n"
    )
    root = tree({"server.log": log_text(logged) + f"{ERROR}\n", "deploy/prefill.yaml": deploy})
    run = run_cli("why", "--format", "json", "--from-log", "server.log", *ROCM, "deploy", cwd=root)
    (item,) = run.data["errors"]
    (files,) = [d for d in item["deployments"] if d["file"] == "deploy/prefill.yaml"]
    assert "speculative_eagle_topk" not in files["note"], files["note"]


def test_a_yaml_false_as_a_text_value_is_read_as_the_merger_writes_it(tree):
    """_add_boolean_arg (server_args_config_parser.py 0.5.23:185-200): --model-path false."""
    (f,) = codes_at(merged(tree, EAGLE.replace("models/v4", "false")))
    assert f[:3] == ("SWA307", 1, 13)
    assert f[3].startswith("config.json for model 'false' not found")
    assert f[3].endswith("--model-config false=PATH)")


def test_pp_spec_with_two_attention_dp_ranks_is_refused(tree):
    """SGLANG_ENABLE_PP_SPEC with attention DP (any attn-dp-size above 1) is an AssertionError."""
    server = EAGLE + "pp-size: 2\nenable-dp-attention: true\ndp-size: 2\ntp-size: 2\n"
    root = tree({"server.yaml": server})
    run = run_cli("--format", "json", "--env", "SGLANG_ENABLE_PP_SPEC=1", "server.yaml", cwd=root)
    (f,) = run.findings("SWA207")
    assert (f["location"]["line"], f["location"]["column"]) == (4, 1)
    assert f["message"] == (
        "pp-size 2 with speculative-algorithm EAGLE: AssertionError: SGLANG_ENABLE_PP_SPEC is "
        "not compatible with attention DP"
    )
