"""The SGLang release a launch's own file names (an image tag, a pip pin) decides the profile when
--sglang-version is not given, and the report says where it came from (issue 26 item 7); a release
older than DeepSeek-V4 support is SWA600, from the files or from --sglang-version (issue 27 item 2)."""

from __future__ import annotations

import pytest
from conftest import only, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from swacheck.inputs import release
from swacheck.inputs.release import mentions

# --disable-piecewise-cuda-graph: in SGLang 0.5.19's flags, removed later (SWA303 on 0.5.23)
DOCKER = (
    "docker run --gpus all -v /models:/models {image} \\\n"
    "  python3 -m sglang.launch_server --model-path models/v4 --tp 8 --disable-piecewise-cuda-graph\n"
)


def _check(tree, files, *args):
    root = tree(files)
    return run_cli("--format", "json", *args, *files, cwd=root), root


def test_an_image_tag_decides_the_release_and_says_so(tree):
    run, root = _check(tree, {"run.sh": DOCKER.format(image="lmsysorg/sglang:v0.5.19-cu129")})
    assert run.findings("SWA303") == [] and run.exit_code == 0
    (dep,) = run.deployments
    assert dep["sglang_release"] == {
        "version": "0.5.19",
        "named": "0.5.19",
        "source": "image tag lmsysorg/sglang:v0.5.19-cu129",
        "location": {"file": "run.sh", "line": 1, "column": 42, "end_line": 1, "end_column": 71},
    }
    human = run_cli("run.sh", cwd=root)
    assert "(SGLang 0.5.19, from image tag lmsysorg/sglang:v0.5.19-cu129; exit 0)" in human.stdout


def test_sglang_version_wins_over_the_files(tree):
    files = {"run.sh": DOCKER.format(image="lmsysorg/sglang:v0.5.19-cu129")}
    run, _ = _check(tree, files, "--sglang-version", "0.5.23")
    assert "removed after SGLang 0.5.19" in only(run, "SWA303")["message"]
    assert "sglang_release" not in run.deployments[0]


@pytest.mark.parametrize(
    "image", ["lmsysorg/sglang:latest", "lmsysorg/sglang", "lmsysorg/sglang:dev"]
)
def test_an_unversioned_image_uses_the_default_and_says_so(tree, image):
    run, root = _check(tree, {"run.sh": DOCKER.format(image=image)})
    assert run.deployments[0]["sglang_release"]["version"] == "0.5.23"
    assert run.deployments[0]["sglang_release"]["named"] is None
    assert only(run, "SWA303")  # 0.5.23 has no --disable-piecewise-cuda-graph
    human = run_cli("run.sh", cwd=root)
    assert f"SGLang 0.5.23, the default: image tag {image} names no release" in human.stdout


def test_a_pip_pin_decides_the_release(tree):
    script = "pip install 'sglang[all]==0.5.19'\n" + DOCKER.split("\\\n  ")[1]
    run, _ = _check(tree, {"serve.sh": script})
    assert run.findings("SWA303") == []
    assert run.deployments[0]["sglang_release"]["source"] == "pip pin sglang[all]==0.5.19"


def test_each_service_gets_the_image_nearest_before_its_launch(tree):
    compose = (
        "services:\n"
        "  old:\n"
        "    image: lmsysorg/sglang:v0.5.19-cu129\n"
        "    command: python3 -m sglang.launch_server --model-path models/v4 --disable-piecewise-cuda-graph\n"
        "  new:\n"
        "    image: lmsysorg/sglang:v0.5.23-cu129\n"
        "    command: python3 -m sglang.launch_server --model-path models/v4 --disable-piecewise-cuda-graph\n"
    )
    run, _ = _check(tree, {"docker-compose.yaml": compose})
    by_name = {d["name"].split("/")[-1]: d for d in run.deployments}
    assert by_name["old"]["sglang_release"]["version"] == "0.5.19"
    assert by_name["new"]["sglang_release"]["version"] == "0.5.23"
    assert [f["code"] for f in by_name["old"]["findings"]] == []
    assert [f["code"] for f in by_name["new"]["findings"]] == ["SWA303"]


def test_an_image_before_deepseek_v4_support_is_swa600_and_nothing_else(tree):
    script = DOCKER.format(image="lmsysorg/sglang:v0.5.10-cu129").replace(
        "--tp 8", "--tp 8 --kv-cache-dtype bf16"
    )
    run, _ = _check(tree, {"run.sh": script})
    f = only(run, "SWA600")
    assert f["message"].startswith(
        "SGLang 0.5.10 (from image tag lmsysorg/sglang:v0.5.10-cu129) cannot run DeepSeek-V4"
    )
    assert "the first release that can is 0.5.12" in f["message"]
    assert [g["code"] for g in run.deployments[0]["findings"]] == ["SWA600"]
    assert (f["location"]["line"], f["location"]["column"]) == (1, 42)
    assert run.exit_code == 1


@pytest.mark.parametrize("version", ["0.5.10", "0.5.11", "0.4.0"])
def test_sglang_version_accepts_a_release_before_deepseek_v4_for_that_finding(tree, version):
    run, _ = _check(
        tree, {"server.yaml": "model-path: models/v4\ntp-size: 8\n"}, "--sglang-version", version
    )
    assert run.exit_code == 1  # a finding, not a usage error
    assert (
        f"SGLang {version} (--sglang-version) cannot run DeepSeek-V4"
        in only(run, "SWA600")["message"]
    )


def test_the_working_launch_of_the_same_thread_is_clean(tree):
    run, _ = _check(tree, {"run.sh": DOCKER.format(image="lmsysorg/sglang:v0.5.12-cu129")})
    assert run.findings("SWA600") == [] and run.exit_code == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "image: rocm/sgl-dev:v0.5.22-rocm720-mi35x-20261020",
            [("0.5.22", "image tag rocm/sgl-dev:v0.5.22-rocm720-mi35x-20261020")],
        ),
        (
            "FROM lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260710",
            [("0.5.14", "image tag lmsysorg/sglang-rocm:v0.5.14-rocm720-mi35x-20260710")],
        ),
        ("pip install sglang==0.5.20.post1", [("0.5.20.post1", "pip pin sglang==0.5.20.post1")]),
        ("pip install amd-sglang==0.5.6 sglang-router==0.3.2", []),
        ("cd /opt/sglang && python -m sglang.launch_server", []),
        (
            "image: docker.io/lmsysorg/sglang:deepseek-v4-hopper",
            [("", "image tag docker.io/lmsysorg/sglang:deepseek-v4-hopper")],
        ),
    ],
)
def test_what_names_a_release(text, expected):
    assert [(m.version, m.source) for m in mentions("f", text)] == expected


# kvcache-ai/ktransformers#1998: sglang-kt 0.7.2 serving DeepSeek-V4-Flash on 4 GPUs
KT = """\
pip install sglang-kt==0.7.2
python -m sglang.launch_server --host 0.0.0.0 --port 30000 \\
  --model models/v4 \\
  --kt-weight-path models/v4 \\
  --kt-method MXFP4 \\
  --kt-num-gpu-experts 1 \\
  --kt-cpuinfer 128 \\
  --kt-threadpool-count 1 \\
  --kt-gpu-prefill-token-threshold 4096 \\
  --kt-enable-dynamic-expert-update \\
  --tensor-parallel-size 4 \\
  --mem-fraction-static 0.9 \\
  --chunked-prefill-size 2048 \\
  --max-running-requests 2 --disable-shared-experts-fusion --trust-remote-code \\
  --cuda-graph-bs 1 2 4 --cuda-graph-max-bs 4 --disable-radix-cache
"""


@pytest.mark.parametrize("how", ["pip", "flags", "image"])
def test_the_fork_is_checked_against_its_own_flags(tree, how):
    script = {
        "pip": KT,
        "flags": KT.split("\n", 1)[1],  # its kt-* flags alone say it
        "image": "docker run --gpus all approachingai/ktransformers:v0.7.2 \\\n  "
        + KT.split("\n", 1)[1],
    }[how]
    run, _ = _check(tree, {"kt.sh": script})
    codes = [f["code"] for f in run.deployments[0]["findings"]]
    # --cuda-graph-bs / --cuda-graph-max-bs: plain options of sglang-kt, ambiguous abbreviations
    # in SGLang 0.5.23 -- never an argparse error for a flag the fork accepts
    assert [f for f in run.findings("SWA303") if f["severity"] == "error"] == []
    note = only(run, "SWA303")
    assert note["severity"] == "note"
    assert note["message"].startswith(
        "sglang-kt 0.7.2 flags, not options of upstream SGLang 0.5.12: "
        "kt-gpu-prefill-token-threshold, kt-enable-dynamic-expert-update"
    )
    assert run.exit_code == 0, codes


def test_an_upstream_launch_with_those_flags_is_still_refused(tree):
    # without the fork's signs, 0.5.23 refuses the ambiguous abbreviation as argparse does
    script = "python -m sglang.launch_server --model-path models/v4 --cuda-graph-max-bs 4\n"
    run, _ = _check(tree, {"up.sh": script})
    assert only(run, "SWA303")["severity"] == "error"


# what the regular expressions are tried on: texts made of these pieces (ASCII and not)
PIECES = [
    "sglang",
    "SGL",
    "sgl-dev",
    "ſglang",
    "-kt",
    "_KT",
    "==0.5.22",
    ":v0.5.19",
    "lmsysorg/",
    "rocm/",
    "ktransformers",
    "KTransformers",
    "[all]",
    " ",
    "\n",
    "x",
    "/",
    "K",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_a_text_that_names_no_release_is_passed_over_exactly(words):
    """``mentions`` and ``fork`` skip a text with no ``sgl`` and no ``ktransformers`` (most
    server configs) without trying the expressions: the answers are the expressions' own."""
    text = "".join(words)
    fast = (mentions("f", text), release.fork("f", text))
    passes_over = release._names_none
    release._names_none = lambda text: False  # every text through the expressions
    try:
        slow = (mentions("f", text), release.fork("f", text))
    finally:
        release._names_none = passes_over
    assert fast == slow
