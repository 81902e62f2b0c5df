#!/usr/bin/env python3
"""Hostile inputs: run by hand, prints time, peak RSS and the outcome per attack. Never a test.

    python benchmarks/hostile.py                 # every attack
    python benchmarks/hostile.py shell-doubling argv-script
    python benchmarks/hostile.py --timeout 60 --keep /tmp/hostile

Each attack is a small tree of files a pull request could hold, written into a temporary
folder (with a good server config and the V4-Flash model configs next to it); swacheck runs on
it as a separate process (``python -m swacheck --no-config --format json ...``) with a wall
clock timeout. Per attack it prints the input size, the wall time, the child's peak RSS
(from ``os.wait4``), the exit code and the first line of stderr. "TIMEOUT" means the child was
killed after ``--timeout`` seconds (a hang, or a blow-up too slow to wait for).

The bound the README documents and tests/security/test_memory.py checks:
peak RSS <= 100 MB + 30 x the input's size; the ``bound`` column says whether a run kept it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MODELS = REPO / "examples" / "models"

SERVER = """model-path: models/v4
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 4
"""
LAUNCH = (
    "python -m sglang.launch_server --model-path models/v4 "
    "--speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1"
)


# ----------------------------------------------------------------------------- attacks
# name -> (description, writer(folder) -> the paths to check, relative to the folder)


def _w(root: Path, name: str, content: str | bytes) -> None:
    p = root / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(content if isinstance(content, bytes) else content.encode())


def shell_doubling(root: Path) -> list[str]:
    lines = ["#!/bin/sh", "A=x"] + ['A="$A$A"'] * 40 + [f'{LAUNCH} --served-model-name "$A"']
    _w(root, "double.sh", "\n".join(lines) + "\n")
    return ["double.sh"]


def kubernetes_doubling(root: Path) -> list[str]:
    env = ["        - {name: V0, value: x}"] + [
        f'        - {{name: V{i}, value: "$(V{i - 1})$(V{i - 1})"}}' for i in range(1, 41)
    ]
    args = ", ".join(f'"{a}"' for a in LAUNCH.split()[1:])
    text = f"""apiVersion: v1
kind: Pod
metadata: {{name: double}}
spec:
  containers:
    - name: server
      image: lmsysorg/sglang:latest
      env:
{chr(10).join(env)}
      command: ["python"]
      args: [{args}, "--served-model-name", "$(V40)"]
"""
    _w(root, "pod.yaml", text)
    return ["pod.yaml"]


def compose_doubling(root: Path) -> list[str]:
    env = ["V0=x"] + [f"V{i}=${{V{i - 1}}}${{V{i - 1}}}" for i in range(1, 41)]
    _w(root, ".env", "\n".join(env) + "\n")
    _w(
        root,
        "compose.yaml",
        f"services:\n  server:\n    image: lmsysorg/sglang:latest\n    command: "
        f"{LAUNCH} --served-model-name ${{V40}}\n",
    )
    return ["compose.yaml"]


def dockerfile_doubling(root: Path) -> list[str]:
    lines = ["FROM lmsysorg/sglang:latest", "ARG A0=x"] + [
        f"ARG A{i}=${{A{i - 1}}}${{A{i - 1}}}" for i in range(1, 41)
    ]
    lines += ["ENV NAME=${A40}", f'CMD {LAUNCH} --served-model-name "$NAME"']
    _w(root, "Dockerfile", "\n".join(lines) + "\n")
    return ["Dockerfile"]


def self_sourcing(root: Path) -> list[str]:
    # 299 bytes in the issue; this one is smaller: sourced 20 times a level
    _w(root, "self.sh", "#!/bin/sh\n" + ". ./self.sh\n" * 20 + LAUNCH + "\n")
    return ["self.sh"]


def sourcing_fan_out(root: Path) -> list[str]:
    # no cycle: a.sh sources b.sh 10 times, b.sh sources c.sh 10 times, ... (10**4 launches)
    names = ["a.sh", "b.sh", "c.sh", "d.sh", "e.sh"]
    for here, there in zip(names, names[1:]):
        _w(root, here, "#!/bin/sh\n" + f". ./{there}\n" * 10)
    _w(root, names[-1], LAUNCH + "\n")
    return ["a.sh"]


def many_deployments(root: Path) -> list[str]:
    _w(root, "many.sh", "#!/bin/sh\n" + "sglang serve models/v4\n" * 5_000)
    return ["many.sh"]


def argv_script(root: Path) -> list[str]:
    # one launch whose argument list is ~5 MB (the 5.4 MB script)
    args = " ".join(f"--served-model-name name{i}" for i in range(160_000))
    _w(root, "argv.sh", f"#!/bin/sh\n{LAUNCH} {args}\n")
    return ["argv.sh"]


def nested_flow_yaml(root: Path) -> list[str]:
    # a server config with a ~4 MB flow value of small nested lists (the 3.9 MB)
    item = "[[1, [2, 3]], {a: [4]}]"
    _w(
        root,
        "flow.yaml",
        SERVER + "json-model-override-args: " + "[" + ", ".join([item] * 170_000) + "]\n",
    )
    return ["flow.yaml"]


def kubernetes_list(root: Path) -> list[str]:
    # a 10 MB Kubernetes List of Pods (the 644 MB)
    args = ", ".join(f'"{a}"' for a in LAUNCH.split()[1:])
    pod = (
        "  - apiVersion: v1\n    kind: Pod\n    metadata: {{name: p{i}}}\n    spec:\n      containers:\n"
        "        - name: c\n          image: lmsysorg/sglang:latest\n          command: [python]\n"
        f"          args: [{args}]\n"
    )
    body = "".join(pod.format(i=i) for i in range(29_000))
    _w(root, "list.yaml", "apiVersion: v1\nkind: List\nitems:\n" + body)
    return ["list.yaml"]


def yaml_many_nodes(root: Path) -> list[str]:
    _w(
        root,
        "nodes.yaml",
        SERVER + "json-model-override-args: [" + ",".join(["1"] * 4_000_000) + "]\n",
    )
    return ["nodes.yaml"]


def fifo_in_folder(root: Path) -> list[str]:
    (root / "walked").mkdir()
    _w(root, "walked/server.yaml", SERVER.replace("models/v4", "../models/v4"))
    os.mkfifo(root / "walked" / "pipe.yaml")
    return ["walked"]


def fifo_named(root: Path) -> list[str]:
    os.mkfifo(root / "pipe.yaml")
    return ["pipe.yaml", "good.yaml"]


def server_dev_stdin(root: Path) -> list[str]:
    _w(root, "dep.yaml", "swacheck: 1\nserver: /dev/stdin\n")
    return ["dep.yaml"]


def server_dev_zero_raised(root: Path) -> list[str]:
    _w(root, "pyproject.toml", "[tool.swacheck]\nmax-file-size = 4000000000\n")
    _w(root, "dep.yaml", "swacheck: 1\nserver: /dev/zero\n")
    return ["dep.yaml"]


def server_fifo(root: Path) -> list[str]:
    os.mkfifo(root / "pipe.yaml")
    _w(root, "dep.yaml", "swacheck: 1\nserver: pipe.yaml\n")
    return ["dep.yaml"]


def compose_nesting(root: Path) -> list[str]:
    nested = "${A:-" * 3000 + "x" + "}" * 3000
    _w(
        root,
        "compose.yaml",
        f"services:\n  s:\n    image: x\n    command: {LAUNCH} --served-model-name {nested}\n",
    )
    return ["compose.yaml"]


def dockerfile_stages(root: Path) -> list[str]:
    body = "FROM base AS s0\nENV A=1\n" + "".join(
        f"FROM s{i} AS s{i + 1}\nENV B{i}=$A\n" for i in range(20_000)
    )
    _w(root, "Dockerfile", body + f"CMD {LAUNCH}\n")
    return ["Dockerfile"]


def env_references(root: Path) -> list[str]:
    _w(
        root,
        "compose.yaml",
        f"services:\n  s:\n    image: x\n    command: {LAUNCH}\n    env_file: big.env\n",
    )
    _w(root, "big.env", "A=" + "$B" * 200_000 + "\n")
    return ["compose.yaml"]


def odd_tags(root: Path) -> list[str]:
    _w(root, "a.yaml", SERVER + "enable-hisparse: !!bool maybe\n")
    _w(root, "b.yaml", SERVER + 'tp-size: !!int ""\n')
    _w(root, "c.yaml", 'swacheck: 1\nserver: "a\\0b"\n')
    return ["a.yaml", "b.yaml", "c.yaml"]


def array_doubling(root: Path) -> list[str]:
    lines = ["#!/bin/bash", "A=(x)"] + ['A=("${A[@]}" "${A[@]}")'] * 40 + [f'{LAUNCH} "${{A[@]}}"']
    _w(root, "array.sh", "\n".join(lines) + "\n")
    return ["array.sh"]


def args_doubling(root: Path) -> list[str]:
    _w(root, "args.sh", f'#!/bin/bash\nf() {{ f "$@" "$@"; }}\nf x\n{LAUNCH}\n')
    return ["args.sh"]


def weight_index(root: Path) -> list[str]:
    names = {
        f"model.layers.{i}.mlp.experts.{j}.w{k}.weight": f"model-{i:05d}-of-00046.safetensors"
        for i in range(60)
        for j in range(3000)
        for k in range(3)
    }
    index = {"metadata": {"total_size": 159_617_149_040}, "weight_map": names}
    _w(root, "models/v4/model.safetensors.index.json", json.dumps(index, indent=2))
    return ["good.yaml"]


def big_integers(root: Path) -> list[str]:
    _w(root, "hex.yaml", SERVER + "tp-size: 0x" + "f" * 4000 + "\n")
    _w(root, "num.json", '{"model-path": "models/v4", "tp-size": ' + "9" * 5000 + "}\n")
    _w(root, "tp.sh", f"{LAUNCH} --tp-size {'9' * 401}\n")
    return ["hex.yaml", "num.json", "tp.sh"]


def deep_folders(root: Path) -> list[str]:
    fd = os.open(root, os.O_RDONLY)
    for _ in range(1000):
        os.mkdir("d", dir_fd=fd)
        new = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = new
    os.close(fd)
    return ["."]


def redaction_backtracking(root: Path) -> list[str]:
    flags = ["-" * 20_000 + "key", "--api-key" * 2_200, "--sk-" + "aa-" * 6_600]
    _w(root, "long.sh", LAUNCH + " " + " ".join(f"{f} 1" for f in flags) + "\n")
    return ["long.sh"]


def launch_key_line(root: Path) -> list[str]:
    _w(root, "big.yaml", 'a: "' + "xapiVersion: " * 25_000 + '"\n')
    return ["."]


def alias_fan_out(root: Path, aliases: int = 999) -> list[str]:
    # the pod tests/security/test_linear.py reproduces the attack with
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "security"))
    from attacks import fan_out_pod

    _w(root, "pod.yaml", fan_out_pod(aliases) + "\n")
    return ["pod.yaml"]


def alias_fan_out_under_the_node_budget(root: Path) -> list[str]:
    return alias_fan_out(root, 4)  # 200,000 nodes: the word budget stops the third container


def unknown_flags(root: Path) -> list[str]:
    args = ", ".join(f"--x{i}" for i in range(45_000))
    _w(
        root,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "    - name: s\n      image: lmsysorg/sglang:latest\n"
        "      command: [python, -m, sglang.launch_server, --model-path, models/v4]\n"
        f"      args: [{args}]\n",
    )
    return ["pod.yaml"]


def baseline_fifo(root: Path) -> list[str]:
    os.mkfifo(root / "base.json")
    return ["good.yaml"]


ATTACKS: dict[str, tuple[str, Callable[[Path], list[str]], tuple[str, ...]]] = {
    "shell-doubling": ('A="$A$A" 40 times in a script', shell_doubling, ()),
    "k8s-doubling": ("$(V) doubling through 40 container env entries", kubernetes_doubling, ()),
    "compose-doubling": ("${V} doubling through 40 .env lines", compose_doubling, ()),
    "dockerfile-doubling": ("ARG A${i}=${A}${A} 40 times", dockerfile_doubling, ()),
    "self-sourcing": ("a script that sources itself 20 times", self_sourcing, ()),
    "source-fan-out": ("5 scripts each sourcing the next 10 times", sourcing_fan_out, ()),
    "many-deployments": ("5,000 launches in one script", many_deployments, ()),
    "argv-script": ("one launch with a 5 MB argument list", argv_script, ()),
    "nested-flow-yaml": ("4 MB of small nested flow lists", nested_flow_yaml, ()),
    "k8s-list": ("a 10 MB Kubernetes List of 29,000 Pods", kubernetes_list, ()),
    "yaml-nodes": ("8 MB flow list of 4,000,000 scalars", yaml_many_nodes, ()),
    "fifo-walked": ("a FIFO in a walked folder", fifo_in_folder, ()),
    "fifo-named": ("a FIFO named on the command line", fifo_named, ()),
    "server-dev-stdin": ("server: /dev/stdin", server_dev_stdin, ()),
    "server-fifo": ("server: a FIFO inside the repository", server_fifo, ()),
    "server-dev-zero": (
        "pyproject raises max-file-size, server: /dev/zero",
        server_dev_zero_raised,
        ("--with-config",),
    ),
    "compose-nesting": ("${A:-${A:-...}} 3,000 deep in a Compose command", compose_nesting, ()),
    "dockerfile-stages": (
        "20,000 Dockerfile stages, each inheriting the last",
        dockerfile_stages,
        (),
    ),
    "env-references": ("200,000 unknown $B in one .env line", env_references, ()),
    "odd-tags": ('!!bool maybe, !!int "", a NUL in server:', odd_tags, ()),
    # issue 23
    "array-doubling": ('A=("${A[@]}" "${A[@]}") 40 times', array_doubling, ()),
    "args-doubling": ('f() { f "$@" "$@"; }', args_doubling, ()),
    "weight-index": ("a 44 MiB model.safetensors.index.json", weight_index, ("--gpu", "H200")),
    "big-integers": (
        "a 4,000-digit hex literal, 5,000 JSON digits, a 401-digit --tp-size",
        big_integers,
        ("--gpu", "H200"),
    ),
    "deep-folders": ("a folder tree 1,000 levels deep", deep_folders, ()),
    "redaction": (
        "20,000 dashes + key, --api-key repeated, sk-aa-aa-...",
        redaction_backtracking,
        (),
    ),
    "launch-key-line": ("one 325 KB line of 'xapiVersion: '", launch_key_line, ()),
    "alias-fan-out": ("1,000 containers aliasing 40,000 aliased args", alias_fan_out, ()),
    "alias-fan-out-5": (
        "5 containers aliasing 40,000 aliased args (under the node budget)",
        alias_fan_out_under_the_node_budget,
        (),
    ),
    "unknown-flags": ("45,000 distinct unknown flags in one container", unknown_flags, ()),
    "baseline-fifo": ("--baseline a FIFO", baseline_fifo, ("--baseline", "base.json")),
}


def input_size(root: Path) -> int:
    """Bytes of the attack's files (not the model configs); its own stack, not os.walk's
    recursion (the deep-folders tree)."""
    total, stack = 0, [str(root)]
    while stack:
        with os.scandir(stack.pop()) as listing:
            for entry in listing:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "models" or os.path.dirname(entry.path) != str(root):
                        stack.append(entry.path)
                elif entry.is_file():
                    total += entry.stat().st_size
    return total


def run_one(
    name: str, python: str, timeout: float, keep: Path | None, memory_cap: int, repo: Path = REPO
) -> dict:
    desc, writer, flags = ATTACKS[name]
    base = Path(tempfile.mkdtemp(prefix=f"hostile-{name}-")) if keep is None else keep / name
    base.mkdir(parents=True, exist_ok=True)
    try:
        for model in ("DeepSeek-V4-Flash",):
            _w(base, "models/v4/config.json", (MODELS / model / "config.json").read_bytes())
        _w(base, "good.yaml", SERVER)
        paths = writer(base)
        size = input_size(base)
        args = [python, "-m", "swacheck", "--format", "json"]
        if "--with-config" not in flags:
            args.append("--no-config")
        args += [f for f in flags if f != "--with-config"]  # options the attack needs
        args += paths
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWACHECK"))}
        env["PYTHONPATH"] = str(repo) + os.pathsep + env.get("PYTHONPATH", "")
        stdin = subprocess.PIPE  # an open pipe that never ends: what a CI step's stdin can be
        start = time.perf_counter()

        def cap() -> None:  # keep a blow-up from taking the machine down with it
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_cap, memory_cap))

        proc = subprocess.Popen(
            args,
            cwd=base,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=cap,
        )
        out: dict[str, bytes] = {}

        def drain(stream, key: str) -> None:  # type: ignore[no-untyped-def]
            out[key] = stream.read()

        threads = [
            threading.Thread(target=drain, args=(proc.stdout, "out")),
            threading.Thread(target=drain, args=(proc.stderr, "err")),
        ]
        for t in threads:
            t.start()
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        timer.cancel()
        timed_out = elapsed >= timeout
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.stdin:
            proc.stdin.close()
        for t in threads:
            t.join()
        rss_mb = usage.ru_maxrss / 1024  # KiB on Linux
        err = out.get("err", b"").decode("utf-8", "replace").splitlines()
        try:
            deployments = len(json.loads(out.get("out", b"")).get("deployments", []))
        except ValueError:
            deployments = None
        return {
            "attack": name,
            "what": desc,
            "input_kb": size / 1024,
            "seconds": elapsed,
            "rss_mb": rss_mb,
            "bound_ok": rss_mb <= 100 + 30 * size / 2**20,
            "exit": "TIMEOUT" if timed_out else proc.returncode,
            "deployments": deployments,
            "errors": len(err),
            "stderr": err[0] if err else "",
        }
    finally:
        if keep is None:  # rm, not shutil.rmtree: that recurses (the deep-folders tree)
            subprocess.run(["rm", "-rf", str(base)], check=False)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("attacks", nargs="*", help=f"which attacks (default all): {', '.join(ATTACKS)}")
    ap.add_argument(
        "--timeout", type=float, default=120.0, help="seconds before a run is killed (default 120)"
    )
    ap.add_argument(
        "--python", default=sys.executable, help="the interpreter with swacheck importable"
    )
    ap.add_argument(
        "--memory-cap",
        type=float,
        default=3.0,
        help="address-space cap of the child in GiB (default 3): a run that needs more dies with MemoryError",
    )
    ap.add_argument(
        "--repo",
        type=Path,
        default=REPO,
        help="the swacheck checkout to run (put first on PYTHONPATH; default: this one), e.g. an older one to compare",
    )
    ap.add_argument("--keep", type=Path, help="write the trees here and keep them")
    ap.add_argument(
        "--json", action="store_true", help="print one JSON object per attack instead of the table"
    )
    opts = ap.parse_args()
    names = opts.attacks or list(ATTACKS)
    unknown = [n for n in names if n not in ATTACKS]
    if unknown:
        ap.error(f"unknown attack(s): {', '.join(unknown)}")
    if not opts.json:
        print(
            f"{'attack':<20} {'input':>9} {'time':>8} {'peak RSS':>9} {'bound':>5} "
            f"{'exit':>7} {'deps':>6}  first stderr line"
        )
    for name in names:
        row = run_one(
            name, opts.python, opts.timeout, opts.keep, int(opts.memory_cap * 2**30), opts.repo
        )
        if opts.json:
            print(json.dumps(row), flush=True)
            continue
        first = row["stderr"][:110]
        print(
            f"{row['attack']:<20} {row['input_kb']:>7.1f}KB {row['seconds']:>7.2f}s {row['rss_mb']:>7.0f}MB "
            f"{'ok' if row['bound_ok'] else 'OVER':>5} {row['exit']!s:>7} "
            f"{row['deployments'] if row['deployments'] is not None else '-':>6}  "
            f"{first}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
