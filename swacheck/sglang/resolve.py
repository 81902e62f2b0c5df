"""Server arguments + model configs -> each KV pool's SWA geometry, the way SGLang does it.

This module is the driver: it runs SGLang's argument resolution stage by stage, in SGLang's
order (0.5.23 ``srt/arg_groups/pipeline.py`` ``run_resolution_pipeline``), one module of
``sglang/stages/`` each, named after SGLang's:

1. ``config_merge`` -- the ``--config`` merger and argparse: which keys SGLang takes;
2. ``parallel`` -- the parallel hook: dp-size and the attention-DP width;
3. ``pd_disaggregation`` -- the PD hook: the decode server's extra request slots;
4. ``model_config`` -- the target's config.json (SGLang loads it while resolving);
5. ``deepseek_v4`` -- the DSV4 model hook: page size, max-running-requests, the algorithms
   and EAGLE top-k it accepts (asserted before the speculative hook fills in defaults);
6. ``speculative`` -- the speculative hook: steps, draft tokens, DSPARK's gamma, the draft;
7. ``validation`` -- pipeline parallelism with speculative decoding, per release;
8. ``memory_pool`` -- request slots, each pool's ring and pages;
9. ``unified_gate`` -- ROCm's unified-KV layout, which decides the tuple SGLang compares.

docs/sglang.md states the SGLang facts of each stage, with file references per release.
What SGLang would refuse or rewrite is recorded as an :class:`~.events.Event` of a
:class:`~.events.Kind`; the rules in ``swacheck/rules`` turn events into findings. Resolution
goes on after a refusal, computing the geometry the launch would have once that argument is
corrected, so that one run shows every problem. Every number keeps its provenance (``Val``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.deployment import UnreadDeployment
from ..model.records import InputProblem, Val
from .events import Event, Kind
from .models import ModelNotFound
from .resolution import Pool, Resolution
from .stages import (
    config_merge,
    deepseek_v4,
    memory_pool,
    model_config,
    parallel,
    pd_disaggregation,
    speculative,
    unified_gate,
    validation,
)
from .stages.reader import ArgReader
from .stages.unified_gate import ENV_BACKEND, ENV_FP8
from .version import DEFAULT, SGLangProfile, release_key

if TYPE_CHECKING:
    from ..model.deployment import Deployment
    from .models import ModelStore
    from .stages.deepseek_v4 import DSV4
    from .stages.memory_pool import PoolInputs
    from .stages.model_config import Target
    from .stages.speculative import SpecArgs

__all__ = ["ENV_BACKEND", "ENV_FP8", "Event", "Kind", "Pool", "Resolution", "resolve"]


def resolve(dep: Deployment, models: ModelStore, profile: SGLangProfile = DEFAULT) -> Resolution:
    """Resolve one deployment. Raises :class:`InputProblem` when a needed input is missing."""
    if isinstance(dep, UnreadDeployment):  # a launch found but not readable: SWA307 says why
        return Resolution(
            dep,
            profile,
            {"platform": dep.platform},
            [Event(Kind.NOT_CHECKED, dep.reason, dep.location, data={"limit": dep.limit})],
            "skipped",
            dep.reason,
        )
    r = ArgReader(dep, models, profile)
    try:
        return _run(r)
    except model_config.ModelConfigRefused as refused:
        # a draft is loaded after the PD checks ran (_run): never report them twice
        if _pd_hook_ran(r, refused) and not r.has_event(Kind.PREFILL_COMPLETE_REFUSED):
            mode = r.values.get("disaggregation_mode")
            attn_dp = r.values.get("attn_dp_size")
            if mode is not None and attn_dp is not None:
                pd_disaggregation.prefill_complete(r, str(mode.value), attn_dp)
        return model_config.refused(r, refused)
    except ModelNotFound as missing:
        if missing.mapped:  # --model-config pointing nowhere: the user's path, an input error
            raise
        mode = r.values.get("disaggregation_mode")
        pd = (mode is not None and mode.value in ("prefill", "decode")) or dep.assume_pd
        return model_config.not_found(r, missing, pd)


def _pd_hook_ran(r: ArgReader, refused: model_config.ModelConfigRefused) -> bool:
    """Whether SGLang's PD hook (its prefill_complete refusal) runs before the checkpoint stops
    the launch: always when ``ModelConfig`` stops it (after the arguments are resolved); when
    loading the config.json stops it, only in 0.5.22, which runs the PD hook first
    (``arg_groups/pipeline.py`` 0.5.22:138 vs 175; 0.5.23 loads the config before)."""
    if r.dep.server.mapping is None:
        return False
    loading = refused.refusal is not None and refused.refusal.stage == "resolve"
    return not loading or release_key(r.profile.version) < (0, 5, 23)


def _run(r: ArgReader) -> Resolution:
    if r.profile is not DEFAULT:
        config_merge.rematch(r)
    r.values["platform"] = r.dep.platform
    config_merge.as_merged(r)
    config_merge.check_keys(r)
    config_merge.check_values(r)
    par = parallel.parallel(r)
    pd = pd_disaggregation.pd_disaggregation(r, par)
    target = model_config.target_model(r, pd.pd)
    if isinstance(target, Resolution):  # not swacheck's business: nothing more to resolve
        return target
    dsv4 = deepseek_v4.deepseek_v4(r, pd.mode, pd.mrr_explicit)
    args = speculative.read_args(r)
    topk = deepseek_v4.eagle_topk(r, dsv4, args.topk)
    draft_tokens = speculative.speculative(r, dsv4, args, topk, par.attn_dp)
    if r.dep.server.mapping is not None:
        validation.pipeline_speculative(r, dsv4.algo, pd.mode, par.attn_dp)
        pd_disaggregation.prefill_complete(r, pd.mode, par.attn_dp)
    slots = memory_pool.request_slots(r, dsv4.mrr, par.attn_dp, pd.extra_slots, dsv4.page)
    shared = memory_pool.PoolInputs(
        unified_gate.unified_gate(r, pd.mode), slots.slots, model_config.overrides(r)
    )
    model_config.v41_features(r, target.model, bool(shared.unified.value))
    target_pool, draft_pool, draft_tokens = _pools(r, dsv4, target, args, shared, draft_tokens)
    if draft_tokens is not None:
        r.values["speculative_num_draft_tokens"] = draft_tokens
    memory_pool.online_compress_mtp(r, target.model, draft_pool, r.dep.platform)
    memory_pool.ring_serves_draft_tokens(r, target.model, draft_pool, draft_tokens)
    return _resolution(r, pd.pd, target_pool, draft_pool)


def _pools(
    r: ArgReader,
    dsv4: DSV4,
    target: Target,
    args: SpecArgs,
    shared: PoolInputs,
    draft_tokens: Val | None,
) -> tuple[Pool, Pool | None, Val | None]:
    """The target pool, and the draft's when a speculative algorithm runs (DSPARK's draft
    tokens come from the draft checkpoint, so its target pool is rebuilt with them)."""
    dep, page = r.dep, dsv4.page
    source = model_config.ref_val(dep.target_model, "target") or target.model_path

    def target_pool_with(tokens: Val | None) -> Pool:
        return memory_pool.pool(
            r, "target", target.model, shared, page, tokens, dep.target_geometry.values, source
        )

    target_pool = target_pool_with(draft_tokens)
    if dsv4.algo is None:
        if dep.draft_geometry.values:
            raise InputProblem(
                "draft.geometry is given but the server runs no speculative decoding", dep.location
            )
        return target_pool, None, draft_tokens
    try:
        draft = speculative.draft(r, dsv4, target, args, draft_tokens)
    except model_config.ModelConfigRefused as refused:
        if refused.role != "draft" or dsv4.algo == "DSPARK":
            raise  # a DSpark draft's tokens come from its config: no target pool without them
        _draft_refused(r, refused)
        return target_pool, None, draft_tokens
    draft_pool: Pool | None = None
    try:
        draft_pool = memory_pool.pool(
            r,
            "draft",
            draft.model,
            shared,
            _draft_page(r, page),
            draft.tokens,
            dep.draft_geometry.values,
            model_config.ref_val(draft.ref, "draft") if draft.ref is not None else draft.path,
        )
    except model_config.ModelConfigRefused as refused:
        if refused.role != "draft":
            raise
        _draft_refused(r, refused)
    if dsv4.algo == "DSPARK":
        target_pool = target_pool_with(draft.tokens)
    return target_pool, draft_pool, draft.tokens


def _draft_refused(r: ArgReader, refused: model_config.ModelConfigRefused) -> None:
    """A draft whose config SGLang cannot load: SGLang builds the draft's ModelConfig with the
    draft worker, after every argument hook and the target's pool, so the launch stops there
    and what the hooks and the target refuse comes first (the target's pool and rules stand)."""
    model_config.said(r, refused)
    r.draft_refused = f"SGLang cannot load the draft model config ({refused.reason}): no draft pool"


def _draft_page(r: ArgReader, page: Val) -> Val:
    """The draft worker's page: page size x dcp-size (kv_cache_configurator.py loc_space_scale,
    0.5.23:520; from 0.5.17 on)."""
    dcp = r.int_arg("dcp-size", 1)
    if not (r.profile.dcp_draft_page_scale and dcp is not None and dcp.value > 1):
        return page
    return Val(
        page.value * dcp.value,
        f"page size {page.value} x dcp-size {dcp.value} (draft worker loc_space_scale)",
        dcp.location,
        (("page size", page), ("dcp-size", dcp)),
    )


def _resolution(r: ArgReader, pd: bool, target: Pool, draft: Pool | None) -> Resolution:
    profile, dep = r.profile, r.dep
    mode = "unified" if target.unified.value else "paged"
    is_npu = dep.platform.value == "npu"
    checked = (
        pd
        and draft is not None
        and profile.has_dsv4_block
        and not (is_npu and profile.npu_skips_block)
    )
    skip = ""
    if draft is None:
        skip = (
            r.draft_refused or "no speculative decoding, so no draft pool: SGLang compares nothing"
        )
        mode = "skipped"
    duplicates = list(dep.duplicates)
    seen: set[int] = set()
    for pool in (target, draft):
        if pool is not None and pool.model is not None and id(pool.model) not in seen:
            seen.add(id(pool.model))
            duplicates.extend(pool.model.duplicates)
    return Resolution(
        dep, profile, r.values, r.events, mode, skip, target, draft, pd, checked, duplicates
    )
