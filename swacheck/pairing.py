"""Pair each PD prefill server with its decode server, and say why they were paired.

Pairs come from, strongest first:

1. ``swacheck pair PREFILL DECODE`` (explicit);
2. a swacheck deployment file with a ``pairs:`` list of ``{prefill: PATH, decode: PATH}``;
3. automatically, among the checked deployments: servers are grouped by folder and by the
   target model they load (one folder per deployment is the usual layout); a group with exactly
   one prefill and one decode server is a pair. In a larger group, servers whose names are equal
   once the words ``prefill``/``decode`` (or ``p``/``d``) are removed are paired when that
   leaves exactly one of each.

A PD server left without a partner while others of its model are present is reported as a note
(SWA400): swacheck does not guess. A server alone in the run has nothing to be compared with.
"""

from __future__ import annotations

import os
import re

from .model.records import InputError
from .paths import real
from .results import DeploymentResult, ServerPair
from .sglang.pd import compared_values

# ServerPair lives in results.py (below the rules); the pair rules import it from here


def role(r: DeploymentResult) -> str | None:
    mode = r.resolution.values.get("disaggregation_mode")
    value = mode.value if mode is not None else None
    return value if value in ("prefill", "decode") else None


def model_key(r: DeploymentResult) -> str:
    target = r.resolution.target
    if target is not None and target.model is not None:
        return real(target.model.file) if target.model.file else target.model.label
    path = r.resolution.values.get("speculative_draft_model_path")
    return str(path.value) if path is not None else r.deployment.file


_ROLE_WORDS = re.compile(r"(?<![a-z0-9])(prefill|decode|p|d)(?![a-z0-9])")


def stem(r: DeploymentResult) -> str:
    without = _ROLE_WORDS.sub("", r.deployment.name.lower())
    return re.sub(r"[-_. ]{2,}", "-", without).strip("-_. ")


def make_pair(prefill: DeploymentResult, decode: DeploymentResult, how: str) -> ServerPair:
    return ServerPair(
        prefill,
        decode,
        how,
        compared_values(prefill.resolution),
        compared_values(decode.resolution),
    )


def _role_error(r: DeploymentResult, named: str, wanted: str) -> InputError:
    """An explicit pair's server whose disaggregation mode is not the role it was named for."""
    mode = r.resolution.values.get("disaggregation_mode")
    has = (
        f"is {mode.value}"
        if mode is not None and mode.value not in (None, "null")
        else "is not set (no PD role)"
    )
    loc = mode.location if mode is not None and mode.location is not None else None
    message = f"named as the {wanted} server of a PD pair, but its disaggregation-mode {has}; the pair is not checked"
    return _pair_error(loc, named, message)


def _unchecked_error(r: DeploymentResult, named: str, wanted: str) -> InputError:
    """An explicit pair's server that is not checked itself (no model config, no DeepSeek-V4)."""
    message = (
        f"named as the {wanted} server of a PD pair, but it is not checked itself (its own "
        "report says why); the pair is not checked"
    )
    return _pair_error(r.deployment.location, named, message)


def _pair_error(loc, named: str, message: str) -> InputError:  # type: ignore[no-untyped-def]
    """At the server's position when known, else at the path it was named by."""
    if loc is not None:
        return InputError(loc.file, loc.line, loc.column, message)
    return InputError(named, None, None, message)


Alone = list[tuple[DeploymentResult, str]]  # (a PD server left without a partner, why)


def find_pairs(
    results: list[DeploymentResult],
    explicit: list[tuple[str, str]] = (),  # type: ignore[assignment]
) -> tuple[list[ServerPair], Alone, list[InputError]]:
    """(pairs, [(server left alone, why)], [explicit pairs whose roles are not prefill + decode]).

    An explicit pair named the wrong way round (decode first) is paired the right way round,
    with a note; one whose servers are not one prefill and one decode server is an input error,
    never a silent pass."""
    pairs: list[ServerPair] = []
    alone: Alone = []
    problems: list[InputError] = []
    used = _pair_explicit(results, explicit, pairs, alone, problems)
    for servers in _groups(results, used).values():
        _pair_group(servers, pairs, alone)
    return pairs, alone, problems


def _pair_explicit(
    results: list[DeploymentResult],
    explicit: list[tuple[str, str]],
    pairs: list[ServerPair],
    alone: Alone,
    problems: list[InputError],
) -> set[int]:
    """Pair the files named as pairs; the ids of the servers they hold."""
    by_file: dict[str, list[DeploymentResult]] = {}
    for r in results:
        by_file.setdefault(real(r.deployment.file), []).append(r)
    used: set[int] = set()
    for p_path, d_path in explicit:
        p = by_file.get(real(p_path), [])
        d = by_file.get(real(d_path), [])
        if len(p) != 1 or len(d) != 1:
            alone.extend(_not_one_server(p_path, p))
            alone.extend(_not_one_server(d_path, d))
            continue
        if id(p[0]) in used or id(d[0]) in used:
            continue
        used.update((id(p[0]), id(d[0])))
        _pair_named(p[0], d[0], p_path, d_path, pairs, problems)
    return used


def _not_one_server(path: str, found: list[DeploymentResult]) -> Alone:
    if len(found) <= 1:
        return []
    why = (
        f"{path} was named as a pair but holds {len(found)} deployments; name "
        f"files with one server each"
    )
    return [(r, why) for r in found]


def _pair_named(
    p: DeploymentResult,
    d: DeploymentResult,
    p_path: str,
    d_path: str,
    pairs: list[ServerPair],
    problems: list[InputError],
) -> None:
    """One explicit pair: paired as named, the right way round (with a note), or an error."""
    unchecked = [
        _unchecked_error(r, path, wanted)
        for r, path, wanted in ((p, p_path, "prefill"), (d, d_path, "decode"))
        if r.resolution.target is None
    ]
    if unchecked:  # no DeepSeek-V4 pool on that side (its own note says why): nothing to compare
        problems.extend(unchecked)
        return
    if role(p) == "prefill" and role(d) == "decode":
        pairs.append(make_pair(p, d, f"named as a pair ({p_path} + {d_path})"))
    elif role(p) == "decode" and role(d) == "prefill":
        pair = make_pair(
            d,
            p,
            f"named as a pair the wrong way round ({p_path} + {d_path}); checked as "
            f"prefill {d_path} + decode {p_path}",
        )
        pair.note = (
            f"named as the prefill server of a PD pair, but it is the decode server "
            f"and {d_path} the prefill server (their disaggregation-mode): checked the "
            f"right way round"
        )
        pairs.append(pair)
    else:
        problems.extend(
            _role_error(r, path, wanted)
            for r, path, wanted in ((p, p_path, "prefill"), (d, d_path, "decode"))
            if role(r) != wanted
        )


def _groups(results: list[DeploymentResult], used: set[int]) -> dict[str, list[DeploymentResult]]:
    """The PD servers not paired explicitly, by folder and target model."""
    groups: dict[str, list[DeploymentResult]] = {}
    folders: dict[str, str] = {}  # a folder as written -> as an absolute path (one getcwd each)
    for r in results:
        if id(r) not in used and role(r) is not None and r.resolution.target is not None:
            written = os.path.dirname(r.deployment.file)
            folder = folders.get(written)
            if folder is None:
                folder = folders[written] = os.path.abspath(written)
            groups.setdefault(folder + "\0" + model_key(r), []).append(r)
    return groups


def _by_role(servers: list[DeploymentResult]) -> tuple[list[DeploymentResult], ...]:
    """(the prefill servers, the decode servers) among ``servers``, in order."""
    return [r for r in servers if role(r) == "prefill"], [r for r in servers if role(r) == "decode"]


def _pair_group(servers: list[DeploymentResult], pairs: list[ServerPair], alone: Alone) -> None:
    """The servers of one folder and model: the only prefill and decode server, else by name."""
    prefills, decodes = _by_role(servers)
    if len(prefills) == 1 and len(decodes) == 1:
        pairs.append(
            make_pair(
                prefills[0],
                decodes[0],
                "the only prefill and decode servers of this model in the run",
            )
        )
        return
    if not prefills or not decodes:
        return  # nothing to compare with
    paired = _pair_by_stem(servers, pairs)
    for r in servers:
        if id(r) not in paired:
            others = len(decodes) if role(r) == "prefill" else len(prefills)
            other_role = "decode" if role(r) == "prefill" else "prefill"
            alone.append(
                (
                    r,
                    f"{others} {other_role} server{'s' if others != 1 else ''} of the same "
                    f"model could be its partner",
                )
            )


def _pair_by_stem(servers: list[DeploymentResult], pairs: list[ServerPair]) -> set[int]:
    """Pair servers whose names are equal without prefill/decode; the ids of those paired."""
    by_stem: dict[str, list[DeploymentResult]] = {}
    for r in servers:
        by_stem.setdefault(stem(r), []).append(r)
    paired: set[int] = set()
    for name, members in by_stem.items():
        ps, ds = _by_role(members)
        if len(ps) == 1 and len(ds) == 1:
            pairs.append(
                make_pair(
                    ps[0],
                    ds[0],
                    f"same model and the same name without prefill/decode ({name!r})",
                )
            )
            paired.update((id(ps[0]), id(ds[0])))
    return paired
