"""What a run produces: one result per deployment, the PD pairs, and the run's totals.

These are plain records, below the engine: the engine fills them, and the rules (pair rules get
a :class:`ServerPair`), the pairing stage and the renderers read them without importing the
engine (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from .model.deployment import release_text
from .model.records import SEVERITY_RANK, Finding, InputError, Summary, Val
from .model.recordtype import record
from .paths import real

if TYPE_CHECKING:
    from .model.deployment import Deployment
    from .settings import Settings
    from .sglang.resolve import Resolution


@record(repr=False, eq=False)
class DeploymentResult:
    """A deployment, its resolution and its findings."""

    deployment: Deployment
    resolution: Resolution
    findings: list[Finding]


@record(repr=False, eq=False)
class ServerPair:
    """A PD prefill and decode server paired, why, the values SGLang compares, and the pair findings."""

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


@record(repr=False, eq=False)
class RunResult:
    """The result of a run, or of one unit of it: deployments, pairs, errors, files and summary."""

    settings: Settings
    results: list[DeploymentResult] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[InputError] = field(
        default_factory=list
    )  # files named explicitly and skipped, and why
    fingerprints: dict[str, dict[str, str]] = field(default_factory=dict)  # --write-baseline
    summary: Summary = field(default_factory=Summary)
    exit_code: int = 0
    pairs: list[ServerPair] = field(default_factory=list)
    alone: list[tuple[DeploymentResult, str]] = field(
        default_factory=list
    )  # PD servers left unpaired
    skipped_why: dict[str, str] = field(
        default_factory=dict
    )  # a skipped file -> why, when not "not a deployment"


def totals_from(base: RunResult) -> RunResult:
    """A run's totals to count its units into, starting from what its discovery found
    (``base``: the errors and skipped files of finding the inputs)."""
    totals = RunResult(base.settings)
    totals.errors = list(base.errors)
    totals.skipped = list(base.skipped)
    totals.skipped_why = dict(base.skipped_why)
    totals.summary.input_errors = len(totals.errors)
    return totals


def count(s: Summary, unit: RunResult) -> None:
    """Add a unit's files, deployments, findings and input errors to the run's summary."""
    s.files += len(unit.files)
    s.deployments += len(unit.results)
    s.skipped_files += len(unit.skipped)
    s.skipped_deployments += sum(1 for r in unit.results if r.resolution.mode == "skipped")
    s.input_errors += len(unit.errors)
    # a fix with an edit in a file that has an input error is not one --fix makes (fixplan)
    broken = {real(e.file) for e in unit.errors if e.file}
    for r in unit.results:
        said = release_text(
            r.deployment.release, r.resolution.profile.version, r.resolution.profile.fork
        )
        if said:
            s.releases[said] = s.releases.get(said, 0) + 1
        for f in r.findings:
            s.counts[f.severity] += 1
            s.by_code[f.code] = s.by_code.get(f.code, 0) + 1
            fix = f.fix
            if (
                fix
                and fix.edits
                and not (broken and any(real(e.file) in broken for e in fix.edits))
            ):
                if fix.safe:
                    s.fixable += 1
                else:
                    s.unsafe_fixable += 1
            if (
                SEVERITY_RANK[f.severity] > SEVERITY_RANK[s.severity_of.get(f.code, "note")]
                or f.code not in s.severity_of
            ):
                s.severity_of[f.code] = f.severity
    threshold = SEVERITY_RANK[unit.settings.fail_on]
    s.failing = s.failing or any(
        SEVERITY_RANK[f.severity] >= threshold for r in unit.results for f in r.findings
    )
