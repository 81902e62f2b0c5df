"""The pipeline: files -> load -> normalise -> resolve geometry -> check rules -> result.

``run`` is the one place the stages meet; each stage lives in its own module.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from .inputs import Deployment, discover, read_inputs
from .loading import FileCache
from .model import SEVERITY_RANK, Finding, InputError, InputProblem, Summary, Val
from .rules import RULES, Context
from .settings import Settings
from .sglang.models import ModelStore
from .sglang.resolve import Resolution, resolve


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


def check(res: Resolution, ctx: Context) -> list[Finding]:
    findings = [f for rule in RULES for f in rule.check(res, ctx)]
    findings.sort(key=lambda f: (-SEVERITY_RANK[f.severity], f.code))
    return findings


def run(settings: Settings) -> RunResult:
    result = RunResult(settings)
    candidates, result.errors = discover(settings.paths, settings.exclude)
    files = FileCache(settings.max_file_size)
    platform = Val(settings.platform, "--platform") if settings.platform else Val("cuda", "default platform (--platform)")
    env = {k: Val(v, f"--env {k}") for k, v in settings.env.items()}
    stdin_text = None
    if any(c.path == "-" for c in candidates):
        stdin_text = "" if sys.stdin is None or sys.stdin.closed else sys.stdin.read()
    inputs = read_inputs(candidates, files, platform, env, stdin_text)
    result.errors.extend(inputs.errors)
    result.files, result.skipped = inputs.files, inputs.skipped
    models = ModelStore(files, settings.model_configs)
    ctx = Context(align_to=settings.align_to)
    for dep in inputs.deployments:
        try:
            res = resolve(dep, models)
        except InputProblem as problem:
            result.errors.append(problem.to_error())
            continue
        result.results.append(DeploymentResult(dep, res, check(res, ctx)))
    summarise(result)
    return result


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
    result.exit_code = 2 if result.errors else (1 if failing else 0)
