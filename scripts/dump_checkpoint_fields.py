"""Build swacheck/sglang/data/dsv4-config-fields.json: the typed fields of the two config classes
a DeepSeek-V4 ``config.json`` goes through when SGLang loads it, read from a release's own
environment (the transformers its wheel pins).

    python scripts/dump_checkpoint_fields.py --sglang 0.5.23 [-o FILE] [--check]

SGLang's ``HfModelConfigParser.parse`` (``utils/hf_transformers/config.py`` 0.5.23:228, 0.5.22:223)
first calls ``AutoConfig.from_pretrained``: transformers 5.19's own ``DeepseekV4Config`` (model type
``deepseek_v4``), then, the model type being in SGLang's registry, loads the file again with
``_DeepseekV4ConfigAlias`` (``utils/hf_transformers/common.py``, a ``DeepseekV3Config``;
``config.py`` 0.5.23:293). Both are ``huggingface_hub`` strict dataclasses: each field the file
writes is type-checked on assignment (``StrictDataclassFieldValidationError``). This script
writes each class's fields in order with their annotations (normalised: ``int``, ``int|None``,
``list[str]|None`` ...), its ``attribute_map``, and torch's dtype names (a ``torch_dtype`` string
is looked up with ``getattr(torch, ...)``). Runs in the release's conformance environment
(``conformance/envs.py``; re-executes itself there when SGLang is not importable).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "conformance"
OUT = ROOT / "swacheck" / "sglang" / "data" / "dsv4-config-fields.json"


def annotation(tp) -> str:
    """A type hint as the small grammar swacheck's checker reads (sglang/hfconfig.py)."""
    import types as pytypes

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is type(None) or tp is None:
        return "None"
    if origin in (typing.Union, pytypes.UnionType):
        return "|".join(annotation(a) for a in args)
    if origin is typing.Literal:
        return "Literal[" + ",".join(json.dumps(a) for a in args) + "]"
    if origin in (list, dict, tuple):
        inner = ",".join(annotation(a) for a in args)
        return f"{origin.__name__}[{inner}]" if inner else origin.__name__
    if isinstance(tp, (str, typing.ForwardRef)):
        return "any"  # strict's type_validator skips a forward reference: anything passes
    if typing.is_typeddict(tp) if hasattr(typing, "is_typeddict") else False:
        return "typeddict"  # isinstance() on a TypedDict raises TypeError: a union's next arm
    if isinstance(tp, type):
        if tp.__module__ == "torch":
            return "torch." + tp.__name__
        return tp.__name__
    return "any"


def fields_of(cls) -> list[list]:
    # the annotations as strict's validator sees them (``Field.type``; a string is not resolved)
    return [[f.name, annotation(f.type)] for f in dataclasses.fields(cls)]


def dump(version: str) -> dict:
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    sys.path.insert(0, str(CONFORMANCE))
    import sglang_driver  # the stand-ins for GPU-only modules

    sglang_driver.install_platform("cuda", version)
    import torch
    import transformers
    from sglang.srt.utils.hf_transformers.common import _CONFIG_REGISTRY
    from transformers.models.deepseek_v4.configuration_deepseek_v4 import DeepseekV4Config

    alias = _CONFIG_REGISTRY["deepseek_v4"]
    return {
        "comment": "written by scripts/dump_checkpoint_fields.py; do not edit",
        "sglang": version,
        "transformers": transformers.__version__,
        "native": {
            "class": "transformers DeepseekV4Config",
            "fields": fields_of(DeepseekV4Config),
            "attribute_map": dict(DeepseekV4Config.attribute_map),
        },
        "alias": {
            "class": f"SGLang {alias.__name__} (transformers DeepseekV3Config)",
            "fields": fields_of(alias),
            "attribute_map": dict(alias.attribute_map),
        },
        "torch_dtypes": sorted(n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype)),
    }


def _in_release_env(version: str, argv: list[str]) -> int:
    sys.path.insert(0, str(CONFORMANCE))
    import envs

    venv = envs.ensure_venv(version, log=lambda m: print(m, file=sys.stderr))
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run(
        [str(envs.python_of(venv)), str(Path(__file__).resolve()), *argv], env=env, cwd="/"
    ).returncode


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang", required=True, metavar="VERSION")
    ap.add_argument("-o", "--output", help="write the table here (default: standard output)")
    ap.add_argument("--check", action="store_true", help=f"compare with {OUT.name}")
    args = ap.parse_args(argv)
    if importlib.util.find_spec("sglang") is None:  # not in its environment (run from "/")
        if args.output:
            argv = [*argv, "-o", str(Path(args.output).resolve())]
        return _in_release_env(args.sglang, argv)
    data = dump(args.sglang)
    text = json.dumps(data, indent=1) + "\n"
    if args.check:
        shipped = json.loads(OUT.read_text(encoding="utf-8"))
        same = {k: v for k, v in shipped.items() if k != "sglang"} == {
            k: v for k, v in data.items() if k != "sglang"
        }
        print("identical" if same else "differs", file=sys.stderr)
        return 0 if same else 1
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
