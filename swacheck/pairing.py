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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .paths import real
from .records import Finding, InputError, Val
from .sglang.pd import compared_values

if TYPE_CHECKING:  # engine imports this module
    from .engine import DeploymentResult


@dataclass(slots=True, repr=False, eq=False)
class ServerPair:
    prefill: DeploymentResult
    decode: DeploymentResult
    how: str
    prefill_values: dict[str, Val] = field(default_factory=dict)
    decode_values: dict[str, Val] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    note: str = ""  # said on stderr: the roles of an explicit pair were given the wrong way round

    def rows(self) -> list[tuple[str, Val, Val]]:
        return [
            (name, self.prefill_values[name], self.decode_values[name])
            for name in self.prefill_values
        ]

    def differs(self, name: str) -> bool:
        return self.prefill_values[name].value != self.decode_values[name].value


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
    if loc is not None:
        return InputError(loc.file, loc.line, loc.column, message)
    return InputError(named, None, None, message)


def find_pairs(
    results: list[DeploymentResult],
    explicit: list[tuple[str, str]] = (),  # type: ignore[assignment]
) -> tuple[list[ServerPair], list[tuple[DeploymentResult, str]], list[InputError]]:
    """(pairs, [(server left alone, why)], [explicit pairs whose roles are not prefill + decode]).

    An explicit pair named the wrong way round (decode first) is paired the right way round,
    with a note; one whose servers are not one prefill and one decode server is an input error,
    never a silent pass."""
    problems: list[InputError] = []
    by_file: dict[str, list[DeploymentResult]] = {}
    for r in results:
        by_file.setdefault(real(r.deployment.file), []).append(r)
    pairs: list[ServerPair] = []
    explicit_alone: list[tuple[DeploymentResult, str]] = []
    used: set[int] = set()
    for p_path, d_path in explicit:
        p = by_file.get(real(p_path), [])
        d = by_file.get(real(d_path), [])
        if len(p) != 1 or len(d) != 1:
            for path, found in ((p_path, p), (d_path, d)):
                for r in found if len(found) > 1 else ():
                    explicit_alone.append(
                        (
                            r,
                            f"{path} was named as a pair but holds {len(found)} deployments; name "
                            f"files with one server each",
                        )
                    )
            continue
        if id(p[0]) not in used and id(d[0]) not in used:
            used.update((id(p[0]), id(d[0])))
            if role(p[0]) == "prefill" and role(d[0]) == "decode":
                pairs.append(make_pair(p[0], d[0], f"named as a pair ({p_path} + {d_path})"))
            elif role(p[0]) == "decode" and role(d[0]) == "prefill":
                pair = make_pair(
                    d[0],
                    p[0],
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
                    for r, path, wanted in ((p[0], p_path, "prefill"), (d[0], d_path, "decode"))
                    if role(r) != wanted
                )

    groups: dict[str, list[DeploymentResult]] = {}
    for r in results:
        if id(r) not in used and role(r) is not None and r.resolution.target is not None:
            groups.setdefault(
                os.path.dirname(os.path.abspath(r.deployment.file)) + "\0" + model_key(r), []
            ).append(r)
    alone = explicit_alone
    for servers in groups.values():
        prefills = [r for r in servers if role(r) == "prefill"]
        decodes = [r for r in servers if role(r) == "decode"]
        if len(prefills) == 1 and len(decodes) == 1:
            pairs.append(
                make_pair(
                    prefills[0],
                    decodes[0],
                    "the only prefill and decode servers of this model in the run",
                )
            )
            continue
        if not prefills or not decodes:
            continue  # nothing to compare with
        by_stem: dict[str, list[DeploymentResult]] = {}
        for r in servers:
            by_stem.setdefault(stem(r), []).append(r)
        paired: set[int] = set()
        for name, members in by_stem.items():
            ps = [r for r in members if role(r) == "prefill"]
            ds = [r for r in members if role(r) == "decode"]
            if len(ps) == 1 and len(ds) == 1:
                pairs.append(
                    make_pair(
                        ps[0],
                        ds[0],
                        f"same model and the same name without prefill/decode ({name!r})",
                    )
                )
                paired.update((id(ps[0]), id(ds[0])))
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
    return pairs, alone, problems
