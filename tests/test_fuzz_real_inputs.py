"""Property tests for the readers of real repositories' inputs: whatever the text, the shell
idioms (arrays, eval, heredocs, docker run, wrappers), Markdown/rst code blocks, srt-slurm
recipes, SkyPilot tasks and custom resources end in deployments, notes or one-line input
errors -- never an exception, and the exit code is 0, 1 or 2 (2 exactly with an input error)."""

from __future__ import annotations

from conftest import V4_FLASH, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples  # importing it registers and loads the profiles first

PIECES = [
    "python3 -m sglang.launch_server",
    "sglang serve",
    "python3 -m dynamo.sglang",
    "--model-path",
    "models/v4",
    "deepseek-ai/DeepSeek-V4-Flash",
    "--speculative-algorithm EAGLE",
    "--speculative-num-steps 3",
    "--speculative-eagle-topk 1",
    "--disaggregation-mode decode",
    "-tp-size 8",
    "A=(",
    ")",
    "A+=(",
    "A+=x",
    '"${A[@]}"',
    "${A[*]}",
    "${A[0]}",
    "${A[",
    "$A",
    "eval",
    '"$CMD"',
    "CMD=",
    "<<EOF\n",
    "\nEOF\n",
    "<<'X'\n",
    "docker run",
    "-e X=1",
    "--entrypoint",
    "lmsysorg/sglang:v0.5.23-rocm700-mi35x",
    "numactl -N 0",
    "uv run",
    "srun --nodes=1",
    "timeout 1h",
    "bash -lc --",
    "\\\n",
    "\\  \n",
    "\n# c \\\n",
    "\n\n",
    "'",
    '"',
    "(",
    "$(",
    "`",
    "<DeepSeek-V4-Flash>",
    "<port>",
    "#",
    ";",
    "&",
    "|",
    " ",
    "\n",
]
FENCES = [
    "```bash\n",
    "```yaml\nmodel-path: models/v4\n",
    "```yaml\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command: [sh, -c, x]\n",
    "```console\n$ ",
    "```\n",
    "~~~sh\n",
    ".. code-block:: bash\n\n   ",
    "```python\n",
]

shell_text = st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join)


def _check(run) -> None:  # type: ignore[no-untyped-def]
    assert run.exit_code in (0, 1, 2)
    errors = run.data["errors"]
    assert (run.exit_code == 2) == bool(errors)


@settings(max_examples=examples(0.2), suppress_health_check=list(HealthCheck), deadline=None)
@given(shell_text)
def test_shell_idioms_never_crash(tmp_path_factory, text):
    root = tmp_path_factory.mktemp("sh")
    (root / "models" / "v4").mkdir(parents=True)
    (root / "models" / "v4" / "config.json").write_text(V4_FLASH)
    (root / "s.sh").write_text(text)
    _check(run_cli("--format", "json", "s.sh", cwd=root))


@settings(max_examples=examples(0.15), suppress_health_check=list(HealthCheck), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FENCES), shell_text, st.booleans()), max_size=5))
def test_docs_never_crash(tmp_path_factory, blocks):
    root = tmp_path_factory.mktemp("md")
    (root / "models" / "v4").mkdir(parents=True)
    (root / "models" / "v4" / "config.json").write_text(V4_FLASH)
    text = "# t\n\n" + "\n".join(
        f"{fence}{body}\n{'```' if close else ''}\n" for fence, body, close in blocks
    )
    (root / "d.md").write_text(text)
    (root / "d.rst").write_text(text)
    _check(run_cli("--format", "json", "d.md", "d.rst", cwd=root))


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 300),
    st.sampled_from(["EAGLE", "decode", "models/v4", "x", ""]),
    shell_text,
)
flag_maps = st.dictionaries(
    st.sampled_from(
        [
            "tp_size",
            "speculative-algorithm",
            "speculative_num_steps",
            "page-size",
            "disaggregation-mode",
            "bogus",
            "model-path",
        ]
    ),
    st.one_of(scalars, st.lists(scalars, max_size=3)),
    max_size=6,
)


@settings(max_examples=examples(0.15), suppress_health_check=list(HealthCheck), deadline=None)
@given(
    flag_maps, flag_maps, st.one_of(st.none(), st.sampled_from(["models/v4", "x", ""])), shell_text
)
def test_recipes_tasks_and_custom_resources_never_crash(
    tmp_path_factory, prefill, decode, model, script
):
    import yaml

    root = tmp_path_factory.mktemp("y")
    (root / "models" / "v4").mkdir(parents=True)
    (root / "models" / "v4" / "config.json").write_text(V4_FLASH)
    recipe = {
        "name": "r",
        "model": {"path": model},
        "backend": {
            "type": "sglang",
            "sglang_config": {"prefill": prefill, "decode": decode},
            "decode_environment": decode,
        },
    }
    task = {
        "name": "t",
        "resources": {"accelerators": "MI300X:8"},
        "envs": {"M": "models/v4"},
        "run": script,
    }
    cr = {
        "apiVersion": "x.io/v1",
        "kind": "Thing",
        "metadata": {"name": "t"},
        "spec": {
            "roles": [
                {
                    "name": "decode",
                    "template": {
                        "containers": [
                            {
                                "name": "c",
                                "image": "lmsysorg/sglang",
                                "command": ["sh", "-c", script],
                            }
                        ]
                    },
                }
            ],
            "runner": {"image": "sglang", "args": [str(v) for v in prefill.values()]},
        },
    }
    for name, doc in (("recipe.yaml", recipe), ("task.yaml", task), ("cr.yaml", cr)):
        (root / name).write_text(yaml.safe_dump(doc))
    _check(run_cli("--format", "json", "recipe.yaml", "task.yaml", "cr.yaml", cwd=root))
