"""SWA400 pd-partner-ambiguous: a PD server whose partner swacheck cannot tell."""

from __future__ import annotations

from conftest import loc, pd_server, run_cli

FIX = "Name the pair with `swacheck pair PREFILL DECODE` or a `pairs:` list in a deployment file."


server = pd_server


def notes(run) -> dict[str, dict]:
    """file -> its SWA400 finding (at most one each)."""
    out = {}
    for d in run.deployments:
        found = [f for f in d["findings"] if f["code"] == "SWA400"]
        assert len(found) <= 1, run.stdout
        if found:
            out[d["file"]] = found[0]
    return out


def test_one_prefill_and_two_decodes_are_three_notes_and_no_pair(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode-a.yaml": server("decode"),
            "d/decode-b.yaml": server("decode"),
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.exit_code == 0  # notes only
    assert run.data["pairs"] == []
    found = notes(run)
    assert sorted(found) == ["d/decode-a.yaml", "d/decode-b.yaml", "d/prefill.yaml"]
    assert all(f["severity"] == "note" for f in found.values())
    assert found["d/prefill.yaml"]["message"] == (
        "prefill: no PD partner chosen: 2 decode servers of the same model could be its partner; "
        "it is not checked against a partner"
    )
    assert found["d/decode-a.yaml"]["message"] == (
        "decode-a: no PD partner chosen: 1 prefill server of the same model could be its partner; "
        "it is not checked against a partner"
    )
    assert loc(found["d/decode-b.yaml"]) == ("d/decode-b.yaml", 1, 1)
    assert found["d/decode-b.yaml"]["fix"] == {"description": FIX, "safe": True, "edits": []}
    assert run.data["summary"]["notes"] == 3


def test_the_notes_fail_with_fail_on_note(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode-a.yaml": server("decode"),
            "d/decode-b.yaml": server("decode"),
        }
    )
    assert run_cli("--format", "json", "--fail-on", "note", "d", cwd=root).exit_code == 1


def test_ignore_switches_the_notes_off(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode-a.yaml": server("decode"),
            "d/decode-b.yaml": server("decode"),
        }
    )
    run = run_cli("--format", "json", "--ignore", "SWA400", "d", cwd=root)
    assert notes(run) == {}
    assert run.data["pairs"] == []


def test_names_equal_without_prefill_decode_make_two_pairs_and_no_note(tree):
    root = tree(
        {
            "d/v4-prod-prefill.yaml": server("prefill"),
            "d/v4-prod-decode.yaml": server("decode", "tp-size: 4\n"),
            "d/v4-canary-prefill.yaml": server("prefill"),
            "d/v4-canary-decode.yaml": server("decode"),
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert notes(run) == {}
    pairs = {(p["prefill"]["file"], p["decode"]["file"]): p for p in run.data["pairs"]}
    assert sorted(pairs) == [
        ("d/v4-canary-prefill.yaml", "d/v4-canary-decode.yaml"),
        ("d/v4-prod-prefill.yaml", "d/v4-prod-decode.yaml"),
    ]
    assert pairs[("d/v4-prod-prefill.yaml", "d/v4-prod-decode.yaml")]["how"] == (
        "same model and the same name without prefill/decode ('v4-prod')"
    )
    # each pair is checked: only prod differs (tp 1 vs 4)
    assert [
        f["code"] for f in pairs[("d/v4-prod-prefill.yaml", "d/v4-prod-decode.yaml")]["findings"]
    ] == ["SWA410"]
    assert pairs[("d/v4-canary-prefill.yaml", "d/v4-canary-decode.yaml")]["findings"] == []


def test_servers_left_after_name_pairing_get_notes(tree):
    root = tree(
        {
            "d/v4-prod-prefill.yaml": server("prefill"),
            "d/v4-prod-decode.yaml": server("decode"),
            "d/v4-canary-prefill.yaml": server("prefill"),
            "d/v4-canary-decode-a.yaml": server("decode"),
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert [(p["prefill"]["file"], p["decode"]["file"]) for p in run.data["pairs"]] == [
        ("d/v4-prod-prefill.yaml", "d/v4-prod-decode.yaml")
    ]
    assert sorted(notes(run)) == ["d/v4-canary-decode-a.yaml", "d/v4-canary-prefill.yaml"]


def test_a_lone_server_has_no_note(tree):
    root = tree({"d/decode.yaml": server("decode")})
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.exit_code == 0
    assert notes(run) == {}
    assert run.data["pairs"] == []


def test_two_decodes_without_a_prefill_have_no_note(tree):
    root = tree({"d/decode-a.yaml": server("decode"), "d/decode-b.yaml": server("decode")})
    run = run_cli("--format", "json", "d", cwd=root)
    assert notes(run) == {}


def test_pair_with_swapped_roles_is_checked_the_right_way_round_with_a_note(tree):
    root = tree(
        {"d/prefill.yaml": server("prefill"), "d/decode.yaml": server("decode", "tp-size: 4\n")}
    )
    run = run_cli("pair", "d/decode.yaml", "d/prefill.yaml", "--format", "json", cwd=root)
    assert run.exit_code == 0
    assert [(p["prefill"]["file"], p["decode"]["file"]) for p in run.data["pairs"]] == [
        ("d/prefill.yaml", "d/decode.yaml")
    ]
    assert run.data["pairs"][0]["how"].startswith(
        "named as a pair the wrong way round (d/decode.yaml + d/prefill.yaml)"
    )
    assert run.stderr == (
        "d/decode.yaml: named as the prefill server of a PD pair, but it is the decode server and d/prefill.yaml "
        "the prefill server (their disaggregation-mode): checked the right way round\n"
    )
    assert notes(run) == {}
    assert [f["code"] for f in run.findings("SWA410")] == ["SWA410"]  # compared: tp-size differs


def test_pair_with_a_server_without_a_pd_role_is_an_input_error(tree):
    root = tree({"d/server.yaml": "model-path: ../models/v4\n", "d/decode.yaml": server("decode")})
    run = run_cli("pair", "d/server.yaml", "d/decode.yaml", "--format", "json", cwd=root)
    assert run.exit_code == 2
    assert (
        run.stderr == "d/server.yaml: named as the prefill server of a PD pair, but its "
        "disaggregation-mode is not set (no PD role); the pair is not checked\n"
    )
    assert run.data["pairs"] == []
    both = run_cli("pair", "d/decode.yaml", "d/decode.yaml", cwd=root)
    assert both.exit_code == 2


def test_pair_with_a_server_that_is_not_checked_is_an_input_error_not_a_crash(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode.yaml": "model-path: /mnt/models/unknown\ndisaggregation-mode: decode\n",
        }
    )
    run = run_cli("pair", "d/prefill.yaml", "d/decode.yaml", "--format", "json", cwd=root)
    assert run.exit_code == 2
    assert run.stderr == (
        "d/decode.yaml:1:1: named as the decode server of a PD pair, but it is not checked "
        "itself (its own report says why); the pair is not checked\n"
    )
    (skipped,) = [d for d in run.deployments if d["file"] == "d/decode.yaml"]
    assert "config.json for model '/mnt/models/unknown' not found" in skipped["skip_reason"]
    assert run.data["pairs"] == []


def test_pair_of_two_prefill_servers_points_at_the_mode(tree):
    root = tree({"d/a.yaml": server("prefill"), "d/b.yaml": server("prefill")})
    run = run_cli("pair", "d/a.yaml", "d/b.yaml", cwd=root)
    assert run.exit_code == 2
    [line] = run.stderr.splitlines()
    assert line.startswith("d/b.yaml:") and line.endswith(
        "named as the decode server of a PD pair, but its disaggregation-mode is prefill; the pair is not checked"
    )


def test_a_pairs_list_in_a_deployment_file_names_the_pair(tree):
    root = tree(
        {
            "d/prefill.yaml": server("prefill"),
            "d/decode-a.yaml": server("decode", "tp-size: 4\n"),
            "d/decode-b.yaml": server("decode"),
            "d/pairs.yaml": "swacheck: 1\npairs:\n  - {prefill: prefill.yaml, decode: decode-a.yaml}\n",
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.data["errors"] == []
    assert [(p["prefill"]["file"], p["decode"]["file"]) for p in run.data["pairs"]] == [
        ("d/prefill.yaml", "d/decode-a.yaml")
    ]
