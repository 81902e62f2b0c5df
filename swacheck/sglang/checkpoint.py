"""What a DeepSeek-V4 checkpoint is, as far as loading it goes: routed-expert format and weight bytes.

**Expert format** -- the way SGLang's ``ModelConfig`` decides ``is_fp4_experts``
(``srt/configs/model_config.py``, 0.5.23:721-761; the same in 0.5.12:245-260):

1. ``quantization_config.routed_experts_quant_method == "mxfp4"`` -> MXFP4 experts;
2. a hybrid NVFP4 checkpoint (``quant_algo: MIXED_PRECISION`` + ``moe_quant_algo: NVFP4``, e.g.
   nvidia/DeepSeek-V4-Pro-NVFP4) -> NVFP4 experts (``nvfp4_moe_meta``, 0.5.23:774-794);
3. otherwise, for DeepSeek-V4: the server's ``SGLANG_DSV4_FP4_EXPERTS`` (default **on**,
   ``srt/environ.py`` 0.5.23:1731), unless SGLang can read the weights' safetensors header
   (``try_detect_fp4_experts``, ``srt/configs/deepseek_v4.py``: U8/I8/F4 -> MXFP4, F8_E4M3 ->
   FP8). swacheck never opens weight files: a checkpoint converted to FP8 experts says so only
   in its headers, so an FP8 format taken from the default is *assumed*, and rules treat it as such.

**Weight bytes** -- ``metadata.total_size`` of ``model.safetensors.index.json`` beside the
``config.json`` (the sum of every tensor's bytes, MTP layer included) when the checkpoint is
inside the run's root (outside it swacheck reads only ``config.json``); else the small catalogue
below, matched on the checkpoint folder's name; else unknown. Only derived facts are shown
(the expert format as MXFP4/NVFP4/FP8, byte counts), never text of these files.
"""

from __future__ import annotations

import json
import os
import re
import stat
from functools import lru_cache

from ..model.records import InputProblem, Location, Val
from ..model.recordtype import record
from . import catalogue
from .models import ModelConfig

INDEX_NAME = "model.safetensors.index.json"
MAX_INDEX_BYTES = 64 * 1024 * 1024  # a DeepSeek-V4-Pro index is a few MiB
ENV_FP4_EXPERTS = "SGLANG_DSV4_FP4_EXPERTS"
ENV_FP4_DEQUANT = "SGLANG_DSV4_FP4_DEQUANT"


@record(unsafe_hash=True)
class CatalogueEntry:
    """A published DeepSeek-V4 checkpoint: the name pattern of its folder, size and expert format."""

    name: str
    pattern: str  # regular expression on the checkpoint folder name (case-insensitive)
    total_bytes: int
    experts: str  # "mxfp4" | "fp8"
    source: str


# Download sizes of the published checkpoints (FP8 dense weights + FP4 experts), used only when
# the model folder has no model.safetensors.index.json. Approximate: the catalogue says so.
CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "DeepSeek-V4-Pro (FP4 experts)",
        r"deepseek-v4-pro(-instruct)?$",  # -Base ships FP8 experts of another size: not this
        865 * 1000**3,
        "mxfp4",
        "about 865 GB of safetensors, 1.6T parameters, FP4 experts + FP8 (huggingface.co/deepseek-ai/DeepSeek-V4-Pro; "
        "https://framia.pro/page/en-US/news/deepseek-v4-parameters)",
    ),
    CatalogueEntry(
        "DeepSeek-V4-Flash (FP4 experts)",
        r"deepseek-v4-flash(-instruct)?$",
        160 * 1000**3,
        "mxfp4",
        "about 160 GB of safetensors, 284B parameters, FP4 experts + FP8 "
        "(huggingface.co/deepseek-ai/DeepSeek-V4-Flash; "
        "https://framia.pro/page/en-US/news/deepseek-v4-parameters)",
    ),
)


@record(repr=False, eq=False)
class Checkpoint:
    """What a checkpoint's files say about its weights: expert format, bytes and layers."""

    experts: Val  # "mxfp4" | "nvfp4" | "fp8"
    experts_assumed: bool  # only SGLang's default says so (it would read the weights' header)
    weight_bytes: Val | None  # total bytes of the checkpoint's tensors
    weights_approximate: bool
    num_layers: int | None
    nextn_layers: int | None
    # the published checkpoint the repository id (or the catalogue) names, when known
    published: catalogue.Entry | None = None
    dspark_bundled: bool = False  # dspark_* keys: SGLang loads the bundled DSpark draft (DSPARK)

    @property
    def fp4_experts(self) -> bool:
        return self.experts.value == "mxfp4"


def _truthy(text: str) -> bool:
    # srt/environ.py EnvBool: "1", "true", "yes", "y" (any case) are true
    return text.strip().lower() in ("1", "true", "yes", "y", "on")


def _folder(model: ModelConfig) -> str | None:
    return os.path.dirname(os.path.abspath(model.file)) if model.file else None


def read_index_total(folder: str) -> tuple[int, Location | None] | None:
    """``metadata.total_size`` of the folder's safetensors index: a regular file of at most
    ``MAX_INDEX_BYTES``, read through the input reader (``loading.read_bytes``: no FIFO or device
    opened, its bytes charged to the run's budget); nothing else of it is used or shown."""
    path = os.path.join(folder, INDEX_NAME)
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INDEX_BYTES:
        return None
    return _read_index(path, st.st_size, st.st_mtime_ns)


# a JSON string, or a bracket: enough to follow the index's nesting without building it; a lone
# quote is a string that never ends (possessive: no backtracking, one pass over the file)
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*+"|"|[{}\[\]]')
_COLON = re.compile(rb"\s*:\s*")
MAX_TOTAL_DIGITS = 19  # bytes of a checkpoint fit an int64 (SGLang's loaders read them so)


@lru_cache(maxsize=64)
def _read_index(path: str, size: int, mtime_ns: int) -> tuple[int, Location | None] | None:
    """Parsed once per file version: thousands of deployments share a checkpoint (an index can be
    MBs). Only the top-level ``metadata`` object is decoded: the ``weight_map`` (every tensor's
    name) is stepped over, never built."""
    from ..loading import read_bytes

    try:
        raw = read_bytes(path, MAX_INDEX_BYTES)
    except (InputProblem, OSError, ValueError):
        return None
    found = _metadata(raw)
    if found is None:
        return None
    at, meta = found
    total = meta.get("total_size")
    if isinstance(total, float) and total.is_integer() and abs(total) < 2**63:
        total = int(total)
    if isinstance(total, bool) or not isinstance(total, int) or not 0 < total < 2**63:
        return None
    m = re.compile(rb'"total_size"\s*:\s*').search(raw, at)
    loc = None
    if m is not None:
        line = raw.count(b"\n", 0, m.end()) + 1
        col = len(raw[raw.rfind(b"\n", 0, m.end()) + 1 : m.end()].decode("utf-8", "replace")) + 1
        loc = Location(path, line, col, line, col + len(str(total)))
    return total, loc


def _metadata(raw: bytes) -> tuple[int, dict] | None:  # type: ignore[type-arg]
    """(where it starts, the decoded value) of the top-level ``"metadata"`` object of the index:
    one linear pass over its strings and brackets, then only that object decoded."""
    depth = 0
    for m in _TOKENS.finditer(raw):
        tok = m.group()
        if tok == b'"':
            return None  # not JSON
        if tok in (b"{", b"["):
            depth += 1
        elif tok in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and tok == b'"metadata"' and (c := _COLON.match(raw, m.end())):
            try:
                text = raw[c.end() : c.end() + 1 + _object_end(raw, c.end())].decode("utf-8")
                value = json.loads(text, parse_int=_bounded_int)
            except (ValueError, RecursionError):
                return None
            return (c.end(), value) if isinstance(value, dict) else None
    return None


def _object_end(raw: bytes, start: int) -> int:
    """The offset (from ``start``) of the bracket that closes the object or list opened at
    ``start``; the rest of the file when it never closes."""
    depth = 0
    for m in _TOKENS.finditer(raw, start):
        tok = m.group()
        if tok == b'"':
            break
        if tok in (b"{", b"["):
            depth += 1
        elif tok in (b"}", b"]"):
            depth -= 1
            if depth <= 0:
                return m.start() - start
    return len(raw) - start


def _bounded_int(text: str) -> int | float:
    """A JSON integer of the metadata; one too long for a byte count is not one (no conversion of
    thousands of digits: Python refuses those past 4,300)."""
    digits = text.lstrip("-")
    return int(text) if len(digits) <= MAX_TOTAL_DIGITS else float("nan")


def _catalogue(model_path: str | None) -> CatalogueEntry | None:
    if not model_path:
        return None
    name = os.path.basename(model_path.rstrip("/\\"))
    for entry in CATALOGUE:
        if re.search(entry.pattern, name, re.IGNORECASE):
            return entry
    return None


def _int(model: ModelConfig, key: str) -> int | None:
    val = model.get(key)
    v = val.value if val else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def published(model: ModelConfig, model_path: str | None) -> catalogue.Entry | None:
    """The published checkpoint: the catalogue entry the config came from, else the one a hub
    id names (its repository id is what tells an FP8 repack from the FP4 original; a folder
    name with a config.json beside it is not taken for it)."""
    if model.catalogue is not None:
        return model.catalogue
    if model_path and catalogue.is_hub_id(model_path):
        return catalogue.by_id(model_path)
    return None


def _expert_dtype(model: ModelConfig, qc: dict) -> Val | None:
    """``expert_dtype: "fp4"`` (top level in the DeepSeek-V4 files, under quantization_config in
    V4.1's): the file says its experts are FP4. SGLang does not read the key."""
    top = model.get("expert_dtype")
    for val, key in (
        (qc.get("expert_dtype"), "quantization_config.expert_dtype"),
        (top.value if top is not None else None, "expert_dtype"),
    ):
        if isinstance(val, str) and val.lower() == "fp4":
            where = model.source if model.catalogue is not None else "config.json"
            return Val("mxfp4", f"{where} {key} fp4")
    return None


def read(model: ModelConfig, env: dict[str, Val], model_path: str | None) -> Checkpoint:
    """The checkpoint facts of a DeepSeek-V4 target model."""
    entry = _catalogue(model_path) or (_catalogue(_folder(model)) if model.file else None)
    pub = published(model, model_path)
    experts, assumed = _experts(model, env, pub, entry)
    weights, approximate = _weights(model, pub, entry)
    return Checkpoint(
        experts,
        assumed,
        weights,
        approximate,
        _int(model, "num_hidden_layers"),
        _int(model, "num_nextn_predict_layers"),
        pub,
        model.bundles_dspark,
    )


def _experts(
    model: ModelConfig,
    env: dict[str, Val],
    pub: catalogue.Entry | None,
    entry: CatalogueEntry | None,
) -> tuple[Val, bool]:
    """The routed-expert format and whether only SGLang's default says so."""
    qc_val = model.get("quantization_config")
    qc = qc_val.value if qc_val is not None and isinstance(qc_val.value, dict) else {}
    where = qc_val.location if qc_val is not None else None
    if qc.get("routed_experts_quant_method") == "mxfp4":
        return Val(
            "mxfp4", "config.json quantization_config.routed_experts_quant_method", where
        ), False
    if (
        str(qc.get("quant_algo", "")).upper() == "MIXED_PRECISION"
        and str(qc.get("moe_quant_algo", "")).upper() == "NVFP4"
    ):
        origin = "config.json quantization_config.moe_quant_algo NVFP4 (hybrid FP8+NVFP4)"
        return Val("nvfp4", origin, where), False
    if (e := env.get(ENV_FP4_EXPERTS)) is not None:
        fmt = "mxfp4" if _truthy(e.value) else "fp8"
        return Val(fmt, f"{ENV_FP4_EXPERTS}={e.value}", e.location), False
    if pub is not None and pub.expert_format is not None:
        return Val(pub.expert_format, f"expert format of {pub.label}"), False
    if (dtype := _expert_dtype(model, qc)) is not None:
        return dtype, model.model_type != "deepseek_v4"  # V4.1's FP4 layout is not established
    if entry is not None:
        return Val(entry.experts, f"the published {entry.name} checkpoint"), False
    return Val(
        "mxfp4",
        f"SGLang's default for DeepSeek-V4 ({ENV_FP4_EXPERTS} on; SGLang would "
        f"read the weights' safetensors header)",
    ), True


def _weights(
    model: ModelConfig, pub: catalogue.Entry | None, entry: CatalogueEntry | None
) -> tuple[Val | None, bool]:
    """The weight bytes and whether they are approximate."""
    folder = _folder(model)
    # outside the run's root only config.json itself is read (models.py _check_file): the index
    # beside a hub-cache or shared-disk checkpoint is left alone, the catalogue answers instead
    found = read_index_total(folder) if folder and not model.private else None
    if found is not None:
        total, loc = found
        return Val(total, f"{INDEX_NAME} metadata.total_size", loc), False
    if pub is not None and pub.total_size is not None:
        return Val(pub.total_size, f"metadata.total_size from {pub.label}"), False
    if entry is not None and (pub is None or pub.name.lower() == entry.name.split(" ")[0].lower()):
        return Val(entry.total_bytes, f"swacheck's catalogue: {entry.source}"), True
    return None, False
