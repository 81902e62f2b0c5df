"""SWA305 unresolved-variable: a server argument or environment value the files do not give.

## What it does

In launch commands (shell scripts, Dockerfiles, `--command`, Kubernetes containers, Compose
services), reports every server argument whose value cannot be resolved from the files: a
variable that is set nowhere swacheck can see (`$DRAFT`, `${DRAFT}`; `${DRAFT:-path}` uses its
default), a command substitution (`$(hostname)`, backquotes), the script's own arguments
(`"$@"`), a Kubernetes `valueFrom` value or a `$(VAR)` Kubernetes cannot expand, a Compose
`${VAR}` that is not in the project's `.env`. swacheck never guesses such a value: the
argument is checked as if it were not given. It also reports `SGLANG_HACK_FLASHMLA_BACKEND`
(on ROCm) and `SGLANG_DSV4_UNIFIED_KV_FP8` (with unified KV under PD) when their values are
unknown, since the verdict depends on them, and arguments that a variable may add (`$EXTRA_ARGS`
unknown, `"$@"`), which are then not checked at all.

An unresolvable `model-path` is not a finding but an input error (exit 2): without the model
there is no geometry to derive.

## Why it matters

The geometry swacheck prints assumes the argument is absent. If the variable holds, say, a
separately published draft checkpoint, the real server may fail with
`RuntimeError: DSV4 target and draft pools must share SWA ring geometry` where swacheck saw
no problem.

## Example

```bash
# decode.sh
export MODEL=/models/DeepSeek-V4-Flash
python3 -m sglang.launch_server --model-path "$MODEL" \
    --speculative-draft-model-path "$DRAFT" \
    --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
```

## Fix

Set the variable in the file (`export DRAFT=...`, an `ENV` line, a container `env` entry,
the Compose project's `.env`), give it a default (`${DRAFT:-/models/...}`), or tell swacheck
its value with `--env DRAFT=VALUE`.

Fix safety: none — no automatic fix: swacheck does not run commands or guess variables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import ENV_BACKEND, ENV_FP8, Resolution
from .base import RuleContext

CODE = "SWA305"
NAME = "unresolved-variable"
SEVERITY = "warning"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "launch-command argument or environment value that cannot be resolved from the files (treated as unset)"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _used(name: str, res: Resolution) -> bool:
    """Whether swacheck's verdict reads this environment variable."""
    if name == ENV_BACKEND:
        return res.values.get("platform") is not None and res.values["platform"].value == "rocm"
    if name == ENV_FP8:
        return (
            res.target is not None
            and bool(res.target.unified.value)
            and res.values.get("disaggregation_mode") is not None
            and res.values["disaggregation_mode"].value != "null"
        )
    return False


def _fix(variable: str, kind: str, shown: str = "", reason: str = "") -> Fix:
    if _NAME.fullmatch(variable or ""):
        if shown.startswith("$(") and not shown.startswith("$(("):  # Kubernetes' $(NAME)
            return Fix(
                f"Set {variable} in the container's env, or tell swacheck its value with --env "
                f"{variable}=VALUE."
            )
        if " not set in " not in reason:  # set, but only when the launch runs (a launcher sets
            # it, a command computes it): the file cannot say it
            return Fix(
                f"Tell swacheck its value with --env {variable}=VALUE: it is only known when "
                "the launch runs."
            )
        return Fix(
            f"Set {variable} in the file (or give it a default, "
            f"${{{variable}:-VALUE}}), or tell swacheck its value with --env "
            f"{variable}=VALUE."
        )
    if kind == "arguments":
        return Fix(
            "Write the server arguments in the file, or check the launch as it is "
            'run: swacheck --command "python -m sglang.launch_server ...".'
        )
    return Fix("Write the value in the file: swacheck does not run commands.")


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    dep = res.deployment
    for u in getattr(dep, "unresolved", ()):
        if u.kind == "env":
            if not _used(u.name, res):
                continue
            message = f"environment variable {u.name} cannot be resolved ({u.reason}); swacheck treats it as unset"
            field = u.name
        elif u.kind == "argument":
            message = f"--{u.name} {u.shown} cannot be resolved ({u.reason}); swacheck treats the argument as unset"
            field = u.name
        else:
            message = f"{u.shown} may add server arguments swacheck cannot see ({u.reason}); they are not checked"
            field = u.shown
        yield Finding(
            CODE,
            SEVERITY,
            message,
            u.location or dep.location,
            _fix(u.variable, u.kind, u.shown, u.reason),
            (),
            field,
        )
