"""Generated inputs of every kind swacheck reads, around findings that have fixes, for the fuzz
campaign (``tests/fix/test_fix_campaign.py``; the long profile: ``benchmarks/fix_fuzz.py
--kinds N``).

``make_tree(rnd, folder)`` takes a seeded ``random.Random`` and returns {path relative to the
case's folder: bytes}: one case of one kind (a server config in block or flow style, with an
inline or anchored merge key; a Markdown doc with a yaml and a bash block; a launch script with
its own functions, ``eval`` / ``sh -c`` nesting and calls past the limit; a Compose file with
``extends`` in the file and from another file, merge keys; a Kubernetes Deployment; a custom
resource; a Dockerfile; a swacheck deployment file with copied geometry; an srt-slurm recipe; a
SkyPilot task; a server log and a /server_info answer; a dstack service, Helm values of an
SGLang chart and a Python launch harness), sometimes a symbolic link that leads
out of the tree (to ``../../../outside``), which no run may write through. The models live at
the repository's top: ``models/v4``.
"""

from __future__ import annotations

import json
import random

MODELS = "../../models/v4"  # from a case's folder (gen/NNNNN/) to the repository's models

# (key, values): each value gives a finding with a fix (or none), alone or with others
ARGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("speculative-algorithm", ("EAGLE", "NEXTN", "EAGLE")),
    ("speculative-eagle-topk", ("1", "2")),
    ("speculative-num-steps", ("3", "5")),
    ("speculative-num-stesp", ("3", "5")),
    ("page-size", ("64", "256", "32")),
    ("disaggregation-mode", ("decode", "prefill")),
    ("speculative-draft-model-path", ("../../models/mtp256",)),
    ("speculative-num-draft-tokens", ("4", "9")),
    ("disable-piecewise-cuda-graph", ("true",)),
    ("mem-fraction-statc", ("0.8",)),
    ("tp-size", ("8", "1")),
)


def _args(rnd: random.Random) -> list[tuple[str, str]]:
    out = [("model-path", MODELS)]
    for key, values in ARGS:
        if rnd.random() < 0.45:
            out.append((key, rnd.choice(values)))
    if rnd.random() < 0.2 and len(out) > 1:
        out.append(rnd.choice(out[1:]))  # a duplicate key (or flag given twice)
    rnd.shuffle(out)
    return out


def _flags(args: list[tuple[str, str]]) -> str:
    return " ".join(f"--{k} {v}" if v != "true" else f"--{k}" for k, v in args)


def _yaml_server(rnd: random.Random, args: list[tuple[str, str]], indent: str = "") -> str:
    style = rnd.choice(["block", "block", "flow", "inline-merge", "anchor-merge"])
    if style == "flow":
        return indent + "{" + ", ".join(f"{k}: {v}" for k, v in args) + "}\n"
    if style in ("inline-merge", "anchor-merge") and len(args) > 2:
        cut = rnd.randint(1, len(args) - 1)
        merged, written = args[:cut], args[cut:]
        inline = "{" + ", ".join(f"{k}: {v}" for k, v in merged) + "}"
        head = f"{indent}<<: {inline}\n" if style == "inline-merge" else f"{indent}<<: *base\n"
        body = "".join(f"{indent}{k}: {v}\n" for k, v in written)
        if style == "anchor-merge":
            return f"{indent}x-base: &base {inline}\n" + head + body
        return head + body
    return "".join(f"{indent}{k}: {v}\n" for k, v in args)


def _server_config(rnd: random.Random) -> dict[str, str]:
    return {"server.yaml": _yaml_server(rnd, _args(rnd))}


def _markdown(rnd: random.Random) -> dict[str, str]:
    text = "# Deploy\n\nSome words.\n\n```yaml\n" + _yaml_server(rnd, _args(rnd)) + "```\n"
    if rnd.random() < 0.6:
        text += "\n```bash\npython3 -m sglang.launch_server " + _flags(_args(rnd)) + "\n```\n"
    return {"README.md": text}


def _script(rnd: random.Random) -> dict[str, str]:
    args = _args(rnd)
    launch = "python3 -m sglang.launch_server " + _flags(args)
    shape = rnd.choice(["plain", "function", "eval", "sh-c", "calls"])
    if shape == "plain":
        body = launch + "\n"
    elif shape == "function":
        body = f'serve() {{ {launch} "$@"; }}\nserve --port 30000\n'
    elif shape == "eval":
        body = "eval " * rnd.randint(1, 7) + launch + "\n"
    elif shape == "sh-c":
        body = f"bash -c '{launch}'\n"
    else:
        body = 'log() { echo "$@"; }\n' + f'serve() {{ {launch} "$@"; }}\n'
        body += "".join(f"log {i}\n" for i in range(rnd.randint(60, 70))) + "serve\n"
    return {"launch.sh": "#!/bin/bash\nset -e\n" + body}


def _compose(rnd: random.Random) -> dict[str, str]:
    args = _args(rnd)
    cmd = "python3 -m sglang.launch_server " + _flags(args)
    text = "x-common: &common\n  image: lmsysorg/sglang:v0.5.23-cu129\n  runtime: nvidia\n"
    text += f"services:\n  base:\n    <<: *common\n    command: {json.dumps(cmd)}\n"
    files = {}
    for i in range(rnd.randint(0, 3)):
        shape = rnd.choice(["name", "service", "file", "env"])
        if shape == "name":
            text += f"  s{i}:\n    extends: base\n"
        elif shape == "service":
            more = _flags(_args(rnd)[:3])
            text += (
                f"  s{i}:\n    extends: {{service: base}}\n"
                f"    command: {json.dumps('python3 -m sglang.launch_server ' + more)}\n"
            )
        elif shape == "file":
            files["base.yaml"] = f"services:\n  b:\n    image: x\n    command: {json.dumps(cmd)}\n"
            text += f"  s{i}:\n    extends: {{file: base.yaml, service: b}}\n"
        else:
            text += f"  s{i}:\n    extends: base\n    environment:\n      SGLANG_OPT_USE_ONLINE_COMPRESS: '1'\n"
    files["docker-compose.yaml"] = text
    return files


def _kubernetes(rnd: random.Random) -> dict[str, str]:
    args = _args(rnd)
    words = ["python3", "-m", "sglang.launch_server"] + [
        w for k, v in args for w in ((f"--{k}",) if v == "true" else (f"--{k}", v))
    ]
    if rnd.random() < 0.5:
        cmd = "        command: " + json.dumps(words) + "\n"
    else:
        cmd = "        command: [sh, -c]\n        args: [" + json.dumps(" ".join(words)) + "]\n"
    return {
        "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: sgl}\nspec:\n"
        "  template:\n    spec:\n      containers:\n      - name: s\n"
        "        image: lmsysorg/sglang:latest\n" + cmd
    }


def _custom(rnd: random.Random) -> dict[str, str]:
    args = _args(rnd)
    words = ["python3", "-m", "sglang.launch_server"] + [
        w for k, v in args for w in ((f"--{k}",) if v == "true" else (f"--{k}", v))
    ]
    filler = ""
    if rnd.random() < 0.15:
        filler = "  a: [" + ",".join(["1"] * rnd.choice([1000, 200_500])) + "]\n"
    return {
        "cr.yaml": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n"
        + filler
        + "  z:\n    containers:\n    - name: s\n      image: lmsysorg/sglang:latest\n"
        + "      command: "
        + json.dumps(words)
        + "\n"
    }


def _dockerfile(rnd: random.Random) -> dict[str, str]:
    words = ["python3", "-m", "sglang.launch_server"] + [
        w for k, v in _args(rnd) for w in ((f"--{k}",) if v == "true" else (f"--{k}", v))
    ]
    return {"Dockerfile": "FROM lmsysorg/sglang:latest\nCMD " + json.dumps(words) + "\n"}


def _deployment_file(rnd: random.Random) -> dict[str, str]:
    server = _yaml_server(rnd, _args(rnd), "  ")
    text = "swacheck: 1\nname: d\n" + (
        f"server: {server.strip()}\n" if server.lstrip().startswith("{") else "server:\n" + server
    )
    if rnd.random() < 0.5:
        text += (
            "target:\n  geometry: {unified: true, window: 128, ring_size: 131, pages: 33667}\n"
            "draft:\n  geometry: {unified: true, window: 256, ring_size: 259, pages: 66563}\n"
        )
    return {"deploy.swacheck.yaml": text}


def _srt_slurm(rnd: random.Random) -> dict[str, str]:
    body = "".join(
        f"      {k.replace('-', '_')}: {v}\n" for k, v in _args(rnd) if k != "model-path"
    )
    return {
        "recipe.yaml": "name: r\nmodel:\n  path: ../../models/v4\nbackend:\n  type: sglang\n"
        "  sglang_config:\n    decode:\n" + (body or "      tp_size: 1\n")
    }


def _skypilot(rnd: random.Random) -> dict[str, str]:
    return {
        "task.yaml": "resources:\n  accelerators: H200:8\nrun: |\n  python3 -m sglang.launch_server "
        + _flags(_args(rnd))
        + "\n"
    }


def _resolved(rnd: random.Random) -> dict:
    """A server's resolved arguments as SGLang prints them (field names, typed values)."""
    out: dict = {"enable_dp_attention": False, "api_key": None}
    for key, value in _args(rnd):
        typed = int(value) if value.isdigit() else True if value == "true" else value
        out[key.replace("-", "_")] = typed
    return out


def _server_log(rnd: random.Random) -> dict[str, str]:
    values = _resolved(rnd)
    if rnd.random() < 0.3:  # up to 0.5.18: the dataclass repr
        line = "server_args=ServerArgs(" + ", ".join(f"{k}={v!r}" for k, v in values.items()) + ")"
    else:
        line = f"server_args={values!r}"
    return {"server.log": f"[2026-12-01 00:00:00] start\n[2026-12-01 00:00:01 TP0] {line}\n"}


def _server_info(rnd: random.Random) -> dict[str, str]:
    info = {
        **_resolved(rnd),
        "launch_command": "python3 -m sglang.launch_server",
        "version": "0.5.23",
    }
    return {"server_info.json": json.dumps(info, indent=rnd.choice([None, 2])) + "\n"}


def _words(args: list[tuple[str, str]]) -> list[str]:
    return [w for k, v in args for w in ((f"--{k}",) if v == "true" else (f"--{k}", v))]


def _dstack(rnd: random.Random) -> dict[str, str]:
    """A dstack service: its ``commands`` a shell script (a list item, a block scalar), ``env``
    as NAME=VALUE items; sometimes PD replica groups with their own commands."""
    launch = "python3 -m sglang.launch_server " + _flags(_args(rnd))
    text = "type: service\nname: sgl\nimage: lmsysorg/sglang:latest\nport: 30000\n"
    if rnd.random() < 0.5:
        text += "env:\n  - SGLANG_OPT_USE_ONLINE_COMPRESS=1\n" if rnd.random() < 0.3 else ""
        if rnd.random() < 0.5:
            text += "commands:\n  - " + json.dumps(launch) + "\n"
        else:
            text += "commands:\n  - |\n    set -e\n    " + launch + "\n"
    else:
        text += "router: {pd_disaggregation: true}\nreplicas:\n"
        for role in ("prefill", "decode"):
            cmd = launch + f" --disaggregation-mode {role}"
            text += f"  - name: {role}\n    commands:\n      - {json.dumps(cmd)}\n"
            text += "    resources: {gpu: H200:8}\n"
    return {"service.dstack.yml": text}


def _helm_values(rnd: random.Random) -> dict[str, str]:
    """Helm values of an SGLang chart: ``extraArgs`` as argv items or one string of flags, next
    to ``modelPath``; sometimes ``prefill:`` and ``decode:`` sections."""
    args = [(k, v) for k, v in _args(rnd) if k != "model-path"] or [("tp-size", "1")]

    def section(indent: str, role: str = "") -> str:
        more = [("disaggregation-mode", role)] if role else []
        body = f"{indent}modelPath: {MODELS}\n"
        if rnd.random() < 0.5:
            items = "".join(f"{indent}  - {json.dumps(w)}\n" for w in _words(args + more))
            return body + f"{indent}extraArgs:\n" + items
        return body + f"{indent}extraArgs: {json.dumps(_flags(args + more))}\n"

    text = "image:\n  repository: lmsysorg/sglang\n  tag: v0.5.23-cu129\n"
    if rnd.random() < 0.6:
        text += section("")
    else:
        text += "prefill:\n" + section("  ", "prefill") + "decode:\n" + section("  ", "decode")
    return {"values.yaml": text}


def _python(rnd: random.Random) -> dict[str, str]:
    """A Python launch harness read statically: a literal argv list given to subprocess (with
    ``cmd += [...]`` later), a shell string, or SGLang's own ``popen_launch_server``."""
    words = _words(_args(rnd))
    shape = rnd.choice(["run", "extend", "system", "popen"])
    head = "import os\nimport subprocess\nimport sys\n\n"
    if shape == "run":
        argv = [["sys.executable"], "-m", "sglang.launch_server", *words]
        items = ", ".join(a[0] if isinstance(a, list) else json.dumps(a) for a in argv)
        body = f"subprocess.run([{items}], check=True)\n"
    elif shape == "extend":
        cut = rnd.randint(0, len(words))
        first = ", ".join(
            json.dumps(w) for w in ["python3", "-m", "sglang.launch_server", *words[:cut]]
        )
        body = f"cmd = [{first}]\ncmd += [{', '.join(json.dumps(w) for w in words[cut:])}]\n"
        body += "subprocess.Popen(cmd)\n"
    elif shape == "system":
        body = f"os.system({json.dumps('python3 -m sglang.launch_server ' + ' '.join(words))})\n"
    else:
        model = next((words[i + 1] for i, w in enumerate(words) if w == "--model-path"), MODELS)
        rest = [
            w
            for i, w in enumerate(words)
            if w != "--model-path" and words[i - 1 : i] != ["--model-path"]
        ]
        head = "from sglang.test.test_utils import popen_launch_server\n\n"
        body = (
            f"MODEL = {json.dumps(model)}\n"
            f"process = popen_launch_server(MODEL, 'http://127.0.0.1:30000', timeout=600, "
            f"other_args=[{', '.join(json.dumps(w) for w in rest)}])\n"
        )
    return {"launch.py": head + body}


KINDS = {
    "server-config": _server_config,
    "dstack": _dstack,
    "helm-values": _helm_values,
    "python": _python,
    "server-log": _server_log,
    "server-info": _server_info,
    "markdown": _markdown,
    "script": _script,
    "compose": _compose,
    "kubernetes": _kubernetes,
    "custom-resource": _custom,
    "dockerfile": _dockerfile,
    "deployment-file": _deployment_file,
    "srt-slurm": _srt_slurm,
    "skypilot": _skypilot,
}

OUTSIDE = "outside/victim.yaml"  # beside the repository: no run may write it
VICTIM = "model-path: models/v4\nspeculative-algorithm: NEXTN\npage-size: 64\n"


def make_tree(
    rnd: random.Random, kind: str | None = None
) -> tuple[str, dict[str, str], dict[str, str]]:
    """(kind, {path: text}, {link path: target}) of one case, paths relative to its folder."""
    kind = kind or rnd.choice(sorted(KINDS))
    files = KINDS[kind](rnd)
    links = {}
    if rnd.random() < 0.25:  # a committed link leading out of the checkout, live or dangling
        links["linked.yaml"] = rnd.choice(["../../../" + OUTSIDE, "../../../outside/missing.yaml"])
    return kind, files, links
