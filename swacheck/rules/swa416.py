"""SWA416 mooncake-env-out-of-range: Mooncake's failed-session probe and sender-thread switches
out of range.

## What it does

On a PD server (prefill or decode) whose transfer backend is Mooncake (`mooncake`,
`mooncake_tcp`), reads the environment switches `MooncakeKVManager.__init__`
(`disaggregation/mooncake/conn.py`) checks when the scheduler builds its KV manager:

- 0.5.23, with `SGLANG_ENABLE_FAILED_SESSION_PROBE` on (its default): `ValueError: Need 0 <
  SGLANG_FAILED_SESSION_PROBE_INTERVAL_S <= SGLANG_FAILED_SESSION_PROBE_MAX_INTERVAL_S`
  (defaults 30 and 300, 0.5.23:298-304) and `ValueError: SGLANG_FAILED_SESSION_IDLE_TIMEOUT_S
  must be positive` (default 600, 0.5.23:307-309), on either role;
- 0.5.22 and 0.5.23, on a prefill server: `AssertionError: The environment variable
  SGLANG_DISAGGREGATION_THREAD_POOL_SIZE=N must be greater than or equal to
  SGLANG_DISAGGREGATION_QUEUE_SIZE=M` (0.5.23:336, 0.5.22:294). The queue size defaults to 4;
  without `SGLANG_DISAGGREGATION_THREAD_POOL_SIZE` the pool is `min(max(4, cpus // 2 // 8), 12)`,
  so a queue size above 12 always fails and one of 4 or less never does; in between it depends
  on the machine's CPU count, which swacheck does not know (not reported).

A value `srt/environ.py` cannot parse is warned about and the default used, as SGLang does.

## Why it matters

The server stops while it starts its scheduler, before it serves a request.

## Example

```yaml
# deploy.yaml (swacheck deployment file)
server: {model-path: models/DeepSeek-V4-Flash, disaggregation-mode: prefill}
env: {SGLANG_DISAGGREGATION_THREAD_POOL_SIZE: "2"}
```

## Fix

Keep the probe interval above 0 and at most the maximum interval, the idle timeout positive,
and the sender thread pool at least the queue size (or unset the variables).

Fix safety: none — no automatic fix: the values are the operator's choice.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from ._pdenv import backend, env_bool, env_float, env_int, env_loc, role
from .base import RuleContext

CODE = "SWA416"
NAME = "mooncake-env-out-of-range"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "Mooncake's failed-session probe intervals or sender thread pool out of the range "
    "MooncakeKVManager accepts"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

PROBE = "SGLANG_ENABLE_FAILED_SESSION_PROBE"
INTERVAL = "SGLANG_FAILED_SESSION_PROBE_INTERVAL_S"
MAX_INTERVAL = "SGLANG_FAILED_SESSION_PROBE_MAX_INTERVAL_S"
IDLE = "SGLANG_FAILED_SESSION_IDLE_TIMEOUT_S"
POOL = "SGLANG_DISAGGREGATION_THREAD_POOL_SIZE"
QUEUE = "SGLANG_DISAGGREGATION_QUEUE_SIZE"
LINES = {"0.5.23": (304, 309, 336), "0.5.22": (None, None, 294)}
MAX_DEFAULT_POOL = 12  # min(max(4, int(0.5 * cpu_count) // 8), 12)


def _refusals(res: Resolution, lines: tuple) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    probe_line, idle_line, pool_line = lines
    if probe_line is not None and env_bool(res, PROBE, True):
        interval = env_float(res, INTERVAL, 30.0)
        most = env_float(res, MAX_INTERVAL, 300.0)
        if not (0 < interval <= most):
            yield (
                f"ValueError: Need 0 < {INTERVAL} <= {MAX_INTERVAL} (they are {interval:g} and "
                f"{most:g})",
                f"disaggregation/mooncake/conn.py:{probe_line}",
                (INTERVAL, MAX_INTERVAL),
            )
            return
        idle = env_float(res, IDLE, 600.0)
        if idle <= 0:
            yield (
                f"ValueError: {IDLE} must be positive (it is {idle:g})",
                f"disaggregation/mooncake/conn.py:{idle_line}",
                (IDLE,),
            )
            return
    if role(res) != "prefill":
        return
    queue = env_int(res, QUEUE, 4)
    pool = env_int(res, POOL, None)
    assert queue is not None
    if pool is None and queue > MAX_DEFAULT_POOL:
        shown = f"at most {MAX_DEFAULT_POOL} (unset: min(max(4, CPUs // 2 // 8), 12))"
    elif pool is not None and pool < queue:
        shown = str(pool)
    else:
        return
    yield (
        f"AssertionError: The environment variable {POOL}={shown} must be greater than or equal "
        f"to {QUEUE}={queue}.",
        f"disaggregation/mooncake/conn.py:{pool_line}",
        (POOL, QUEUE),
    )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    lines = LINES.get(res.profile.version)
    if lines is None or role(res) is None or backend(res) != "mooncake":
        return
    for message, site, names in _refusals(res, lines):
        yield Finding(
            CODE,
            SEVERITY,
            f"SGLang {res.profile.version} stops building this {role(res)} server's Mooncake KV "
            f"manager (MooncakeKVManager.__init__, sglang/srt/{site}): {message}",
            env_loc(res, *names),
            Fix(
                "Keep the probe interval in (0, maximum interval], the idle timeout positive and "
                f"{POOL} at least {QUEUE}, or unset them."
            ),
            field=names[0],
        )
