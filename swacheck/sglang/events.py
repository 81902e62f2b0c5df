"""What SGLang would refuse, rewrite or fail on: the kinds of event the resolver records.

The resolver (``sglang/resolve.py`` and ``sglang/stages/``) records an :class:`Event` where SGLang
would stop or change an argument; the rules in ``swacheck/rules`` select events by :class:`Kind`
and turn them into findings. A kind is a member of the enum, never a free string: a misspelt
member is an ``AttributeError`` and :meth:`Resolution.events_of` refuses a string that names no
kind (``ValueError``). Each kind names the stage that records it (docs/sglang.md).
"""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..model.recordtype import record

if TYPE_CHECKING:
    from ..model.deployment import Arg
    from ..model.records import Location


class Kind(StrEnum):
    # the --config merger and argparse (stages/config_merge.py)
    CONFIG_NOT_YAML = "config-not-yaml"
    FORK_KEY = "fork-key"
    UNKNOWN_KEY = "unknown-key"
    UNDERSCORE_KEY = "underscore-key"
    AMBIGUOUS_KEY = "ambiguous-key"
    VALUED_FLAG = "valued-flag"
    REFUSED_KEY = "refused-key"
    BAD_VALUE = "bad-value"
    # the parallel hook (stages/parallel.py)
    DP_COMBINATION = "dp-combination"
    # the model config (stages/model_config.py)
    NOT_CHECKED = "not-checked"
    MODEL_NOT_FOUND = "model-not-found"
    MODEL_CONFIG_REFUSED = "model-config-refused"
    # a checkpoint key the config classes or ModelConfig stop on (hfconfig.py; the pools': SWA261)
    CHECKPOINT_REFUSED = "checkpoint-refused"
    V41_FEATURE_REFUSED = "v41-feature-refused"
    # the DSV4 model hook (stages/deepseek_v4.py)
    PAGE_SIZE_REPLACED = "page-size-replaced"
    KV_DTYPE_REFUSED = "kv-dtype-refused"
    TRTLLM_PD = "trtllm-pd"
    PD_PP_REFUSED = "pd-pp-refused"
    ALGORITHM_REFUSED = "algorithm-refused"
    EAGLE_TOPK_MISSING = "eagle-topk-missing"
    EAGLE_TOPK_REFUSED = "eagle-topk-refused"
    # the speculative hook (stages/speculative.py)
    EAGLE_STEPS_MISSING = "eagle-steps-missing"
    DRAFT_TOKENS_ADJUSTED = "draft-tokens-adjusted"
    DSPARK_DRAFT_MISSING = "dspark-draft-missing"
    DSPARK_GAMMA_REFUSED = "dspark-gamma-refused"
    # validation: pipeline parallelism (stages/validation.py), prefill_complete (stages/pd_disaggregation.py)
    PP_SPEC_REFUSED = "pp-spec-refused"
    PREFILL_COMPLETE_REFUSED = "prefill-complete-refused"
    # the memory pool (stages/memory_pool.py)
    ZERO_REQUESTS = "zero-requests"
    REQUESTS_CLAMPED = "requests-clamped"
    ONLINE_COMPRESS_MTP = "online-compress-mtp"
    ADAPTIVE_CONFIG_REFUSED = "adaptive-config-refused"
    ADAPTIVE_CONFIG_UNREAD = "adaptive-config-unread"
    RING_OVERFLOW = "compress-ring-overflow"
    # the unified-KV gate (stages/unified_gate.py)
    UNIFIED_FP8_PD = "unified-fp8-pd"


@record
class Event:
    """Something SGLang would refuse, rewrite or fail on; ``kind`` is what rules select on."""

    kind: Kind
    message: str
    location: Location | None = None
    arg: Arg | None = None
    data: dict[str, Any] = field(default_factory=dict)
