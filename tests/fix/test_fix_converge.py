"""Converge in one run: conflicting edits of one key become one, the run re-checks and fixes
again until nothing fixable is left, and says "N fixed, M remaining (K need --unsafe-fixes)".
The known bugs: an empty value, a last line without a line break, a typo renamed and re-inserted."""

from __future__ import annotations

from conftest import run_cli

from swacheck.loading import load_file


def _fix(tree, text: str, *flags: str):  # type: ignore[no-untyped-def]
    root = tree({"server.yaml": text})
    run = run_cli("--fix", *flags, "server.yaml", cwd=root)
    return run, (root / "server.yaml").read_bytes().decode()


def test_a_typo_is_renamed_not_renamed_and_inserted_again(tree):
    run, text = _fix(
        tree,
        "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-stesp: 3\n",
    )
    assert (
        text
        == "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    assert load_file("s.yaml", text=text).documents[0].duplicates == []
    assert run.exit_code == 0
    assert "swacheck: 1 fixed, 0 remaining" in run.stderr


def test_nextn_with_a_typo_converges_in_one_run(tree):
    run, text = _fix(
        tree, "model-path: models/v4\nspeculative-algorithm: NEXTN\nspeculative-num-stesp: 3\n"
    )
    assert (
        text
        == "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    assert run.exit_code == 0


def test_an_empty_value_gets_a_space(tree):
    run, text = _fix(
        tree,
        "model-path: models/v4\nspeculative-algorithm:\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n",
        "--unsafe-fixes",
    )
    assert "speculative-algorithm: EAGLE\n" in text
    assert run.exit_code == 0


def test_an_empty_value_on_a_last_line_without_a_line_break(tree):
    run, text = _fix(
        tree,
        "model-path: models/v4\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\nspeculative-algorithm:",
        "--unsafe-fixes",
    )
    assert (
        text
        == "model-path: models/v4\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\nspeculative-algorithm: EAGLE"
    )
    assert run.exit_code == 0


def test_an_empty_value_before_a_comment(tree):
    run, text = _fix(
        tree,
        "model-path: models/v4\nspeculative-algorithm: # which "
        "one?\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n",
        "--unsafe-fixes",
    )
    assert "speculative-algorithm: EAGLE # which one?\n" in text


def test_deleting_a_block_scalar_keeps_the_blank_lines_after_it(tree):
    run, text = _fix(
        tree,
        "model-path: models/v4\nspeculative-draft-model-path: |-\n  "
        "models/mtp256\n\n\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: "
        "1\nspeculative-num-steps: 3\n",
        "--unsafe-fixes",
    )
    assert (
        text == "model-path: models/v4\n\n\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )


def test_two_fixes_of_one_key_become_one_edit(tree):
    # SWA301 deletes the ignored page-size; SWA201 deletes the one SGLang reads: both lines go,
    # in one run, and nothing else
    run, text = _fix(
        tree,
        "model-path: models/v4\npage-size: 32\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\npage-size: "
        "64\n",
    )
    assert (
        text
        == "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\n"
    )
    assert run.exit_code == 0
    assert "0 remaining" in run.stderr


def test_the_summary_counts_fixed_remaining_and_unsafe(tree):
    run, _ = _fix(
        tree,
        "model-path: models/v4\nspeculative-draft-model-path: models/mtp256\ndisaggregation-mode: decode\n"
        "speculative-algorithm: EAGLE\nspeculative-eagle-topk: 2\nspeculative-num-steps: 3\npage-size: 64\n",
    )
    # page-size fixed (safe); top-k 2 -> 1 and dropping the draft path are unsafe
    assert "swacheck: 1 fixed, 2 remaining (2 need --unsafe-fixes)" in run.stderr
    assert run.exit_code == 1


def test_a_fix_that_would_not_remove_its_finding_is_taken_back(tree, monkeypatch):
    from swacheck import fixes

    real = fixes.spans

    def harmless(text, edits, starts=None):  # type: ignore[no-untyped-def]
        # every edit writes a comment instead of what it should: the finding stays
        return [(s, s, "# x\n") if r == "" else (s, e, r) for s, e, r in real(text, edits, starts)]

    monkeypatch.setattr(fixes, "spans", harmless)
    original = (
        "model-path: models/v4\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\npage-size: "
        "64\n"
    )
    run, text = _fix(tree, original)
    assert text == original  # nothing written
    assert "server.yaml: not fixed: SWA201 is still reported after its fix" in run.stderr
    assert "swacheck: 0 fixed, 1 remaining" in run.stderr


def test_a_fix_that_would_break_the_file_is_never_written(tree, monkeypatch):
    from swacheck import fixes

    real = fixes.spans
    monkeypatch.setattr(
        fixes,
        "spans",
        lambda text, edits, starts=None: [
            (s, e, r + ": [") for s, e, r in real(text, edits, starts)
        ],
    )
    original = (
        "model-path: models/v4\nspeculative-algorithm: "
        "EAGLE\nspeculative-eagle-topk: 1\nspeculative-num-steps: 3\npage-size: "
        "64\n"
    )
    run, text = _fix(tree, original)
    assert text == original
    assert "internal error" not in run.stderr


def test_many_fixes_in_one_file_are_applied_in_one_round_without_a_parse_each(tree, monkeypatch):
    # 2,000 duplicate keys: every fix checked with its own parse of the file took minutes
    from swacheck import fixplan

    lines = [
        "model-path: models/v4",
        "speculative-algorithm: EAGLE",
        "speculative-eagle-topk: 1",
        "speculative-num-steps: 3",
    ]
    lines += [f"page-size: {i}" for i in range(2000)]
    parses = []
    real = fixplan._duplicates
    monkeypatch.setattr(
        fixplan, "_duplicates", lambda text, path: parses.append(1) or real(text, path)
    )
    root = tree({"server.yaml": "\n".join(lines) + "\n"})
    run = run_cli("--fix", "server.yaml", cwd=root)
    assert "swacheck: 2000 fixed, 0 remaining" in run.stderr
    assert (root / "server.yaml").read_text() == "\n".join(lines[:4]) + "\n"
    assert len(parses) <= 4  # the round's text and its result, once each


def test_fixes_that_undo_each_other_leave_the_file_and_say_why(tree):
    # a config read alone (steps 3: draft tokens 4 are right) and through a script that overrides
    # the steps (2: draft tokens must be 3): once the fixes took turns until the rounds ran out,
    # and --fix said "0 fixed, 1 remaining" without a reason
    config = (
        "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        "speculative-eagle-topk: 1\nspeculative-num-draft-tokens: 4\n"
    )
    script = (
        "python3 -m sglang.launch_server --config configs/decode.yaml --speculative-num-steps 2\n"
    )
    root = tree({"configs/decode.yaml": config, "run.sh": script})
    for flag in ("--diff", "--fix"):
        run = run_cli(flag, "configs/decode.yaml", "run.sh", cwd=root)
        assert (
            "configs/decode.yaml: not fixed: the fixes of its findings (SWA203) undo each other: "
            "launches that read this file need different values in it; edit by hand"
        ) in run.stderr.splitlines()
    assert (root / "configs/decode.yaml").read_text() == config
    assert "swacheck: 0 fixed, 1 remaining" in run.stderr


# The fuzz campaign's case (seed 4, the Markdown kind): a YAML block whose fixes change what the
# other block reads, so the file's fixes are tried one per round, and refused ones take a round
# each to be taken back; the rename of the last typo came after the eighth round, so only a
# second --fix made it.
README = """\
# Deploy

```yaml
x-base: &base {tp-size: 8, speculative-algorithm: NEXTN}
<<: *base
page-size: 32
tp-size: 8
model-path: models/v4
```

```bash
python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-draft-model-path \
models/mtp256 --speculative-num-steps 5 --model-path models/v4 --tp-size 1 \
--speculative-num-draft-tokens 9 --page-size 32 --mem-fraction-statc 0.8
```
"""


def test_a_file_whose_fixes_go_one_per_round_converges_in_one_run(tree):
    root = tree({"README.md": README})
    first = run_cli("--fix", "README.md", cwd=root)
    after_first = (root / "README.md").read_bytes()
    assert b"--mem-fraction-static 0.8" in after_first, first.stderr
    assert b"--speculative-num-draft-tokens 6" in after_first
    again = run_cli("--fix", "README.md", cwd=root)
    assert (root / "README.md").read_bytes() == after_first, again.stderr
    assert "swacheck: 0 fixed" in again.stderr


def test_twelve_separate_fixes_in_one_file_are_all_made_in_one_run(tree):
    # each underscored key is its own edit on its own line: they do not overlap, so one round
    # takes them all (the run has at most 8 rounds: taking one per round would leave four)
    keys = (
        "max_running_requests: 8",
        "mem_fraction_static: 0.8",
        "tp_size: 8",
        "chunked_prefill_size: 4096",
        "served_model_name: x",
        "trust_remote_code: true",
        "log_level: info",
        "enable_metrics: true",
        "context_length: 4096",
        "kv_cache_dtype: auto",
        "schedule_policy: fcfs",
        "stream_interval: 1",
    )
    run, text = _fix(tree, "model-path: models/v4\n" + "".join(k + "\n" for k in keys))
    expected = "".join(
        k.split(":")[0].replace("_", "-") + ":" + k.split(":", 1)[1] + "\n" for k in keys
    )
    assert text == "model-path: models/v4\n" + expected
    assert "swacheck: 12 fixed, 0 remaining" in run.stderr
    assert run.exit_code == 0
