"""The pipeline: files -> load -> normalise -> resolve geometry -> check rules -> result.

``run_units`` is the one place the stages meet; each stage lives in its own module. A run is
checked unit by unit (``grouping.py``): the human and JSON reports write each unit as it is done
and keep nothing of it, so memory stays bounded however many files a repository holds;
``run`` keeps every unit, for the fixes and the formats that need the whole report at once.
"""

from __future__ import annotations

import fnmatch
import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from . import limits
from .grouping import add_partners, plan
from .inputs import Candidate, Inputs, discover, read_inputs, release
from .loading import FileCache, read_stdin
from .model.records import (
    Finding,
    InputError,
    InputProblem,
    Val,
    position_key,
)
from .model.recordtype import record
from .pairing import find_pairs
from .paths import find_root, names, real
from .paths import fold as fold_paths
from .paths import forget as forget_paths
from .results import DeploymentResult, RunResult, count
from .rules import DEPLOYMENT_RULES, PAIR_RULES, SUPPRESSION_RULES, UNPAIRED_RULES, RuleContext
from .settings import Settings
from .sglang.models import ModelStore
from .sglang.resolve import Resolution, resolve
from .sglang.stages.config_merge import FORK_PREFIXES
from .sglang.version import FORKS, SGLangProfile, profile_for
from .suppress import Suppression, scan

__all__ = ["DeploymentResult", "RunResult", "run", "run_units", "without_cyclic_gc"]


def check(res: Resolution, ctx: RuleContext, settings: Settings) -> list[Finding]:
    """The deployment rules' findings. A launch that is not swacheck's business
    (``Resolution.quiet``) is checked only by the rules whose ``QUIET`` names the reason."""
    rules = _enabled_rules(settings)
    if not res.quiet:  # the usual case: no test per rule
        return [f for rule in rules for f in rule.check(res, ctx)]
    return [
        f for rule in rules if res.quiet in getattr(rule, "QUIET", ()) for f in rule.check(res, ctx)
    ]


_ENABLED: dict[tuple[tuple[str, ...], ...], list[Any]] = {}


def _enabled_rules(settings: Settings) -> list[Any]:
    """The deployment rules ``settings`` enables, in order: worked out once per selection, not
    once per deployment (it was 4% of a 2,000-deployment run)."""
    key = (tuple(settings.select), tuple(settings.extend_select), tuple(settings.ignore))
    hit = _ENABLED.get(key)
    if hit is None:
        hit = _ENABLED[key] = [r for r in DEPLOYMENT_RULES if settings.rule_enabled(r.CODE)]
    return hit


def files_read(res: Resolution) -> list[str]:
    """Every file one deployment was built from: where its findings and suppressions live."""
    dep = res.deployment
    paths = [dep.file, dep.server.file] + [
        p.model.file for p in (res.target, res.draft) if p and p.model
    ]
    return list(dict.fromkeys(p for p in paths if p))


class _Filter:
    """Applies per-file-ignores and inline suppressions; then reports the suppressions."""

    def __init__(self, settings: Settings, files: FileCache):
        self.settings = settings
        self.files = files
        self.by_file: dict[str, list[Suppression]] = {}
        self.by_path: dict[str, list[Suppression]] = {}  # by_file's, by path as asked
        self.owner: dict[str, DeploymentResult] = {}  # a file's suppression findings go here
        self.owned: set[str] = set()  # the paths owner was given, as read
        self.suppressed = 0

    def suppressions(self, path: str) -> list[Suppression]:
        found = self.by_path.get(path)  # a unit asks some five times a deployment
        if found is None:
            key = real(path)
            found = self.by_file.get(key)
            if found is None:
                found = self.by_file[key] = self._scan(path)
            self.by_path[path] = found
        return found

    def _scan(self, path: str) -> list[Suppression]:
        if path.lower().endswith(".json"):
            return []
        try:
            return scan(self.files.load(path).text, path)
        except InputProblem:
            return []

    def ignored_by_config(self, finding: Finding) -> bool:
        if finding.location is None or not self.settings.per_file_ignores:
            return False
        path = os.path.relpath(
            os.path.abspath(finding.location.file),
            os.path.abspath(self.settings.per_file_ignores_base),
        )
        path = path.replace(os.sep, "/")
        return any(
            fnmatch.fnmatch(path, glob) and any(finding.code.startswith(c) for c in codes)
            for glob, codes in self.settings.per_file_ignores.items()
        )

    def keep(self, finding: Finding) -> bool:
        if self.ignored_by_config(finding):
            self.suppressed += 1
            return False
        if finding.location is None:
            return True
        for s in self.suppressions(finding.location.file):
            if s.matches(finding.code, finding.location.line):
                s.used.update(c for c in s.codes if finding.code.startswith(c))
                self.suppressed += 1
                return False
        return True

    def apply(self, result: DeploymentResult) -> None:
        for path in files_read(result.resolution):
            if path not in self.owned:  # else owned already: by the first to read it
                self.owned.add(path)
                self.owner.setdefault(real(path), result)
                self.suppressions(path)
        result.findings = [f for f in result.findings if self.keep(f)]

    def report(self) -> None:
        for key, suppressions in self.by_file.items():
            owner = self.owner.get(key)
            if owner is None or not suppressions:
                continue
            for rule in SUPPRESSION_RULES:
                if self.settings.rule_enabled(rule.CODE):
                    owner.findings.extend(
                        f
                        for f in rule.check_suppressions(suppressions, self.settings.rule_enabled)
                        if not self.ignored_by_config(f)
                    )


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Run a check with Python's cyclic garbage collector paused.

    A run builds many small objects (nodes, locations, values) that live until the report is
    written, and no reference cycles: the collector frees nothing (peak RSS is the same with it
    paused) but rescans the growing heap over and over, which cost a third of the run time at
    2,000 deployments. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run(settings: Settings) -> RunResult:
    """Check everything and keep it all (fixes, diffs, explain, why, whole-report formats)."""
    result = RunResult(settings)
    for unit in run_units(settings, result):
        absorb(result, unit)
    return result


def absorb(result: RunResult, unit: RunResult) -> None:
    """Add a unit's deployments, pairs, errors, files and notes to the whole run's ``result``."""
    result.results.extend(unit.results)
    result.pairs.extend(unit.pairs)
    result.alone.extend(unit.alone)
    result.errors.extend(unit.errors)
    result.files.extend(unit.files)
    result.skipped.extend(unit.skipped)
    result.notes.extend(unit.notes)


def run_units(settings: Settings, totals: RunResult) -> Iterator[RunResult]:
    """Check the run unit by unit (``grouping.py``), yielding each unit's result once it is final.
    ``totals`` receives the discovery errors at the start and the summary and exit code at the
    end; a caller that keeps nothing else holds one unit in memory at a time. Files read for a
    unit are dropped from the file cache once the next unit is asked for."""
    job, units = start(settings, totals)
    yield from check_units(job, units, totals)


def check_units(job: _Job, units: list[list[Candidate]], totals: RunResult) -> Iterator[RunResult]:
    """``run_units`` once the run is planned (``start``): each unit checked, counted, yielded."""
    suppressed = 0
    for n, unit_candidates in enumerate(units):
        commands = job.settings.commands if n == len(units) - 1 else None
        unit, filtered = check_unit(job, unit_candidates, commands, totals)
        suppressed += filtered
        count(totals.summary, unit)
        yield unit
        job.files.evict()
    totals.summary.suppressed = suppressed
    finish(totals)


def start(settings: Settings, totals: RunResult) -> tuple[_Job, list[list[Candidate]]]:
    """Discover and plan a run (errors and skips to ``totals``): the job and the units."""
    candidates = _discover(settings, totals)
    files = FileCache(settings.max_file_size, settings.root)
    candidates, stdin_text = _read_stdin(settings, candidates, files, totals)
    if not settings.fix:  # --fix edits only what was named or walked, never a partner beside it
        candidates = add_partners(candidates, files, settings.exclude)
    if settings.output:  # the report being written is never read as an input
        report = real(settings.output)
        candidates = [c for c in candidates if c.path == "-" or not names(c.path, report)]
    totals.summary.input_errors = len(totals.errors)
    the_plan = plan(candidates, files, settings.pairs, bool(settings.commands), stdin_text)
    fold_paths()  # the walked files' real paths the plan made
    job = _Job.start(settings, files, stdin_text, [*settings.pairs, *the_plan.pairs])
    job.single = the_plan.single
    return job, the_plan.units or ([[]] if settings.commands else [])


def _discover(settings: Settings, totals: RunResult) -> list[Candidate]:
    """The files of the run (``inputs.discover``); the discovery errors and skips go to ``totals``."""
    forget_paths()
    limits.start_run()
    named = [
        settings.stdin_filename if p == "-" and settings.stdin_filename else p
        for p in settings.paths
    ]
    settings.root = settings.root or find_root(named)
    candidates, totals.errors = discover(
        settings.paths,
        settings.exclude + settings.extend_exclude,
        settings.root,
        totals.skipped_why,
        settings.respect_gitignore,
        settings.exclude_base,
    )
    totals.skipped.extend(totals.skipped_why)
    return candidates


def _read_stdin(
    settings: Settings, candidates: list[Candidate], files: FileCache, totals: RunResult
) -> tuple[list[Candidate], str | None]:
    """(the candidates, the text of ``-``): standard input is read once, up to the size limit;
    with ``--stdin-filename`` it is checked as that file (its text put in the file cache)."""
    if not any(c.path == "-" for c in candidates):
        return candidates, None
    if settings.stdin_text is not None:
        stdin_text = settings.stdin_text
    else:
        try:  # the one input that is not a regular file: read up to the size limit
            stdin_text = read_stdin(sys.stdin, settings.max_file_size)
        except InputProblem as problem:
            totals.errors.append(problem.to_error())
            candidates = [c for c in candidates if c.path != "-"]
            stdin_text = ""
    if settings.stdin_filename and any(
        c.path == "-" for c in candidates
    ):  # checked as that file, from the text given
        files.provide(settings.stdin_filename, stdin_text)
        candidates = [
            Candidate(settings.stdin_filename, True) if c.path == "-" else c for c in candidates
        ]
        return candidates, None
    return candidates, stdin_text


@record(repr=False, eq=False)
class _Job:
    """What every unit of one run is checked with."""

    settings: Settings
    files: FileCache
    stdin_text: str | None
    platform: Val
    env: dict[str, Val]
    profile: SGLangProfile
    ctx: RuleContext
    explicit: list[tuple[str, str]]  # explicit pairs: --pair, then `pairs:` documents
    models: ModelStore
    single: bool = False  # the run is one unit: a launch command may read any file

    @property
    def release_given(self) -> bool:
        """--sglang-version (or the configuration file's sglang-version) was given."""
        return self.settings.sources.get("sglang_version", "default") != "default"

    def profile_of(self, dep: Any) -> SGLangProfile:
        """The release a deployment is checked with: --sglang-version (or the configuration
        file's) when given, else the release its own file names (an image tag, a pip pin)."""
        if self.release_given:
            return self.profile
        if dep.fork is not None or any(
            a.how == "unknown" and a.written.replace("_", "-").startswith(FORK_PREFIXES)
            for a in dep.server.entries
        ):
            return FORKS["sglang-kt"]  # its own flags: a flag its base accepts is no error
        named = dep.release.value if dep.release is not None else ""
        if not named:
            return self.profile
        try:
            return profile_for(str(named))
        except ValueError:
            return self.profile

    @classmethod
    def start(
        cls,
        settings: Settings,
        files: FileCache,
        stdin_text: str | None,
        explicit: list[tuple[str, str]],
    ) -> _Job:
        platform = (
            Val(settings.platform, "--platform")
            if settings.platform
            else Val("cuda", "default platform (--platform)")
        )
        env = {k: Val(v, f"--env {k}") for k, v in settings.env.items()}
        return cls(
            settings,
            files,
            stdin_text,
            platform,
            env,
            profile_for(settings.sglang_version),
            RuleContext(align_to=settings.align_to),
            explicit,
            ModelStore(files, settings.model_configs, settings.builtin_models),
        )


def check_unit(
    job: _Job,
    candidates: list[Candidate],
    commands: list[str] | None,
    totals: RunResult,
    memo: Any = None,
    inputs: Inputs | None = None,
) -> tuple[RunResult, int]:
    """One unit, checked, filtered and sorted; (its result, how many findings were suppressed).
    ``memo``, ``inputs``: what the last check kept, the unit's files as read (``recheck.py``)."""
    settings = job.settings
    unit = RunResult(settings)
    if inputs is None:
        inputs = read_inputs(candidates, job.files, job.platform, job.env, job.stdin_text, commands)
    # a file that was not named but read as a possible PD partner (grouping.add_partners) is no
    # input of the run: its problems are not the run's (it is checked when named or walked)
    partners = {real(c.path) for c in candidates if c.partner}
    unit.errors.extend(e for e in inputs.errors if not partners or real(e.file) not in partners)
    unit.files, unit.skipped, unit.notes = inputs.files, inputs.skipped, inputs.notes
    reused = _resolve_all(job, unit, inputs.deployments, partners, memo)
    # pair first, so a partner that pairs with no named server is dropped before any rule runs
    # on it; then the deployment rules, then the pair rules (which read the deployment findings)
    pair_up(unit, job.explicit)
    drop_lone_partners(unit, partners)
    for r in unit.results:
        own = reused.get(id(r))
        r.findings = list(own) if own is not None else check(r.resolution, job.ctx, settings)
    if memo is not None:
        memo.keep(unit.results)
    check_pairs(unit, job.ctx, memo)
    suppressed = _suppress(unit, job.files)
    _evidence_not_edited(unit)
    for r in unit.results:
        r.findings.sort(key=position_key)  # reading order: by file and position
    if settings.baseline is not None or settings.write_baseline:
        apply_baseline(unit, totals)
    return unit, suppressed


def _resolve_all(
    job: _Job, unit: RunResult, deployments: list[Any], partners: set[str], memo: Any
) -> dict[int, list[Finding]]:
    """Resolve each deployment into ``unit.results``; id of a result -> the findings ``memo`` had."""
    failed: set[InputError] = set()  # each once: the servers of a recipe naming one missing model
    reused: dict[int, list[Finding]] = {}
    for dep in deployments:
        hit = memo.take(dep) if memo is not None else None
        if hit is not None:
            r = DeploymentResult(hit.resolution.deployment, hit.resolution, [])
            reused[id(r)] = hit.findings
            unit.results.append(r)
            continue
        if dep.gpu is None and job.settings.gpu:
            dep.gpu = Val(job.settings.gpu, "--gpu")
        if not job.release_given:  # --sglang-version decides; else the file's image or pin
            release.note(dep, job.files.text_of(dep.file))
        try:
            res = resolve(dep, job.models, job.profile_of(dep))
            if res.profile.before_dsv4 and res.target is not None:
                res.quiet = "before-dsv4"  # only the release's own finding: it cannot run DSV4
        except InputProblem as problem:
            error = problem.to_error()
            if (not partners or real(dep.file) not in partners) and error not in failed:
                failed.add(error)
                unit.errors.append(error)
            continue
        unit.results.append(DeploymentResult(dep, res, []))
    return reused


def _suppress(unit: RunResult, files: FileCache) -> int:
    """Apply per-file-ignores and inline suppressions to a unit, then add the suppression rules'
    findings; how many findings were suppressed."""
    filt = _Filter(unit.settings, files)
    for dep_result in unit.results:
        filt.apply(dep_result)
    for pair in unit.pairs:  # what suppressions left of the pair's findings
        kept = {id(f) for f in pair.decode.findings}
        pair.findings = [f for f in pair.findings if id(f) in kept]
    filt.report()
    return filt.suppressed


def _evidence_not_edited(unit: RunResult) -> None:
    """A server's log or /server_info answer is what it printed, not a file to edit: a fix keeps
    its advice but no edit of such a file (inputs/server_output.py)."""
    evidence = {r.deployment.file for r in unit.results if r.deployment.evidence}
    if not evidence:
        return
    advice: dict[int, Finding] = {}
    for r in unit.results:
        r.findings = [_without_edits_in(f, evidence, advice) for f in r.findings]
    for pair in unit.pairs:
        pair.findings = [advice.get(id(f), f) for f in pair.findings]


def _without_edits_in(f: Finding, files: set[str], advice: dict[int, Finding]) -> Finding:
    if f.fix is None or not any(e.file in files for e in f.fix.edits):
        return f
    kept = tuple(e for e in f.fix.edits if e.file not in files)
    fix = replace(
        f.fix,
        description=f.fix.description
        + " (in the files that launched the server: a log or /server_info answer is not edited)",
        edits=kept,
    )
    advice[id(f)] = out = replace(f, fix=fix)
    return out


def pair_up(result: RunResult, explicit: list[tuple[str, str]]) -> None:
    """Pair PD prefill and decode servers (``pairing.find_pairs``)."""
    result.pairs, result.alone, problems = find_pairs(result.results, explicit)
    result.errors.extend(problems)
    result.notes.extend(
        InputError(p.decode.deployment.file, None, None, p.note) for p in result.pairs if p.note
    )


def check_pairs(result: RunResult, ctx: RuleContext, memo: Any = None) -> None:
    """Run the pair rules on the pairs; findings go to the decode side. A PD server left without
    a partner gets the findings of the ``unpaired`` rules. ``memo`` (``recheck.py``): a pair of
    the same two resolutions as in the last check has the findings it had (the same inputs)."""
    settings = result.settings
    rules = [rule for rule in PAIR_RULES if settings.rule_enabled(rule.CODE)]
    for pair in result.pairs:
        hit = memo.pair_findings(pair) if memo is not None else None
        pair.findings = (
            hit if hit is not None else [f for r in rules for f in r.check_pair(pair, ctx)]
        )
        if memo is not None:
            memo.keep_pair(pair)
        pair.decode.findings.extend(pair.findings)
    for rule in UNPAIRED_RULES:
        if settings.rule_enabled(rule.CODE):
            for alone_result, why in result.alone:
                alone_result.findings.extend(rule.check_alone([(alone_result, why)]))


def apply_baseline(unit: RunResult, totals: RunResult) -> None:
    """``--baseline``: drop the findings whose fingerprint (SARIF's: file, rule, logical location)
    the baseline holds; ``--write-baseline``: collect every fingerprint into ``totals``."""
    # only with a baseline
    from .fingerprints import base_dir, fingerprinted, repo_path, with_severity

    settings = unit.settings
    base = base_dir(settings)
    known = settings.baseline or frozenset()
    dropped: set[int] = set()
    for r, f, _, sarif_key in list(fingerprinted(unit, base)):
        key = with_severity(sarif_key, f.severity)
        if settings.write_baseline:
            file = repo_path(f.location.file if f.location else r.deployment.file, base)
            totals.fingerprints[key] = {
                "code": f.code,
                "severity": f.severity,
                "file": file,
                "deployment": r.deployment.name,
                "message": f.message,
            }
        if key in known:
            dropped.add(id(f))
    if dropped:
        for r in unit.results:
            r.findings = [f for f in r.findings if id(f) not in dropped]
        for pair in unit.pairs:
            pair.findings = [f for f in pair.findings if id(f) not in dropped]
        totals.summary.baselined += len(dropped)


def drop_lone_partners(unit: RunResult, partners: set[str]) -> None:
    """Keep the deployments of a partner file (``grouping.add_partners``: not named, found beside a
    named PD server) only when they are paired with a named server; the rest were not asked for."""
    if not partners:
        return

    def named(r: DeploymentResult) -> bool:
        return real(r.deployment.file) not in partners

    # a pair of two partners was not asked for either: only pairs with a named server count
    unit.pairs = [p for p in unit.pairs if named(p.prefill) or named(p.decode)]
    paired = {id(r) for p in unit.pairs for r in (p.prefill, p.decode)}
    kept = [r for r in unit.results if named(r) or id(r) in paired]
    if len(kept) < len(unit.results):
        _keep_only(unit, kept, partners)


def _keep_only(unit: RunResult, kept: list[DeploymentResult], partners: set[str]) -> None:
    """Drop every deployment result but ``kept``, and the partner files none of them is from."""
    keep = {id(r) for r in kept}
    for r in unit.results:  # a dropped partner's pair findings went to its decode side: gone
        if id(r) not in keep:
            r.findings = []
    unit.results = kept
    unit.alone = [(r, why) for r, why in unit.alone if id(r) in keep]
    files = {real(r.deployment.file) for r in kept}
    unit.files = [f for f in unit.files if real(f) not in partners or real(f) in files]
    unit.skipped = [f for f in unit.skipped if real(f) not in partners]


def finish(totals: RunResult) -> None:
    """The exit code, once every unit is counted. A run that finds no deployment at all is an
    input error (a mistyped folder or glob must not pass), unless ``allow_empty``."""
    s = totals.summary
    settings = totals.settings
    if (
        not s.deployments
        and not s.input_errors
        and not settings.allow_empty
        and (settings.paths or settings.commands)
    ):
        if len(settings.paths) == 1 and not settings.commands:
            where, what = settings.paths[0], ""
        else:
            n = len(settings.paths) + len(settings.commands)
            where, what = "swacheck", f" in {n} inputs"
        totals.errors.append(
            InputError(
                where,
                None,
                None,
                f"no deployments found{what} (--allow-empty allows a run without any)",
            )
        )
        s.input_errors += 1
    totals.exit_code = (
        2 if s.input_errors else (1 if s.failing and not totals.settings.exit_zero else 0)
    )
