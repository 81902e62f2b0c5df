"""SWA501 moe-runner-fp4-experts: the MoE runner cannot run the checkpoint's FP4 experts on this GPU.

## What it does

For a DeepSeek-V4 checkpoint whose routed experts are MXFP4 (SGLang's default for DeepSeek-V4,
`quantization_config.routed_experts_quant_method: mxfp4`, or `SGLANG_DSV4_FP4_EXPERTS=1`) on
CUDA, works out the MoE runner SGLang will use -- the one written in `moe-runner-backend`, or what
`auto` becomes in the selected release with this `moe-a2a-backend` and GPU -- and reports it when
that runner cannot run FP4 experts there:

| runner (written or chosen by `auto`) | FP4 experts |
|---|---|
| `marlin`, `humming` (0.5.16+) | run on any CUDA GPU SGLang supports |
| `flashinfer_mxfp4` | SM90 and SM120 (CUTLASS W4A16 / MXFP8xMXFP4), SM100 (TRT-LLM); not below SM90 |
| `deep_gemm` (also `auto` with `moe-a2a-backend` deepep, mooncake or nixl) | Blackwell SM100 only: DeepGEMM's FP4-expert grouped GEMM asserts `arch_major == 10` |
| `triton`, `triton_kernel` (also `auto` when nothing else is chosen) | never: the FP8 Triton kernel reads the packed FP4 weight as half the hidden size, `AssertionError: Hidden size mismatch` |
| `flashinfer_trtllm` | never: Fp8MoEMethod hands it FP8 weights only |

What `auto` becomes with `moe-a2a-backend none` (`srt/arg_groups/model_overrides/deepseek_v4.py`
0.5.19+, 0.5.23:67-86): `flashinfer_mxfp4` on SM90/SM100/SM120 from 0.5.19; only on SM120 in
0.5.14-0.5.18 (`marlin` in 0.5.14-0.5.15, `overrides.py _deepseek_v4_sm120_moe` 0.5.16:1488);
never in 0.5.12-0.5.13. Otherwise `auto` is `deep_gemm` when an all-to-all backend runs
(`Fp8MoEMethod.is_deepgemm_moe_runner_backend_enabled`, `srt/layers/quantization/fp8.py`
0.5.23:1520-1542, 0.5.12:842-856) and `triton` else (`create_moe_runner`, 0.5.23:2962-2972). The
FP4 methods are chosen in `Fp8Config.get_quant_method` (0.5.23:445-473, 0.5.12:259-280): only for
marlin, humming and flashinfer_mxfp4; every other runner gets the plain FP8 method.
`SGLANG_DSV4_FP4_DEQUANT=1` (0.5.16+) dequantises the experts to FP8 at load and needs `auto`.

With no `--gpu` the rule reports only what fails on every GPU, and notes what hinges on the GPU.
A launch with KTransformers flags (`kt-*`: routed experts on the CPU through kt-kernel) is not judged.

## Why it matters

The server loads weights for minutes and then dies (`AssertionError: Hidden size mismatch`,
DeepGEMM's `arch_major == 10` assertion), or refuses the runner -- the most common DeepSeek-V4
start-up failure on Hopper in public reports. The expert format is read from `config.json`
(`routed_experts_quant_method`), the server's `SGLANG_DSV4_FP4_EXPERTS`, or the name of a
published checkpoint folder (`DeepSeek-V4-Flash`, `DeepSeek-V4-Pro`): an error. When only
SGLang's default says FP4 (SGLang itself would read the weights' safetensors header, which says
FP8 for a converted checkpoint), the finding is a warning and says so; set
`SGLANG_DSV4_FP4_EXPERTS=0` in the server environment for an FP8-converted checkpoint.

## Example

```yaml
# swacheck --gpu H200
model-path: /models/DeepSeek-V4-Pro
tp-size: 8
moe-a2a-backend: deepep
```

## Fix

On Hopper (SM90) and SM120: `moe-runner-backend: flashinfer_mxfp4` (or `marlin`), or drop the
all-to-all backend so that SGLang 0.5.19+ chooses `flashinfer_mxfp4` itself; on Blackwell (SM100):
`flashinfer_mxfp4` or `deep_gemm`; below SM90: `marlin`.

Fix safety: unsafe — it changes the MoE runner the server uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model.records import Finding, Fix, Related, Val
from ..model.recordtype import record
from ..sglang.gpus import Gpu
from ..sglang.resolve import Resolution
from . import _preflight as pf
from .base import RuleContext

CODE = "SWA501"
NAME = "moe-runner-fp4-experts"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits
SUMMARY = (
    "MoE runner (written or auto-selected) that cannot run DeepSeek-V4's FP4 experts on this GPU"
)

A2A_DEEPGEMM = ("deepep", "mooncake", "nixl")
NEVER = {
    "triton": "AssertionError: Hidden size mismatch (the FP8 Triton MoE kernel reads "
    "the packed FP4 expert weight as half the hidden size; "
    "moe_runner/triton_utils/fused_moe.py)",
    "triton_kernel": "the Triton-kernels runner has no FP4-expert path for DeepSeek-V4 "
    "(Fp8Config.get_quant_method gives it the FP8 method)",
    "flashinfer_trtllm": "flashinfer_trtllm runs FP8 expert weights only (Fp8MoEMethod builds "
    "FlashInferTrtllmFp8MoeQuantInfo)",
}


def _best(sm_major: int | None, profile) -> str:
    if sm_major in (9, 10, 12):
        return "flashinfer_mxfp4"
    return "marlin"


@record
class _Case:
    """A CUDA DeepSeek-V4 launch with FP4 experts and the MoE runner it asks for."""

    res: Resolution
    gpu_val: Val | None
    gpu: Gpu | None
    sm: int | None
    runner_arg: Any
    runner: str
    a2a: str
    ck: Any
    chosen: str = ""  # the runner SGLang ends up with
    how: str = ""  # how the launch gets it
    depends_on_gpu: bool = False  # the outcome depends on a GPU swacheck does not know


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    case = _case(res)
    if case is None or not _choose(case):
        return
    problem = _problem(case)
    if problem is None:
        return
    if case.chosen == "triton" and case.runner == "auto" and case.a2a == "none":
        if case.depends_on_gpu:
            # Whether auto reaches triton depends on the GPU: say what it would need.
            if case.gpu_val is not None:  # no --gpu: silent on what depends on it
                yield _auto_note(case, case.gpu_val)
            return
    if case.depends_on_gpu:
        yield _needs_gpu(case, problem)
        return
    yield _failure(case, problem)


def _case(res: Resolution) -> _Case | None:
    """The launch, when this rule judges it: CUDA, DeepSeek-V4, FP4 experts, a runner it knows."""
    if not pf.is_dsv4(res) or pf.platform(res) != "cuda":
        return None
    gpu_val, gpu = pf.gpu(res)
    runner = pf.text(res, "moe-runner-backend", "auto")
    a2a = pf.text(res, "moe-a2a-backend", "none")
    if runner == "auto" and a2a == "none" and gpu_val is None and res.profile.dsv4_fp4_auto_sm:
        # the common launch without --gpu: what auto becomes depends on the GPU alone (in
        # 0.5.12-0.5.13 it does not: auto is triton on every GPU, reported without --gpu)
        return None
    if pf.kt_experts(res):  # (after the cheaper test above: this one reads every key)
        return None  # KTransformers runs the experts on the CPU (kt-kernel): not this model
    if runner not in ("auto", "deep_gemm", "flashinfer_mxfp4", *NEVER):
        return None  # marlin, humming and the rest: not judged
    ck = pf.checkpoint(res)
    if ck is None or not ck.fp4_experts:
        return None
    if (
        runner == "auto"
        and res.profile.fp4_dequant_env
        and pf.env_true(res, "SGLANG_DSV4_FP4_DEQUANT")
    ):
        return None  # dequantised to FP8 at load: the FP8 runners apply
    sm = gpu.sm_major if gpu is not None and gpu.platform == "cuda" else None
    runner_arg = pf.arg(res, "moe-runner-backend")
    return _Case(res, gpu_val, gpu, sm, runner_arg, runner, a2a, ck)


def _choose(case: _Case) -> bool:
    """Set the runner SGLang ends up with and how; False when it is not judged here."""
    profile, sm, a2a = case.res.profile, case.sm, case.a2a
    case.how = f"moe-runner-backend {case.runner}"
    case.chosen = case.runner
    if case.runner != "auto":
        return True
    if a2a == "none":
        if sm is not None and sm in profile.dsv4_fp4_auto_sm:
            return False  # the release picks an FP4 runner itself
        case.depends_on_gpu = sm is None and bool(profile.dsv4_fp4_auto_sm)
        case.chosen = "triton"
        if not profile.dsv4_fp4_auto_sm:  # 0.5.12-0.5.13: the same on every GPU
            case.how = (
                f"moe-runner-backend auto (SGLang {profile.version} picks no FP4-capable "
                "runner for DeepSeek-V4 on any GPU: auto is triton)"
            )
            return True
        picks = ", ".join(f"SM{m}0" for m in profile.dsv4_fp4_auto_sm)
        case.how = (
            f"moe-runner-backend auto (SGLang {profile.version} picks "
            f"{profile.dsv4_fp4_auto_runner} for DeepSeek-V4 FP4 experts only on "
            f"{picks}; else triton)"
        )
        return True
    if a2a in A2A_DEEPGEMM:
        case.chosen = "deep_gemm" if sm is None or sm >= 9 else "triton"
        case.how = (
            f"moe-runner-backend auto with moe-a2a-backend {a2a} (auto becomes "
            f"deep_gemm when DeepGEMM is available, else triton)"
        )
        return True
    return False  # another all-to-all backend: not judged


def _problem(case: _Case) -> str | None:
    """Why the chosen runner fails with FP4 experts (on this GPU), or None when it does not."""
    problem = NEVER.get(case.chosen)
    if problem is not None:
        return problem
    sm = case.sm
    if case.chosen == "deep_gemm":
        if sm == 10:
            return None
        if sm is None:
            case.depends_on_gpu = True
        return "DeepGEMM's FP4-expert grouped GEMM is Blackwell-only (it asserts arch_major == 10)"
    if case.chosen == "flashinfer_mxfp4":
        if sm is None or sm in (9, 10, 12):
            return None
        return "flashinfer_mxfp4 runs FP4 experts on SM90, SM100 and SM120 only (Fp8Config.get_quant_method)"
    return None  # marlin, humming and the rest: not judged here


def _auto_note(case: _Case, gpu_val: Val) -> Finding:
    """A GPU swacheck does not know, with moe-runner-backend auto: where auto works."""
    res, profile = case.res, case.res.profile
    return Finding(
        CODE,
        "note",
        f"{pf.unknown_gpu_note(str(gpu_val.value))}: with FP4 experts, "
        f"moe-runner-backend auto works only where SGLang {profile.version} "
        f"picks {profile.dsv4_fp4_auto_runner} itself "
        f"(SM{', SM'.join(str(m) + '0' for m in profile.dsv4_fp4_auto_sm)}); "
        f"elsewhere it falls back "
        "to triton, which fails with AssertionError: Hidden size mismatch",
        gpu_val.location or pf.where(res, case.runner_arg),
        Fix(
            "Name a GPU swacheck knows (--gpu H100, B200, ...), or set "
            "moe-runner-backend: marlin, which runs FP4 experts on any CUDA GPU."
        ),
        field="moe-runner-backend",
    )


def _needs_gpu(case: _Case, problem: str) -> Finding:
    """The outcome depends on the GPU: no --gpu, or one swacheck does not know."""
    res = case.res
    if case.gpu_val is None:
        needs = (
            "a Blackwell (SM100) GPU"
            if case.chosen == "deep_gemm"
            else "the GPU's compute capability"
        )
        return Finding(
            CODE,
            "note",
            f"{case.how}: with DeepSeek-V4 FP4 experts this needs {needs}: {problem}; give --gpu to check it",
            pf.where(res, pf.arg(res, "moe-a2a-backend") or case.runner_arg),
            Fix("Give the GPU with --gpu (or gpu: in a deployment file)."),
            field="moe-runner-backend",
        )
    return pf.unknown_gpu_finding(
        CODE,
        case.gpu_val,
        f"{case.how} with DeepSeek-V4 FP4 experts needs a Blackwell (SM100) GPU: {problem}",
        pf.where(res, case.runner_arg),
        "moe-runner-backend",
    )


def _failure(case: _Case, problem: str) -> Finding:
    """The runner cannot run the FP4 experts on this GPU: the error, and the runner that can."""
    res, gpu, ck = case.res, case.gpu, case.ck
    gpu_text = f" on {gpu.name} ({gpu.arch_text})" if gpu is not None else ""
    experts = f"{ck.experts.value.upper()} experts ({ck.experts.origin})"
    message = f"{case.how}{gpu_text} cannot run DeepSeek-V4's {experts}: {problem}"
    related = []
    if ck.experts.location is not None:
        related.append(Related(ck.experts.location, "the FP4 expert format comes from here"))
    if case.gpu_val is not None and case.gpu_val.location is not None:
        related.append(Related(case.gpu_val.location, "the GPU is named here"))
    severity, message = _certainty(res, ck, message)
    runner_arg = case.runner_arg
    return Finding(
        CODE,
        severity,
        message,
        pf.where(res, runner_arg if runner_arg is not None else pf.arg(res, "moe-a2a-backend")),
        _fix(case),
        tuple(related),
        "moe-runner-backend",
    )


def _fix(case: _Case) -> Fix:
    """Set the runner that runs FP4 experts on this GPU (marlin on any CUDA GPU)."""
    res, gpu = case.res, case.gpu
    best = _best(case.sm, res.profile)
    edit = pf.set_arg(res, "moe-runner-backend", best)
    if case.chosen == "deep_gemm" and case.runner == "auto":
        desc = (
            f"Set moe-runner-backend: {best} (FP4 experts on "
            f"{'this GPU' if gpu else 'SM90/SM100/SM120'}), or drop moe-a2a-backend "
            f"{case.a2a} so that SGLang 0.5.19+ picks flashinfer_mxfp4 itself."
        )
    else:
        desc = f"Set moe-runner-backend: {best}" + (
            " (runs FP4 experts on any CUDA GPU)."
            if best == "marlin"
            else f" (FP4 experts on {gpu.name if gpu else 'SM90/SM100/SM120'})."
        )
    if case.ck.experts_assumed:
        desc += (
            " If this checkpoint's experts were converted to FP8, set "
            "SGLANG_DSV4_FP4_EXPERTS=0 in the server environment instead."
        )
    return Fix(desc, (edit,) if edit is not None else (), safe=False)


def _certainty(res: Resolution, ck: Any, message: str) -> tuple[str, str]:
    """(severity, message): an error when the FP4 format is known, less when only assumed."""
    if not ck.experts_assumed:
        return SEVERITY, message
    # only SGLang's default says FP4: SGLang reads the weights' safetensors header, which may say
    # FP8 (a converted checkpoint) -- the outcome is likely, not certain
    severity = "warning"
    message += "; the FP4 format is SGLang's default, which the weights' header may overrule"
    if any(
        getattr(u, "kind", "") == "env" and getattr(u, "name", "") == "SGLANG_DSV4_FP4_EXPERTS"
        for u in getattr(res.deployment, "unresolved", ())
    ):
        # the launch sets SGLANG_DSV4_FP4_EXPERTS to a value known only at run time
        severity = "note"
        message += (
            "; unless SGLANG_DSV4_FP4_EXPERTS, set only at run time here, declares FP8 experts"
        )
    return severity, message
