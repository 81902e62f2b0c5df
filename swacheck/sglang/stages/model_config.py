"""The model configs: SGLang loads the target's (and later the draft's) config.json while it
resolves the arguments, and reads the SWA window from it.

``srt/configs/model_config.py`` ``ModelConfig`` (DSV4 branch: 0.5.23:1425, 0.5.22:1316,
0.5.20:1149, 0.5.17:880) reads ``sliding_window``; ``--json-model-override-args`` is applied to
the target's and the draft's config alike. See docs/sglang.md, "Model config".
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ...loading import Mapping, Scalar
from ...records import InputProblem, Val
from ...recordtype import record
from ..applicable import not_applicable
from ..events import Kind
from ..models import HUB_ENV, ModelNotFound, ModelStore

if TYPE_CHECKING:
    from ...inputs import ModelRef
    from ..models import ModelConfig
    from ..resolution import Resolution
    from .reader import ArgReader


class ModelConfigRefused(Exception):
    """A checkpoint config SGLang's ``ModelConfig`` cannot load: the launch stops there."""

    def __init__(self, role: str, model: ModelConfig):
        super().__init__(role)
        self.role, self.model = role, model


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
        return r.models.from_path(ref.path, ref.base_dir, ref.location)
    if path_val is None:
        return None
    hub_env = {
        k: str(v.value) for k, v in r.dep.env.items() if k in HUB_ENV and v.value
    }  # the server's hub cache
    return r.models.from_path(
        path_val.value,
        r.dep.server.base_dir,
        path_val.location,
        revision.value if revision else None,
        hub_env,
    )


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
        "sliding_window",
        val.location,
        (("model path", source),) if source is not None else (),
    )


def refused(r: ArgReader, exc: ModelConfigRefused) -> Resolution:
    """A model_type deepseek_v4 config.json without sliding_window: SGLang's config class
    (utils/hf_transformers/common.py _DeepseekV4ConfigAlias) has no default for it and
    ModelConfig's DSV4 branch reads it (configs/model_config.py 0.5.23:1425, 0.5.22:1316,
    0.5.20:1149, 0.5.17:880): the launch stops with an AttributeError, no pool is built."""
    model = exc.model
    r.event(
        Kind.MODEL_CONFIG_REFUSED,
        f"{model.label} ({exc.role}) has no 'sliding_window': SGLang's ModelConfig fails: "
        "AttributeError: '_DeepseekV4ConfigAlias' object has no attribute 'sliding_window'",
        location=model.root.loc,
        role=exc.role,
    )
    pd = r.values.get("disaggregation_mode")
    is_pd = (pd is not None and pd.value in ("prefill", "decode")) or r.dep.assume_pd
    return r.skipped(
        f"SGLang cannot load the {exc.role} model config (no sliding_window): no pools to compare",
        is_pd,
    )
