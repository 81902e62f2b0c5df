"""Server arguments + model configs -> each KV pool's SWA geometry, the way SGLang 0.5.23 does it.

This module owns SGLang's formulas and defaults. It applies SGLang's own resolution in
SGLang's order (``srt/arg_groups/pipeline.py`` ``run_resolution_pipeline``):

1. the ``--config`` merger (``srt/utils/server_args_config_parser.py``): which keys it takes;
2. the PD hook (``srt/arg_groups/pd_disaggregation_hook.py``): decode extra-slots default;
3. the DSV4 model hook (``srt/arg_groups/deepseek_v4_hook.py``,
   ``srt/arg_groups/model_overrides/deepseek_v4.py``): page size 256 (NPU 128) replaces any
   explicit value, max-running-requests 256 when unset, only EAGLE/DSPARK, EAGLE top-k == 1
   (asserted *before* the speculative hook fills in defaults);
4. the speculative hook (``srt/arg_groups/speculative_hook.py``): ``NEXTN`` -> ``EAGLE``,
   (steps, top-k, draft tokens) defaults, draft tokens = steps + 1 when top-k is 1, DSPARK;

then the pool formulas of ``srt/mem_cache/deepseek_v4_memory_pool.py`` and
``srt/mem_cache/kv_cache_configurator.py``, and the gate of the DSV4 block in
``srt/disaggregation/utils.py`` ``setup_state_kv_args``. Every number keeps its provenance.

What SGLang would refuse or rewrite is recorded as an :class:`Event`; the rules in
``swacheck/rules`` turn events into findings. Resolution goes on after a refusal, computing
the geometry the launch would have once that argument is corrected, so that one run shows
every problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from ..inputs import Arg, Deployment, ModelRef
from ..inputs.types import UnreadDeployment
from ..loading import Mapping, Scalar, Sequence, kind_name
from ..records import InputProblem, Location, Val
from . import flags
from .applicable import not_applicable
from .models import HUB_ENV, ModelConfig, ModelNotFound, ModelStore
from .version import DEFAULT, SGLangProfile

UNIFIED_BACKEND = "unified_kv_triton"
ENV_BACKEND = "SGLANG_HACK_FLASHMLA_BACKEND"
ENV_FP8 = "SGLANG_DSV4_UNIFIED_KV_FP8"
DSV4_PAGE_SIZE = {"npu": 128}  # else 256
DSV4_DEFAULT_MRR = 256
EAGLE_DEFAULTS = (3, 1, 4)  # (steps, topk, draft tokens) for DSV4: speculative_hook auto-choice
# Option prefixes of SGLang forks that add their own flags: SGLang-KT (kvcache-ai's KTransformers
# integration: --kt-enable-dynamic-expert-update, --kt-gpu-prefill-token-threshold, ...)
FORK_PREFIXES = ("kt-",)


@dataclass(slots=True)
class Event:
    """Something SGLang would refuse, rewrite or fail on; ``kind`` is what rules select on."""

    kind: str
    message: str
    location: Location | None = None
    arg: Arg | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, repr=False, eq=False)
class Pool:
    role: str  # "target" | "draft"
    model: ModelConfig | None
    unified: Val
    window: Val  # sliding_window of the model (unified_swa_window)
    ring_size: Val
    pages: Val
    page_size: Val
    ring_capacity: Val  # third element of the 0.5.23 paged tuple
    compression_ratios: Val | None = None

    def fields(self, mode: str, profile: SGLangProfile) -> list[tuple[str, Val]]:
        """The named values SGLang compares, in tuple order."""
        if mode == "unified":
            return [("window", self.window), ("ring_size", self.ring_size), ("pages", self.pages)]
        out = [("page_size", self.page_size), ("sliding_window", self.window)]
        if profile.paged_tuple_has_third:
            out.append(("ring_capacity", self.ring_capacity))
        return out

    def tuple(self, mode: str, profile: SGLangProfile) -> tuple:
        return tuple(v.value for _, v in self.fields(mode, profile))


@dataclass(slots=True, repr=False, eq=False)
class Resolution:
    deployment: Deployment
    profile: SGLangProfile
    values: dict[str, Val]  # resolved server arguments and derived counts, by name
    events: list[Event]
    mode: str  # "unified" | "paged" | "skipped"
    skip_reason: str = ""
    target: Pool | None = None
    draft: Pool | None = None
    pd: bool = False
    checked_by_sglang: bool = False  # SGLang would run the DSV4 target/draft block
    duplicates: list = field(default_factory=list)  # duplicate keys in every file it read
    # Not swacheck's business (sglang/applicable.py): "other" -- another model, no finding at
    # all; "no-pools" / "unknown" -- only what the reader saw in the text (SWA306, SWA307).
    quiet: str = ""

    def events_of(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]


def _ref_val(ref: ModelRef | None, role: str) -> Val | None:
    """Where a deployment file names a pool's model config, as a value with its position."""
    if ref is None:
        return None
    return Val(
        ref.path if ref.path is not None else "(inline mapping)",
        f"{role}.model_config",
        ref.location,
    )


def _merger_text(node: Any, item: bool = False) -> str:
    """The text SGLang's --config merger hands argparse for one value: ``str(value)``, JSON for a
    mapping, ``true``/``false`` for a boolean (a list item: ``str(item)``, so ``True``)."""
    if isinstance(node, Mapping):
        return json.dumps(node.plain())
    value = node.value if isinstance(node, Scalar) else node
    if isinstance(value, bool) and not item:
        return "true" if value else "false"
    return str(value)


def _default(value: Any, why: str) -> Val:
    return Val(value, f"SGLang default ({why})")


class _Resolver:
    def __init__(self, dep: Deployment, models: ModelStore, profile: SGLangProfile):
        self.dep = dep
        self.models = models
        self.profile = profile
        self.events: list[Event] = []
        self.values: dict[str, Val] = {}
        self._bad_seen: set[int] = set()

    # ---------------------------------------------------------------- reading args

    def events_of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def event(
        self,
        kind: str,
        message: str,
        arg: Arg | None = None,
        location: Location | None = None,
        **data: Any,
    ) -> None:
        loc = location or (arg.key_loc if arg else None)
        self.events.append(Event(kind, message, loc, arg, data))

    def arg(self, name: str) -> Arg | None:
        return self.dep.server.get(name)

    def _bad(self, arg: Arg, expected: str, said: str = "", node: Any = None) -> None:
        if id(arg.pair) in self._bad_seen:  # one refusal per value (check_values ran first)
            return
        self._bad_seen.add(id(arg.pair))
        node = node if node is not None else arg.node
        self.event(
            "bad-value",
            f"{arg.written}: SGLang's argument parser rejects {kind_name(node)}; expected {expected}"
            + (f" ({said})" if said else ""),
            arg,
            location=node.loc,
            expected=expected,
        )

    def check_values(self) -> None:
        """argparse's type and choices check of every value, not only those the resolver reads.

        The ``--config`` merger (``srt/utils/server_args_config_parser.py`` ``_convert_config_to_args``,
        unchanged 0.5.17-0.5.23) emits ``--KEY str(value)`` (a list: ``--KEY item ...``, a mapping:
        its JSON, a boolean of a valued option: ``true``/``false``); a store_true key is emitted
        bare for ``true``, dropped for ``false``, and for any other value becomes ``--KEY VALUE``,
        which argparse refuses: ``error: unrecognized arguments: VALUE``.
        """
        table = flags.options(self.profile)
        for arg in self.dep.server.entries:
            option = (
                table.get(arg.written)
                if arg.how == "exact"
                else flags.match(arg.written, self.profile).option
            )
            if arg.how not in ("exact", "prefix") or option is None:
                continue
            node = arg.node
            if arg.kind == "store_true":
                if arg.cli or isinstance(arg.value, bool) or arg.value == []:
                    continue
                emitted = (
                    [_merger_text(i, True) for i in node.items]
                    if isinstance(node, Sequence)
                    else [_merger_text(node)]
                )
                said = f"--{arg.written} {' '.join(emitted)}: error: unrecognized arguments: {' '.join(emitted)}"
                self._bad(arg, "true or false", f"SGLang's --config loader passes it on as {said}")
            elif arg.kind in ("store", "store-list"):
                if isinstance(node, Sequence):
                    if arg.kind != "store-list":
                        continue  # a list for a one-value option: the resolver's "a single value"
                    items = list(node.items)
                else:
                    items = [node]
                for item in items:
                    if not isinstance(item, (Scalar, Mapping)):
                        continue
                    refusal = flags.value_refusal(option, _merger_text(item, item is not node))
                    if refusal is not None:
                        expected = refusal[0]
                        if (
                            option.choices
                            and isinstance(item, Scalar)
                            and item.value is None
                            and not arg.cli
                        ):
                            expected += " (quote 'null': an unquoted YAML null reaches SGLang as the text None)"
                        self._bad(arg, expected, f"argparse: error: {refusal[1]}", item)
                        break

    def typed_arg(self, name: str) -> Val | None:
        """A value as argparse reads the text the --config merger emits for it.

        The merger writes ``str(value)`` (``srt/utils/server_args_config_parser.py``): ``"128"``
        is a valid int, ``128.0``, ``true`` and ``null`` (text ``None``) are not.
        """
        arg = self.arg(name)
        if arg is None or arg.kind.startswith("refused"):
            return None
        option = flags.options(self.profile).get(name)
        node = arg.node
        if not isinstance(node, Scalar):
            self._bad(arg, "a single value")
            return None
        text = "true" if node.value is True else "false" if node.value is False else str(node.value)
        value: Any = text
        if option is not None and option.type == "int":
            try:
                value = int(text.strip())
            except ValueError:
                self._bad(arg, "an integer")
                return None
        if option is not None and option.choices and text not in option.choices:
            hint = (
                " (quote 'null': an unquoted YAML null reaches SGLang as the text None)"
                if node.value is None
                else ""
            )
            self._bad(arg, "one of " + ", ".join(option.choices) + hint)
            return None
        return Val(value, arg.written, arg.value_loc)

    def int_arg(self, name: str, minimum: int | None = None) -> Val | None:
        val = self.typed_arg(name)
        if val is not None and not isinstance(val.value, int):
            return None  # not an option of this release (SWA303): no type, and SGLang stops anyway
        if val is not None and minimum is not None and val.value < minimum:
            arg = self.arg(name)
            assert arg is not None
            self._bad(
                arg, "a positive integer" if minimum == 1 else f"an integer of at least {minimum}"
            )
            return None
        return val

    def str_arg(self, name: str) -> Val | None:
        return self.typed_arg(name)

    def flag_arg(self, name: str) -> Val | None:
        """A store_true flag: the merger emits it only for YAML ``true``."""
        arg = self.arg(name)
        if arg is None:
            return None
        if not isinstance(arg.value, bool):
            self._bad(arg, "true or false")
            return None
        return Val(arg.value, arg.written, arg.value_loc)

    # ---------------------------------------------------------------- stages

    def check_keys(self) -> None:
        """The --config merger and argparse: which keys SGLang takes (server_args_config_parser.py)."""
        server = self.dep.server
        standalone = server.mapping is not None and (
            server.file != self.dep.file or server.mapping.loc == self.dep.location
        )
        if server.file and server.file.lower().endswith(".json") and standalone:
            self.event(
                "config-not-yaml",
                "SGLang's --config accepts only .yaml/.yml files",
                location=server.mapping.loc,
            )  # type: ignore[union-attr]
        for arg in server.entries:
            if arg.how == "unknown" and arg.written.replace("_", "-").startswith(FORK_PREFIXES):
                # a fork's own flag (SGLang-KT adds --kt-* beyond upstream's six): left alone, noted once (SWA303)
                self.event(
                    "fork-key",
                    f"{arg.written!r} is not an SGLang {self.profile.version} option",
                    arg,
                    fork="SGLang-KT",
                )
            elif arg.how == "unknown":
                self.event(
                    "unknown-key",
                    f"unknown server argument {arg.written!r}",
                    arg,
                    suggestion=flags.did_you_mean(arg.written, self.profile),
                )
            elif (
                arg.how == "underscore"
                and not arg.kind.startswith("refused:")
                and not (arg.kind == "store_true" and arg.value is False)
            ):
                # the merger looks the action up with underscores: a refused action fails there first,
                # and an underscored store_true key set to false emits nothing, so argparse never sees it
                self.event(
                    "underscore-key",
                    f"{arg.written!r} is spelled with underscores",
                    arg,
                    canonical=flags.match(arg.written, self.profile).option.name,
                )  # type: ignore[union-attr]
            elif arg.how == "ambiguous":
                cands = flags.match(arg.written, self.profile).candidates
                self.event(
                    "ambiguous-key",
                    f"{arg.written!r} is an ambiguous abbreviation",
                    arg,
                    candidates=cands,
                )
            if arg.kind.startswith("valued-flag:") and arg.value is True:
                self.event(
                    "valued-flag",
                    f"SGLang's --config loader passes {arg.written!r} on as --{arg.written} true",
                    arg,
                    action=arg.kind.split(":", 1)[1],
                )
            if arg.kind.startswith("refused:"):
                self.event(
                    "refused-key",
                    f"SGLang's --config loader refuses {arg.written!r}",
                    arg,
                    action=arg.kind.split(":", 1)[1],
                )

    def model(
        self, ref: ModelRef | None, path_val: Val | None, role: str, revision: Val | None
    ) -> ModelConfig | None:
        if ref is not None:
            if ref.inline is not None:
                return ModelStore.inline(
                    ref.inline, f"{self.dep.file} (inline {role}.model_config)"
                )
            assert ref.path is not None
            return self.models.from_path(ref.path, ref.base_dir, ref.location)
        if path_val is None:
            return None
        hub_env = {
            k: str(v.value) for k, v in self.dep.env.items() if k in HUB_ENV and v.value
        }  # the server's hub cache
        return self.models.from_path(
            path_val.value,
            self.dep.server.base_dir,
            path_val.location,
            revision.value if revision else None,
            hub_env,
        )

    def overrides(self) -> dict[str, Val]:
        """``json-model-override-args``: applied to the target's and the draft's model config."""
        arg = self.arg("json-model-override-args")
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
                self._bad(arg, f"a JSON object ({exc.msg} at character {exc.pos})")
                return {}
            locs = {}
        else:
            self._bad(arg, "a JSON object")
            return {}
        if not isinstance(data, dict):
            self._bad(arg, "a JSON object")
            return {}
        return {
            k: Val(v, f"{arg.written} override", locs.get(k, arg.value_loc))
            for k, v in data.items()
        }

    def window(
        self,
        model: ModelConfig | None,
        overrides: dict[str, Val],
        role: str,
        explicit: Val | None,
        source: Val | None,
    ) -> Val:
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
                self.dep.location,
            )
        val = model.int_field("sliding_window")
        if (
            val is None
            and model.model_type == "deepseek_v4"
            and model.file is not None
            and not model.private
        ):
            raise _ModelConfigRefused(role, model)
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

    # ---------------------------------------------------------------- main

    def rematch(self) -> None:
        """Match the written keys against the selected release's options (inputs used the newest)."""
        server = self.dep.server
        entries = []
        for arg in server.entries:
            m = flags.match(arg.written, self.profile)
            name = m.option.canonical if m.option is not None else arg.written.replace("_", "-")
            kind = (
                (flags.cli_kind(m.option) if arg.cli else m.option.kind)
                if m.option is not None
                else "unknown"
            )
            entries.append(Arg(name, arg.written, arg.pair, m.how, kind, arg.cli))
        self.dep = replace(
            self.dep, server=replace(server, args={a.name: a for a in entries}, entries=entries)
        )

    def run(self) -> Resolution:
        if self.profile is not DEFAULT:
            self.rematch()
        dep, profile = self.dep, self.profile
        v = self.values
        platform = dep.platform
        v["platform"] = platform
        self.check_keys()
        self.check_values()

        # parallel hook: --enable-dp-attention means attn_dp_size = dp_size, dp_size = 1
        # (srt/arg_groups/parallel_hook.py handle_deprecated_dp_attention). In a --config file
        # the merger refuses the key (SWA303); swacheck resolves what it was meant to say.
        dp_size = self.int_arg("dp-size", 1) or _default(1, "--dp-size")
        dp_attn = self.arg("enable-dp-attention")
        if profile.attn_dp_from == "enable-dp-attention":
            # before 0.5.22 the attention-DP divisor is dp-size when --enable-dp-attention is on
            on = dp_attn is not None and dp_attn.value is True
            attn_dp = (
                Val(
                    dp_size.value, f"dp-size {dp_size.value} (enable-dp-attention)", dp_attn.key_loc
                )
                if on
                else _default(1, "no enable-dp-attention")
            )  # type: ignore[union-attr]
        else:
            attn_dp = self.int_arg("attn-dp-size", 1) or _default(1, "--attn-dp-size")
            if dp_attn is not None and dp_attn.value is True and attn_dp.value == 1:
                attn_dp = Val(
                    dp_size.value,
                    f"dp-size {dp_size.value} (what enable-dp-attention means)",
                    dp_attn.key_loc,
                )
                dp_size = Val(
                    1, "enable-dp-attention turns dp-size into attn-dp-size", dp_attn.key_loc
                )
        if profile.attn_dp_from == "attn-dp-size" and dp_size.value > 1 and attn_dp.value > 1:
            self.event(
                "dp-combination",
                f"--dp-size {dp_size.value} with --attn-dp-size {attn_dp.value}: data-parallel replicas combined "
                "with attention data parallelism are not supported",
                self.arg("attn-dp-size") or self.arg("dp-size"),
            )
        v["dp_size"], v["attn_dp_size"] = dp_size, attn_dp

        # PD hook (srt/arg_groups/pd_disaggregation_hook.py:129-143) ---------------
        mode_val = self.str_arg("disaggregation-mode") or _default("null", "--disaggregation-mode")
        pd_mode = mode_val.value
        pd = pd_mode in ("prefill", "decode") or dep.assume_pd
        v["disaggregation_mode"] = mode_val
        mrr_explicit = self.int_arg("max-running-requests")
        extra = self.int_arg("disaggregation-decode-extra-slots", 0)
        if pd_mode != "decode" or not profile.has_decode_extra_slots:
            extra = _default(
                0,
                "only a PD decode server pre-allocates request slots"
                if profile.has_decode_extra_slots
                else f"no decode extra slots in SGLang {profile.version}",
            )
        elif extra is None:
            if mrr_explicit is None:
                extra = _default(0, "PD hook: max-running-requests unset when it runs")
            else:
                divisor = dp_size.value * (
                    attn_dp.value if profile.extra_slots_divisor == "dp*attn_dp" else 1
                )
                per = mrr_explicit.value // max(1, divisor)
                if profile.extra_slots_floor_one:
                    per = max(1, per)
                extra = Val(
                    2 * per if per <= 32 else 0,
                    f"PD hook: 2 x per-worker requests {per}"
                    if per <= 32
                    else f"PD hook: per-worker requests {per} > 32",
                    None,
                    (
                        ("max-running-requests", mrr_explicit),
                        ("dp-size", dp_size),
                        ("attn-dp-size", attn_dp),
                    ),
                )
        v["decode_extra_slots"] = extra

        # the target model: SGLang loads it at argument resolution ----------------
        revision = self.str_arg("revision")
        model_path = self.str_arg("model-path")
        try:
            target_model = self.model(dep.target_model, model_path, "target", revision)
        except ModelNotFound as missing:
            # Quiet on what isn't ours: a launch that cannot involve a DSV4 pool pair or PD pair
            # needs no config.json (sglang/applicable.py).
            speculative = self.arg("speculative-algorithm") is not None
            why = not_applicable(dep, missing.model_path, missing.mapped, speculative, pd)
            if why is None:
                raise
            if why[1]:
                self.event("not-checked", why[0], location=missing.location)
            res = self.skipped(why[0], pd)
            res.quiet = (
                "unknown"
                if why[1]
                else (
                    "no-pools" if why[0].startswith("not applicable: no speculative") else "other"
                )
            )
            return res
        tg, dg = dep.target_geometry, dep.draft_geometry
        if target_model is not None and not target_model.is_dsv4:
            archs = (
                "not DeepseekV4ForCausalLM"
                if target_model.private
                else (", ".join(target_model.architectures) or "none")
            )
            res = self.skipped(f"not a DeepSeek-V4 target (architectures: {archs})", pd)
            res.quiet = "other"
            return res
        if target_model is None and not tg.values:
            raise InputProblem(
                "the deployment names no model: give the server's model-path or target.model_config",
                dep.location,
            )

        # DSV4 model hook (model_overrides/deepseek_v4.py, deepseek_v4_hook.py:63-158) ---
        is_npu = platform.value == "npu"
        page_default = profile.dsv4_npu_page_size if is_npu else 256
        page_arg = self.int_arg("page-size")
        page = Val(
            page_default,
            "SGLang default (DSV4 override" + (", NPU)" if is_npu else ")"),
            None,
            (("platform", platform),),
        )
        if page_arg is not None and page_arg.value != page_default:
            self.event(
                "page-size-replaced",
                f"page-size {page_arg.value} is replaced by {page_default}",
                self.arg("page-size"),
                value=page_arg.value,
                forced=page_default,
            )
        v["page_size"] = page
        kv_dtype = self.str_arg("kv-cache-dtype")
        if kv_dtype is not None and kv_dtype.value not in profile.dsv4_kv_dtypes:
            self.event(
                "kv-dtype-refused",
                f"kv-cache-dtype {kv_dtype.value!r} is not supported for DeepSeek-V4",
                self.arg("kv-cache-dtype"),
                value=kv_dtype.value,
            )
        attn_backend = self.str_arg("dsv4-attn-backend")
        if (
            profile.trtllm_pd_assert
            and attn_backend is not None
            and attn_backend.value == "trtllm"
            and pd_mode != "null"
        ):
            self.event(
                "trtllm-pd",
                "--dsv4-attn-backend trtllm does not support PD disaggregation yet",
                self.arg("dsv4-attn-backend"),
            )
        pp = self.int_arg("pp-size", 1) if profile.pd_pp_refused and pd_mode != "null" else None
        if pp is not None and pp.value > 1:
            # 0.5.12 deepseek_v4_hook.py:54-59 (get_mla_kv_ptrs_with_pp cannot slice V4's KV by PP layer range)
            self.event(
                "pd-pp-refused",
                f"V4 PD disaggregation requires pp_size=1, got pp_size={pp.value}.",
                self.arg("pp-size"),
                value=pp.value,
            )
        mrr = mrr_explicit or _default(DSV4_DEFAULT_MRR, "DSV4 hook, max-running-requests unset")
        v["max_running_requests"] = mrr

        spec_arg = self.arg("speculative-algorithm")
        algo_val = self.str_arg("speculative-algorithm")
        raw = algo_val.value if algo_val else None
        algo: str | None = raw
        if raw is not None and raw not in profile.algorithms:
            # Checked on the raw text, before the speculative hook upper-cases it and maps NEXTN.
            self.event(
                "algorithm-refused",
                f"speculative-algorithm {raw!r} is not supported for DeepSeek-V4",
                spec_arg,
                algorithm=raw,
            )
            upper = raw.upper()
            algo = (
                "EAGLE"
                if upper in ("NEXTN", "EAGLE")
                else "DSPARK"
                if upper == "DSPARK" and "DSPARK" in profile.algorithms
                else None
            )
        no_server = dep.server.mapping is None
        if no_server and dg.values:
            algo = "EAGLE"  # numbers copied from a log: a draft pool existed
        v["speculative_algorithm"] = (
            Val(algo, spec_arg.written, spec_arg.value_loc)
            if (algo and spec_arg)
            else _default(algo, "no speculative decoding")
        )

        steps = self.int_arg("speculative-num-steps", 0)
        topk = self.int_arg("speculative-eagle-topk")
        ndt = self.int_arg("speculative-num-draft-tokens")
        refused = bool(self.events_of("algorithm-refused"))
        topk_written = (
            self.arg("speculative-eagle-topk") is not None
        )  # even with a bad value (SWA304)
        if algo == "EAGLE" and not no_server and (topk is None or topk.value != 1):
            if not topk_written and not refused:  # the algorithm fix adds top-k 1 as well
                self.event(
                    "eagle-topk-missing",
                    "EAGLE needs an explicit speculative-eagle-topk: 1 for DeepSeek-V4",
                    spec_arg,
                )
            elif topk is not None:
                self.event(
                    "eagle-topk-refused",
                    f"speculative-eagle-topk {topk.value} is not supported for DeepSeek-V4",
                    self.arg("speculative-eagle-topk"),
                    value=topk.value,
                )
        if algo == "EAGLE" and (topk is None or topk.value != 1):
            topk = Val(1, "the only top-k SGLang accepts for DeepSeek-V4 EAGLE")

        # speculative hook (speculative_hook.py _handle_eagle_family / _handle_dspark) ---
        draft_tokens: Val | None = None
        if algo == "EAGLE":
            adaptive = self.flag_arg("speculative-adaptive")
            if steps is None and adaptive is not None and adaptive.value and attn_dp.value <= 1:
                steps = Val(
                    3,
                    "adaptive speculative default: middle of steps [0, 1, 3, 5, 7]",
                    adaptive.location,
                )
            if steps is None:
                # SGLang stops at the DSV4 top-k assertion first; the fixes for a missing top-k or a
                # refused algorithm insert num-steps too, and a written but invalid value is SWA304's.
                if (
                    not no_server
                    and topk_written
                    and not refused
                    and self.arg("speculative-num-steps") is None
                ):
                    self.event(
                        "eagle-steps-missing",
                        "EAGLE with speculative-eagle-topk set needs speculative-num-steps",
                        self.arg("speculative-eagle-topk") or spec_arg,
                    )
                steps = Val(3, "assumed: SGLang's auto choice for DeepSeek-V4 is 3 steps")
            draft_tokens = Val(
                steps.value + 1,
                f"speculative-num-steps {steps.value} + 1 (top-k 1)",
                None,
                (("speculative-num-steps", steps),),
            )
            if ndt is not None and ndt.value != draft_tokens.value:
                self.event(
                    "draft-tokens-adjusted",
                    f"speculative-num-draft-tokens {ndt.value} is reset to {draft_tokens.value}",
                    self.arg("speculative-num-draft-tokens"),
                    value=ndt.value,
                    resolved=draft_tokens.value,
                )
        elif algo == "DSPARK":
            draft_tokens = None  # needs the draft checkpoint: resolved below
        if steps is not None and algo == "EAGLE":
            v["speculative_num_steps"] = steps
        if topk is not None:
            v["speculative_eagle_topk"] = topk

        if not no_server:
            self.pipeline_speculative(algo, pd_mode, attn_dp, platform)
            self.prefill_complete(pd_mode, attn_dp)

        # memory pool configuration (kv_cache_configurator.py resolve_max_num_reqs) ---
        per_worker_value = mrr.value // max(1, attn_dp.value)
        per_worker = Val(
            max(1, per_worker_value) if profile.per_worker_floor_one else per_worker_value,
            f"max-running-requests {mrr.value} // attn-dp-size {attn_dp.value} (memory assumed not to cap it)",
            None,
            (("max-running-requests", mrr), ("attn-dp-size", attn_dp)),
        )
        slots = Val(
            per_worker.value + extra.value + 1,
            f"per-worker requests {per_worker.value} + decode extra slots {extra.value} + 1 padding row",
            None,
            (("per-worker max-running-requests", per_worker), ("decode extra slots", extra)),
        )
        v["per_worker_max_running_requests"], v["request_slots"] = per_worker, slots
        mrr_arg = self.arg("max-running-requests")
        if per_worker_value <= 0 and not profile.per_worker_floor_one:
            self.event(
                "zero-requests",
                f"max-running-requests {mrr.value} // attn-dp-size {attn_dp.value} is "
                f"{per_worker_value} requests per worker: "
                "AssertionError: max_running_request is zero (managers/tp_worker.py)",
                mrr_arg,
                location=mrr_arg.value_loc if mrr_arg else None,
            )
        elif mrr.value <= 0 or mrr.value < attn_dp.value:
            self.event(
                "requests-clamped",
                f"max-running-requests {mrr.value} gives "
                f"{per_worker_value if per_worker_value > 0 else 0} requests per worker; "
                f"SGLang {profile.version} raises it to 1 (max(1, max-running-requests // attn-dp-size))",
                mrr_arg,
                location=mrr_arg.value_loc if mrr_arg else None,
            )

        # unified gate (srt/layers/attention/dsv4/unified_kv_gate.py) ------------------
        backend = dep.env.get(ENV_BACKEND)
        unified_on = (
            platform.value == "rocm"
            and backend is not None
            and backend.value == UNIFIED_BACKEND
            and profile.has_unified_kv
        )
        backend_text = backend.value if backend else f"unset ({profile.env_backend_default})"
        unified = Val(
            unified_on,
            f"ROCm and {ENV_BACKEND}=unified_kv_triton"
            if unified_on
            else f"{platform.value}, {ENV_BACKEND}={backend_text}",
            None,
            (("platform", platform),) + ((("env " + ENV_BACKEND, backend),) if backend else ()),
        )
        fp8 = dep.env.get(ENV_FP8)
        if (
            profile.fp8_pd == "pd"
            and unified_on
            and pd_mode != "null"
            and fp8 is not None
            and fp8.value.lower() in ("1", "true", "yes", "y")
        ):
            self.event(
                "unified-fp8-pd",
                "SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation",
                location=fp8.location,
                why="pd",
                env=fp8,
            )
        if (
            profile.fp8_pd == "pp-hisparse"
            and unified_on
            and pd_mode != "null"
            and fp8 is not None
            and fp8.value.lower() in ("1", "true", "yes", "y")
        ):
            pp = self.int_arg("pp-size", 1)
            hisparse = self.flag_arg("enable-hisparse")
            if pp is not None and pp.value > 1:
                self.event(
                    "unified-fp8-pd",
                    f"SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with pp_size={pp.value}",
                    self.arg("pp-size"),
                    why="pp-size",
                    env=fp8,
                )
            if hisparse is not None and hisparse.value:
                self.event(
                    "unified-fp8-pd",
                    "SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with --enable-hisparse",
                    self.arg("enable-hisparse"),
                    why="enable-hisparse",
                    env=fp8,
                )

        overrides = self.overrides()
        target_source = _ref_val(dep.target_model, "target") or model_path
        target = self.pool(
            "target",
            target_model,
            overrides,
            unified,
            page,
            slots,
            draft_tokens,
            tg.values,
            target_source,
        )

        draft: Pool | None = None
        if algo is not None:
            draft_path = self.str_arg("speculative-draft-model-path")
            if draft_path is None and model_path is not None:
                draft_path = Val(
                    model_path.value,
                    "model-path (SGLang's default draft for DeepSeek-V4 MTP)",
                    model_path.location,
                )
            v["speculative_draft_model_path"] = draft_path or _default(None, "no model-path")
            draft_rev = self.str_arg("speculative-draft-model-revision") or (
                revision if self.arg("speculative-draft-model-path") is None else None
            )
            ref = dep.draft_model
            if (
                ref is None
                and self.arg("speculative-draft-model-path") is None
                and dep.target_model is not None
            ):
                ref = dep.target_model
            draft_model = self.model(ref, draft_path, "draft", draft_rev)
            if (
                algo == "DSPARK"
                and ref is None
                and self.arg("speculative-draft-model-path") is None
            ):
                self.dspark_draft_missing(target_model, spec_arg, model_path)
            if algo == "DSPARK":
                draft_tokens = self.dspark_draft_tokens(draft_model, ndt)
            draft_page = page
            dcp = self.int_arg("dcp-size", 1)
            if profile.dcp_draft_page_scale and dcp is not None and dcp.value > 1:
                draft_page = Val(
                    page.value * dcp.value,
                    f"page size {page.value} x dcp-size {dcp.value} (draft worker loc_space_scale)",
                    dcp.location,
                    (("page size", page), ("dcp-size", dcp)),
                )
            draft_source = _ref_val(ref, "draft") if ref is not None else draft_path
            draft = self.pool(
                "draft",
                draft_model,
                overrides,
                unified,
                draft_page,
                slots,
                draft_tokens,
                dg.values,
                draft_source,
            )
            if algo == "DSPARK":
                target = self.pool(
                    "target",
                    target_model,
                    overrides,
                    unified,
                    page,
                    slots,
                    draft_tokens,
                    tg.values,
                    target_source,
                )
        elif dg.values:
            raise InputProblem(
                "draft.geometry is given but the server runs no speculative decoding", dep.location
            )
        if draft_tokens is not None:
            v["speculative_num_draft_tokens"] = draft_tokens

        self.online_compress_mtp(target_model, draft, platform)

        mode = "unified" if target.unified.value else "paged"
        checked = (
            pd
            and draft is not None
            and profile.has_dsv4_block
            and not (is_npu and profile.npu_skips_block)
        )
        skip = ""
        if draft is None:
            mode, skip = (
                "skipped",
                "no speculative decoding, so no draft pool: SGLang compares nothing",
            )
        duplicates = list(dep.duplicates)
        seen: set[int] = set()
        for pool in (target, draft):
            if pool is not None and pool.model is not None and id(pool.model) not in seen:
                seen.add(id(pool.model))
                duplicates.extend(pool.model.duplicates)
        return Resolution(
            dep, profile, v, self.events, mode, skip, target, draft, pd, checked, duplicates
        )

    def _plain_int(self, name: str, default: int) -> int:
        """An integer argument for a condition (a bad value is SWA304's: the default then)."""
        arg = self.arg(name)
        if arg is None or not isinstance(arg.node, Scalar):
            return default
        try:
            return int(str(arg.node.value).strip())
        except ValueError:
            return default

    def _env_on(self, name: str) -> bool:
        val = self.dep.env.get(name)
        return val is not None and val.value.lower() in ("1", "true", "yes", "y")

    def pipeline_speculative(
        self, algo: str | None, pd_mode: str, attn_dp: Val, platform: Val
    ) -> None:
        """pp-size > 1 with speculative decoding, per release (``SGLangProfile.pp_spec`` cites the code)."""
        pp = self._plain_int("pp-size", 1)
        if algo is None or pp <= 1:
            return
        prof = self.profile
        arg = self.arg("pp-size")
        where = f"pp-size {pp} with speculative-algorithm {algo}"
        if algo == "DSPARK" and prof.dspark_pp == "pp1":
            self.event(
                "pp-spec-refused",
                f"{where}: ValueError: Currently DSpark speculative decoding only supports "
                f"pp_size == 1. (speculative hook)",
                arg,
            )
            return
        if algo == "DSPARK" and prof.dspark_pp == "prefill" and pd_mode != "prefill":
            self.event(
                "pp-spec-refused",
                f"{where} on a {'decode' if pd_mode == 'decode' else 'non-PD'} server: "
                f"ValueError: DSpark pipeline parallelism "
                "requires PD prefill; decode and non-disaggregated serving require pp_size == 1. (speculative hook)",
                arg,
            )
            return
        if prof.pp_spec == "refused" or (prof.pp_spec == "npu-prefill" and platform.value != "npu"):
            self.event(
                "pp-spec-refused",
                f"{where}: AssertionError: Pipeline parallelism is not compatible with "
                f"overlap schedule, speculative decoding",
                arg,
            )
        elif prof.pp_spec == "npu-prefill":
            if algo != "EAGLE" or self.flag_value("enable-multi-layer-eagle"):
                self.event(
                    "pp-spec-refused",
                    f"{where}: AssertionError: Pipeline parallelism currently only supports "
                    f"EAGLE (non-multi-layer) speculative decoding",
                    arg,
                )
            elif pd_mode != "prefill":
                self.event(
                    "pp-spec-refused",
                    f"{where}: AssertionError: NPU PP + speculative decoding (MTP) is only "
                    f"supported on prefill nodes (disaggregation-mode=prefill)",
                    arg,
                )
        elif algo == "DSPARK":  # prefill-only: a PD prefill server
            if self._env_on("SGLANG_ENABLE_PP_SPEC"):
                self.event(
                    "pp-spec-refused",
                    f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC does not support DSPARK PD prefill",
                    arg,
                )
        elif self.flag_value("enable-multi-layer-eagle"):
            self.event(
                "pp-spec-refused",
                f"{where}: AssertionError: Pipeline parallelism currently only supports "
                f"EAGLE (non-multi-layer) speculative decoding",
                arg,
            )
        elif self._env_on("SGLANG_ENABLE_PP_SPEC"):
            if pd_mode != "null":
                self.event(
                    "pp-spec-refused",
                    f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with --disaggregation-mode",
                    arg,
                )
            elif self.flag_value("speculative-adaptive"):
                self.event(
                    "pp-spec-refused",
                    f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with --speculative-adaptive",
                    arg,
                )
            elif attn_dp.value > 1:
                self.event(
                    "pp-spec-refused",
                    f"{where}: AssertionError: SGLANG_ENABLE_PP_SPEC is not compatible with attention DP",
                    arg,
                )
        elif pd_mode != "prefill":
            self.event(
                "pp-spec-refused",
                f"{where} on a {'decode' if pd_mode == 'decode' else 'non-PD'} server: "
                f"AssertionError: PP + speculative decoding (MTP) "
                "is only supported on prefill nodes (disaggregation-mode=prefill)",
                arg,
            )

    def flag_value(self, name: str) -> bool:
        arg = self.arg(name)
        return arg is not None and arg.value is True

    def prefill_complete(self, pd_mode: str, attn_dp: Val) -> None:
        """``--disaggregation-decode-allocation-policy prefill_complete`` and what it does not support.

        ``_validate_prefill_complete`` (``arg_groups/pd_disaggregation_hook.py`` 0.5.23:199-242,
        0.5.22:205-248; the option appears in 0.5.22): one ``ValueError`` listing every unsupported
        feature. swacheck lists those a server config decides; the environment-driven ones
        (staging buffers, the Rust bootstrap registry) and PD multiplexing are not read.
        """
        arg = self.arg("disaggregation-decode-allocation-policy")
        if (
            arg is None
            or not isinstance(arg.node, Scalar)
            or str(arg.node.value) != "prefill_complete"
            or arg.how not in ("exact", "prefix")
        ):
            return
        unsupported = []
        if pd_mode not in ("prefill", "decode"):
            unsupported.append("aggregated serving")
        backend = self.arg("disaggregation-transfer-backend")
        if (
            backend is not None
            and isinstance(backend.node, Scalar)
            and str(backend.node.value) not in ("mooncake", "mooncake_tcp")
        ):
            unsupported.append("transfer backends other than Mooncake")
        if any(self._plain_int(n, 1) != 1 for n in ("pp-size", "attn-cp-size", "dcp-size")):
            unsupported.append("pipeline or attention context parallelism")
        # attn_dp_size = dp_size if enable_dp_attention else 1; tp_size must equal it
        # (pd_disaggregation_hook.py 0.5.23:208-210). enable_dp_attention is always False by then:
        # the deprecated-flag handler runs first and clears it (parallel_hook.py 0.5.23:50-61,
        # pipeline.py:45 before :138), so any tp-size > 1 is refused, attention DP or not
        if self._plain_int("tp-size", 1) > 1:
            unsupported.append("attention tensor parallelism greater than one")
        if self.flag_value("enable-pd-role-switch"):
            unsupported.append("runtime PD role switching")
        if self.flag_value("enable-hisparse"):
            unsupported.append("HiSparse")
        threshold = self.arg("disaggregation-decode-host-receive-threshold")
        if threshold is not None and isinstance(threshold.node, Scalar):
            try:
                if float(str(threshold.node.value)) < 1:
                    unsupported.append("decode host KV buffering")
            except ValueError:
                pass
        if pd_mode == "decode" and (
            self.flag_value("disaggregation-decode-enable-radix-cache")
            or self.flag_value("enable-hierarchical-cache")
        ):
            unsupported.append("decode radix cache or decode HiCache")
        if unsupported:
            self.event(
                "prefill-complete-refused",
                "ValueError: --disaggregation-decode-allocation-policy prefill_complete does not yet support "
                + ", ".join(unsupported),
                arg,
                location=arg.value_loc,
            )

    def online_compress_mtp(
        self, target: ModelConfig | None, draft: Pool | None, platform: Val
    ) -> None:
        """``SGLANG_OPT_USE_ONLINE_COMPRESS=1`` with speculative decoding on CUDA: the DSV4 pool asserts.

        ``get_compress_state_ring_size`` (``mem_cache/deepseek_v4_memory_pool.py`` 0.5.23:72-74,
        0.5.22:62-64, 0.5.20:48-50, 0.5.17:41-43): ``ONLINE_C128 = not _is_hip and
        SGLANG_OPT_USE_ONLINE_COMPRESS``; a c128 layer of a speculative server raises
        ``AssertionError: online c128 does not support MTP`` unless
        ``SGLANG_EXPERIMENTAL_ONLINE_C128_MTP`` is on. Reported when the target's config.json
        lists a compression ratio of 128.
        """
        env = self.dep.env
        on = env.get("SGLANG_OPT_USE_ONLINE_COMPRESS")
        if (
            draft is None
            or platform.value != "cuda"
            or on is None
            or on.value.lower() not in ("1", "true", "yes", "y")
        ):
            return
        mtp = env.get("SGLANG_EXPERIMENTAL_ONLINE_C128_MTP")
        if mtp is not None and mtp.value.lower() in ("1", "true", "yes", "y"):
            return
        ratios = target.get("compress_ratios") if target is not None else None
        if ratios is None or not isinstance(ratios.value, list) or 128 not in ratios.value:
            return
        self.event(
            "online-compress-mtp",
            "SGLANG_OPT_USE_ONLINE_COMPRESS=1 with speculative decoding: "
            "AssertionError: online c128 does not support MTP "
            "(building the DSV4 pool, mem_cache/deepseek_v4_memory_pool.py get_compress_state_ring_size)",
            location=on.location,
            env=on,
        )

    def dspark_draft_missing(
        self, target: ModelConfig | None, spec_arg: Arg | None, model_path: Val | None
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
        keys = (
            "dspark_block_size",
            "dspark_markov_rank",
            "dspark_noise_token_id",
            "dspark_target_layer_ids",
        )
        if any((val := target.get(k)) is not None and val.value is not None for k in keys):
            return
        if self.profile.dspark_subfolder:
            import os  # only here: whether a local checkpoint folder ships a dspark/ draft

            path = (
                model_path.value
                if model_path is not None and isinstance(model_path.value, str)
                else None
            )
            folder = os.path.join(self.dep.server.base_dir, path) if path else None
            if folder is None or not os.path.isdir(folder):
                return  # a Hub id or an inline config: SGLang would look for dspark/config.json on the Hub
            if os.path.isfile(os.path.join(folder, "dspark", "config.json")):
                return
        self.event(
            "dspark-draft-missing",
            f"speculative-algorithm DSPARK without speculative-draft-model-path, and "
            f"{target.label} bundles no DSpark draft "
            "(no dspark_* key"
            + (", no dspark/ subfolder" if self.profile.dspark_subfolder else "")
            + ")",
            spec_arg,
        )

    def dspark_draft_tokens(self, draft_model: ModelConfig | None, ndt: Val | None) -> Val:
        """gamma + 1, gamma from --speculative-dspark-block-size, the draft checkpoint, or 7."""
        block = self.int_arg("speculative-dspark-block-size")
        if block is None and draft_model is not None:
            for key in ("dspark_block_size", "block_size"):
                if (val := draft_model.int_field(key)) is not None:
                    block = Val(val.value, f"draft config.json {key}", val.location)
                    break
        if block is None and ndt is not None:
            return ndt
        if block is None:
            block = _default(7, "DEFAULT_DSPARK_GAMMA")
        return Val(block.value + 1, f"DSpark gamma {block.value} + 1", None, (("gamma", block),))

    def pool(
        self,
        role: str,
        model: ModelConfig | None,
        overrides: dict[str, Val],
        unified: Val,
        page: Val,
        slots: Val,
        draft_tokens: Val | None,
        explicit: dict[str, Val],
        source: Val | None = None,
    ) -> Pool:
        ex_unified = explicit.get("unified")
        uni = ex_unified or unified
        window = self.window(
            model, overrides, role, explicit.get("window") or explicit.get("sliding_window"), source
        )
        if "ring_size" in explicit:
            ring = explicit["ring_size"]
        elif draft_tokens is not None:
            ring = Val(
                window.value + draft_tokens.value - 1,
                f"window {window.value} + draft tokens {draft_tokens.value} - 1",
                None,
                (("window", window), ("draft tokens", draft_tokens)),
            )
        else:
            ring = Val(
                window.value,
                f"window {window.value} (no speculative decoding)",
                None,
                (("window", window),),
            )
        pages = explicit.get("pages") or Val(
            slots.value * ring.value,
            f"request slots {slots.value} x ring {ring.value}",
            None,
            (("request slots", slots), ("ring size", ring)),
        )
        page_size = explicit.get("page_size") or page
        capacity = explicit.get("ring_capacity") or Val(
            None, "no request window (DeepSeek-V4.1 encoder replay only)"
        )
        ratios = explicit.get("compression_ratios")
        if ratios is None and role == "draft":
            ratios = Val(
                [0],
                "a DSV4 NextN draft layer has compression ratio 0 (models/deepseek_v4_nextn.py)",
            )
        return Pool(role, model, uni, window, ring, pages, page_size, capacity, ratios)

    def skipped(self, reason: str, pd: bool) -> Resolution:
        return Resolution(
            self.dep,
            self.profile,
            self.values,
            self.events,
            "skipped",
            reason,
            pd=pd,
            duplicates=list(self.dep.duplicates),
        )


class _ModelConfigRefused(Exception):
    """A checkpoint config SGLang's ``ModelConfig`` cannot load: the launch stops there."""

    def __init__(self, role: str, model: ModelConfig):
        super().__init__(role)
        self.role, self.model = role, model


def resolve(dep: Deployment, models: ModelStore, profile: SGLangProfile = DEFAULT) -> Resolution:
    """Resolve one deployment. Raises :class:`InputProblem` when a needed input is missing."""
    if isinstance(dep, UnreadDeployment):  # a launch found but not readable: SWA307 says why
        return Resolution(
            dep,
            profile,
            {"platform": dep.platform},
            [Event("not-checked", dep.reason, dep.location)],
            "skipped",
            dep.reason,
        )
    resolver = _Resolver(dep, models, profile)
    try:
        return resolver.run()
    except _ModelConfigRefused as refused:
        # A model_type deepseek_v4 config.json without sliding_window: SGLang's config class
        # (utils/hf_transformers/common.py _DeepseekV4ConfigAlias) has no default for it and
        # ModelConfig's DSV4 branch reads it (configs/model_config.py 0.5.23:1425, 0.5.22:1316,
        # 0.5.20:1149, 0.5.17:880): the launch stops with an AttributeError, no pool is built.
        model = refused.model
        root = model.root.loc
        resolver.event(
            "model-config-refused",
            f"{model.label} ({refused.role}) has no 'sliding_window': SGLang's ModelConfig fails: "
            "AttributeError: '_DeepseekV4ConfigAlias' object has no attribute 'sliding_window'",
            location=root,
            role=refused.role,
        )
        pd = resolver.values.get("disaggregation_mode")
        is_pd = (pd is not None and pd.value in ("prefill", "decode")) or dep.assume_pd
        return resolver.skipped(
            f"SGLang cannot load the {refused.role} model config (no sliding_window): no pools to compare",
            is_pd,
        )
