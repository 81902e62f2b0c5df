"""The conformance suite's isolated environment: one virtualenv per SGLang release.

Never a dependency of swacheck. Cached outside the repository, by default in
``~/.cache/swacheck-conformance/VERSION`` (``SWACHECK_CONFORMANCE_CACHE`` moves it).
Contents: the CPU build of torch, the released ``sglang`` wheel installed with
``--no-deps``, and only the small pure-Python packages SGLang's start-up import chain
needs, at the versions the wheel pins when it pins them (read from its METADATA).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

TORCH = "torch==2.13.0+cpu"  # the +cpu build: pip fails fast instead of pulling a CUDA build

# What SGLang's import chain for argument resolution, ModelConfig, the KV pools and the PD
# code needs (everything else is stubbed by sglang_driver.py or never imported).
IMPORT_DEPS = (
    "numpy",
    "msgspec",
    "psutil",
    "packaging",
    "requests",
    "pydantic",
    "orjson",
    "pybase64",
    "pillow",
    "starlette",
    "pyzmq",
    "tqdm",
    "ipython",
    "aiohttp",
    "dill",
    "sentencepiece",
    "einops",
    "gguf",
    "partial-json-parser",
    "openai",
    "transformers",
    "compressed-tensors",
    "uvicorn",
    "fastapi",
    "opentelemetry-api",
    "prometheus-client",
    "pyyaml",
    "xgrammar",
)
# Pins that would drag torch or a GPU stack back in are not taken from the wheel.
UNPINNED = {"openai", "sentencepiece", "numpy", "pydantic", "pillow", "fastapi", "uvicorn"}
READY = ".swacheck-conformance-ready"


def cache_root() -> Path:
    env = os.environ.get("SWACHECK_CONFORMANCE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "swacheck-conformance"


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_pins(venv: Path, version: str) -> dict[str, str]:
    """``name -> requirement`` for the IMPORT_DEPS the installed sglang wheel pins."""
    out = subprocess.run(
        [
            str(python_of(venv)),
            "-c",
            "import importlib.metadata as m; print('\\n'.join(m.requires('sglang') or []))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wanted = {_norm(d) for d in IMPORT_DEPS}
    pins: dict[str, str] = {}
    for line in out.splitlines():
        if ";" in line:  # environment markers: extras and platform-specific pins
            continue
        m = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(\[[^\]]*\])?\s*(==[^\s,;]+)\s*$", line)
        if m and _norm(m.group(1)) in wanted and _norm(m.group(1)) not in UNPINNED:
            pins[_norm(m.group(1))] = m.group(1) + m.group(3)
    return pins


def ensure_venv(version: str, *, log=print) -> Path:
    """Create (once) and return the virtualenv for SGLang ``version``."""
    venv = cache_root() / version
    if (venv / READY).exists():
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    pip = [str(python_of(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    log(f"building {venv} (CPU torch + sglang=={version} --no-deps + import deps; a few minutes)")
    if not python_of(venv).exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, cwd="/")
    subprocess.run([*pip, TORCH], check=True)
    subprocess.run([*pip, "--no-deps", f"sglang=={version}"], check=True)
    pins = wheel_pins(venv, version)
    reqs = [pins.get(_norm(d), d) for d in IMPORT_DEPS]
    subprocess.run([*pip, TORCH, *reqs], check=True)
    (venv / READY).write_text(f"sglang=={version}\n{TORCH}\n" + "\n".join(reqs) + "\n")
    return venv


if __name__ == "__main__":
    for v in sys.argv[1:]:
        print(ensure_venv(v))
