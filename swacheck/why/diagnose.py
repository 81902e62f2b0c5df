"""Diagnosing a DSV4 target/draft error (pure): which fields differ and what must differ.

A :class:`~swacheck.why.parse.ParsedError` -> :class:`Diagnosis`: the differing tuple fields, the
numbers derived from them (draft tokens, request slots) and what in the inputs must differ, in
the order a human would look (window, then ring, then pages).
"""

from __future__ import annotations

from ..model.recordtype import record
from .parse import ParsedError


@record(frozen=True)
class Derived:
    """A number derived from a tuple, per side: draft tokens, request slots."""

    name: str
    how: str
    target: int | float | None
    draft: int | float | None

    @property
    def differs(self) -> bool:
        return self.target != self.draft


@record(frozen=True)
class Diagnosis:
    """What differs between the error's two tuples, what caused it, and how to say so."""

    differs: tuple[str, ...]  # tuple fields whose values differ
    causes: tuple[str, ...]  # the differing fields the inputs must explain (not mere consequences)
    derived: tuple[Derived, ...]
    sentences: tuple[str, ...]


def diagnose(err: ParsedError) -> Diagnosis:
    if err.kind == "ring":
        return _diagnose_ring(err.target, err.draft)  # type: ignore[arg-type]
    if err.kind == "paged":
        return _diagnose_paged(err.fields, err.target, err.draft)  # type: ignore[arg-type]
    return Diagnosis((), (), (), FIXED_SENTENCES[err.kind])


EQUAL = (
    "The two tuples are equal, but SGLang raises this only when they differ: the text was edited, "
    "or it comes from a modified SGLang."
)


def _window_sentences(name: str, tw: int, dw: int) -> list[str]:
    return [
        f"{name} differs (target {tw}, draft {dw}): the draft checkpoint's sliding_window differs from the "
        "target's. Each pool reads sliding_window from its own config.json; the draft's comes from "
        "speculative-draft-model-path, which defaults to model-path.",
        "Fix: drop speculative-draft-model-path (DeepSeek-V4's MTP draft is the target checkpoint's own NextN "
        f"layer, which SGLang loads from model-path), or make the draft checkpoint's sliding_window {tw} like "
        "the target's.",
        "The other cause is json-model-override-args setting sliding_window for one side only: SGLang applies "
        "it to both model configs, but older releases' EAGLE worker (v1) replaced the draft's overrides with "
        '{"hot_vocab_size": N} when speculative-token-map was set, so an override reached the target alone.',
    ]


def _slots(pages: int, ring: int) -> int | float | None:
    if ring <= 0:
        return None
    return pages // ring if pages % ring == 0 else round(pages / ring, 2)


def _slot_reading(slots: int) -> str:
    """slots = per-worker requests + decode extra slots + 1, read back into inputs."""
    if slots < 2:
        return f"{slots} leaves no request slot after the padding row"
    reqs = slots - 1
    text = f"{slots} = {reqs} + 0 + 1"
    if reqs == 256:
        text += " (256 is DeepSeek-V4's default max-running-requests)"
    if reqs % 3 == 0 and 1 <= reqs // 3 <= 32:
        m = reqs // 3
        text += (
            f", or {m} + {2 * m} + 1 (a PD decode server with max-running-requests "
            f"{m}: extra slots default to 2 × {m})"
        )
    return text


SLOTS_MEANING = (
    "Request slots = per-worker max-running-requests (max-running-requests ÷ attn-dp-size) + PD decode extra "
    "slots (disaggregation-decode-extra-slots) + 1 padding row. The draft pool normally reuses the target's "
    "request table, so the two pools were sized with different values of these."
)


def _diagnose_ring(target: tuple, draft: tuple) -> Diagnosis:
    (tw, tr, tp), (dw, dr, dp) = target, draft
    names = ("window", "ring_size", "pages")
    differs = tuple(n for n, a, b in zip(names, target, draft) if a != b)
    tokens = Derived("draft tokens", "ring − window + 1", tr - tw + 1, dr - dw + 1)
    slots = Derived("request slots", "pages ÷ ring", _slots(tp, tr), _slots(dp, dr))
    if not differs:
        return Diagnosis((), (), (tokens, slots), (EQUAL,))
    out: list[str] = []
    causes: list[str] = []
    if tw != dw:
        causes.append("window")
        out += _window_sentences("window", tw, dw)
    if _ring_sentences(target, draft, tokens, out):
        causes.append("ring_size")
    broken = _pages_sentences(target, draft, slots, out)
    if slots.differs and not broken:
        causes.append("pages")
    if tw != dw and not tokens.differs and not slots.differs and not broken:
        out.append(
            f"ring_size and pages follow from the window: both pools have {tokens.target} draft tokens "
            f"(ring − window + 1) and {slots.target} request slots (pages ÷ ring)."
        )
    return Diagnosis(differs, tuple(causes), (tokens, slots), tuple(out))


def _ring_sentences(target: tuple, draft: tuple, tokens: Derived, out: list[str]) -> bool:
    """What the ring sizes say (added to ``out``); True when the draft-token count is a cause."""
    (tw, tr, _), (dw, dr, _) = target, draft
    impossible = [(side, w, r) for side, w, r in (("target", tw, tr), ("draft", dw, dr)) if r < w]
    for side, w, r in impossible:
        out.append(
            f"The {side}'s ring_size {r} is smaller than its window {w}: SGLang's ring is window + draft tokens − 1, "
            "never less than the window, so these numbers cannot come from one SGLang pool."
        )
    if not tokens.differs or impossible:
        return False
    out.append(
        f"ring_size differs{' with the same window' if tw == dw else ' beyond the window'}: the speculative "
        f"draft-token count differs between the pools (ring = window + draft tokens − 1): target "
        f"{tokens.target} ({tr} − {tw} + 1), draft {tokens.draft} ({dr} − {dw} + 1). Both pools read the "
        "server's one speculative_num_draft_tokens (EAGLE: speculative-num-steps + 1; DSpark: "
        "speculative-dspark-block-size + 1), so it changed between the target and the draft pool builds: "
        "check speculative-num-steps, speculative-num-draft-tokens, speculative-dspark-block-size and "
        "speculative-adaptive."
    )
    return True


def _pages_sentences(target: tuple, draft: tuple, slots: Derived, out: list[str]) -> bool:
    """What the page counts say (added to ``out``); True when a side's pages are no whole
    multiple of its ring (the numbers cannot come from one SGLang pool)."""
    (_, tr, tp), (_, dr, dp) = target, draft
    sides = (("target", tp, tr, slots.target), ("draft", dp, dr, slots.draft))
    broken = [(side, p, r) for side, p, r, s in sides if not isinstance(s, int)]
    for side, p, r in broken:
        ratio = "" if r <= 0 else f" ({p} ÷ {r} = {p / r:.2f})"
        out.append(
            f"The {side}'s pages {p} is not a whole multiple of its ring_size {r}{ratio}: pages = request slots × "
            "ring, so these numbers cannot come from one SGLang pool."
        )
    if slots.differs and not broken:
        lead = "pages differ with the same ring" if tr == dr else "pages differ beyond the ring"
        out.append(
            f"{lead}: the request-slot count differs (pages = request slots × ring): target {slots.target} "
            f"({tp} ÷ {tr}), draft {slots.draft} ({dp} ÷ {dr}). {SLOTS_MEANING} Read back: target "
            f"{_slot_reading(slots.target)}; draft {_slot_reading(slots.draft)}."  # type: ignore[arg-type]
        )
    return bool(broken)


def _diagnose_paged(fields: tuple[str, ...], target: tuple, draft: tuple) -> Diagnosis:
    differs = tuple(n for n, a, b in zip(fields, target, draft) if a != b)
    if not differs:
        return Diagnosis((), (), (), (EQUAL,))
    out: list[str] = []
    tpage, dpage = target[0], draft[0]
    if "page_size" in differs:
        text = (
            f"page_size differs (target {tpage}, draft {dpage}): SGLang fixes DeepSeek-V4's page size at 256 "
            "(128 on NPU), replacing any page-size argument, and only the draft worker scales it, by dcp-size "
            "(page × dcp-size, loc_space_scale in kv_cache_configurator.py)."
        )
        if tpage > 0 and dpage > tpage and dpage % tpage == 0:
            text += f" The draft's {dpage} = {tpage} × {dpage // tpage}: dcp-size {dpage // tpage}."
        else:
            text += f" The draft's {dpage} is not {tpage} × a dcp-size, so this is not the dcp scaling alone."
        out.append(
            text + " Fix: run the PD server with dcp-size 1 (no decode context parallelism)."
        )
    if "sliding_window" in differs:
        out += _window_sentences("sliding_window", target[1], draft[1])
    if "ring_capacity" in differs:
        out.append(
            f"ring_capacity differs (target {target[2]}, draft {draft[2]}): it is set only with encoder SWA bounded "
            "replay (enable-encoder-swa-bounded-replay, DeepSeek-V4.1 only) and None otherwise: on the target the "
            "request window's capacity, ceil((sliding_window + online MTP max draft tokens) / page_size) × "
            "page_size; on the draft its SWA ring, ceil((sliding_window + draft tokens) / page_size) × page_size "
            "(not on ROCm). A difference means encoder replay is on for one pool only, or the two pools count "
            "draft tokens differently: check enable-encoder-swa-bounded-replay and the model (DeepSeek-V4.1)."
        )
    return Diagnosis(differs, differs, (), tuple(out))


FIXED_SENTENCES = {
    "draft_ratios": (
        "The draft pool's compression_ratios list is empty or has a non-zero entry: SGLang transfers a DSV4 "
        "draft's state only for SWA-only NextN layers (compression ratio 0), and checks this first.",
        "A DeepSeek-V4 NextN (MTP) draft gets ratio 0 on each of its layers (models/deepseek_v4_nextn.py), so "
        "the released code does not raise this from configuration alone: the draft SGLang built is not a "
        "DeepSeek-V4 NextN layer (a draft model with compressed-attention layers, or with no layers).",
        "Check speculative-draft-model-path and the draft checkpoint's architectures and "
        "num_nextn_predict_layers; without speculative-draft-model-path SGLang uses the target checkpoint's own "
        "NextN layer.",
    ),
    "unified_mode": (
        "One pool uses the unified KV layout and the other the paged one; SGLang checks this before any geometry.",
        "The gate is is_unified_kv_triton(): a ROCm (HIP) build with SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton, "
        "read once per process, so the two pools of one server normally agree: the gate was read differently for "
        "each (a modified build, or one whose draft worker decides unified KV on its own).",
        "Set SGLANG_HACK_FLASHMLA_BACKEND once for the whole server process (unified_kv_triton, or unset) and run "
        "both pools from one ROCm build; in a swacheck deployment file, target.geometry.unified and "
        "draft.geometry.unified must agree (SWA103).",
    ),
    "mapping": (
        "The draft pool's full-to-SWA index mapping is not the very object the target's is (SGLang compares them "
        "with `is`, in paged KV mode): the draft registered its own SWA index mapping instead of the target "
        "allocator's.",
        "In the released code the draft shares the target's SWA allocator and registers the same tensor, so "
        "configuration alone does not cause it: a build that mixes allocator versions does (an older allocator "
        "registered weakref.proxy(mapping) while the draft registers the raw tensor), as does a draft with an "
        "allocator of its own.",
        "swacheck cannot predict this from the config files. Run the target and the draft from one SGLang build; "
        "if the server sets disable-hybrid-swa-memory (no mapping is registered on either pool), try without it.",
    ),
}
