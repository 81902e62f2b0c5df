"""One test group per input kind added for real repositories: the registry, templates, server
configs in a walk, srt-slurm, SkyPilot, docs, any Kubernetes object, and what is not ours."""

from __future__ import annotations

import pytest
from conftest import run_cli

from swacheck.inputs import kinds
from swacheck.loading import load_file
from swacheck.sglang.applicable import names_dsv4, names_other_family

SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"
QSPEC = ", ".join(f"'{w}'" for w in SPEC.split())  # as a YAML flow list of strings


# --------------------------------------------------------------------------- registry


def test_every_kind_is_registered_once_with_a_reader():
    names = [k.name for k in kinds.FILE_KINDS + kinds.DOCUMENT_KINDS]
    assert len(names) == len(set(names))
    for kind in kinds.FILE_KINDS + kinds.DOCUMENT_KINDS:
        module, _, func = kind.reader.partition(":")
        import importlib

        assert callable(getattr(importlib.import_module(module, "swacheck.inputs"), func))
        assert (kind.path is None) != (kind.document is None)


@pytest.mark.parametrize(
    "path, kind",
    [
        ("a/run.sh", "script"),
        ("jobs/dsv4-2node.sbatch", "script"),  # Slurm batch scripts, walked as scripts
        ("serve.slurm", "script"),
        ("start.bash", "script"),
        ("Dockerfile", "dockerfile"),
        ("x.Dockerfile", "dockerfile"),
        ("README.md", "markdown"),
        ("guide.mdx", "markdown"),
        ("doc.rst", "markdown"),
        ("x.yaml", None),
        ("serve_modal.py", "python"),
    ],
)
def test_file_kinds_by_name(path, kind):
    found = kinds.file_kind(path)
    assert (found.name if found else None) == kind


def _doc(text: str):  # type: ignore[no-untyped-def]
    return load_file("x.yaml", text=text).documents[0].root


@pytest.mark.parametrize(
    "text, kind",
    [
        (
            "backend: {type: sglang, sglang_config: {decode: {tp: 8}}}\nmodel: {path: m}\n",
            "srt-slurm",
        ),
        ("backend: {type: trtllm, sglang_config: {}}\n", None),
        (
            "name: t\nresources: {accelerators: H100:8}\nrun: python3 -m sglang.launch_server\n",
            "skypilot",
        ),
        ("apiVersion: v1\nkind: Pod\n", "kubernetes"),
        ("services: {a: {image: x}}\n", "compose"),
        ("model: x\ntasks: [a]\n", None),
        ("type: service\ncommands: [python -m sglang.launch_server --model-path m]\n", "dstack"),
        ("type: task\nreplicas: [{commands: [x]}]\n", "dstack"),
        ("type: dev-environment\nide: vscode\n", None),
        ("image: {repository: lmsysorg/sglang}\nextraArgs: [--tp, '8']\n", "helm-values"),
        ("decode: {args: --tp 8 --page-size 64}\nimage: lmsysorg/sglang:v0.5.23\n", "helm-values"),
        ("image: {repository: vllm/vllm-openai}\nextraArgs: [--tp, '8']\n", None),
    ],
)
def test_document_kinds_by_content(text, kind):
    found = kinds.document_kind(_doc(text))
    assert (found.name if found else None) == kind


# --------------------------------------------------------------------------- quiet on what isn't ours


@pytest.mark.parametrize(
    "model, other",
    [
        ("meta-llama/Llama-3.1-8B-Instruct", True),
        ("Qwen/Qwen3-235B-A22B", True),
        ("moonshotai/Kimi-K2-Instruct", True),
        ("deepseek-ai/DeepSeek-R1-0528", True),
        ("deepseek-ai/DeepSeek-V3.2-Exp", True),
        ("deepseek-ai/DeepSeek-V4-Flash", False),
        ("/models/dsv4-pro", False),
        ("/checkpoints/release-7", False),
    ],
)
def test_model_families_by_name(model, other):
    assert (names_other_family(model) is not None) == other
    assert names_dsv4(model) == ("V4" in model or "dsv4" in model)


def test_a_launch_without_speculative_decoding_or_pd_needs_no_config(tmp_path):
    (tmp_path / "s.sh").write_text(
        "python3 -m sglang.launch_server --model-path /models/whatever --tp 8\n"
    )
    run = run_cli("--format", "json", "s.sh", cwd=tmp_path)
    assert run.exit_code == 0 and run.deployments[0]["skip_reason"].startswith("not applicable")


def test_a_speculative_launch_of_another_family_needs_no_config_and_reports_nothing(tmp_path):
    (tmp_path / "s.sh").write_text(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
        "--speculative-algorithm EAGLE3 --cuda-graph-max-bs 8 --bogus 1\n"
    )
    run = run_cli("--format", "json", "s.sh", cwd=tmp_path)
    assert run.exit_code == 0 and run.deployments[0]["findings"] == []


def test_a_dsv4_named_speculative_launch_without_config_is_a_warning(tmp_path):
    (tmp_path / "s.sh").write_text(
        f"python3 -m sglang.launch_server --model-path /models/DeepSeek-V4-Flash {SPEC}\n"
    )
    run = run_cli("--format", "json", "--no-builtin-models", "s.sh", cwd=tmp_path)
    assert run.exit_code == 0 and run.stderr == ""
    (finding,) = run.findings("SWA308")
    assert finding["severity"] == "warning"
    assert "config.json for model '/models/DeepSeek-V4-Flash' not found" in finding["message"]


def test_dsv4_only_flags_make_a_missing_config_a_warning(tmp_path):
    (tmp_path / "s.sh").write_text(
        f"python3 -m sglang.launch_server --model-path /ckpt/x --dsv4-attn-backend trtllm {SPEC}\n"
    )
    run = run_cli("--format", "json", "s.sh", cwd=tmp_path)
    assert run.exit_code == 0 and [f["code"] for f in run.findings("SWA308")] == ["SWA308"]


def test_an_unknown_model_with_speculative_decoding_is_a_note(tmp_path):
    (tmp_path / "s.sh").write_text(f"python3 -m sglang.launch_server --model-path /ckpt/x {SPEC}\n")
    run = run_cli("--format", "json", "s.sh", cwd=tmp_path)
    assert run.exit_code == 0 and [f["code"] for f in run.findings("SWA307")] == ["SWA307"]


def test_a_found_config_of_another_architecture_reports_nothing(tree):
    root = tree(
        {
            "m/config.json": '{"architectures": ["LlamaForCausalLM"]}',
            "server.yaml": "model-path: m\npage_size: 64\nbogus: 1\n",
        }
    )
    run = run_cli("--format", "json", "server.yaml", cwd=root)
    assert run.exit_code == 0 and run.deployments[0]["findings"] == []


# --------------------------------------------------------------------------- templates, harness YAML


HELM = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ "
    ".Release.Name }}\nspec:\n  template:\n    spec:\n      containers:\n     "
    '   - command: ["python3", "-m", "sglang.launch_server", "--model-path", '
    '"{{ .Values.model }}"]\n'
)


def test_helm_template_named_explicitly_says_the_fix_and_never_fails_the_run(tmp_path):
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "chart" / "templates" / "d.yaml").write_text(
        HELM
    )  # holds a launch: not checked, with a note
    (tmp_path / "chart" / "templates" / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n"
    )
    run = run_cli(
        "--format", "json", "chart/templates/d.yaml", "chart/templates/svc.yaml", cwd=tmp_path
    )  # as a pre-commit hook names them
    assert run.exit_code == 0, run.stderr
    (note,) = run.findings("SWA307")
    assert note["message"].endswith(
        "render it first and check the result: helm template chart | swacheck - (or your template engine's output)"
    )
    assert run.stderr == ""  # quiet: counted, and the reason is in the report's notes
    assert (
        "skipped, not a deployment: a Helm chart template (chart chart): not YAML until "
        "rendered; render it first" in run.data["notes"][0]["message"]
    )


def test_helm_chart_in_a_walk_is_a_note_never_an_error(tmp_path):
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "chart" / "values.yaml").write_text(
        "model: deepseek-ai/DeepSeek-V4-Flash\nreplicaCount: 1\nimage: {tag: x}\n"
    )
    (tmp_path / "chart" / "templates" / "d.yaml").write_text(HELM)
    (tmp_path / "chart" / "templates" / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n"
    )
    run = run_cli("--format", "json", "chart", cwd=tmp_path)
    assert run.exit_code == 0 and run.data["errors"] == []
    assert [(d["file"], [f["code"] for f in d["findings"]]) for d in run.deployments] == [
        ("chart/templates/d.yaml", ["SWA307"])
    ]
    verbose = run_cli("-v", "chart", cwd=tmp_path)
    assert "skipped chart/templates/svc.yaml: a Helm chart template (chart chart)" in verbose.stdout


def test_jinja_that_does_not_parse_is_a_template_in_a_walk(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.yaml").write_text("{% for r in roles %}\nname: {{ r }}\n{% endfor %}\n")
    run = run_cli("--format", "json", "--allow-empty", "d", cwd=tmp_path)
    assert run.exit_code == 0 and run.deployments == []


def test_go_template_strings_inside_valid_yaml_are_values(tmp_path):
    (tmp_path / "s.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - args: "
        "['--model_name={{.Name}}']\n      image: kserve/sklearnserver\n"
    )
    run = run_cli("-v", "--allow-empty", "s.yaml", cwd=tmp_path)
    assert (
        "a Kubernetes manifest in which no container or service runs" in run.stdout
    )  # read as a manifest, not as a template


def test_a_model_mapping_is_never_a_server_config(tmp_path):
    (tmp_path / "r.yaml").write_text("model:\n  path: x\nresources: {gpu: 8}\n")
    run = run_cli("-v", "r.yaml", cwd=tmp_path)
    assert run.exit_code == 2 and "skipped r.yaml: a mapping with keys model" in run.stdout
    assert "r.yaml: no deployments found" in run.stderr


def test_a_harness_table_with_model_is_skipped_in_a_walk_but_a_server_config_is_read(
    tmp_path, tree
):
    root = tree(
        {
            "d/matrix.yaml": "model: deepseek-ai/DeepSeek-V4-Flash\ntasks: [gsm8k]\nbatch_size: 8\nnum_fewshot: 5\n",
            "d/server.yaml": "model: ../models/v4\nspeculative-algorithm: "
            "EAGLE\nspeculative-num-steps: 3\nspeculative-eagle-topk: 1\n",
        }
    )
    run = run_cli("--format", "json", "d", cwd=root)
    assert [d["file"] for d in run.deployments] == ["d/server.yaml"] and run.exit_code == 0


# --------------------------------------------------------------------------- srt-slurm


RECIPE = """\
name: r
model: {path: models/v4, container: latest}
resources: {gpu_type: mi355x}
backend:
  type: sglang
  prefill_environment: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}
  decode_environment: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}
  sglang_config:
    prefill: {speculative_algorithm: EAGLE, speculative_num_steps: 3, speculative_eagle_topk: 1, disable_radix_cache: false, trust_remote_code: true}
    decode: {speculative-algorithm: EAGLE, speculative-num-steps: 3, speculative-eagle-topk: 1, max-running-requests: 16}
"""


def test_srt_slurm_one_deployment_per_mode_with_command_line_semantics(tree):
    root = tree({"r.yaml": RECIPE})
    run = run_cli("--format", "json", "r.yaml", cwd=root)
    assert run.exit_code == 0, run.stdout
    assert [d["name"] for d in run.deployments] == ["srt-slurm/r/prefill", "srt-slurm/r/decode"]
    assert [d["pd"] for d in run.deployments] == [True, True]
    assert {d["platform"] for d in run.deployments} == {"rocm"} and {
        d["mode"] for d in run.deployments
    } == {"unified"}
    assert (
        run.findings("SWA303") == []
    )  # underscores are dashes on a command line, never the --config merger's


def test_srt_slurm_without_model_path_is_an_input_error(tree):
    root = tree(
        {
            "r.yaml": "backend:\n  type: sglang\n  sglang_config:\n    decode: {tp: 8}\nmodel: {container: x}\n"
        }
    )
    run = run_cli("r.yaml", cwd=root)
    assert run.exit_code == 2 and "model.path" in run.stderr


def test_srt_slurm_hf_handle_is_the_hub_model_id(tree):
    # srt-slurm's own recipes: model.path: "hf:deepseek-ai/DeepSeek-V4-Pro"; once looked up as a
    # local folder named "hf:deepseek-ai", and reported once per server
    recipe = RECIPE.replace("path: models/v4", 'path: "hf:deepseek-ai/DeepSeek-V4-Flash"')
    root = tree({"r.yaml": recipe})
    missing = run_cli("--format", "json", "--no-builtin-models", "r.yaml", cwd=root)
    assert missing.exit_code == 0 and missing.stderr == ""
    found = missing.findings("SWA308")
    assert found and {(f["location"]["line"], f["location"]["column"]) for f in found} == {
        (2, 15)
    }  # the Hub id, not a folder named "hf:deepseek-ai"
    assert all(
        f["message"].startswith("config.json for model 'deepseek-ai/DeepSeek-V4-Flash' not found")
        for f in found
    )
    given = run_cli(
        "--format",
        "json",
        "--model-config",
        "deepseek-ai/DeepSeek-V4-Flash=models/v4",
        "r.yaml",
        cwd=root,
    )
    assert given.exit_code == 0 and len(given.deployments) == 2 and len(given.data["pairs"]) == 1


# --------------------------------------------------------------------------- SkyPilot


def test_skypilot_run_script_with_envs_and_accelerators(tree):
    root = tree(
        {
            "t.yaml": f"name: t\nresources: {{accelerators: 'MI300X:8'}}\nenvs: {{MODEL: "
            f"models/v4, BACKEND: unified_kv_triton}}\nrun: |\n  export "
            f"SGLANG_HACK_FLASHMLA_BACKEND=$BACKEND\n  python3 -m sglang.launch_server "
            f"--model-path $MODEL {SPEC}\n"
        }
    )
    run = run_cli("--format", "json", "t.yaml", cwd=root)
    (dep,) = run.deployments
    assert (dep["name"], dep["platform"], dep["mode"]) == ("sky/t/run", "rocm", "unified")


# --------------------------------------------------------------------------- docs


def test_markdown_blocks_positions_and_placeholders(tree):
    doc = (
        f"# x\n\n```bash\npython3 -m sglang.launch_server --model-path "
        f"<DeepSeek-V4-Flash> {SPEC}\n```\n\n```console\n$ python3 -m "
        f"sglang.launch_server --model-path models/v4 --page-size 64 \\\n    "
        f"{SPEC} 2>&1 | tee log\nINFO started\n```\n"
    )
    root = tree({"README.md": doc})
    run = run_cli("--format", "json", "README.md", cwd=root)
    assert run.exit_code == 0, run.stdout
    (fill,) = run.findings("SWA307")
    assert (
        fill["message"] == "fill in <DeepSeek-V4-Flash> (the model path) to check this launch"
        and fill["location"]["line"] == 4
    )
    (page,) = run.findings("SWA201")
    assert (page["location"]["line"], page["location"]["column"]) == (8, 60)  # positions in the doc


@pytest.mark.parametrize("fence", ["```", "```bash", "```shell"])
def test_a_shell_block_written_as_a_session_is_read_from_its_prompts(tree, fence):
    # SGLang's own multi-node docs: "$ python3 -m sglang.launch_server ..." in an unmarked fence;
    # once read as a script, whose "$" made the launch a command nobody runs
    doc = (
        f"# Serving\n\n{fence}\n$ export HF_HOME=/data/hf\n$ python3 -m sglang.launch_server "
        f"--model-path models/v4 --page-size 64 {SPEC}\n[10:00:00] server started\n```\n"
    )
    run = run_cli("--format", "json", "README.md", cwd=tree({"README.md": doc}))
    (page,) = run.findings("SWA201")
    assert (page["location"]["line"], page["location"]["column"]) == (
        5,
        60,
    )  # in the doc, past the prompt
    assert len(run.deployments) == 1


def test_a_comment_in_a_bash_block_is_no_prompt(tree):
    doc = f"```bash\n# launch the server\npython3 -m sglang.launch_server --model-path models/v4 --page-size 64 {SPEC}\n```\n"
    run = run_cli("--format", "json", "README.md", cwd=tree({"README.md": doc}))
    assert [f["location"]["line"] for f in run.findings("SWA201")] == [3]


def test_rst_code_block(tree):
    root = tree(
        {
            "d.rst": f"Title\n=====\n\n.. code-block:: shell\n\n   python3 -m "
            f"sglang.launch_server --model-path models/v4 --page-size 64 {SPEC}\n"
        }
    )
    run = run_cli("--format", "json", "d.rst", cwd=root)
    (page,) = run.findings("SWA201")
    assert page["location"]["line"] == 6


def test_docs_without_a_launch_are_skipped_in_a_walk_and_refused_when_named(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "README.md").write_text("# hi\n\n```bash\nls -la <dir>\n```\n")
    assert run_cli("--allow-empty", "d", cwd=tmp_path).exit_code == 0
    run = run_cli("-v", "d/README.md", cwd=tmp_path)
    assert "skipped d/README.md: no SGLang launch command" in run.stdout
    assert run.exit_code == 2  # named, and no deployment at all


def test_a_doc_block_that_is_not_shell_is_ignored(tmp_path):
    (tmp_path / "a.md").write_text(
        "```python\nos.system('python3 -m sglang.launch_server --model-path "
        "x')\n```\n\n```bash\necho 'unterminated\n```\n"
    )
    run = run_cli("--format", "json", "a.md", cwd=tmp_path)
    assert (
        run.exit_code == 2 and run.deployments == []
    )  # named explicitly, and no launch in a shell block


# --------------------------------------------------------------------------- any Kubernetes object


RBG = f"""\
apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata: {{name: g}}
spec:
  roles:
    - name: prefill
      template:
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server, --model-path, models/v4, --disaggregation-mode, prefill, {QSPEC}]
    - name: decode
      template:
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server, --model-path, models/v4, --disaggregation-mode, decode]
"""


def test_custom_resource_roles_name_the_deployments_and_pair(tree):
    root = tree({"g.yaml": RBG})
    run = run_cli("--format", "json", "g.yaml", cwd=root)
    assert [d["name"] for d in run.deployments] == [
        "RoleBasedGroup/g/prefill/s",
        "RoleBasedGroup/g/decode/s",
    ]
    assert [f["code"] for f in run.findings("SWA406")] == ["SWA406"] and run.exit_code == 1


def test_dynamo_main_container_with_service_envs_and_own_flags(tree):
    dgd = (
        f"apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: "
        f"{{name: d}}\nspec:\n  services:\n    Worker:\n      envs:\n        - "
        f"{{name: SGLANG_HACK_FLASHMLA_BACKEND, value: unified_kv_triton}}\n      "
        f"extraPodSpec:\n        mainContainer:\n          image: "
        f"rocm/sgl-dev:v0.5.23\n          command: [python3, -m, dynamo.sglang, "
        f"--model-path, models/v4, --migration-limit, '3', {QSPEC}]\n"
    )
    root = tree({"d.yaml": dgd})
    run = run_cli("--format", "json", "d.yaml", cwd=root)
    (dep,) = run.deployments
    assert (dep["name"], dep["platform"], dep["mode"]) == (
        "DynamoGraphDeployment/d/Worker/container",
        "rocm",
        "unified",
    )
    assert run.exit_code == 0, run.stdout  # --migration-limit is Dynamo's own flag


def test_custom_resource_without_a_readable_launch_is_a_note(tmp_path):
    (tmp_path / "r.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: "
        "w}\nspec:\n  engineConfig:\n    runner:\n      image: "
        "lmsysorg/sglang:latest\n      command: [/start.sh]\n"
    )
    run = run_cli("--format", "json", "r.yaml", cwd=tmp_path)
    (f,) = run.findings("SWA307")
    assert f["message"].startswith("ServingRuntime 'w': 1 container found") and run.exit_code == 0


def test_custom_resource_that_never_mentions_sglang_is_not_ours(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "r.yaml").write_text(
        "apiVersion: x.io/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  "
        "template:\n    containers:\n      - image: nginx\n"
    )
    run = run_cli("--format", "json", "--allow-empty", "d", cwd=tmp_path)
    assert run.exit_code == 0 and run.deployments == []


# --------------------------------------------------------------------------- the server's hub cache


def test_hub_cache_from_the_servers_environment(tmp_path, monkeypatch):
    from conftest import V4_FLASH

    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv(
        "HF_HOME", str(tmp_path / "runner-home")
    )  # swacheck's own: not where the server looks
    snap = (
        tmp_path / "srv" / "hub" / "models--deepseek-ai--DeepSeek-V4-Flash" / "snapshots" / "abc123"
    )
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(V4_FLASH)
    (tmp_path / "srv" / "hub" / "models--deepseek-ai--DeepSeek-V4-Flash" / "refs").mkdir()
    (
        tmp_path / "srv" / "hub" / "models--deepseek-ai--DeepSeek-V4-Flash" / "refs" / "main"
    ).write_text("abc123")
    (tmp_path / "s.sh").write_text(
        f"export HF_HOME={tmp_path / 'srv'}\npython3 -m sglang.launch_server "
        f"--model-path deepseek-ai/DeepSeek-V4-Flash {SPEC}\n"
    )
    run = run_cli("--format", "json", "--root", str(tmp_path), "s.sh", cwd=tmp_path)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.deployments[0]["target"]["model_config"].endswith("snapshots/abc123/config.json")
    # without the server's HF_HOME the checkpoint is not found: a DSV4 id, so a SWA308 warning
    (tmp_path / "s.sh").write_text(
        f"python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash {SPEC}\n"
    )
    missing = run_cli("s.sh", "--no-builtin-models", "--root", str(tmp_path), cwd=tmp_path)
    assert missing.exit_code == 0 and "SWA308 warning" in missing.stdout
    # (the built-in catalogue answers instead, and says so)
    found = run_cli("--format", "json", "s.sh", "--root", str(tmp_path), cwd=tmp_path)
    assert found.deployments[0]["target"]["source"] == "catalogue"
    # given with --env, as for any other server variable
    run = run_cli(
        "--format",
        "json",
        "--root",
        str(tmp_path),
        "--env",
        f"HF_HUB_CACHE={tmp_path / 'srv' / 'hub'}",
        "s.sh",
        cwd=tmp_path,
    )
    assert run.exit_code == 0, run.stderr


def test_fence_in_a_list_item_is_dedented_and_a_missing_config_is_a_note(tree):
    doc = (
        "- Use a config file:\n\n  ```bash\n  cat > config.yaml << EOF\n  model-path: models/v4\n  EOF\n"
        "  python -m sglang.launch_server --config config.yaml\n  ```\n\n"
        f"- Or flags:\n\n  ```bash\n  python -m sglang.launch_server --model-path "
        f"models/v4 --page-size 64 \\\n    {SPEC}\n  ```\n"
    )
    root = tree({"d/guide.md": doc, "d/models/v4/config.json": __import__("conftest").V4_FLASH})
    run = run_cli("--format", "json", "d", cwd=root)
    assert run.exit_code == 0 and run.data["errors"] == []
    (note,) = run.findings("SWA307")
    assert (
        note["message"].startswith("not checked: --config config.yaml: no such file")
        and note["location"]["line"] == 7
    )
    (page,) = run.findings("SWA201")
    assert page["location"]["line"] == 13


def test_yaml_blocks_in_docs_are_server_configs_and_manifests_with_doc_positions(tree):
    doc = (
        "# x\n\n```yaml\nmodel-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        "speculative-eagle-topk: 1\npage-size: 64\n```\n\n"
        "- pod:\n\n  ```yaml\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n"
        f"      - command: [python3, -m, sglang.launch_server, --model-path, "
        f"models/v4, --page-size, '32', {QSPEC}]\n  ```\n\n"
        "```yaml\ntp-size: 8\n```\n"
    )
    root = tree({"d.md": doc})
    run = run_cli("--format", "json", "d.md", cwd=root)
    assert [d["name"] for d in run.deployments] == ["d.md:4", "Pod/p/container"]
    assert sorted(
        (f["location"]["line"], f["location"]["column"]) for f in run.findings("SWA201")
    ) == [(8, 1), (19, 81)]
    diff = run_cli("--diff", "d.md", cwd=root)
    assert "-page-size: 64" in diff.stdout and "'256'" in diff.stdout


def test_no_file_kind_takes_a_yaml_or_json_name_but_a_dockerfile():
    """kinds.file_kind answers None at once for a YAML/JSON name: each kind must agree."""
    from swacheck.inputs import kinds

    for kind in kinds.FILE_KINDS:
        for name in ("a.yaml", "deploy/b.YML", "c.json", "x/server.Yaml"):
            assert not kind.path(name), (kind.name, name)
    assert kinds.file_kind("a/Dockerfile.yaml").name == "dockerfile"
    assert kinds.file_kind("a/server.yaml") is None
    assert kinds.file_kind("run.sh").name == "script"
