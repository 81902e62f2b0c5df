"""Stage 5a, adaptive speculative decoding: the candidate steps, the steps and the largest tier.

SGLang's ``srt/arg_groups/speculative_hook.py`` runs, for ``--speculative-adaptive`` that
``_maybe_disable_adaptive`` keeps (EAGLE/EAGLE3, top-k unset or 1, no attention DP, no
multi-layer EAGLE, two-batch overlap or PD multiplexing: ``speculative/adaptive_spec_params.py``
``adaptive_unsupported_reason``, 0.5.23:56-100), ``_init_adaptive_speculative_params``
(0.5.23:1392-1427, 0.5.22:1302-1337): the candidate steps are the union of every batch-size
entry's ``candidate_steps`` in ``--speculative-adaptive-config`` (a JSON file, ``json.load``),
else SGLang's ``DEFAULT_ADAPTIVE_CONFIG`` ({0, 1, 3, 5, 7}); unset steps become the middle one;
steps not among them are refused; the draft tokens are steps + 1. The largest tier,
max(candidates) + 1 draft tokens (``spec_info.py`` ``resolve_max_speculative_num_draft_tokens``,
0.5.23:268-289), is what the DSV4 pool's compress-state rings must serve (``memory_pool``).
See docs/sglang.md, "Speculative hook".
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from ...model.records import InputProblem, Val
from ...model.recordtype import record
from ...model.tree import Mapping
from ..events import Kind

if TYPE_CHECKING:
    from ...model.deployment import Arg
    from .reader import ArgReader

DEFAULT_CANDIDATES = (
    0,
    1,
    3,
    5,
    7,
)  # adaptive_spec_params.py DEFAULT_ADAPTIVE_CONFIG, 0.5.22-0.5.23
LOAD_AT = "speculative/adaptive_spec_params.py _load_adaptive_config"
INIT_AT = "arg_groups/speculative_hook.py _init_adaptive_speculative_params"


@record
class Adaptive:
    candidates: tuple[int, ...]
    source: str  # "SGLang's default adaptive config" or the file


def applies(r: ArgReader, attn_dp: Val) -> bool:
    """``--speculative-adaptive`` on, and kept by ``adaptive_unsupported_reason``."""
    on = r.flag_arg("speculative-adaptive")
    if on is None or not on.value or attn_dp.value > 1:
        return False
    if r.plain_int("speculative-eagle-topk", 1) != 1:
        return False
    return not any(
        r.flag_value(name)
        for name in ("enable-multi-layer-eagle", "enable-two-batch-overlap", "enable-pdmux")
    )


def read(r: ArgReader) -> Adaptive | None:
    """The candidate steps SGLang takes; None (with an event) when it refuses the file or
    swacheck cannot read it."""
    arg = r.arg("speculative-adaptive-config")
    if arg is not None and not arg.cli and isinstance(arg.node, Mapping):
        return _mapping(r, arg)
    path = r.str_arg("speculative-adaptive-config")
    if arg is None or path is None:
        return Adaptive(DEFAULT_CANDIDATES, "SGLang's default adaptive config")
    if not r.profile.adaptive_config_read:
        return None  # a release whose loader was not read: no candidates claimed
    text = _text(r, arg, str(path.value))
    if text is None:
        return None
    try:
        cfg = json.loads(text)
    except ValueError as e:
        return _refused(r, arg, f"{type(e).__name__}: {e}")
    if not isinstance(cfg, dict):
        return _refused(
            r, arg, f"AttributeError: '{type(cfg).__name__}' object has no attribute 'items'"
        )
    steps: set[int] = set()
    for key, entry in cfg.items():
        if not key.isdigit():
            continue
        if not isinstance(entry, dict):
            return _refused(
                r, arg, f"AttributeError: '{type(entry).__name__}' object has no attribute 'get'"
            )
        got = entry.get("candidate_steps")
        if (
            not isinstance(got, list)
            or not got
            or not all(isinstance(s, int) and s >= 0 for s in got)
        ):
            return _refused(
                r,
                arg,
                f"ValueError: BS {key}: candidate_steps must be a list of non-negative ints, got {got!r}",
            )
        steps.update(got)
    if not steps:
        return _refused(
            r,
            arg,
            "ValueError: speculative_adaptive_config must contain at least one integer-string BS "
            f'key, e.g. {{"1": {{"candidate_steps": [1,3,7]}}}}. Got keys: {list(cfg.keys())}',
        )
    return Adaptive(tuple(sorted(steps)), f"candidate_steps in {path.value}")


def _text(r: ArgReader, arg: Arg, path: str) -> str | None:
    from ...paths import in_vcs_metadata, inside

    full = path if os.path.isabs(path) else os.path.join(r.dep.server.base_dir, path)
    root = r.models.files.root
    where = arg.value_loc
    if in_vcs_metadata(full) or (root is not None and not inside(full, root)):
        r.event(
            Kind.ADAPTIVE_CONFIG_UNREAD,
            f"speculative-adaptive-config {path!r} is outside the root (or in version-control "
            "metadata): swacheck does not read it, so the adaptive steps are not checked",
            arg,
            location=where,
        )
        return None
    if not os.path.isfile(full):
        r.event(
            Kind.ADAPTIVE_CONFIG_UNREAD,
            f"speculative-adaptive-config {path!r} is not a file here ({full}); on the server "
            "SGLang opens it while resolving its arguments (FileNotFoundError if it is missing "
            "there too): the adaptive steps are not checked",
            arg,
            location=where,
        )
        return None
    try:
        return r.models.files.read(full)
    except InputProblem as problem:
        r.event(
            Kind.ADAPTIVE_CONFIG_UNREAD,
            f"speculative-adaptive-config {path!r}: {problem.message}: the adaptive steps are not checked",
            arg,
            location=where,
        )
        return None


def _mapping(r: ArgReader, arg: Arg) -> None:
    """The adaptive config written as a mapping in a --config file: the merger passes it on as
    its JSON text (``json.dumps``, ``server_args_config_parser.py`` 0.5.23:178-179, 0.5.22:155-156)
    and the loader opens that text as a file's path (``adaptive_spec_params.py`` 0.5.23:110-111)."""
    if not r.profile.adaptive_config_read:
        return None
    text = json.dumps(arg.node.plain())
    r.event(
        Kind.ADAPTIVE_CONFIG_REFUSED,
        f"speculative-adaptive-config is a mapping: SGLang's --config loader passes it on as its "
        f"JSON text, which the adaptive loader opens as a file's path: FileNotFoundError: [Errno 2] "
        f"No such file or directory: {text!r} (resolving the arguments, {LOAD_AT}); write the "
        "mapping to a JSON file and give its path",
        arg,
        location=arg.value_loc,
    )
    return None


def _refused(r: ArgReader, arg: Arg, said: str) -> None:
    r.event(
        Kind.ADAPTIVE_CONFIG_REFUSED,
        f"speculative-adaptive-config {arg.node.value}: {said} "  # type: ignore[union-attr]
        f"(resolving the arguments, {LOAD_AT})",
        arg,
        location=arg.value_loc,
    )
    return None


def steps(r: ArgReader, ad: Adaptive, written: Val | None, where: Val) -> Val:
    """The steps: the written ones (refused when not a candidate), else the middle candidate."""
    cands = list(ad.candidates)
    if written is None:
        return Val(
            cands[len(cands) // 2],
            f"adaptive speculative: the middle of candidate steps {cands} ({ad.source})",
            where.location,
        )
    if written.value not in cands and r.profile.adaptive_config_read:
        r.event(
            Kind.ADAPTIVE_CONFIG_REFUSED,
            f"ValueError: --speculative-num-steps={written.value} is not in the adaptive config "
            f"candidate_steps {cands}. Pass one of those values. ({ad.source}; {INIT_AT})",
            r.arg("speculative-num-steps"),
            location=written.location,
        )
    return written


def max_draft_tokens(ad: Adaptive, where: Val) -> Val:
    top = max(ad.candidates)
    return Val(
        top + 1,
        f"the largest adaptive tier: candidate steps {top} + 1 ({ad.source})",
        where.location,
    )
