"""Stage 5, the speculative hook: the draft tokens each step verifies, and the draft model.

SGLang's ``srt/arg_groups/speculative_hook.py``: ``NEXTN`` becomes ``EAGLE``;
``_handle_eagle_family`` (0.5.23:1159) asserts that top-k and draft tokens are unset when the
steps are, auto-chooses (3, 1, 4) for DeepSeek-V4, resets the draft tokens to steps + 1 at
top-k 1, and defaults the draft model to the target's checkpoint (DSV4 MTP); ``_handle_dspark``
(0.5.23:666-860) takes gamma from --speculative-dspark-block-size, the draft checkpoint or
``DEFAULT_DSPARK_GAMMA`` (7), and verifies gamma + 1 tokens. See docs/sglang.md,
"Speculative hook".
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...model.records import Val
from ...model.recordtype import record
from ..events import Kind
from . import adaptive
from .model_config import load_model
from .reader import default

if TYPE_CHECKING:
    from ...model.deployment import Arg, ModelRef
    from ..models import ModelConfig
    from .deepseek_v4 import DSV4
    from .model_config import Target
    from .reader import ArgReader

EAGLE_AUTO_STEPS = (
    3  # _auto_choose_speculative_params for DeepSeek-V4: (steps, top-k, draft tokens) = (3, 1, 4)
)
DEFAULT_DSPARK_GAMMA = 7  # speculative/dspark_components/dspark_config.py


@record
class SpecArgs:
    """The speculative flags as written: steps, top-k and draft tokens."""

    steps: Val | None
    topk: Val | None
    ndt: Val | None  # --speculative-num-draft-tokens as written


@record
class Draft:
    """The draft model: its reference, path, config and draft tokens."""

    ref: ModelRef | None  # the deployment's draft.model_config (or the target's, for MTP)
    path: Val | None
    model: ModelConfig | None
    tokens: Val | None  # the draft tokens, DSPARK's resolved here


def read_args(r: ArgReader) -> SpecArgs:
    """The speculative arguments, read in argparse's order (one bad-value event each)."""
    steps = r.int_arg("speculative-num-steps", 0)
    topk = r.int_arg("speculative-eagle-topk")
    ndt = r.int_arg("speculative-num-draft-tokens")
    return SpecArgs(steps, topk, ndt)


def speculative(
    r: ArgReader, dsv4: DSV4, args: SpecArgs, topk: Val | None, attn_dp: Val
) -> Val | None:
    """EAGLE's draft tokens (steps + 1 at top-k 1); DSPARK's need the draft checkpoint (later)."""
    steps = args.steps
    draft_tokens: Val | None = None
    if dsv4.algo == "EAGLE":
        steps = _eagle_steps(r, dsv4, steps, attn_dp)
        draft_tokens = Val(
            steps.value + 1,
            f"speculative-num-steps {steps.value} + 1 (top-k 1)",
            None,
            (("speculative-num-steps", steps),),
        )
        ndt = args.ndt
        if ndt is not None and ndt.value != draft_tokens.value:
            r.event(
                Kind.DRAFT_TOKENS_ADJUSTED,
                f"speculative-num-draft-tokens {ndt.value} is reset to {draft_tokens.value}",
                r.arg("speculative-num-draft-tokens"),
                value=ndt.value,
                resolved=draft_tokens.value,
            )
    if steps is not None and dsv4.algo == "EAGLE":
        r.values["speculative_num_steps"] = steps
    if topk is not None:
        r.values["speculative_eagle_topk"] = topk
    return draft_tokens


def _eagle_steps(r: ArgReader, dsv4: DSV4, steps: Val | None, attn_dp: Val) -> Val:
    on = r.flag_arg("speculative-adaptive")
    if on is not None and adaptive.applies(r, attn_dp):
        ad = adaptive.read(r)
        if ad is not None:
            steps = adaptive.steps(r, ad, steps, on)
            r.values["max_speculative_num_draft_tokens"] = adaptive.max_draft_tokens(ad, on)
        elif steps is None:  # refused or unread (SWA242): SGLang never gets to the steps
            steps = Val(
                EAGLE_AUTO_STEPS,
                "assumed: the adaptive config's candidate steps are not known",
                on.location,
            )
    if steps is not None:
        return steps
    # SGLang stops at the DSV4 top-k assertion first; the fixes for a missing top-k or a
    # refused algorithm insert num-steps too, and a written but invalid value is SWA304's.
    if (
        r.dep.server.mapping is not None
        and r.arg("speculative-eagle-topk") is not None
        and not dsv4.algorithm_refused
        and r.arg("speculative-num-steps") is None
    ):
        r.event(
            Kind.EAGLE_STEPS_MISSING,
            "EAGLE with speculative-eagle-topk set needs speculative-num-steps",
            r.arg("speculative-eagle-topk") or dsv4.spec_arg,
        )
    return Val(EAGLE_AUTO_STEPS, "assumed: SGLang's auto choice for DeepSeek-V4 is 3 steps")


def draft(r: ArgReader, dsv4: DSV4, target: Target, args: SpecArgs, tokens: Val | None) -> Draft:
    """The draft model: --speculative-draft-model-path, else the target's checkpoint (DSV4 MTP)."""
    dep, model_path, revision = r.dep, target.model_path, target.revision
    written_path = r.arg("speculative-draft-model-path")
    draft_path = r.str_arg("speculative-draft-model-path")
    if draft_path is None and model_path is not None:
        draft_path = Val(
            model_path.value,
            "model-path (SGLang's default draft for DeepSeek-V4 MTP)",
            model_path.location,
        )
    if dsv4.algo == "DSPARK" and written_path is None:
        draft_path = _dspark_subfolder(r, target) or draft_path
    r.values["speculative_draft_model_path"] = draft_path or default(None, "no model-path")
    draft_rev = r.str_arg("speculative-draft-model-revision") or (
        revision if written_path is None else None
    )
    ref = dep.draft_model
    if ref is None and written_path is None and dep.target_model is not None:
        ref = dep.target_model
    model = load_model(r, ref, draft_path, "draft", draft_rev)
    if dsv4.algo == "DSPARK":
        if ref is None and written_path is None:
            dspark_draft_missing(r, target.model, dsv4.spec_arg, model_path)
        tokens = dspark_draft_tokens(r, model, args.ndt)
    return Draft(ref, draft_path, model, tokens)


def _dspark_subfolder(r: ArgReader, target: Target) -> Val | None:
    """0.5.23: a target that bundles no DSpark draft but whose local checkpoint folder has a
    ``dspark/config.json``: SGLang's draft path becomes that subfolder (``_handle_dspark``,
    ``arg_groups/speculative_hook.py`` 0.5.23:737-750), so the draft's window and gamma come
    from its config.json."""
    model, model_path, dep = target.model, target.model_path, r.dep
    if (
        not r.profile.dspark_subfolder
        or dep.draft_model is not None
        or dep.target_model is not None
        or model is None
        or model.private
        or model.bundles_dspark
        or model_path is None
        or not isinstance(model_path.value, str)
    ):
        return None
    subfolder = os.path.join(model_path.value, "dspark")
    if not os.path.isfile(os.path.join(dep.server.base_dir, subfolder, "config.json")):
        return None
    return Val(
        subfolder,
        "model-path's dspark/ subfolder (SGLang's DSpark draft when the target bundles none)",
        model_path.location,
    )


def dspark_draft_missing(
    r: ArgReader, target: ModelConfig | None, spec_arg: Arg | None, model_path: Val | None
) -> None:
    """DSPARK with no draft path: SGLang's speculative hook needs a draft bundled in the target.

    ``_handle_dspark`` (``arg_groups/speculative_hook.py``, 0.5.23:720-755, 0.5.17:313-323)
    defaults the draft to the target checkpoint only when its config.json has a non-null
    ``dspark_block_size``, ``dspark_markov_rank``, ``dspark_noise_token_id`` or
    ``dspark_target_layer_ids`` (``dspark_config.checkpoint_bundles_dspark_draft``); 0.5.23
    also takes a ``dspark/`` subfolder of a local checkpoint that holds a config.json.
    Otherwise: ``ValueError: DSpark dense speculative decoding requires setting
    --speculative-draft-model-path.`` Reported only when swacheck read the target's config.json.
    """
    if target is None or target.private or spec_arg is None:
        return
    if target.bundles_dspark:
        return
    if r.profile.dspark_subfolder:
        path = (
            model_path.value
            if model_path is not None and isinstance(model_path.value, str)
            else None
        )
        folder = os.path.join(r.dep.server.base_dir, path) if path else None
        if folder is None or not os.path.isdir(folder):
            return  # a Hub id or an inline config: SGLang would look for dspark/config.json on the Hub
        if os.path.isfile(os.path.join(folder, "dspark", "config.json")):
            return
    r.event(
        Kind.DSPARK_DRAFT_MISSING,
        f"speculative-algorithm DSPARK without speculative-draft-model-path, and "
        f"{target.label} bundles no DSpark draft "
        "(no dspark_* key" + (", no dspark/ subfolder" if r.profile.dspark_subfolder else "") + ")",
        spec_arg,
    )


def dspark_draft_tokens(r: ArgReader, draft_model: ModelConfig | None, ndt: Val | None) -> Val:
    """gamma + 1, gamma from --speculative-dspark-block-size, the draft checkpoint, or 7.

    ``_handle_dspark`` refuses a block size below 1 and draft tokens other than gamma + 1 when
    gamma is known (``arg_groups/speculative_hook.py`` 0.5.23:806-833, 0.5.22:732-759,
    0.5.20:643-670, 0.5.17:344-382): SWA212.
    """
    block = r.int_arg("speculative-dspark-block-size")
    if block is not None and block.value <= 0:
        r.event(
            Kind.DSPARK_GAMMA_REFUSED,
            f"DSpark requires --speculative-dspark-block-size to be positive, got {block.value}.",
            r.arg("speculative-dspark-block-size"),
            location=block.location,
        )
        return ndt or block
    if block is None and draft_model is not None:
        for key in ("dspark_block_size", "block_size"):
            if (val := draft_model.int_field(key)) is not None:
                block = Val(val.value, f"draft config.json {key}", val.location)
                break
    if block is None and ndt is not None:
        return ndt
    if block is None:
        block = default(DEFAULT_DSPARK_GAMMA, "DEFAULT_DSPARK_GAMMA")
    if ndt is not None and ndt.value != block.value + 1:
        r.event(
            Kind.DSPARK_GAMMA_REFUSED,
            "DSpark speculative_num_draft_tokens must equal gamma + 1 "
            f"(= {block.value + 1} for gamma={block.value}), but got "
            f"speculative_num_draft_tokens={ndt.value}.",
            r.arg("speculative-num-draft-tokens"),
            location=ndt.location,
            gamma=block,
        )
        return ndt
    return Val(block.value + 1, f"DSpark gamma {block.value} + 1", None, (("gamma", block),))
