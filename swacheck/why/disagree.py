"""``swacheck why --from-log LOG FILES``: where the files and what the server ran disagree.

The log's ``server_args=`` line is what the server ran (inputs/server_output.py). A deployment of
the files given that serves the same model in the same PD role is the launch that should have
run it: each value swacheck resolves differently from the two is said in that deployment's
note, with both positions, so a user sees when the server ran something else than the files.
"""

from __future__ import annotations

from typing import Any

from ..model.records import Val
from .match import Explained

# the resolved values compared, in this order (names of Resolution.values)
COMPARED = (
    "model_path",
    "disaggregation_mode",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "page_size",
    "max_running_requests",
    "tp_size",
    "dp_size",
    "pp_size",
    "attn_dp_size",
    "kv_cache_dtype",
    "speculative_draft_model_path",
)
MAX_LISTED = 6


PATHS = ("model_path", "speculative_draft_model_path")  # relative to where each was launched


def _plain(val: Val | None, name: str = "") -> Any:
    if val is None:
        return None
    v = val.value
    if name in PATHS:
        return _base(val)
    return v.lower() if isinstance(v, str) else v


def _where(val: Val | None) -> str:
    if val is None or val.location is None:
        return "derived" if val is not None and val.inputs else "default"
    return str(val.location)


def differences(ran: Any, files: Any) -> list[str]:
    """Each compared value the two resolutions give differently, as words with both positions."""
    out = []
    for name in COMPARED:
        a, b = ran.values.get(name), files.values.get(name)
        if a is None or b is None or _plain(a, name) == _plain(b, name):
            continue
        out.append(f"{name} {a.value!r} ({_where(a)}) vs {b.value!r} ({_where(b)})")
    return out


def _same_server(ran: Any, files: Any) -> bool:
    """The files' deployment launches the logged server: the same model and PD role."""
    return all(
        _plain(ran.values.get(k)) == _plain(files.values.get(k)) for k in ("disaggregation_mode",)
    ) and _base(ran.values.get("model_path")) == _base(files.values.get("model_path"))


def _base(val: Val | None) -> str:
    text = str(val.value) if val is not None else ""
    return text.rstrip("/").rsplit("/", 1)[-1].lower()


def note_disagreements(items: list[Explained], run_result: Any, log: str) -> None:
    """Append to the note of each files' deployment that launches the logged server the values
    it resolves differently from what the server ran."""
    results = {(r.deployment.file, r.deployment.name): r for r in run_result.results}
    ran = [r for r in run_result.results if r.deployment.file == log and r.deployment.evidence]
    for item in items:
        failed = {(m.file, m.name) for m in item.deployments if m.matches}
        for match in item.deployments:
            mine = results.get((match.file, match.name))
            if mine is None or mine.deployment.evidence:
                continue
            for logged in ran:
                if not _same_server(logged.resolution, mine.resolution):
                    continue
                key = (logged.deployment.file, logged.deployment.name)
                edit = _edit(match.finding) if key in failed else ""
                diffs = differences(logged.resolution, mine.resolution)
                if not diffs:
                    said = f"the server in {log} ran these files' values"
                else:
                    more = len(diffs) - MAX_LISTED
                    said = (
                        f"the server in {log} ran something else than these files: "
                        + "; ".join(diffs[:MAX_LISTED])
                        + (f"; and {more} more" if more > 0 else "")
                        + " (the log vs these files)"
                    )
                said += edit
                match.note = f"{match.note}; {said}" if match.note else said


def _edit(finding: Any) -> str:
    """Where these files would change for the logged failure: the fix of the same rule here."""
    if finding is None or finding.fix is None or not finding.fix.edits:
        return ""
    e = finding.fix.edits[0]
    return f"; the edit in these files: {e.file}:{e.line}:{e.column} ({finding.fix.description})"
