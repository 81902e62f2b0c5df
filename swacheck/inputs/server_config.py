"""An SGLang server config (``launch_server --config FILE``) -> :class:`ServerArgs`.

Keys are long options without the leading dashes. SGLang 0.5.23's ``--config`` merger emits
each key verbatim as ``--KEY``. Each key is matched the way argparse matches it (exact name,
alias, unique prefix; ``swacheck/sglang/flags.py``); ``model_path`` style is understood too,
so the deployment can still be resolved, and rule SWA303 reports that SGLang refuses it.
"""

from __future__ import annotations

import os

from ..model.deployment import Arg, ServerArgs
from ..model.records import InputProblem
from ..model.tree import Mapping, Scalar
from ..sglang import flags
from ..sglang.version import DEFAULT, SGLangProfile
from .kinds import is_server_info


def server_args_from_mapping(
    mapping: Mapping, file: str, base_dir: str, profile: SGLangProfile = DEFAULT
) -> ServerArgs:
    entries: list[Arg] = []  # in the order the mapping keeps its keys (model/tree.py), argparse's
    for written, pair in mapping.pairs.items():
        m = flags.match(written, profile)
        if m.option is not None:
            entries.append(Arg(m.option.canonical, written, pair, m.how, m.option.kind))
        else:
            entries.append(Arg(written.replace("_", "-"), written, pair, m.how, "unknown"))
    args = {a.name: a for a in entries}  # argparse keeps the last value of an option
    return ServerArgs(args, mapping, file, base_dir, entries)


MODEL_KEYS = ("model-path", "model_path", "model")


def is_server_config(root: object) -> bool:
    """A mapping with a scalar model key. ``model: {path: ...}`` (srt-slurm recipes, harness
    tables) is never SGLang's ``--model``. A document whose only model key is the short ``model``
    is taken for a server config only when most of its other keys are SGLang options as written
    (not abbreviations): a benchmark matrix with ``model:``, ``speculative-algorithm:``,
    ``tasks:``, ``batch_size:`` or a Helm values file with ``model:`` is not a server config.
    The answer depends on the document alone, never on how the file was reached (walked, named,
    globbed, staged by a hook): one classification per file."""
    if not isinstance(root, Mapping) or is_server_info(root):
        return False  # a /server_info answer: SGLang's resolved arguments (inputs/server_output.py)
    keys = [k for k in MODEL_KEYS if k in root.pairs]
    if not keys or not all(isinstance(root.pairs[k].value, Scalar) for k in keys):
        return False
    if keys == ["model"]:
        others = [k for k in root.pairs if k != "model"]
        known = sum(1 for k in others if flags.match(k, DEFAULT).how in ("exact", "underscore"))
        return 2 * known > len(others) or not others
    return True


def load_server_args(root: object, file: str) -> ServerArgs:
    if not isinstance(root, Mapping):
        raise InputProblem(
            "an SGLang server config must be a mapping of server arguments",
            getattr(root, "loc", None),
            file,
        )
    return server_args_from_mapping(root, file, os.path.dirname(file) or ".")
