"""Conformance cases: load ``conformance/cases/*.yaml``, expand matrices, write them out as files.

A case file (all keys but ``server`` optional)::

    description: what the case is about
    platform: cuda            # or rocm; the server's platform, given to both tools
    gpu: B200                 # the GPU both tools are told (sglang_driver.GPUS; H200 / MI355X)
    env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton}
    argv: [--enable-dp-attention]       # command-line arguments after --config
    models:                   # folders written next to server.yaml, each a config.json:
      target: {}              #   conformance/models/v4-flash.json with these keys replaced
      w256: {sliding_window: 256}
      odd: {base: v4-flash, drop: [sliding_window]}
    files:                    # other files written next to server.yaml (an adaptive config)
      adaptive.json: '{"1": {"candidate_steps": [1, 3, 7]}}'
    server: |                 # the SGLang --config file, written verbatim
      model-path: models/target
      speculative-algorithm: EAGLE
    matrix:                   # optional: one case per combination; {name} in server, env
      mrr: [8, 16]            #   values and argv is replaced by the value; a value may be a
      dp: [{attn: "attn-dp-size: 2"}]   # one-key mapping {label: value} to name the case

This module imports only the standard library and PyYAML (it runs in swacheck's test venv for
the smoke test, and in run.py).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
MODELS_DIR = HERE / "models"


@dataclass
class Case:
    name: str
    file: str
    description: str = ""
    platform: str = "cuda"
    gpu: str | None = None  # the GPU both tools are told (run.HARNESS_GPU when None)
    env: dict = field(default_factory=dict)
    argv: list = field(default_factory=list)
    models: dict = field(default_factory=dict)
    server: str = ""
    files: dict = field(default_factory=dict)  # other files next to server.yaml: name -> text


class CaseError(ValueError):
    pass


def _subst(text: str, values: dict) -> str:
    """Replace each {name}; a multi-line value is re-indented to its placeholder's column."""
    for key, value in values.items():
        holder = "{" + key + "}"
        out = []
        for line in text.split("\n"):
            if holder in line:
                indent = line[: len(line) - len(line.lstrip())]
                parts = [p.strip() for p in str(value).split("\n")]
                line = line.replace(holder, ("\n" + indent).join(parts))
            out.append(line)
        text = "\n".join(out)
    return text


def _subst_obj(obj, values: dict):
    """Substitute inside model specs; a string that is exactly "{name}" takes the raw value."""
    if isinstance(obj, str):
        for key, value in values.items():
            if obj == "{" + key + "}":
                return value
        return _subst(obj, values)
    if isinstance(obj, list):
        return [_subst_obj(x, values) for x in obj]
    if isinstance(obj, dict):
        return {k: _subst_obj(v, values) for k, v in obj.items()}
    return obj


def _label(value) -> str:
    text = re.sub(r"[^A-Za-z0-9._=+-]+", "_", str(value)).strip("_")
    return text[:40] or "empty"


def expand(doc: dict, *, name: str, file: str) -> list[Case]:
    if not isinstance(doc, dict) or not isinstance(doc.get("server"), str):
        raise CaseError(f"{file}: a case is a mapping with a 'server' text block")
    unknown = set(doc) - {
        "description",
        "platform",
        "gpu",
        "env",
        "argv",
        "models",
        "server",
        "matrix",
        "files",
    }
    if unknown:
        raise CaseError(f"{file}: unknown keys {sorted(unknown)}")
    matrix = doc.get("matrix") or {}
    if not isinstance(matrix, dict) or not all(isinstance(v, list) and v for v in matrix.values()):
        raise CaseError(f"{file}: matrix maps names to non-empty lists")
    keys = sorted(matrix)
    out = []
    for combo in itertools.product(*(matrix[k] for k in keys)) if keys else [()]:
        # a matrix value is a scalar (its own label) or a one-key mapping {label: value}
        labels = {k: (next(iter(v)) if isinstance(v, dict) else v) for k, v in zip(keys, combo)}
        values = {
            k: (next(iter(v.values())) if isinstance(v, dict) else v) for k, v in zip(keys, combo)
        }
        suffix = ",".join(f"{k}={_label(v)}" for k, v in labels.items())
        env = {str(k): _subst(str(v), values) for k, v in (doc.get("env") or {}).items()}
        out.append(
            Case(
                name=f"{name}[{suffix}]" if suffix else name,
                file=file,
                description=str(doc.get("description") or ""),
                platform=_subst(str(doc.get("platform") or "cuda"), values),
                gpu=_subst(str(doc["gpu"]), values) if doc.get("gpu") else None,
                env=env,
                argv=[_subst(str(a), values) for a in doc.get("argv") or []],
                models=_subst_obj(copy.deepcopy(doc.get("models") or {"target": {}}), values),
                server=_subst(doc["server"], values),
                files={str(k): _subst(str(v), values) for k, v in (doc.get("files") or {}).items()},
            )
        )
    return out


def load_cases(paths=None, *, select: str | None = None) -> list[Case]:
    files = sorted(Path(p) for p in paths) if paths else sorted(CASES_DIR.glob("*.yaml"))
    cases: list[Case] = []
    for path in files:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases.extend(expand(doc, name=path.stem, file=str(path)))
    names = [c.name for c in cases]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise CaseError(f"duplicate case names: {dupes}")
    if select:
        cases = [c for c in cases if select in c.name]
    return cases


def model_config(spec: dict) -> dict:
    spec = dict(spec or {})
    base = spec.pop("base", "v4-flash")
    drop = spec.pop("drop", [])
    config = json.loads((MODELS_DIR / f"{base}.json").read_text(encoding="utf-8"))
    for key in drop:
        config.pop(key, None)
    config.update(spec)
    return config


def materialize(case: Case, directory: Path) -> Path:
    """Write the case's server.yaml and model folders into ``directory``; return server.yaml."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, spec in case.models.items():
        folder = directory / "models" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text(
            json.dumps(model_config(spec), indent=2) + "\n", encoding="utf-8"
        )
    for name, text in case.files.items():
        if "/" in name or name in ("server.yaml", "models", "..", "."):
            raise CaseError(f"{case.file}: files: {name!r} must be a plain file name")
        (directory / name).write_text(text, encoding="utf-8")
    server = directory / "server.yaml"
    server.write_text(case.server, encoding="utf-8")
    return server
