"""The pipeline: files -> load -> normalise -> resolve geometry -> check rules -> result.

``run`` is the one place the stages meet; each stage lives in its own module.
"""

from __future__ import annotations

import fnmatch
import gc
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from .inputs import Deployment, discover, read_inputs
from .loading import FileCache
from .model import SEVERITY_RANK, Finding, InputError, InputProblem, Summary, Val
from .pairing import ServerPair, find_pairs
from .paths import forget as forget_paths, real
from .rules import DEPLOYMENT_RULES, PAIR_RULES, SUPPRESSION_RULES, Context, swa400
from .settings import Settings
from .suppress import Suppression, scan
from .sglang.models import ModelStore
from .sglang.resolve import Resolution, resolve
from .sglang.version import PROFILES


@dataclass(slots=True)
class DeploymentResult:
    deployment: Deployment
    resolution: Resolution
    findings: list[Finding]


@dataclass(slots=True)
class RunResult:
    settings: Settings
    results: list[DeploymentResult] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)
    exit_code: int = 0
    pairs: list[ServerPair] = field(default_factory=list)
    named_pairs: list[tuple[str, str]] = field(default_factory=list)  # from `pairs:` documents
    alone: list[tuple[DeploymentResult, str]] = field(default_factory=list)  # PD servers left unpaired


def check(res: Resolution, ctx: Context, settings: Settings) -> list[Finding]:
    return [f for rule in DEPLOYMENT_RULES if settings.rule_enabled(rule.CODE) for f in rule.check(res, ctx)]


def files_read(res: Resolution) -> list[str]:
    """Every file one deployment was built from: where its findings and suppressions live."""
    dep = res.deployment
    paths = [dep.file, dep.server.file] + [p.model.file for p in (res.target, res.draft) if p and p.model]
    return list(dict.fromkeys(p for p in paths if p))


class _Filter:
    """Applies per-file-ignores and inline suppressions; then reports the suppressions."""

    def __init__(self, settings: Settings, files: FileCache):
        self.settings = settings
        self.files = files
        self.by_file: dict[str, list[Suppression]] = {}
        self.owner: dict[str, DeploymentResult] = {}  # a file's suppression findings go here
        self.suppressed = 0

    def suppressions(self, path: str) -> list[Suppression]:
        key = real(path)
        if key not in self.by_file:
            found: list[Suppression] = []
            if not path.lower().endswith(".json"):
                try:
                    found = scan(self.files.load(path).text, path)
                except InputProblem:
                    pass
            self.by_file[key] = found
        return self.by_file[key]

    def ignored_by_config(self, finding: Finding) -> bool:
        if finding.location is None or not self.settings.per_file_ignores:
            return False
        path = os.path.relpath(os.path.abspath(finding.location.file), os.path.abspath(self.settings.per_file_ignores_base))
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
                    owner.findings.extend(f for f in rule.check_suppressions(suppressions, self.settings.rule_enabled) if not self.ignored_by_config(f))


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
    result = RunResult(settings)
    forget_paths()
    candidates, result.errors = discover(settings.paths, settings.exclude)
    files = FileCache(settings.max_file_size)
    platform = Val(settings.platform, "--platform") if settings.platform else Val("cuda", "default platform (--platform)")
    env = {k: Val(v, f"--env {k}") for k, v in settings.env.items()}
    stdin_text = None
    if any(c.path == "-" for c in candidates):
        stdin_text = "" if sys.stdin is None or sys.stdin.closed else sys.stdin.read()
    inputs = read_inputs(candidates, files, platform, env, stdin_text, settings.commands)
    result.errors.extend(inputs.errors)
    result.files, result.skipped, result.named_pairs = inputs.files, inputs.skipped, inputs.pairs
    models = ModelStore(files, settings.model_configs)
    profile = PROFILES[settings.sglang_version]
    ctx = Context(align_to=settings.align_to)
    filt = _Filter(settings, files)
    for dep in inputs.deployments:
        try:
            res = resolve(dep, models, profile)
        except InputProblem as problem:
            result.errors.append(problem.to_error())
            continue
        result.results.append(DeploymentResult(dep, res, check(res, ctx, settings)))
    check_pairs(result, ctx)
    for dep_result in result.results:
        filt.apply(dep_result)
    for pair in result.pairs:  # what suppressions left of the pair's findings
        kept = {id(f) for f in pair.decode.findings}
        pair.findings = [f for f in pair.findings if id(f) in kept]
    filt.report()
    for r in result.results:
        r.findings.sort(key=lambda f: (-SEVERITY_RANK[f.severity], f.code))
    result.summary.suppressed = filt.suppressed
    summarise(result)
    return result


def check_pairs(result: RunResult, ctx: Context) -> None:
    """Pair PD prefill and decode servers and run the pair rules; findings go to the decode side."""
    settings = result.settings
    result.pairs, result.alone = find_pairs(result.results, [*settings.pairs, *result.named_pairs])
    for pair in result.pairs:
        pair.findings = [f for rule in PAIR_RULES if settings.rule_enabled(rule.CODE) for f in rule.check_pair(pair, ctx)]
        pair.decode.findings.extend(pair.findings)
    if settings.rule_enabled(swa400.CODE):
        for alone_result, why in result.alone:
            alone_result.findings.extend(swa400.check_alone([(alone_result, why)]))


def summarise(result: RunResult) -> None:
    s = result.summary
    s.files = len(result.files)
    s.deployments = len(result.results)
    s.input_errors = len(result.errors)
    for r in result.results:
        for f in r.findings:
            s.counts[f.severity] += 1
    threshold = SEVERITY_RANK[result.settings.fail_on]
    failing = any(SEVERITY_RANK[f.severity] >= threshold for r in result.results for f in r.findings)
    result.exit_code = 2 if result.errors else (1 if failing and not result.settings.exit_zero else 0)
