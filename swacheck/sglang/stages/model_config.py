"""The model configs: SGLang loads the target's (and later the draft's) config.json while it
resolves the arguments, and reads the SWA window from it.

``srt/configs/model_config.py`` ``ModelConfig`` (DSV4 branch: 0.5.23:1425, 0.5.22:1316,
0.5.20:1149, 0.5.17:880) reads ``sliding_window``; ``--json-model-override-args`` is applied to
the target's and the draft's config alike. See docs/sglang.md, "Model config".
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ...model.records import InputProblem, Val
from ...model.recordtype import record
from ...model.text import one_line
from ...model.tree import Mapping, Scalar
from .. import hfconfig
from ..applicable import not_applicable
from ..events import Kind
from ..models import HUB_ENV, ModelNotFound, ModelStore

if TYPE_CHECKING:
    from ...model.deployment import ModelRef
    from ..catalogue import Entry
    from ..models import ModelConfig
    from ..resolution import Resolution
    from .reader import ArgReader


def not_found(r: ArgReader, missing: ModelNotFound, pd: bool) -> Resolution:
    """A DeepSeek-V4 launch whose target or draft ``config.json`` is found nowhere (not beside
    it, not in the Hub cache): what was read so far stands, the geometry is not checked, and
    SWA308 says so and how to give the file. Only ``--model-config`` pointing nowhere, or a model
    config a deployment file names, stays an input error (the user named a path)."""
    where = missing.location
    model = one_line(missing.model_path)
    looked = ", ".join(one_line(place) for place in missing.looked)
    r.event(
        Kind.MODEL_NOT_FOUND,
        f"config.json for model {missing.model_path!r} not found (looked in: {looked}){missing.also}: "
        f"the target/draft geometry and the checkpoint rules were not checked; give it with "
        f"--model-config {model}=PATH",
        location=where,
    )
    return r.skipped(f"not checked: config.json for model {missing.model_path!r} not found", pd)


class ModelConfigRefused(Exception):
    """A checkpoint config SGLang's ``ModelConfig`` cannot load: the launch stops there.
    Without ``message``: a deepseek_v4 config.json without ``sliding_window``."""

    def __init__(
        self,
        role: str,
        model: ModelConfig,
        message: str | None = None,
        reason: str = "no sliding_window",
        field: str = "sliding_window",
        fix: str | None = None,
        refusal: hfconfig.Refusal | None = None,
    ):
        super().__init__(role)
        self.role, self.model, self.message = role, model, message
        self.reason, self.field, self.fix = reason, field, fix
        self.refusal = refusal  # a key the config classes or ModelConfig stop on (SWA260)


V41_TYPES = ("deepseek_v41", "deepseek_v41_text")  # SGLang's DeepseekV41Config classes
V41_LEGACY_ARCH = "DeepseekV41ForConditionalGeneration"
V41_LEGACY_TYPE = "deepseek_v4.1"
DSV4_ARCHS = ("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark")


def as_sglang_reads(r: ArgReader, model: ModelConfig, role: str) -> ModelConfig:
    """The model config as the selected release reads it: a DeepSeek-V4.1 layout flattened
    (``ModelConfig.v41_flat``) or refused where the release cannot load it; a DeepSeek-V4
    config re-saved with ``compress_rates`` refused."""
    mtype, archs = model.model_type, model.architectures
    if mtype == V41_LEGACY_TYPE:
        # no config class registers this model_type in any release read (0.5.21-0.5.23
        # register deepseek_v41 / deepseek_v41_text only: utils/hf_transformers/common.py
        # 0.5.23:225-227): transformers' AutoConfig refuses it
        raise ModelConfigRefused(
            role,
            model,
            f"{model.source} ({role}) has model_type {V41_LEGACY_TYPE!r} (the older DeepSeek-V4.1 "
            f"layout): SGLang {r.profile.version} registers no config class for it: ValueError: "
            f"The checkpoint you are trying to load has model type `{V41_LEGACY_TYPE}` but "
            "Transformers does not recognize this architecture",
            "older DeepSeek-V4.1 layout",
            "model_type",
            "Use the checkpoint's current config.json (model_type deepseek_v41, architectures "
            "DeepseekV41ForCausalLM).",
        )
    if mtype in V41_TYPES:
        if not r.profile.v41_config:
            raise ModelConfigRefused(
                role,
                model,
                f"{model.source} ({role}) is DeepSeek-V4.1 (model_type {mtype!r}): SGLang "
                f"{r.profile.version} has no DeepSeek-V4.1 config class (srt/configs/"
                "deepseek_v41.py arrives in 0.5.21): ValueError: The checkpoint you are trying "
                f"to load has model type `{mtype}` but Transformers does not recognize this "
                "architecture",
                "DeepSeek-V4.1 needs SGLang 0.5.21 or later",
                "model_type",
                "Run SGLang 0.5.21 or later (--sglang-version), or a DeepSeek-V4 checkpoint.",
            )
        model = r.models.flat(model)
        archs = model.architectures
        if archs and archs[0] == V41_LEGACY_ARCH:
            # normalize_deepseek_v41_config rewrites only ["DeepseekV41ForCausalLM"]
            # (configs/deepseek_v41.py 0.5.23:38-39, 0.5.22:38-39): the model registry then
            # refuses the class (models/registry.py 0.5.23:64)
            raise ModelConfigRefused(
                role,
                model,
                f"{model.source} ({role}) names architectures {V41_LEGACY_ARCH} (the older "
                f"DeepSeek-V4.1 layout), which SGLang {r.profile.version} does not rewrite: "
                f"ValueError: Model architectures ['{V41_LEGACY_ARCH}'] are not supported for now.",
                "older DeepSeek-V4.1 layout",
                "architectures",
                "Use the checkpoint's current config.json (architectures DeepseekV41ForCausalLM).",
            )
    if mtype == "deepseek_v4" and model.file is not None and model.catalogue is None:
        _checkpoint_keys(r, model, role)
    if archs and archs[0] in DSV4_ARCHS:
        _compress_rates(r, model, role)
    return model


def _checkpoint_keys(r: ArgReader, model: ModelConfig, role: str) -> None:
    """A key transformers' and SGLang's config classes refuse while SGLang loads the file, or one
    ModelConfig's DeepSeek-V4 branch reads and the alias class lacks (sglang/hfconfig.py): the
    launch stops there, in the releases whose transformers pin is known."""
    sites = r.profile.checkpoint_sites
    if sites is None:
        return
    given = frozenset(overrides(r))
    found = hfconfig.load_refusal(model, sites) or hfconfig.attribute_refusal(
        model, role, sites, given
    )
    if found is not None:
        raise ModelConfigRefused(
            role, model, None, found.reason, found.key, found.fix, refusal=found
        )


V41_MESSAGE = (
    "ValueError: DeepSeek-V4.1 does not support {feature} yet; disable it to serve this model."
)


def v41_features(r: ArgReader, model: ModelConfig | None, unified: bool) -> None:
    """What a DeepSeek-V4.1 target cannot run with: the model hook's
    ``validate_deepseek_v41_features`` (``arg_groups/deepseek_v4_hook.py`` 0.5.23:331-352,
    0.5.22:258-284, 0.5.21:214-232; called from ``arg_groups/model_hook.py`` 0.5.23:475) raises a
    ValueError for speculative decoding other than DSpark, HiSparse, the unified KV layout,
    two-batch overlap and pipeline parallelism. One event per feature (SGLang stops at the
    first)."""
    if model is None or model.model_type != "deepseek_v41":
        return
    algo = r.arg("speculative-algorithm")
    text = r.str_arg("speculative-algorithm")
    pp = r.int_arg("pp-size")
    checks = (
        (
            "speculative decoding other than DSpark",
            algo,
            text is not None and str(text.value).upper() != "DSPARK",
        ),
        ("HiSparse", r.arg("enable-hisparse"), _on(r, "enable-hisparse")),
        ("the unified KV layout", None, unified),
        (
            "two-batch overlap",
            r.arg("enable-two-batch-overlap"),
            _on(r, "enable-two-batch-overlap"),
        ),
        ("pipeline parallelism", r.arg("pp-size"), pp is not None and pp.value > 1),
    )
    for feature, arg, refused in checks:
        if refused:
            r.event(
                Kind.V41_FEATURE_REFUSED,
                f"{model.source} is DeepSeek-V4.1: {V41_MESSAGE.format(feature=feature)}",
                arg,
                location=None if arg is not None else _model_path_loc(r, "target"),
                feature=feature,
            )


def _on(r: ArgReader, name: str) -> bool:
    val = r.flag_arg(name)
    return val is not None and bool(val.value)


def _compress_rates(r: ArgReader, model: ModelConfig, role: str) -> None:
    """``compress_rates`` instead of ``compress_ratios`` (a config.json re-saved by transformers
    4.57 or later): ModelConfig's DSV4 branch reads ``hf_config.compress_ratios`` right after
    the window (configs/model_config.py 0.5.23:1429, 0.5.22:1320, 0.5.21:1241, 0.5.20:1153,
    0.5.17:884) and SGLang's config class has no such attribute: AttributeError. A missing
    sliding_window fails first (SWA208's other case)."""
    if model.has("compress_ratios") or not model.has("compress_rates"):
        return
    if not model.has("sliding_window") or "compress_ratios" in overrides(r):
        return
    cls = "DeepseekV41Config" if model.flattened else "_DeepseekV4ConfigAlias"
    raise ModelConfigRefused(
        role,
        model,
        f"{model.source} ({role}) has compress_rates but no compress_ratios (a config.json "
        f"re-saved by transformers 4.57 or later): SGLang's ModelConfig fails: AttributeError: "
        f"'{cls}' object has no attribute 'compress_ratios' (configs/model_config.py, "
        "DeepSeek-V4 branch)",
        "compress_rates instead of compress_ratios",
        "compress_ratios",
        f"Rename the key compress_rates to compress_ratios in {model.source}.",
    )


@record
class Target:
    """The target model: its config, its path and revision as given."""

    model: ModelConfig | None
    model_path: Val | None
    revision: Val | None


def ref_val(ref: ModelRef | None, role: str) -> Val | None:
    """Where a deployment file names a pool's model config, as a value with its position."""
    if ref is None:
        return None
    return Val(
        ref.path if ref.path is not None else "(inline mapping)",
        f"{role}.model_config",
        ref.location,
    )


def load_model(
    r: ArgReader, ref: ModelRef | None, path_val: Val | None, role: str, revision: Val | None
) -> ModelConfig | None:
    if ref is not None:
        if ref.inline is not None:
            return ModelStore.inline(ref.inline, f"{r.dep.file} (inline {role}.model_config)")
        assert ref.path is not None
        try:
            model = r.models.from_path(ref.path, ref.base_dir, ref.location)
        except ModelNotFound as missing:  # a file the deployment file names: an input error
            raise InputProblem(missing.message, missing.location) from None
        return as_sglang_reads(r, model, role)
    if path_val is None:
        return None
    hub_env = {
        k: str(v.value) for k, v in r.dep.env.items() if k in HUB_ENV and v.value
    }  # the server's hub cache
    model = r.models.from_path(
        path_val.value,
        r.dep.server.base_dir,
        path_val.location,
        revision.value if revision else None,
        hub_env,
    )
    return as_sglang_reads(r, model, role)


def target_model(r: ArgReader, pd: bool) -> Target | Resolution:
    """The target's model config, or the resolution of a launch that is not swacheck's business
    (no config.json needed, or not a DeepSeek-V4 target: sglang/applicable.py)."""
    dep = r.dep
    revision = r.str_arg("revision")
    model_path = r.str_arg("model-path")
    try:
        model = load_model(r, dep.target_model, model_path, "target", revision)
    except ModelNotFound as missing:
        # Quiet on what isn't ours: a launch that cannot involve a DSV4 pool pair or PD pair
        # needs no config.json (sglang/applicable.py).
        speculative = r.arg("speculative-algorithm") is not None
        why = not_applicable(dep, missing.model_path, missing.mapped, speculative, pd)
        if why is None:
            raise
        if why[1]:
            r.event(Kind.NOT_CHECKED, why[0], location=missing.location)
        res = r.skipped(why[0], pd)
        res.quiet = (
            "unknown"
            if why[1]
            else ("no-pools" if why[0].startswith("not applicable: no speculative") else "other")
        )
        return res
    if model is not None and not model.is_dsv4:
        archs = (
            "not DeepseekV4ForCausalLM"
            if model.private
            else (", ".join(model.architectures) or "none")
        )
        res = r.skipped(f"not a DeepSeek-V4 target (architectures: {archs})", pd)
        res.quiet = "other"
        return res
    if model is None and not dep.target_geometry.values:
        raise InputProblem(
            "the deployment names no model: give the server's model-path or target.model_config",
            dep.location,
        )
    return Target(model, model_path, revision)


def overrides(r: ArgReader) -> dict[str, Val]:
    """``json-model-override-args``: applied to the target's and the draft's model config."""
    arg = r.arg("json-model-override-args")
    if arg is None:
        return {}
    node = arg.node
    if isinstance(node, Mapping):
        data = node.plain()
        locs = {k: p.value.loc for k, p in node.pairs.items()}
    elif isinstance(node, Scalar) and isinstance(node.value, str):
        try:
            data = json.loads(node.value)
        except json.JSONDecodeError as exc:
            r.bad(arg, f"a JSON object ({exc.msg} at character {exc.pos})")
            return {}
        locs = {}
    else:
        r.bad(arg, "a JSON object")
        return {}
    if not isinstance(data, dict):
        r.bad(arg, "a JSON object")
        return {}
    return {
        k: Val(v, f"{arg.written} override", locs.get(k, arg.value_loc)) for k, v in data.items()
    }


def window(
    r: ArgReader,
    model: ModelConfig | None,
    overrides: dict[str, Val],
    role: str,
    explicit: Val | None,
    source: Val | None,
) -> Val:
    """The pool's SWA window: given in the deployment, overridden, or the model's sliding_window."""
    if explicit is not None:
        return explicit
    if "sliding_window" in overrides:
        val = overrides["sliding_window"]
        if isinstance(val.value, bool) or not isinstance(val.value, int):
            raise InputProblem(
                f"json-model-override-args sliding_window must be an integer, got {val.value!r}",
                val.location,
            )
        return val
    if model is None:
        raise InputProblem(
            f"no model config for the {role} pool: give model-path or {role}.model_config",
            r.dep.location,
        )
    val = model.int_field("sliding_window")
    if val is None and model.catalogue is not None:
        raise InputProblem(unconfirmed(model.catalogue, "sliding_window", source), _at(r, source))
    if (
        val is None
        and model.model_type == "deepseek_v4"
        and model.file is not None
        and not model.private
    ):
        raise ModelConfigRefused(role, model)
    if val is None:
        raise InputProblem(
            f"{model.label} has no 'sliding_window': swacheck reads the SWA window of a DeepSeek-V4 "
            "checkpoint from it (configs/model_config.py, DSV4 branch)",
            model.root.loc,
        )
    # The model path is kept as an input: it is the key to edit when the checkpoint is the wrong one.
    return Val(
        val.value,
        val.origin if model.catalogue is not None else "sliding_window",
        val.location,
        (("model path", source),) if source is not None else (),
    )


def unconfirmed(entry: Entry, key: str, path: Val | None) -> str:
    """A value the catalogue entry does not confirm: named as unknown, never guessed."""
    single = " (single-source readings only)" if key in entry.uncertain else ""
    shown = path.value if path is not None and isinstance(path.value, str) else entry.id
    return (
        f"no config.json found, and {entry.label} does not confirm {key}{single}: "
        f"it is unknown; point at the checkpoint's config.json with --model-config {shown}=PATH"
    )


def _at(r: ArgReader, source: Val | None):
    return source.location if source is not None and source.location else r.dep.location


def _is_pd(r: ArgReader) -> bool:
    """A PD server (or a deployment checked as one): what a skipped resolution reports."""
    pd = r.values.get("disaggregation_mode")
    return (pd is not None and pd.value in ("prefill", "decode")) or r.dep.assume_pd


def refused(r: ArgReader, exc: ModelConfigRefused) -> Resolution:
    """A model_type deepseek_v4 config.json without sliding_window: SGLang's config class
    (utils/hf_transformers/common.py _DeepseekV4ConfigAlias) has no default for it and
    ModelConfig's DSV4 branch reads it (configs/model_config.py 0.5.23:1425, 0.5.22:1316,
    0.5.20:1149, 0.5.17:880): the launch stops with an AttributeError, no pool is built."""
    said(r, exc)
    return _cannot_load(r, exc.role, exc.reason)  # a refusal's own reason when it has one


def said(r: ArgReader, exc: ModelConfigRefused) -> None:
    """The refusal's event: SWA260's for a key the checkpoint's loaders stop on, else SWA208's."""
    model = exc.model
    if exc.refusal is not None:
        _checkpoint_refused(r, exc)
        return
    message = exc.message or (
        f"{model.label} ({exc.role}) has no 'sliding_window': SGLang's ModelConfig fails: "
        "AttributeError: '_DeepseekV4ConfigAlias' object has no attribute 'sliding_window'"
    )
    where = model.root.loc if model.catalogue is None else _model_path_loc(r, exc.role)
    r.event(
        Kind.MODEL_CONFIG_REFUSED,
        message,
        location=where,
        role=exc.role,
        field=exc.field,
        fix=exc.fix,
    )


def _checkpoint_refused(r: ArgReader, exc: ModelConfigRefused) -> None:
    """SWA260's event: where SGLang stops on the checkpoint, and with what."""
    found, model = exc.refusal, exc.model
    assert found is not None
    r.event(
        Kind.CHECKPOINT_REFUSED,
        checkpoint_message(model.label, exc.role, found, r.profile.version),
        location=hfconfig.location(model, found.key),
        role=exc.role,
        field=found.key,
        fix=found.fix,
        stage=found.stage,
        exception=found.exception,
        site=found.site,
    )


def _cannot_load(r: ArgReader, role: str, reason: str) -> Resolution:
    """The resolution of a deployment whose target or draft config SGLang cannot load."""
    return r.skipped(
        f"SGLang cannot load the {role} model config ({reason}): no pools to compare", _is_pd(r)
    )


STAGE_WORDS = {
    "resolve": "while it resolves the server arguments (it loads the config.json there)",
    "model": "building the {role}'s ModelConfig",
    "pools": "building the {role}'s KV pool",
}


def checkpoint_message(label: str, role: str, found: hfconfig.Refusal, version: str) -> str:
    """The finding's text: the key, where SGLang stops (stage and file:line), the exception."""
    said = f"{found.exception}: {found.message}" if found.message else found.exception
    where = STAGE_WORDS[found.stage].format(role=role)
    return (
        f"{label} ({role}): {found.reason}: SGLang {version} stops {where}, "
        f"sglang/srt/{found.site}: {said}"
    )


def _model_path_loc(r: ArgReader, role: str):
    """Where the launch names a catalogue model: its model path (the catalogue has no file)."""
    names = ("speculative-draft-model-path", "model-path") if role == "draft" else ("model-path",)
    for name in names:
        if (arg := r.arg(name)) is not None:
            return arg.value_loc
    return r.dep.location
