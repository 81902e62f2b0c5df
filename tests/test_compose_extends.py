"""Compose ``extends`` is followed like any other reference: the inherited launch is read with
the extender's changes merged as Compose merges them; a file outside the root is refused; the
inherited words count against the file's budgets. Before, such a service was no deployment at
all: a changed environment that SGLang refuses passed with exit 0."""

from __future__ import annotations

from conftest import run_cli

BASE = """\
services:
  decode:
    image: lmsysorg/sglang:v0.5.23-cu129
    command: >
      python3 -m sglang.launch_server --model-path ../models/v4
      --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
    runtime: nvidia
"""


def _check(tree, files: dict[str, str], name: str = "c/docker-compose.yaml"):  # type: ignore[no-untyped-def]
    root = tree(files)
    run = run_cli("--format", "json", name, cwd=root)
    return run, {d["name"]: d for d in run.data["deployments"]}


def _codes(dep) -> list[str]:  # type: ignore[no-untyped-def]
    return [f["code"] for f in dep["findings"]]


def test_an_extending_service_inherits_the_launch_and_its_environment_change_is_checked(tree):
    compose = BASE + (
        "  decode-online:\n    extends: decode\n"
        '    environment:\n      SGLANG_OPT_USE_ONLINE_COMPRESS: "1"\n'
    )
    run, deps = _check(tree, {"c/docker-compose.yaml": compose})
    assert _codes(deps["compose/decode"]) == []
    assert _codes(deps["compose/decode-online"]) == ["SWA206"]
    [f] = deps["compose/decode-online"]["findings"]
    assert (f["location"]["file"], f["location"]["line"]) == ("c/docker-compose.yaml", 11)
    assert run.exit_code == 1


def test_extends_service_mapping_with_its_own_command_and_environment_merged(tree):
    compose = (
        BASE.replace("    runtime: nvidia\n", "    runtime: nvidia\n    environment: [A=1]\n")
        + "  other:\n    extends: {service: decode}\n"
        "    command: python3 -m sglang.launch_server --model-path ../models/v4 --page-size 64\n"
        "    environment: {B: '2'}\n"
    )
    run, deps = _check(tree, {"c/docker-compose.yaml": compose})
    other = deps["compose/other"]
    assert _codes(other) == ["SWA201"]  # the extender's command replaces the base's
    assert other["findings"][0]["location"]["line"] == 11
    assert run.exit_code == 0


def test_extends_a_service_of_another_file_inside_the_root(tree):
    compose = "services:\n  prefill:\n    extends: {file: base.yaml, service: decode}\n"
    base = BASE.replace("--speculative-eagle-topk 1", "--speculative-eagle-topk 1 --page-size 32")
    run, deps = _check(tree, {"c/docker-compose.yaml": compose, "c/base.yaml": base})
    [f] = deps["compose/prefill"]["findings"]
    assert f["code"] == "SWA201"
    assert f["location"]["file"] == "c/base.yaml"  # the inherited value is where it is written
    assert run.exit_code == 0


def test_extends_a_file_outside_the_root_is_refused(tree):
    root = tree(
        {
            "c/docker-compose.yaml": "services:\n  s:\n    extends: {file: ../../x.yaml, service: a}\n"
        }
    )
    (root.parent / "x.yaml").write_text(BASE)
    run = run_cli("--root", str(root), "c/docker-compose.yaml", cwd=root)
    assert run.exit_code == 2
    assert "c/docker-compose.yaml:3:21: extends file" in run.stderr
    assert "is outside the root" in run.stderr


def test_extends_cycles_and_unknown_services_are_input_errors(tree):
    for compose, message in (
        ("services:\n  a: {extends: b, image: x}\n  b: {extends: a}\n", "extends itself"),
        ("services:\n  a: {extends: nope, image: x}\n", "extends: no service 'nope'"),
        ("services:\n  a: {extends: [1], image: x}\n", "extends must name a service"),
    ):
        root = tree({"c/docker-compose.yaml": compose})
        run = run_cli("c/docker-compose.yaml", cwd=root)
        assert run.exit_code == 2, compose
        assert message in run.stderr, compose
        assert "Traceback" not in run.stderr


def test_inherited_words_count_against_the_files_word_budget(tree):
    # 600 services inheriting a 200-word command: 120,000 words from a small file
    flags = " ".join(f"--x{i} 1" for i in range(100))
    compose = BASE.replace("--speculative-eagle-topk 1", f"--speculative-eagle-topk 1 {flags}")
    compose += "".join(f"  s{i}: {{extends: decode}}\n" for i in range(600))
    root = tree({"c/docker-compose.yaml": compose})
    run = run_cli("c/docker-compose.yaml", cwd=root)
    assert run.exit_code == 2
    assert "shell words in" in run.stderr and "(the limit per file)" in run.stderr


# ---------------------------------------------------------------- --fix of an inherited value

INHERITED = BASE.replace("--speculative-eagle-topk 1", "--speculative-eagle-topk 1 --page-size 64")


def _fix(root, *names: str):  # type: ignore[no-untyped-def]
    """``swacheck --fix NAMES`` through the installed CLI (a subprocess)."""
    import shutil
    import subprocess
    import sys

    cmd = (
        [shutil.which("swacheck")]
        if shutil.which("swacheck")
        else [sys.executable, "-m", "swacheck"]
    )
    return subprocess.run(
        [*cmd, "--no-config", "--fix", *names],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_fix_never_edits_a_base_service_that_another_extends(tree):
    """SWA201's safe fix deletes --page-size 64 from the command: written in the base service
    ``decode``, which ``decode-2`` extends, the edit would change both services (and any other
    that extends it). It is refused like a value shared by a YAML anchor: the advice stays, with
    a line saying why, and the file's bytes are unchanged. A service of the same file that
    extends nothing is still fixed."""
    own = (
        "  alone:\n    image: lmsysorg/sglang:v0.5.23-cu129\n"
        "    command: python3 -m sglang.launch_server --model-path ../models/v4 --page-size 32\n"
    )
    compose = INHERITED + "  decode-2:\n    extends: decode\n" + own
    root = tree({"c/docker-compose.yaml": compose})
    done = _fix(root, "c/docker-compose.yaml")
    after = (root / "c/docker-compose.yaml").read_text()
    assert after == compose.replace("--page-size 32", "--page-size 256"), done.stderr  # `alone`
    assert (
        done.stderr.count(
            "c/docker-compose.yaml:6:92: SWA201 not fixable automatically: the value is inherited "
            "through Compose extends from service 'decode', and editing it there would change that "
            "service and every service that extends it; edit by hand: Set page-size to 256"
        )
        == 1
    ), done.stderr
    assert "Traceback" not in done.stderr


def test_fix_never_edits_a_base_service_of_another_file(tree):
    compose = "services:\n  prefill:\n    extends: {file: base.yaml, service: decode}\n"
    root = tree({"c/docker-compose.yaml": compose, "c/base.yaml": INHERITED})
    base_bytes = (root / "c/base.yaml").read_bytes()
    done = _fix(root, "c/docker-compose.yaml")
    assert (root / "c/base.yaml").read_bytes() == base_bytes
    assert (root / "c/docker-compose.yaml").read_text() == compose
    assert "inherited through Compose extends from service 'decode'" in done.stderr, done.stderr
    assert done.returncode == 0  # SWA201 is a warning; the fix is advice only
