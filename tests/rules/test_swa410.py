"""SWA410 pd-tolerated-difference: a prefill/decode difference SGLang tolerates for DeepSeek-V4."""

from __future__ import annotations

from conftest import check_pair, loc, pd_server, related, run_cli

P, D = "d/prefill.yaml", "d/decode.yaml"
TAG = f"[prefill {P} vs decode {D}]"
TOLERATED = "SGLang tolerates this for DeepSeek-V4"


def spec(steps: int) -> str:
    # lines 3-5; the steps value at line 4, column 24
    return (
        f"speculative-algorithm: EAGLE\nspeculative-num-steps: {steps}\nspeculative-eagle-topk: 1\n"
    )


server = pd_server


check = check_pair


def attached(run, code="SWA410"):
    found = run.findings(code)
    by_file = {d["file"]: d for d in run.deployments}
    assert all(f in by_file[D]["findings"] for f in found)
    assert [g for g in run.data["pairs"][0]["findings"] if g["code"] == code] == found
    return found


def test_identical_servers_pass(tree):
    run = check(
        tree,
        server("prefill", spec(3) + "tp-size: 8\n"),
        server("decode", spec(3) + "tp-size: 8\n"),
    )
    assert run.exit_code == 0
    assert run.findings("SWA410") == []


def test_steps_3_vs_2_is_one_note_for_the_steps_not_also_for_the_draft_tokens(tree):
    run = check(tree, server("prefill", spec(3)), server("decode", spec(2)))
    assert run.exit_code == 0  # a note
    [f] = attached(run)
    assert f["severity"] == "note"
    assert f["message"] == f"speculative_num_steps differs (prefill 3, decode 2); {TOLERATED} {TAG}"
    assert loc(f) == (D, 4, 24)
    assert related(f) == [(P, 4, 24, "prefill speculative_num_steps 3 comes from here")]
    compared = run.data["pairs"][0]["compared"]
    assert (
        compared["speculative_num_draft_tokens"]["differs"] is True
    )  # 4 vs 3, shown but not reported
    assert (
        compared["speculative_num_draft_tokens"]["prefill"],
        compared["speculative_num_draft_tokens"]["decode"],
    ) == (4, 3)


def test_tp_8_vs_4_is_a_note(tree):
    run = check(tree, server("prefill", "tp-size: 8\n"), server("decode", "tp-size: 4\n"))
    assert run.exit_code == 0
    [f] = attached(run)
    assert f["severity"] == "note"
    assert f["message"] == f"tp_size differs (prefill 8, decode 4); {TOLERATED} {TAG}"
    assert loc(f) == (D, 3, 10)
    assert related(f) == [(P, 3, 10, "prefill tp_size 8 comes from here")]


def test_steps_and_tp_are_two_notes_and_exit_0(tree):
    run = check(
        tree,
        server("prefill", spec(3) + "tp-size: 8\n"),
        server("decode", spec(2) + "tp-size: 4\n"),
    )
    assert run.exit_code == 0
    assert [f["message"].split(" ")[0] for f in attached(run)] == [
        "speculative_num_steps",
        "tp_size",
    ]
    assert run.data["summary"]["notes"] == 2


def test_notes_fail_with_fail_on_note(tree):
    run = check(
        tree,
        server("prefill", "tp-size: 8\n"),
        server("decode", "tp-size: 4\n"),
        "--fail-on",
        "note",
    )
    assert run.exit_code == 1


def test_attention_dp_difference_is_a_note(tree):
    run = check(
        tree, server("prefill", "tp-size: 8\nattn-dp-size: 8\n"), server("decode", "tp-size: 8\n")
    )
    [f] = attached(run)
    assert f["message"].startswith("attn_dp_size differs (prefill 8, decode 1)")
    assert related(f)[0] == (P, 4, 15, "prefill attn_dp_size 8 comes from here")


def test_one_side_without_speculative_decoding_is_no_note(tree):
    run = check(tree, server("prefill", spec(3)), server("decode"))
    assert run.findings("SWA410") == []
    assert len(run.findings("SWA406")) == 1


def test_fix_does_not_rewrite_tolerated_differences(tree):
    root = tree(
        {
            P: server("prefill", spec(3) + "tp-size: 8\n"),
            D: server("decode", spec(2) + "tp-size: 4\n"),
        }
    )
    before = (root / D).read_text()
    run = run_cli("--fix", "d", cwd=root)
    assert run.exit_code == 0
    assert (root / D).read_text() == before
