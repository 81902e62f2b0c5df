"""What SGLang's config loading, ``ModelConfig`` and the DeepSeek-V4 pools make of a DeepSeek-V4
``config.json``: the keys that stop the launch when they are null, missing, of another type or
an odd value, with the exception SGLang (or the transformers it pins) raises and where.

Releases 0.5.22 and 0.5.23 pin ``transformers==5.19.0`` (their wheels' METADATA). There,
``HfModelConfigParser.parse`` (``utils/hf_transformers/config.py`` 0.5.23:228, 0.5.22:223)
loads the file with transformers' own ``DeepseekV4Config`` first, then, ``deepseek_v4`` being in
SGLang's registry, again with ``_DeepseekV4ConfigAlias`` (a ``DeepseekV3Config``;
``config.py`` 0.5.23:293, 0.5.22:288). Both are ``huggingface_hub`` strict dataclasses: every
field the file writes is type-checked as it is set (``StrictDataclassFieldValidationError``:
``int`` takes no boolean, ``float`` no integer), then ``__post_init__`` turns the legacy keys
into layer types (``compress_ratios`` through ``{0, 4, 128}``, ``num_hash_layers``,
``qk_rope_head_dim / head_dim``) and the class validators compare their lengths with
``num_hidden_layers`` (``StrictDataclassClassValidationError``). The fields and their annotations
are read from that environment by ``scripts/dump_checkpoint_fields.py``
(``data/dsv4-config-fields.json``). SGLang loads the target's and the draft's config while it
resolves the arguments (0.5.23's pipeline first asks for it in
``arg_groups/muse_spark_hook.py``), so these stop the launch at resolution.

``ModelConfig``'s DeepSeek-V4 branch (``configs/model_config.py`` 0.5.23:1424-1429,
0.5.22:1315-1320) then reads ``head_dim``, ``sliding_window``, ``index_head_dim`` and
``compress_ratios``, which the alias class has no default for (AttributeError; ``sliding_window``
and ``compress_rates`` are SWA208's). Building the pools, the target's ``kv_source_layer_ids``
is listed (``mem_cache/kv_cache_configurator.py`` 0.5.23:2083, 0.5.22:1782), its
``compress_ratios`` made a set (``mem_cache/deepseek_v4_memory_pool.py`` 0.5.23:1056, 0.5.22:1014)
and each pool's row size checked against the head dimensions
(``DeepSeekV4SingleKVPool.create_buffer``, 0.5.23:313, 0.5.22:277; ``get_bytes_per_token``
0.5.23:297, 0.5.22:261 for the V4.1 layouts).

The values are the file's plain JSON values; the expressions of ``__post_init__`` are evaluated
on them as transformers evaluates them, so the exception and its message are the ones SGLang
prints. A config read from outside the run's root (``ModelConfig.private``) is named by key and
type only.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..model.recordtype import record

if TYPE_CHECKING:
    from ..model.records import Location
    from .models import ModelConfig
    from .version import CheckpointSites

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "dsv4-config-fields.json")
# transformers 5.19 configuration_deepseek_v4.py _COMPRESS_RATIO_TO_LAYER_TYPE
RATIO_TO_LAYER_TYPE = {
    0: "sliding_attention",
    4: "compressed_sparse_attention",
    128: "heavily_compressed_attention",
}
LAYER_TYPES = tuple(RATIO_TO_LAYER_TYPE.values())
MLP_LAYER_TYPES = ("hash_moe", "moe")
NATIVE_LAYERS = 43  # DeepseekV4Config.num_hidden_layers
NATIVE_HEAD_DIM = 512  # DeepseekV4Config.head_dim
NATIVE_HASH_LAYERS = 3  # DeepseekV4Config.default_num_hash_layers
ALIAS_ROPE = 64  # DeepseekV3Config.qk_rope_head_dim (the alias's head_dim when the file has none)
V4_ROW_BYTES = 448 + 64 * 2 + 8  # the V4 layout's bytes per token (create_buffer's assert)
V4_TILE = 64  # KVLayout.V4.tile_size: one FP8 scale per 64 NoPE values


@record
class Refusal:
    """Where SGLang stops on a checkpoint config, and with what."""

    stage: str  # resolve | model | pools (the conformance harness's stage names)
    exception: str
    message: str  # the exception's message as SGLang prints it
    key: str  # the config.json key that decides it
    site: str  # "utils/hf_transformers/config.py:228"
    reason: str  # one phrase: "num_nextn_predict_layers is null"
    fix: str


@lru_cache(maxsize=1)
def fields() -> dict:
    with open(DATA, encoding="utf-8") as fh:
        return json.load(fh)


def _arms(spec: str) -> list[str]:
    """A union's arms, split at the top level only (``int|list[int]|None``)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            out.append(spec[start:i])
            start = i + 1
    out.append(spec[start:])
    return out


def accepts(spec: str, value: Any) -> bool:
    """huggingface_hub's strict ``type_validator`` on a JSON value (dataclasses.py: an ``int``
    is no ``bool``, a ``float`` field takes no ``int``; a TypedDict's isinstance raises, so the
    union's next arm decides; a string annotation is not checked)."""
    return any(_one(arm, value) for arm in _arms(spec))


def _one(arm: str, value: Any) -> bool:
    simple = {
        "any": lambda v: True,
        "None": lambda v: v is None,
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": lambda v: isinstance(v, float),
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "dict": lambda v: isinstance(v, dict),
        "list": lambda v: isinstance(v, list),
    }
    if arm in simple:
        return simple[arm](value)
    if arm.startswith("list[") and arm.endswith("]"):
        return isinstance(value, list) and all(accepts(arm[5:-1], v) for v in value)
    if arm.startswith("dict[") and arm.endswith("]"):
        key, _, val = arm[5:-1].partition(",")
        return isinstance(value, dict) and all(
            accepts(key, k) and accepts(val, v) for k, v in value.items()
        )
    if arm.startswith("Literal["):
        return value in json.loads("[" + arm[8:-1] + "]")
    return False  # typeddict, tuple, a torch type: never a JSON value


def _type_words(spec: str) -> str:
    arms = _arms(spec)
    return arms[0] if len(arms) == 1 else " | ".join(arms)


_WORDS = {"int": "an integer", "float": "a float", "bool": "true or false", "str": "a string"}


def _expected(spec: str) -> str:
    """``int|None`` as words: "an integer or null"."""
    words = []
    for arm in _arms(spec):
        word = "null" if arm == "None" else _WORDS.get(arm)
        if word is None:
            word = "a list" if arm.startswith("list") else "a mapping" if "dict" in arm else arm
        if word not in words:
            words.append(word)
    return " or ".join(words)


def _pytype(value: Any) -> str:
    return type(value).__name__


def _field_message(name: str, spec: str, value: Any, private: bool) -> str:
    shown = "" if private else f" (value: {value!r})"
    if len(_arms(spec)) == 1:
        cause = f"Field '{name}' expected {spec}, got {_pytype(value)}{shown}"
    else:
        cause = (
            f"Field '{name}' with a {_pytype(value)} doesn't match any type in {_type_words(spec)}"
        )
    return f"Validation error for field '{name}': TypeError: {cause}"


def _what(value: Any, private: bool) -> str:
    if value is None:
        return "null"
    if private:
        return f"a {_pytype(value)}"
    return json.dumps(value)[:60]


def _strict_fields(plain: dict, klass: str, site: str, private: bool) -> Refusal | None:
    """The first field the file writes that the class's annotations refuse (fields are set in
    declaration order: ``wrap_init_to_accept_kwargs``, configuration_utils.py)."""
    for name, spec in fields()[klass]["fields"]:
        if name in plain and not accepts(spec, plain[name]):
            value = plain[name]
            return Refusal(
                "resolve",
                "StrictDataclassFieldValidationError",
                _field_message(name, spec, value, private),
                name,
                site,
                f"{name} is {_what(value, private)}, not {_expected(spec)}",
                f"Give {name} {_expected(spec)}, as the checkpoint was published with it (a number "
                "without quotes), or drop the key when the class default is right.",
            )
    return None


def _raised(exc: BaseException) -> tuple[str, str]:
    return type(exc).__name__, str(exc)


def _post_init(plain: dict) -> tuple[str, str, str] | None:
    """``DeepseekV4Config.__post_init__`` (and ``PreTrainedConfig.__post_init__``'s
    ``torch_dtype``), evaluated on the file's values: (exception, message, key) or None."""
    dtype = plain.get("dtype", None)
    dtype = dtype if dtype is not None else plain.get("torch_dtype")
    if isinstance(dtype, str) and dtype not in fields()["torch_dtypes"]:
        key = "dtype" if plain.get("dtype") is not None else "torch_dtype"
        return "AttributeError", f"module 'torch' has no attribute '{dtype}'", key
    rope = plain.get("rope_scaling")
    if rope and not isinstance(rope, dict):  # rope_parameters = rope_scaling or ...: a field
        spec = dict(fields()["native"]["fields"])["rope_parameters"]
        return (
            "StrictDataclassFieldValidationError",
            _field_message("rope_parameters", spec, rope, False),
            "rope_scaling",
        )
    n = plain.get("num_hidden_layers", NATIVE_LAYERS)
    layer_types = plain.get("layer_types")
    ratios = plain.get("compress_ratios")
    try:
        if layer_types is None and ratios is not None:
            layer_types = [RATIO_TO_LAYER_TYPE[r] for r in ratios]
    except Exception as exc:  # KeyError for a ratio not 0/4/128, TypeError for a non-list
        return (*_raised(exc), "compress_ratios")
    mlp = plain.get("mlp_layer_types")
    hashed = plain.get("num_hash_layers")
    try:
        if mlp is None:
            n_hash = hashed if hashed is not None else NATIVE_HASH_LAYERS
            mlp = ["hash_moe"] * min(n, n_hash) + ["moe"] * max(0, n - n_hash)
    except Exception as exc:  # a string, a list or a float
        return (*_raised(exc), "num_hash_layers")
    rope_dim = plain.get("qk_rope_head_dim")
    try:
        if plain.get("partial_rotary_factor") is None and rope_dim is not None:
            rope_dim / plain.get("head_dim", NATIVE_HEAD_DIM)
    except Exception as exc:
        return (*_raised(exc), "qk_rope_head_dim")
    return _layer_types(n, layer_types, mlp)


def _layer_types(n: int, layer_types: list | None, mlp: list | None) -> tuple[str, str, str] | None:
    """``DeepseekV4Config.validate_layer_type`` after ``__post_init__`` cut both lists to
    ``num_hidden_layers`` entries (a class validator: StrictDataclassClassValidationError)."""
    if layer_types is None:  # the default schedule has n entries
        return None
    cut_mlp = list(mlp[:n]) if mlp is not None else None
    for name, types, allowed, key in (
        ("layer_types", list(layer_types[:n]), LAYER_TYPES, "compress_ratios"),
        ("mlp_layer_types", cut_mlp, MLP_LAYER_TYPES, "num_hash_layers"),
    ):
        if types is None:
            continue
        if len(types) != n:
            return (
                "StrictDataclassClassValidationError",
                "Class validation error for validator 'validate_layer_type': ValueError: "
                f"`num_hidden_layers` ({n}) must equal `len({name})` ({len(types)}).",
                key,
            )
        if any(t not in allowed for t in types):
            return (
                "StrictDataclassClassValidationError",
                "Class validation error for validator 'validate_layer_type': ValueError: "
                f"`{name}` entries must be one of {allowed} for DeepSeek-V4",
                name,
            )
    return None


def _logged(plain: dict) -> tuple[str, str, str] | None:
    """``from_dict`` logs ``f"Model config {config}"`` (configuration_utils.py), which runs
    ``to_dict``: a ``quantization_config`` that is no mapping has no ``to_dict``
    (AttributeError), a ``dtype`` that is no string, number or mapping is cut at its first
    dot (``dict_dtype_to_str``: IndexError for a list)."""
    qc = plain.get("quantization_config")
    if qc is not None and not isinstance(qc, dict):
        return (
            "AttributeError",
            f"'{_pytype(qc)}' object has no attribute 'to_dict'",
            "quantization_config",
        )
    dtype = plain.get("dtype")
    key = "dtype"
    if dtype is None:
        dtype, key = plain.get("torch_dtype"), "torch_dtype"
    try:
        if dtype is not None and not isinstance(dtype, (dict, str, int)):
            str(dtype).split(".")[1]
    except IndexError as exc:
        return (*_raised(exc), key)
    return None


def load_refusal(model: ModelConfig, sites: CheckpointSites) -> Refusal | None:
    """Where loading ``model`` (a ``model_type`` ``deepseek_v4`` config.json) stops: the first
    refusal of transformers' class, then of SGLang's alias class, in their order. Asked once per
    config and release: thousands of deployments share a config."""
    known, key = model.refusals, ("load", sites)
    if key not in known:
        known[key] = _load_refusal(model, sites)
    return known[key]


def _load_refusal(model: ModelConfig, sites: CheckpointSites) -> Refusal | None:
    plain = {k: model.plain(k) for k in model.root.pairs}
    private = model.private
    found = _strict_fields(plain, "native", sites.load, private)
    if found is not None:
        return found
    post = _post_init(plain) or _logged(plain)
    if post is not None:
        exc, message, key = post
        value = plain.get(key)
        return Refusal(
            "resolve",
            exc,
            "" if private else message,  # the message quotes the value
            key,
            sites.load,
            f"{key} is {_what(value, private)}" if key in plain else f"{key} is missing",
            _post_fix(key),
        )
    return _strict_fields(plain, "alias", sites.reload, private)


def _post_fix(key: str) -> str:
    return {
        "torch_dtype": "Give torch_dtype a torch dtype name (bfloat16, as DeepSeek-V4 ships).",
        "dtype": "Give dtype a torch dtype name (bfloat16, as DeepSeek-V4 ships).",
        "compress_ratios": (
            "Give compress_ratios one ratio per layer (num_hidden_layers entries), each 0, 4 or 128."
        ),
        "num_hash_layers": "Give num_hash_layers an integer (3 in DeepSeek-V4), or drop it.",
        "qk_rope_head_dim": "Give qk_rope_head_dim an integer (64 in DeepSeek-V4).",
        "rope_scaling": "Give rope_scaling a mapping, or null.",
        "quantization_config": "Give quantization_config a mapping, or drop it.",
    }.get(key, f"Correct {key} in the checkpoint's config.json.")


def attribute_refusal(
    model: ModelConfig, role: str, sites: CheckpointSites, overridden: frozenset = frozenset()
) -> Refusal | None:
    """``ModelConfig``'s DeepSeek-V4 branch reads ``index_head_dim`` and ``compress_ratios``
    after ``sliding_window`` (SWA208's): the alias class has neither by default. A key
    ``--json-model-override-args`` gives (``overridden``) is there by then."""
    if not model.has("sliding_window") and "sliding_window" not in overridden:
        return None  # SWA208: the first of the three
    for key in ("index_head_dim", "compress_ratios"):
        if model.has(key) or key in overridden:
            continue
        if key == "compress_ratios" and model.has("compress_rates"):
            continue  # SWA208's rename
        return Refusal(
            "model" if role == "draft" else "resolve",
            "AttributeError",
            f"'_DeepseekV4ConfigAlias' object has no attribute '{key}'",
            key,
            sites.model_attr[key],
            f"{key} is missing",
            f"Add the checkpoint's {key} to its config.json (DeepSeek-V4-Flash: "
            + ("128" if key == "index_head_dim" else "one ratio per layer, 0, 4 or 128")
            + ").",
        )
    return None


def head_dims(model: ModelConfig) -> tuple[int, int] | None:
    """(qk_nope_head_dim, qk_rope_head_dim) as ``ModelConfig`` derives them from the alias
    class: ``qk_rope_head_dim`` (default 64), ``head_dim`` minus it (``head_dim`` defaults to
    ``qk_rope_head_dim``: ``DeepseekV3Config.__post_init__``)."""
    rope = model.get("qk_rope_head_dim")
    head = model.get("head_dim")
    r = rope.value if rope is not None else ALIAS_ROPE
    h = head.value if head is not None else r
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (r, h)):
        return None  # refused while loading
    return h - r, r


def row_bytes(nope: int, rope: int) -> int:
    """``get_bytes_per_token`` in the V4 layout: FP8 NoPE, BF16 RoPE, one scale per 64 NoPE
    values, one pad byte."""
    return nope + rope * 2 + nope // V4_TILE + 1


def pool_refusal(
    model: ModelConfig, role: str, sites: CheckpointSites, layout: str
) -> Refusal | None:
    """What building this pool stops on, in SGLang's order: the target's
    ``kv_source_layer_ids`` and ``compress_ratios``, then the row size of each pool
    (``layout``: the main KV layout, ``v4``, ``v41``/``v41_new`` or ``uniform_fp8``). Asked
    once per config, role, release and layout."""
    known, key = model.refusals, ("pool", role, sites, layout)
    if key not in known:
        known[key] = _pool_refusal(model, role, sites, layout)
    return known[key]


def _pool_refusal(
    model: ModelConfig, role: str, sites: CheckpointSites, layout: str
) -> Refusal | None:
    if role == "target":
        found = _target_lists(model, sites)
        if found is not None:
            return found
    dims = head_dims(model)
    if dims is None:
        return None
    nope, rope = dims
    if layout == "v4" and row_bytes(nope, rope) != V4_ROW_BYTES:
        message = (
            "DSV4 KV layout: qk_nope_head_dim FP8 (448) + qk_rope_head_dim BF16 (64*2) + nope FP8 "
            "scales + scale_pad = 584 bytes/token"
        )
        said, site = f"a row of {row_bytes(nope, rope)} bytes, not 584", sites.row
    elif layout == "uniform_fp8" and nope + rope != 512:
        message = (
            "DSV4 uniform-FP8 KV layout: qk_nope_head_dim (448) + qk_rope_head_dim (64), all "
            "e4m3 = 512 bytes/token"
        )
        said, site = f"a row of {nope + rope} bytes, not 512", sites.row_fp8
    elif layout.startswith("v41") and nope + rope != 512:
        message = ""  # a bare assert
        said, site = f"{nope + rope} head dimensions, not 512", sites.row_v41
    else:
        return None
    key = "qk_rope_head_dim" if model.has("qk_rope_head_dim") and rope != ALIAS_ROPE else "head_dim"
    return Refusal(
        "pools",
        "AssertionError",
        message,
        key,
        site,
        f"qk_nope_head_dim {nope} + qk_rope_head_dim {rope} give {said}"
        + (
            ""
            if model.has("head_dim")
            else " (no head_dim: the alias class takes qk_rope_head_dim)"
        ),
        "Give the checkpoint DeepSeek-V4's head dimensions: head_dim 512 and qk_rope_head_dim 64.",
    )


def _target_lists(model: ModelConfig, sites: CheckpointSites) -> Refusal | None:
    for key, site in (("kv_source_layer_ids", sites.kv_sources), ("compress_ratios", sites.ratios)):
        val = model.get(key)
        if val is None:
            continue
        try:
            list(val.value) if key == "kv_source_layer_ids" else set(val.value)
        except TypeError as exc:
            return Refusal(
                "pools",
                "TypeError",
                str(exc),
                key,
                site,
                f"{key} is {_what(val.value, model.private)}",
                f"Give {key} a list, as the checkpoint has it"
                + (
                    ", or drop the key (no shared KV sources)"
                    if key == "kv_source_layer_ids"
                    else ""
                )
                + ".",
            )
    return None


def location(model: ModelConfig, key: str) -> Location:
    """The key's value in the file, else the file's top-level mapping."""
    pair = model.root.get(key)
    return pair.value.loc if pair is not None else model.root.loc
