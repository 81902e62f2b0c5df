"""The per-file budgets of swacheck/limits.py, each passed by one file: one input error line for
that file, at the place the budget ran out, and the good file named alongside still checked.
And the README's Limits table says what limits.py says."""

from __future__ import annotations

import re

from budgets_common import GOOD, assert_error_lines, run_child, run_cli, write_tree
from conftest import doc_section

from swacheck import limits

SERVER = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\nspeculative-eagle-topk: 1\n"


def test_deployments_per_file_in_a_script(tmp_path):
    root = write_tree(
        tmp_path,
        {"many.sh": "#!/bin/sh\n" + "sglang serve models/v4\n" * (limits.MAX_DEPLOYMENTS + 50)},
    )
    run = run_child(["--format", "json", "many.sh", GOOD], root)
    assert_error_lines(
        run,
        f"many.sh:{limits.MAX_DEPLOYMENTS + 2}:1: more than "
        f"{limits.MAX_DEPLOYMENTS} deployments in many.sh (the limit per file)",
    )


def test_deployments_per_file_in_a_multi_document_deployment_file(tmp_path):
    doc = "---\nswacheck: 1\nserver: {model-path: models/v4}\n"
    root = write_tree(tmp_path, {"many.yaml": doc * (limits.MAX_DEPLOYMENTS + 1)})
    run = run_child(["--format", "json", "many.yaml", GOOD], root)
    assert_error_lines(
        run,
        f"many.yaml:{3 * limits.MAX_DEPLOYMENTS + 2}:1: more than "
        f"{limits.MAX_DEPLOYMENTS} deployments in many.yaml (the limit per file)",
    )


def test_yaml_nodes_per_file(tmp_path):
    items = limits.MAX_YAML_NODES
    root = write_tree(tmp_path, {"nodes.yaml": SERVER + "x: [" + ",".join(["1"] * items) + "]\n"})
    run = run_child(["--format", "json", "nodes.yaml", GOOD], root)
    # nodes 1-9: the root mapping and the four keys and values; 10: x; 11: the list; then its items
    first_too_many = limits.MAX_YAML_NODES + 1 - 11
    assert_error_lines(
        run,
        f"nodes.yaml:5:{5 + 2 * (first_too_many - 1)}: more than "
        f"{limits.MAX_YAML_NODES} YAML nodes in this file (the limit per file)",
    )


def test_json_values_per_file(tmp_path):
    text = '{"model-path": "models/v4", "x": [' + ",".join(["1"] * limits.MAX_YAML_NODES) + "]}"
    root = write_tree(tmp_path, {"values.json": text})
    run = run_child(["--format", "json", "values.json", GOOD], root)
    # values: the object, "models/v4", the list, then its items
    first_too_many = limits.MAX_YAML_NODES + 1 - 3
    column = len('{"model-path": "models/v4", "x": [') + 1 + 2 * (first_too_many - 1)
    assert_error_lines(
        run,
        f"values.json:1:{column}: more than {limits.MAX_YAML_NODES} JSON values in this file (the limit per file)",
    )


def test_shell_words_per_file(tmp_path):
    root = write_tree(
        tmp_path, {"words.sh": "#!/bin/sh\n" + "a " * (limits.MAX_WORDS + 5000) + "\n"}
    )
    run = run_child(["--format", "json", "words.sh", GOOD], root)
    # counted a thousand at a time: the error points at the word that ends the batch past the limit
    word = limits.MAX_WORDS + 1000
    assert_error_lines(
        run,
        f"words.sh:2:{2 * word - 1}: more than {limits.MAX_WORDS} shell words in words.sh (the limit per file)",
    )


def test_bytes_read_per_run(tmp_path, monkeypatch):
    """The run's budget, made small here (two server configs' worth): every file past it is not
    read, each one error line that shows nothing of it; what was read before is kept."""
    monkeypatch.setattr(limits, "MAX_RUN_BYTES", 2 * len(SERVER))
    root = write_tree(tmp_path, {"a.yaml": SERVER, "b.yaml": SERVER, "c.yaml": SERVER})
    run = run_cli("--format", "json", "a.yaml", "b.yaml", "c.yaml", cwd=root)
    past = (
        f"not read: this run has read {2 * len(SERVER)} bytes, and this file would "
        f"pass the limit of {2 * len(SERVER)} bytes per run"
    )
    assert (
        run.stderr.splitlines()
        == [  # the three files are read first (grouping.plan), then the model config
            f"c.yaml: {past}",
            f"a.yaml:1:13: model config models/v4/config.json: {past}",
            f"b.yaml:1:13: model config models/v4/config.json: {past}",
        ]
    )
    assert run.exit_code == 2


def test_a_file_that_passes_a_budget_does_not_stop_the_others(tmp_path):
    """Two attacks and two good files: each attack is its own line, both good files are checked."""
    root = write_tree(
        tmp_path,
        {
            "self.sh": "#!/bin/sh\n. ./self.sh\n",
            "other.yaml": SERVER,
            "x.yaml": SERVER + "y: !!int ''\n",
        },
    )
    run = run_cli("--format", "json", "self.sh", "x.yaml", "other.yaml", GOOD, cwd=root)
    assert run.stderr.splitlines() == [
        "self.sh:2:3: self.sh sources itself (self.sh -> self.sh): the shell would never finish",
        "x.yaml:5:4: bad int value ''",
    ]
    assert run.exit_code == 2
    assert sorted(d["name"] for d in run.deployments) == ["good", "other"]


def test_the_readme_limits_table_matches_limits_py():
    section = doc_section("Limits")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| ([^|]+?) \| ([^|]+?) \|", section, re.M)}
    expected = {
        "file size": f"{limits.MAX_FILE_SIZE // limits.MiB} MiB",
        "bytes read per run": f"{limits.MAX_RUN_BYTES // limits.MiB} MiB",
        "YAML / JSON nesting": f"{limits.MAX_NESTING} levels",
        "YAML nodes / JSON values per file (an alias counts its nodes each time it is used)": (
            f"{limits.MAX_YAML_NODES:,}"
        ),
        "items a value expands to (aliases)": f"{limits.MAX_PLAIN_NODES:,}",
        "digits of one YAML / JSON integer": f"{limits.MAX_NUMBER_DIGITS}",
        "one expanded word": f"{limits.MAX_WORD // limits.MiB} MiB characters",
        "variable expansion per file": f"{limits.MAX_EXPANSION // limits.MiB} MiB characters",
        'array elements and arguments expanded per file (`"${A[@]}"`, `"$@"`)': f"{limits.MAX_ITEMS:,}",
        "words per file (shell words, and YAML command/args/env values: an alias counts each time it is used)": (
            f"{limits.MAX_WORDS:,}"
        ),
        "words made of YAML values per run": f"{limits.MAX_RUN_WORDS:,}",
        "source depth": f"{limits.MAX_SOURCE_DEPTH}",
        "files sourced per file": f"{limits.MAX_SOURCES}",
        "deployments per file": f"{limits.MAX_DEPLOYMENTS:,}",
        "keys argparse refuses that get a finding each, per deployment (the rest: one finding that counts them)": (
            f"{limits.MAX_KEY_FINDINGS}"
        ),
        "folders a walk descends below a named folder (deeper: skipped, counted, listed with `-v`)": (
            f"{limits.MAX_WALK_DEPTH} levels"
        ),
        "variable references per file": f"{limits.MAX_REFERENCES:,}",
        "Dockerfile stages / instructions": f"{limits.MAX_STAGES} / {limits.MAX_INSTRUCTIONS:,}",
    }
    for name, value in expected.items():
        assert rows.get(name) == value, (name, rows.get(name), value)


def test_compose_defaults_nested_past_the_limit(tmp_path):
    """Once a RecursionError ("internal error") at 3,000 levels."""
    nested = "${A:-" * 3000 + "x" + "}" * 3000
    compose = f"services:\n  s:\n    image: x\n    command: python -m sglang.launch_server --model-path {nested}\n"
    root = write_tree(tmp_path, {"compose.yaml": compose})
    run = run_cli("--format", "json", "compose.yaml", GOOD, cwd=root)
    column = len("    command: python -m sglang.launch_server --model-path ") + 1 + 5 * 50
    assert_error_lines(run, f"compose.yaml:4:{column}: ${{...}} nested more than 50 levels deep")


def test_variable_references_per_file(tmp_path):
    """Unknown references cost their bookkeeping too: 400 KB of $B once took 150 MB and 11 s."""
    compose = (
        "services:\n  s:\n    image: x\n    command: python -m "
        "sglang.launch_server --model-path models/v4\n    env_file: big.env\n"
    )
    root = write_tree(
        tmp_path,
        {"compose.yaml": compose, "big.env": "A=" + "$B" * (limits.MAX_REFERENCES + 10) + "\n"},
    )
    run = run_cli("--format", "json", "compose.yaml", GOOD, cwd=root)
    column = len("A=") + 2 * limits.MAX_REFERENCES + 1  # the reference past the budget
    assert_error_lines(
        run,
        f"big.env:1:{column}: more than {limits.MAX_REFERENCES} variable "
        f"references in compose.yaml (the limit per file)",
    )


def test_dockerfile_stages(tmp_path):
    """Each stage once copied its parent's ENV: 20,000 stages took 5 GB."""
    stages = "FROM base AS s0\nENV A=1\n" + "".join(
        f"FROM s{i} AS s{i + 1}\n" for i in range(limits.MAX_STAGES + 5)
    )
    root = write_tree(
        tmp_path,
        {"Dockerfile": stages + "CMD python -m sglang.launch_server --model-path models/v4\n"},
    )
    run = run_child(["--format", "json", "Dockerfile", GOOD], root, timeout=30)
    assert_error_lines(
        run,
        f"Dockerfile:{limits.MAX_STAGES + 2}:1: more than {limits.MAX_STAGES} FROM "
        f"stages in Dockerfile (the limit per Dockerfile)",
    )


def test_dockerfile_instructions(tmp_path):
    lines = "FROM base\n" + "ENV A=1\n" * (limits.MAX_INSTRUCTIONS + 5)
    root = write_tree(
        tmp_path,
        {"Dockerfile": lines + "CMD python -m sglang.launch_server --model-path models/v4\n"},
    )
    run = run_child(["--format", "json", "Dockerfile", GOOD], root, timeout=30)
    assert_error_lines(
        run,
        f"Dockerfile:{limits.MAX_INSTRUCTIONS + 1}:1: more than "
        f"{limits.MAX_INSTRUCTIONS} instructions in Dockerfile (the limit per "
        f"Dockerfile)",
    )


def _index(tensors: int) -> str:
    """A safetensors index as checkpoints ship it: the metadata, then every tensor's shard."""
    import json

    names = {
        f"model.layers.{i}.mlp.experts.{i}.w1.weight": "model-00001.safetensors"
        for i in range(tensors)
    }
    return json.dumps({"metadata": {"total_size": 159_617_149_040}, "weight_map": names}, indent=2)


def test_the_weight_index_is_read_through_the_run_budget(tmp_path, monkeypatch):
    """model.safetensors.index.json was read with open()/json.loads outside the run's byte
    budget: now its bytes are charged as every input's, and past the budget it is not read (the
    weights are unknown, so SWA504 has nothing to say), never read anyway."""
    from swacheck.sglang import checkpoint

    root = write_tree(tmp_path, {"models/v4/model.safetensors.index.json": _index(20_000)})
    checkpoint._read_index.cache_clear()
    run = run_cli("--format", "json", "--gpu", "H200", GOOD, cwd=root)
    assert [f["code"] for f in run.findings("SWA504")] == ["SWA504"]  # read: 148.66 GiB on one GPU
    assert "model.safetensors.index.json" in str(run.findings("SWA504"))
    monkeypatch.setattr(limits, "MAX_RUN_BYTES", 64 * 1024)  # the index is 1.7 MB
    checkpoint._read_index.cache_clear()
    run = run_cli("--format", "json", "--gpu", "H200", GOOD, cwd=root)
    checkpoint._read_index.cache_clear()
    assert run.findings("SWA504") == [], run.stdout
    assert run.exit_code == 0, run.stderr


def test_the_weight_index_is_not_built_whole(tmp_path):
    """The index's weight_map (every tensor's name) is stepped over, not decoded: a 44 MiB index
    took 244 MB and 7 s for one number, now about the file's bytes (benchmarks/hostile.py)."""
    root = write_tree(tmp_path, {"models/v4/model.safetensors.index.json": _index(500_000)})
    run = run_child(["--format", "json", "--gpu", "H200", GOOD], root, timeout=60)
    assert [f["code"] for f in run.data["deployments"][0]["findings"]].count("SWA504") == 1
    size = (root / "models/v4/model.safetensors.index.json").stat().st_size
    assert run.peak_rss < 60 * limits.MiB + 2 * size, (run.peak_rss, size)


def test_a_weight_index_with_a_huge_or_broken_total_is_not_used(tmp_path):
    """A total_size of 5,000 digits (past Python's int conversion limit), one of 401 digits,
    a float that overflows, and a string that never ends: the index gives no weights, no error."""
    for total in ["9" * 5000, "9" * 401, "1e400", '"unterminated']:
        text = '{"metadata": {"total_size": ' + total + '}, "weight_map": {"a": "b"}}'
        root = write_tree(tmp_path / total[:8], {"models/v4/model.safetensors.index.json": text})
        run = run_child(["--format", "json", "--gpu", "H200", GOOD], root, timeout=60)
        assert run.exit_code == 0, (total[:8], run.stderr)
        assert "internal error" not in run.stderr


def test_a_text_not_kept_ahead_is_read_again_and_counted_once(tmp_path, monkeypatch):
    """Past FileCache.AHEAD_CHARS a text read ahead of its unit (grouping.plan) is not kept, so
    that a large run does not hold every text from start to end: its unit reads it again, and
    its bytes count once against the run's budget. The report is the same."""
    import json

    from swacheck.loading import FileCache

    files = {f"{d}/s.yaml": SERVER.replace("models/", "../models/") for d in "abc"}
    root = write_tree(tmp_path, files)
    kept = run_cli("--format", "json", "a", "b", "c", cwd=root)
    monkeypatch.setattr(FileCache, "AHEAD_CHARS", 10)  # no text is kept ahead
    config = (root / "models/v4/config.json").stat().st_size
    monkeypatch.setattr(limits, "MAX_RUN_BYTES", 3 * len(SERVER) + config + 10)
    again = run_cli("--format", "json", "a", "b", "c", cwd=root)
    assert again.stderr == kept.stderr == ""
    assert json.loads(again.stdout) == json.loads(kept.stdout)
    assert again.exit_code == kept.exit_code == 0
