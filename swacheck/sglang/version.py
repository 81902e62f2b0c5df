"""Everything about SGLang that changes between releases, in one place: one profile per release.

A profile holds the release's behaviour facts (the fields of :class:`SGLangProfile`), the lines
and wordings of its DSV4 target/draft messages (read by ``swacheck why``: :data:`WORDINGS`,
:data:`MESSAGE_LINES`), its server-argument table (``data/server-args-X.tsv``, read by
``flags.py``: types, choices, how the ``--config`` merger takes each key) and the deprecated
options it names a replacement for. Settings, the CLI and the configuration file ask
:func:`lookup` which profile a ``--sglang-version`` means.

Read from each released wheel (``pip download --no-deps sglang==X``; paths below are relative
to the ``sglang`` package of that wheel). Each field says where its fact comes from. The
server-argument tables (``data/server-args-X.tsv``) are built by ``scripts/dump_flags.py`` from
each release's own ``ServerArgs.add_cli_args`` and ``--config`` merger (docs/releases.md "Adding a release").
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from ..model.recordtype import record

_RING = "DSV4 target and draft pools must share SWA ring geometry: target={target}, draft={draft}"
_PAGED_AB = (
    "DSV4 target and draft pools must share paged SWA geometry: target={target}, draft={draft}"
)
_PAGED_C = "DSV4 target and draft pools must share SWA geometry: target={target}, draft={draft}"


@record(unsafe_hash=True)
class CheckpointSites:
    """Where a release stops on an odd DeepSeek-V4 config.json (sglang/hfconfig.py), for the
    releases whose pinned transformers is the one ``data/dsv4-config-fields.json`` was read from."""

    transformers: str  # the wheel's pin (METADATA Requires-Dist)
    load: str  # AutoConfig.from_pretrained: transformers' DeepseekV4Config
    reload: str  # _CONFIG_REGISTRY["deepseek_v4"].from_pretrained: SGLang's alias class
    index_head_dim: str  # ModelConfig's DSV4 branch
    compress_ratios: str
    kv_sources: str  # list(hf_config.kv_source_layer_ids)
    ratios: str  # set(compression_ratios)
    row: str  # create_buffer's V4 row-size assert
    row_v41: str  # get_bytes_per_token's assert for the V4.1 layouts
    row_fp8: str  # DeepSeekV4UniformFP8KVPool.create_buffer's (--dsv4-attn-backend trtllm)
    context: str  # resolve_max_num_reqs: token capacity / context_len

    @property
    def model_attr(self) -> dict[str, str]:
        return {"index_head_dim": self.index_head_dim, "compress_ratios": self.compress_ratios}


_SITES_0_5_23 = CheckpointSites(
    "5.19.0",  # sglang-0.5.23.dist-info/METADATA:287
    "utils/hf_transformers/config.py:228",
    "utils/hf_transformers/config.py:293",
    "configs/model_config.py:1428",
    "configs/model_config.py:1429",
    "mem_cache/kv_cache_configurator.py:2083",
    "mem_cache/deepseek_v4_memory_pool.py:1056",
    "mem_cache/deepseek_v4_memory_pool.py:313",
    "mem_cache/deepseek_v4_memory_pool.py:297",
    "mem_cache/deepseek_v4_memory_pool.py:392",
    "mem_cache/kv_cache_configurator.py:3123",
)
_SITES_0_5_22 = CheckpointSites(
    "5.19.0",  # sglang-0.5.22.dist-info/METADATA:285
    "utils/hf_transformers/config.py:223",
    "utils/hf_transformers/config.py:288",
    "configs/model_config.py:1319",
    "configs/model_config.py:1320",
    "mem_cache/kv_cache_configurator.py:1782",
    "mem_cache/deepseek_v4_memory_pool.py:1014",
    "mem_cache/deepseek_v4_memory_pool.py:277",
    "mem_cache/deepseek_v4_memory_pool.py:261",
    "mem_cache/deepseek_v4_memory_pool.py:356",
    "mem_cache/kv_cache_configurator.py:2804",
)


@record(unsafe_hash=True)
class SGLangProfile:
    """What one SGLang release does, field by field, with the file and line each comes from."""

    version: str
    # srt/disaggregation/utils.py setup_state_kv_args, the "# DSV4 NextN shares the target
    # allocator" block (0.5.16:951, 0.5.18:1181, 0.5.22:1709, 0.5.23:1775): present?
    has_dsv4_block: bool
    # same block, era A (0.5.16-0.5.17) guards it with `not is_npu()` (0.5.16:957)
    npu_skips_block: bool
    # same block: the paged tuple is (page_size, sliding_window) before 0.5.23, then gains a
    # third element, request_window.capacity / swa_req_ring_size (0.5.23:1827)
    paged_tuple_has_third: bool
    msg_paged: str  # message #5 (0.5.16:1010 ... 0.5.22:1765 "paged SWA geometry"; 0.5.23:1836)
    # srt/arg_groups/deepseek_v4_hook.py apply_deepseek_v4_defaults: the algorithms DSV4 accepts,
    # checked on the raw text before the speculative hook upper-cases it (0.5.14:51, 0.5.16:59, 0.5.23:153)
    algorithms: tuple[str, ...]
    algorithm_assert: str
    # srt/arg_groups/pd_disaggregation_hook.py, the decode extra-slot default: per-worker requests
    # are mrr // max(1, dp) (<= 0.5.21), mrr // (dp * attn_dp) (0.5.22:140), max(1, ...) (0.5.23:136)
    extra_slots_divisor: str  # "dp" | "dp*attn_dp"
    extra_slots_floor_one: bool
    # srt/mem_cache/kv_cache_configurator.py resolve_max_num_reqs: max(1, mrr // attn_dp) in
    # 0.5.23 (3128), mrr // attn_dp before
    per_worker_floor_one: bool
    # same function: min(that, token capacity // 2), the capacity capped by --max-total-tokens
    # (_apply_token_constraints, 0.5.23:3096-3105, 0.5.22:2777-2786) and floored to pages
    # (pool_configurator.py _compute_dsv4_sizes, 0.5.23:1464, 0.5.22:1385). Read in 0.5.22 and
    # 0.5.23 only; older releases keep "memory and --max-total-tokens never cap the requests".
    max_total_tokens_caps_requests: bool
    # --speculative-adaptive-config: its candidate steps read, steps outside them refused, the
    # largest tier served by the compress-state rings (speculative_hook.py
    # _init_adaptive_speculative_params 0.5.23:1392-1427, 0.5.22:1302-1337;
    # pool_configurator.py _assert_ring_serves_draft_tokens 0.5.23:1291-1308, 0.5.22:1252-1269).
    # Read in 0.5.22 and 0.5.23 only.
    adaptive_config_read: bool
    # the attention-DP divisor: dp-size when --enable-dp-attention (<= 0.5.21, ModelRunner.dp_size),
    # --attn-dp-size from 0.5.22 (srt/arg_groups/parallel_hook.py handle_deprecated_dp_attention)
    attn_dp_from: str  # "enable-dp-attention" | "attn-dp-size"
    # srt/environ.py SGLANG_HACK_FLASHMLA_BACKEND default (0.5.23:1051 "auto"; "tilelang" before 0.5.22)
    env_backend_default: str
    # SGLANG_DSV4_UNIFIED_KV_FP8 with PD: the switch is absent before 0.5.20; 0.5.20-0.5.21 refuse
    # it for any PD server; 0.5.22+ only with pp > 1 or --enable-hisparse
    # (srt/model_executor/pool_configurator.py check_dsv4_unified_fp8_pd_supported, 0.5.23:148)
    fp8_pd: str  # "absent" | "pd" | "pp-hisparse"
    # kv_cache_configurator.py: the draft worker's page is page_size x dcp-size (loc_space_scale,
    # 0.5.23:520) from 0.5.17 on
    dcp_draft_page_scale: bool
    # deepseek_v4_hook.py: --dsv4-attn-backend trtllm refused under PD from 0.5.20 on
    trtllm_pd_assert: bool
    args_file: str  # data/server-args-X.tsv
    # DeepSeek-V4 with FP4 (MXFP4) routed experts and --moe-runner-backend auto on CUDA with
    # --moe-a2a-backend none: the compute-capability majors for which the release picks an
    # FP4-capable runner itself, and which one. 0.5.19+ (srt/arg_groups/model_overrides/
    # deepseek_v4.py, 0.5.19:59-72, 0.5.23:67-86): flashinfer_mxfp4 on SM90/SM100/SM120;
    # 0.5.16-0.5.18: flashinfer_mxfp4 on SM120 only (srt/arg_groups/overrides.py
    # _deepseek_v4_sm120_moe, 0.5.16:1488, 0.5.18:1930); 0.5.14-0.5.15: marlin on SM120 only
    # (srt/server_args.py 0.5.14:3787); 0.5.12-0.5.13: none.
    dsv4_fp4_auto_sm: tuple[int, ...] = (9, 10, 12)
    dsv4_fp4_auto_runner: str = "flashinfer_mxfp4"
    # SGLANG_DSV4_FP4_DEQUANT (dequantise FP4 experts to FP8 at load; runner must stay auto) and the
    # humming runner: 0.5.16+ (srt/layers/quantization/fp8.py 0.5.16:365-384); absent in 0.5.14
    fp4_dequant_env: bool = True
    humming_runner: bool = True
    # DSV4 pool: bfloat16 KV on CUDA trips `assert self.store_dtype == torch.uint8` in
    # DeepSeekV4SingleKVPool.create_buffer (srt/mem_cache/deepseek_v4_memory_pool.py)
    kv_bf16_assert_at: str = "deepseek_v4_memory_pool.py:321"
    # srt/arg_groups/deepseek_v4_hook.py apply_deepseek_v4_defaults: the KV cache dtypes the hook
    # accepts for DeepSeek-V4 (0.5.12:31-33 and 0.5.13:32-34 assert fp8_e4m3 only; bfloat16 too from 0.5.14)
    dsv4_kv_dtypes: tuple[str, ...] = ("auto", "fp8_e4m3", "bfloat16")
    # the page size the hook forces on NPU (0.5.12-0.5.13 force 256 everywhere, deepseek_v4_hook.py:16)
    dsv4_npu_page_size: int = 128
    # --disaggregation-decode-extra-slots exists (absent from the 0.5.12-0.5.13 flag tables)
    has_decode_extra_slots: bool = True
    # the ROCm unified-KV backend (SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton): absent from
    # 0.5.12-0.5.13 (no such variable in srt/environ.py)
    has_unified_kv: bool = True
    # 0.5.12 refuses DeepSeek-V4 under PD with pipeline parallelism:
    # "V4 PD disaggregation requires pp_size=1" (deepseek_v4_hook.py:54-59); gone in 0.5.13
    pd_pp_refused: bool = False
    # DSPARK without --speculative-draft-model-path: the speculative hook takes the target
    # checkpoint when its config.json carries a dspark_* key, else (0.5.23 only) a `dspark/`
    # subfolder with its own config.json, else raises (`arg_groups/speculative_hook.py` _handle_dspark:
    # 0.5.23:752, 0.5.22:677, 0.5.21:654, 0.5.20:588, 0.5.19:407, 0.5.18:338, 0.5.17:320)
    dspark_subfolder: bool = False
    # pp-size > 1 with speculative decoding. "refused": any algorithm (server_args.py 0.5.12:7253,
    # 0.5.17:8723, 0.5.18:9161; arg_groups/validation_hook.py 0.5.19:54); "npu-prefill": the same
    # except NPU EAGLE on a prefill server (validation_hook.py 0.5.20:62-85); "prefill-only":
    # EAGLE only on a prefill server unless SGLANG_ENABLE_PP_SPEC (then only without PD),
    # DSPARK only on a prefill server (validation_hook.py check_pipeline_parallel_compat
    # 0.5.21:38-83, 0.5.22:118-165, 0.5.23:119-166)
    pp_spec: str = "prefill-only"
    # DSPARK's own pp check in the speculative hook (runs before validation): "pp1" (0.5.17:307 -
    # 0.5.20:567 "Currently DSpark speculative decoding only supports pp_size == 1."), "prefill"
    # (0.5.21:632, 0.5.22:655, 0.5.23:716), "" (not read)
    dspark_pp: str = "prefill"
    # where that refusal is raised in srt/model_executor/pool_configurator.py: its own function
    # from 0.5.22 (0.5.22:145, 0.5.23:148); DSV4PoolConfigurator.__init__ in 0.5.20 (1033) and
    # 0.5.21 (1077), which have no check_dsv4_unified_fp8_pd_supported
    fp8_pd_raised_in: str = "check_dsv4_unified_fp8_pd_supported"
    # the same in every release read (0.5.14 - 0.5.23):
    msg_draft_ratios: str = "DSV4 draft state transfer expects SWA-only NextN layers"
    msg_unified_mode: str = "DSV4 target and draft pools must use the same unified-KV mode"
    msg_ring: str = _RING
    msg_mapping: str = "DSV4 target and draft pools must share the SWA index mapping"
    topk_assert: str = (
        "Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM"
    )
    # the line of each DSV4 message in srt/disaggregation/utils.py setup_state_kv_args, in check
    # order (draft_ratios, unified_mode, ring, mapping, paged); () where the block is absent
    message_lines: tuple[int, ...] = ()
    # SGLang's deprecation table: a deprecated option and the (option, value) entries it names as
    # its replacement (srt/server_args.py, "Deprecated argument registrations", ``new_flag=``):
    # `--disable-cuda-graph` -> `--cuda-graph-backend-{decode,prefill}=disabled` from 0.5.14
    # (0.5.14:6378, 0.5.15:6263, 0.5.16:7220, 0.5.17:8335, 0.5.20:408, 0.5.21:345, 0.5.22:412,
    # 0.5.23:413); flags.replacement() offers it only where every option it names is a plain one
    # of the release's table (0.5.14-0.5.19's --config loader refuses cuda-graph-backend-prefill,
    # whose dest a deprecated alias shares). Replacements that name no value
    # (`--enable-dp-attention` -> `--attn-dp-size <dp-size>`, handled by SWA303 itself) are not here.
    deprecated: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
        (
            "disable-cuda-graph",
            (("cuda-graph-backend-decode", "disabled"), ("cuda-graph-backend-prefill", "disabled")),
        ),
    )
    # --cp-strategy zigzag for DeepSeek-V4: accepted on NPU only, with its own message, in 0.5.23
    # (srt/arg_groups/deepseek_v4_hook.py validate_deepseek_v4_cp 0.5.23:168-176); before, any
    # strategy but interleave is refused (0.5.16:73, 0.5.20:209)
    cp_zigzag_npu: bool = False
    # DeepSeek-V4.1 config classes (model_type deepseek_v41 / deepseek_v41_text, flattened by
    # normalize_deepseek_v41_config: srt/configs/deepseek_v41.py, registered in
    # utils/hf_transformers/common.py 0.5.21:97,222, 0.5.22:97,222, 0.5.23:99,226); absent
    # from 0.5.20 (no configs/deepseek_v41.py), where transformers refuses the model type
    v41_config: bool = True
    # where an odd DeepSeek-V4 config.json stops the launch (sglang/hfconfig.py); None for the
    # releases whose transformers pin was not read (0.5.21 and older): not checked there
    checkpoint_sites: CheckpointSites | None = None
    # a release older than DeepSeek-V4 support (FIRST_DSV4): checked only for that (SWA600), with
    # the oldest profile's flag table
    before_dsv4: bool = False
    # a fork of SGLang checked with its own flag table ("sglang-kt 0.7.2"); "" for SGLang itself
    fork: str = ""

    @property
    def checks_added_in(self) -> str:
        return FIRST_WITH_CHECKS


FIRST_WITH_CHECKS = "0.5.16"
# The first release that can run DeepSeek-V4: 0.5.12 has srt/models/deepseek_v4.py
# (class DeepseekV4ForCausalLM, 0.5.12:1021; EntryClass 1593) and lists it in
# srt/configs/model_config.py (0.5.12:119); 0.5.11 has no deepseek_v4 model, so its registry
# raises "Model architectures ['DeepseekV4ForCausalLM'] are not supported for now"
# (srt/models/registry.py, 0.5.11:48-51).
FIRST_DSV4 = "0.5.12"

_V0_5_23 = SGLangProfile(
    version="0.5.23",
    has_dsv4_block=True,
    npu_skips_block=False,
    paged_tuple_has_third=True,
    msg_paged=_PAGED_C,
    algorithms=("EAGLE", "DSPARK"),
    algorithm_assert="Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM",
    extra_slots_divisor="dp*attn_dp",
    extra_slots_floor_one=True,
    per_worker_floor_one=True,
    max_total_tokens_caps_requests=True,
    adaptive_config_read=True,
    attn_dp_from="attn-dp-size",
    env_backend_default="auto",
    fp8_pd="pp-hisparse",
    dcp_draft_page_scale=True,
    trtllm_pd_assert=True,
    args_file="server-args-0.5.23.tsv",
    kv_bf16_assert_at="deepseek_v4_memory_pool.py:321",
    dspark_subfolder=True,
    message_lines=(1786, 1790, 1806, 1819, 1836),
    cp_zigzag_npu=True,
    checkpoint_sites=_SITES_0_5_23,
)
_V0_5_22 = replace(
    _V0_5_23,
    version="0.5.22",
    kv_bf16_assert_at="deepseek_v4_memory_pool.py:285",
    paged_tuple_has_third=False,
    msg_paged=_PAGED_AB,
    extra_slots_floor_one=False,
    per_worker_floor_one=False,
    args_file="server-args-0.5.22.tsv",
    message_lines=(1720, 1724, 1740, 1753, 1765),
    cp_zigzag_npu=False,
    dspark_subfolder=False,
    checkpoint_sites=_SITES_0_5_22,
)
_V0_5_21 = replace(
    _V0_5_22,
    version="0.5.21",
    checkpoint_sites=None,
    max_total_tokens_caps_requests=False,
    adaptive_config_read=False,
    extra_slots_divisor="dp",
    attn_dp_from="enable-dp-attention",
    env_backend_default="tilelang",
    fp8_pd="pd",
    fp8_pd_raised_in="DSV4PoolConfigurator.__init__, 0.5.21:1077",
    args_file="server-args-0.5.21.tsv",
    message_lines=(1620, 1624, 1640, 1653, 1665),
    kv_bf16_assert_at="deepseek_v4_memory_pool.py (0.5.20:137, 0.5.22:285)",
)
_V0_5_20 = replace(
    _V0_5_21,
    version="0.5.20",
    fp8_pd_raised_in="DSV4PoolConfigurator.__init__, 0.5.20:1033",
    args_file="server-args-0.5.20.tsv",
    message_lines=(1596, 1600, 1616, 1629, 1641),
    kv_bf16_assert_at="deepseek_v4_memory_pool.py:137",
    pp_spec="npu-prefill",
    dspark_pp="pp1",
    v41_config=False,
)
_V0_5_19 = replace(
    _V0_5_20,
    version="0.5.19",
    pp_spec="refused",
    fp8_pd="absent",
    trtllm_pd_assert=False,
    args_file="server-args-0.5.19.tsv",
    message_lines=(1252, 1256, 1272, 1285, 1297),
    kv_bf16_assert_at="deepseek_v4_memory_pool.py:125",
)
_V0_5_18 = replace(
    _V0_5_19,
    version="0.5.18",
    args_file="server-args-0.5.18.tsv",
    message_lines=(1192, 1196, 1212, 1225, 1237),
    dsv4_fp4_auto_sm=(12,),
)
_V0_5_17 = replace(
    _V0_5_18,
    version="0.5.17",
    npu_skips_block=True,
    args_file="server-args-0.5.17.tsv",
    message_lines=(1141, 1145, 1161, 1174, 1186),
    kv_bf16_assert_at="deepseek_v4_memory_pool.py:117",
)
_V0_5_16 = replace(
    _V0_5_17,
    version="0.5.16",
    dspark_pp="",
    dcp_draft_page_scale=False,
    args_file="server-args-0.5.16.tsv",
    message_lines=(965, 969, 985, 998, 1010),
    kv_bf16_assert_at="deepseek_v4_memory_pool.py:117",
)
_V0_5_15_POST1 = replace(
    _V0_5_16,
    version="0.5.15.post1",
    has_dsv4_block=False,
    npu_skips_block=False,
    algorithms=("EAGLE",),
    algorithm_assert="Only EAGLE speculative algorithm is supported for DeepseekV4ForCausalLM",
    args_file="server-args-0.5.15.post1.tsv",
    message_lines=(),
    dsv4_fp4_auto_runner="marlin",
    kv_bf16_assert_at="deepseek_v4_memory_pool.py (0.5.14:113)",
    fp4_dequant_env=False,
    humming_runner=False,
)
_V0_5_15 = replace(_V0_5_15_POST1, version="0.5.15", args_file="server-args-0.5.15.tsv")
_V0_5_14 = replace(_V0_5_15, version="0.5.14", args_file="server-args-0.5.14.tsv")
# 0.5.12-0.5.13: read from the wheels (scripts/dump_flags.py --source reads their flag tables)
_V0_5_13 = replace(
    _V0_5_14,
    version="0.5.13",
    args_file="server-args-0.5.13.tsv",
    dsv4_fp4_auto_sm=(),
    dsv4_fp4_auto_runner="",
    dsv4_kv_dtypes=("auto", "fp8_e4m3"),
    dsv4_npu_page_size=256,
    has_decode_extra_slots=False,
    has_unified_kv=False,
    kv_bf16_assert_at="(refused earlier by the DSV4 hook)",
    deprecated=(),
)
_V0_5_12 = replace(
    _V0_5_13, version="0.5.12", args_file="server-args-0.5.12.tsv", pd_pp_refused=True
)

PROFILES: dict[str, SGLangProfile] = {
    p.version: p
    for p in (
        _V0_5_12,
        _V0_5_13,
        _V0_5_14,
        _V0_5_15,
        _V0_5_15_POST1,
        _V0_5_16,
        _V0_5_17,
        _V0_5_18,
        _V0_5_19,
        _V0_5_20,
        _V0_5_21,
        _V0_5_22,
        _V0_5_23,
    )
}
# sglang-kt (kvcache-ai's KTransformers fork, `pip install sglang-kt`): 0.7.2's flag table, read
# from its wheel with scripts/dump_flags.py --source (its add_cli_args is plain add_argument calls).
# Its base is an SGLang main branch between 0.5.11 and 0.5.12 with DeepSeek-V4 added (it lacks 69 of
# 0.5.12's options and keeps ones 0.5.12 removed, --cuda-graph-bs, --enable-double-sparsity; it
# pins flashinfer_python 0.6.3, METADATA:227), not a release: its behaviour is predicted with
# 0.5.12's, the oldest release that runs DeepSeek-V4.
SGLANG_KT = replace(_V0_5_12, args_file="server-args-sglang-kt-0.7.2.tsv", fork="sglang-kt 0.7.2")
FORKS = {"sglang-kt": SGLANG_KT}
NEWEST = _V0_5_23
DEFAULT = NEWEST
SGLANG_0_5_23 = _V0_5_23


def profile(version: str) -> SGLangProfile:
    """The profile of a release; ``KeyError`` with the known versions when there is none."""
    try:
        return PROFILES[version.removeprefix("v")]
    except KeyError:
        raise KeyError(f"swacheck knows SGLang {', '.join(PROFILES)}; not {version!r}") from None


_RELEASE = re.compile(r"v?(\d{1,4})\.(\d{1,4})\.(\d{1,4})(?:\.post(\d{1,4}))?")


@lru_cache(maxsize=64)  # asked per deployment by several rules, of the few releases a run names
def release_key(version: str) -> tuple[int, ...]:
    """``0.5.15.post1`` -> ``(0, 5, 15, 1)``; ``ValueError`` when it is not ``X.Y.Z[.postN]``."""
    m = _RELEASE.fullmatch(version)
    if m is None:
        raise ValueError(version)
    return tuple(int(g or 0) for g in m.groups())


class NewerReleaseWarning(UserWarning):
    """A ``sglang-version`` newer than every profile: the newest profile is used (:func:`lookup`)."""


@lru_cache(maxsize=16)
def _before_dsv4(version: str) -> SGLangProfile:
    return replace(PROFILES[FIRST_DSV4], version=version, before_dsv4=True)


def profile_for(version: str) -> SGLangProfile:
    """The profile that predicts a well-formed release: its own; for a release older than
    DeepSeek-V4 support, one that says so (``before_dsv4``); for one newer than every profile,
    the newest; for one between profiles (``0.5.20.post1``), the newest profile before it.
    ``ValueError`` when ``version`` is not ``X.Y.Z[.postN]``."""
    text = version.strip().removeprefix("v")
    known = PROFILES.get(text)
    if known is not None:
        return known
    key = release_key(text)
    if key < release_key(FIRST_DSV4):
        return _before_dsv4(text)
    older = [p for p in PROFILES.values() if release_key(p.version) <= key]
    return older[-1] if older else NEWEST


def lookup(version: object) -> tuple[SGLangProfile, str | None]:
    """The profile ``--sglang-version``/``sglang-version`` means, and a warning or None.

    A known release is its own profile. A well-formed release newer than every profile
    (``0.5.24``, ``0.5.23.post1``, ``0.6.0``) is predicted with the newest profile, with a
    one-line warning saying so. A release older than DeepSeek-V4 support (``0.5.10``) is a
    profile that says so (SWA600 reports it). Anything else (a release between profiles, a
    malformed version) raises ``ValueError`` with the known versions.
    """
    text = str(version).strip()
    known = PROFILES.get(text.removeprefix("v"))
    if known is not None:
        return known, None
    try:
        key = release_key(text)
    except ValueError:
        key = None
    if key is not None and key < release_key(FIRST_DSV4):
        # accepted so that the finding can say so (SWA600): no DeepSeek-V4 before FIRST_DSV4
        return _before_dsv4(text.removeprefix("v")), None
    newer = key is not None and key > release_key(NEWEST.version)
    if not newer:
        raise ValueError(
            f"must be one of {', '.join(PROFILES)}, a newer X.Y.Z or one older than {FIRST_DSV4} "
            f"(DeepSeek-V4 support), got {version!r}"
        )
    return NEWEST, (
        f"SGLang {text.removeprefix('v')} is newer than the releases swacheck knows "
        f"({next(iter(PROFILES))} - {NEWEST.version}); predicting SGLang {NEWEST.version}'s behaviour"
    )


def format_tuple(values: tuple) -> str:
    """Python's tuple repr, which is what SGLang's f-string prints."""
    return repr(tuple(values))


# ---------------------------------------------------------------------------------------------
# The DSV4 target/draft messages, per release (``swacheck why`` reads these)
# ---------------------------------------------------------------------------------------------

# the releases that compare the pools (setup_state_kv_args' DSV4 block), oldest first
VERSIONS = tuple(v for v, p in PROFILES.items() if p.has_dsv4_block)
CHECK_ORDER = ("draft_ratios", "unified_mode", "ring", "mapping", "paged")
# the line of each message in srt/disaggregation/utils.py, in CHECK_ORDER
MESSAGE_LINES = {v: PROFILES[v].message_lines for v in VERSIONS}


@record(frozen=True)
class Wording:
    """One wording of SGLang's geometry errors: its text, fields and the releases that print it."""

    kind: str  # "draft_ratios" | "unified_mode" | "ring" | "mapping" | "paged"
    text: str  # the message, up to and including "geometry:" for the tuple messages
    fields: tuple[str, ...]  # the tuple's fields; () for the messages without tuples
    versions: tuple[str, ...]  # the releases that print this wording
    check: str  # what SGLang compares there, in a few words

    @property
    def version_range(self) -> str:
        return (
            self.versions[0]
            if len(self.versions) == 1
            else f"{self.versions[0]} – {self.versions[-1]}"
        )


def _wordings() -> tuple[Wording, ...]:
    """One :class:`Wording` per distinct (kind, text, tuple fields), from the profiles' messages."""
    out: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    for kind in CHECK_ORDER:
        for v in VERSIONS:
            p = PROFILES[v]
            message = getattr(p, "msg_" + kind)
            fields: tuple[str, ...] = ()
            if kind == "ring":
                fields = ("window", "ring_size", "pages")
            elif kind == "paged":
                fields = ("page_size", "sliding_window")
                fields += ("ring_capacity",) if p.paged_tuple_has_third else ()
            out.setdefault((kind, message.split(" target=")[0], fields), []).append(v)
    return tuple(
        Wording(kind, text, fields, tuple(versions), _CHECKS[kind].format(", ".join(fields)))
        for (kind, text, fields), versions in out.items()
    )


_CHECKS = {
    "draft_ratios": "draft compression ratios (check 1 of 5)",
    "unified_mode": "unified-KV mode of the two pools (check 2 of 5)",
    "ring": "unified KV: SWA ring geometry ({})",
    "mapping": "paged KV: the SWA index mapping object (compared with `is`)",
    "paged": "paged KV: SWA geometry ({})",
}
WORDINGS = _wordings()
