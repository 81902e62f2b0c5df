"""SWA230 pd-args-refused: PD switches SGLang's PD hook (or its PD queues) refuses on one server.

## What it does

Checks, per release (0.5.21+), what `handle_pd_disaggregation`
(`arg_groups/pd_disaggregation_hook.py`) refuses while resolving the arguments, and what the
prefill bootstrap / decode pre-allocation queues refuse when the scheduler starts:

- `--enable-pd-role-switch` on a PD server with a feature a role flip does not rebuild: expert
  parallelism (`ep-size` > 1), a MoE all-to-all backend, `pp-size` > 1, `dcp-size` > 1,
  speculative decoding; 0.5.21-0.5.22 also data parallelism (`dp-size` > 1) and attention DP,
  0.5.23 DP attention with `enable-dp-attention-local-control-broadcast` instead
  (0.5.23:164-197, 0.5.22:171-201, 0.5.21:159-190). One `ValueError` lists them all;
- `--disaggregation-decode-host-receive-threshold` outside 0..1 (0.5.23:64-67); host receive on
  (a threshold below 1 from 0.5.22, above 0 in 0.5.21, whose default is 0) with HiSparse or
  role switching, or with `disaggregation-decode-retraction-backup: cpu_tensor` (0.5.23:68-75);
  the `host_pool` retraction it sets (or one written) on a server that is not a PD decode
  server, or with `dcp-size` > 1 (`arg_groups/kv_cache_hook.py` `handle_cache_compatibility`,
  0.5.23:352-365);
- a prefill server on the `fake` transfer backend (`AssertionError`, 0.5.23:150-152);
- `--disaggregation-decode-enable-radix-cache` on a decode server with `--enable-hisparse`, the
  `fake` backend, or (0.5.21-0.5.22) speculative decoding other than DSPARK (0.5.22:99-116);
- `SGLANG_DISAGG_STAGING_BUFFER` with a transfer backend other than Mooncake or NIXL
  (0.5.23:158-166), and on any DeepSeek-V4 PD server: its pool is MLA-like
  (`disaggregation/utils.py` `is_mla_backend` 0.5.23:865-869), which the prefill bootstrap queue
  (`disaggregation/prefill.py` 0.5.23:219-223) and the decode pre-allocation queue
  (`disaggregation/decode.py` 0.5.23:451-456) refuse with a `RuntimeError` at scheduler start.

`mooncake_tcp` is Mooncake for every check (the hook rewrites it first, 0.5.23:30-45).

A draft `config.json` SGLang's `ModelConfig` cannot load (SWA208) fails later, when the draft
worker is built: the hook's refusals, which come first, are reported beside it.

## Why it matters

The server stops before it serves, e.g. `ValueError: --enable-pd-role-switch does not rebuild
role-specific state for the following features: speculative decoding (--speculative-algorithm
EAGLE). Remove these options or drop --enable-pd-role-switch.`

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
disaggregation-mode: decode
enable-pd-role-switch: true
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
```

## Fix

Drop `enable-pd-role-switch` (or the features it lists); keep the host-receive threshold in
0..1 and off (1; 0 in 0.5.21) unless the decode server really buffers on the host; use Mooncake
or NIXL on a prefill server; unset `SGLANG_DISAGG_STAGING_BUFFER` for DeepSeek-V4.

Fix safety: none — no automatic fix: each choice changes how the server runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.deployment import Arg
from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from ._preflight import arg, env_true, flag, integer, is_dsv4, number, text, where
from .base import RuleContext

CODE = "SWA230"
NAME = "pd-args-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "PD switches SGLang's PD hook or PD queues refuse: role switching with what it does not "
    "rebuild, the host-receive threshold, a fake prefill backend, the decode radix cache, "
    "SGLANG_DISAGG_STAGING_BUFFER"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

HOOK = "arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation"
STAGING = "SGLANG_DISAGG_STAGING_BUFFER"


def _backend(res: Resolution) -> str:
    value = text(res, "disaggregation-transfer-backend", "mooncake") or "mooncake"
    return "mooncake" if value == "mooncake_tcp" else value


def _spec(res: Resolution) -> str | None:
    return text(res, "speculative-algorithm")


def _role_switch_features(res: Resolution, key: tuple[int, ...]) -> list[str]:
    """What the release's role-switch check lists, in its order (the resolved view at the PD
    hook: every value as written, attention DP as the parallel hook left it)."""
    attn_dp = int(res.values["attn_dp_size"].value) if "attn_dp_size" in res.values else 1
    dp = int(res.values["dp_size"].value) if "dp_size" in res.values else 1
    ep, pp, dcp = (integer(res, n, 1) for n in ("ep-size", "pp-size", "dcp-size"))
    a2a = text(res, "moe-a2a-backend", "none")
    spec = _spec(res)
    out = []
    if key < (0, 5, 22) and flag(res, "enable-dp-attention"):
        out.append("DP attention (--enable-dp-attention)")
    if key[:3] == (0, 5, 22) and attn_dp > 1:
        out.append(f"attention DP (--attn-dp-size {attn_dp})")
    if ep > 1:
        out.append(f"expert parallelism (--ep-size {ep})")
    if a2a != "none":
        out.append(f"MoE all-to-all (--moe-a2a-backend {a2a})")
    if pp > 1:
        out.append(f"pipeline parallelism (--pp-size {pp})")
    if key < (0, 5, 23) and dp > 1:
        out.append(f"data parallelism (--dp-size {dp})")
    if (
        key >= (0, 5, 23)
        and attn_dp > 1
        and flag(res, "enable-dp-attention-local-control-broadcast")
    ):
        out.append("DP attention local control broadcast")
    if dcp > 1:
        out.append(f"decode context parallelism (--dcp-size {dcp})")
    if spec is not None:
        out.append(f"speculative decoding (--speculative-algorithm {spec})")
    return out


def _host_receive(res: Resolution, key: tuple[int, ...]) -> Iterator[tuple[Arg | None, str]]:
    threshold = arg(res, "disaggregation-decode-host-receive-threshold")
    value = number(res, "disaggregation-decode-host-receive-threshold")
    if value is None:
        return
    if not 0 <= value <= 1:
        yield (
            threshold,
            "ValueError: --disaggregation-decode-host-receive-threshold must be between 0 and 1",
        )
        return
    on = value > 0 if key < (0, 5, 22) else value < 1
    if not on:
        return
    if flag(res, "enable-hisparse") or flag(res, "enable-pd-role-switch"):
        yield (
            threshold,
            "ValueError: Decode host receive does not yet support HiSparse or role switching",
        )
    elif text(res, "disaggregation-decode-retraction-backup") == "cpu_tensor":
        yield (
            arg(res, "disaggregation-decode-retraction-backup"),
            "ValueError: Decode host KV buffering requires host_pool retraction",
        )


def _radix_cache(res: Resolution, key: tuple[int, ...]) -> str | None:
    if not flag(res, "disaggregation-decode-enable-radix-cache"):
        return None
    if flag(res, "enable-hisparse"):
        return "--disaggregation-decode-enable-radix-cache is incompatible with --enable-hisparse"
    if _backend(res) == "fake":
        return (
            "--disaggregation-decode-enable-radix-cache is incompatible with "
            "--disaggregation-transfer-backend fake"
        )
    spec = _spec(res)
    if key < (0, 5, 23) and spec not in (None, "DSPARK"):
        return (
            "--disaggregation-decode-enable-radix-cache is incompatible with speculative "
            f"decoding (--speculative-algorithm {spec})"
        )
    return None


def _host_pool(
    res: Resolution, key: tuple[int, ...], mode: str
) -> Iterator[tuple[Arg | None, str, str]]:
    """``host_pool`` retraction (written, or what host receive sets) off a decode server or
    with ``dcp-size`` > 1: ``handle_cache_compatibility`` (``arg_groups/kv_cache_hook.py``
    0.5.23:352-365, the same in 0.5.21-0.5.22), later in the pipeline than the PD hook."""
    backup = arg(res, "disaggregation-decode-retraction-backup")
    value = text(res, "disaggregation-decode-retraction-backup")
    threshold = number(res, "disaggregation-decode-host-receive-threshold")
    if threshold is not None and 0 <= threshold <= 1:
        if (threshold > 0 if key < (0, 5, 22) else threshold < 1) and value != "cpu_tensor":
            value, backup = "host_pool", arg(res, "disaggregation-decode-host-receive-threshold")
    if value != "host_pool":
        return
    at = "arg_groups/kv_cache_hook.py handle_cache_compatibility"
    if mode != "decode":
        yield (
            backup,
            "ValueError: --disaggregation-decode-retraction-backup=host_pool is only supported on "
            "a PD decode server.",
            at,
        )
    elif integer(res, "dcp-size", 1) > 1:
        yield (
            backup,
            "ValueError: --disaggregation-decode-retraction-backup=host_pool does not support "
            "--dcp-size > 1.",
            at,
        )


def refusals(res: Resolution) -> Iterator[tuple[Arg | None, str, str]]:
    """(the argument, SGLang's exception and message, where) in SGLang's order."""
    key = release_key(res.profile.version)
    mode = text(res, "disaggregation-mode", "null")
    for a, message in _host_receive(res, key):
        yield a, message, HOOK
    if mode == "decode" and (why := _radix_cache(res, key)):
        yield arg(res, "disaggregation-decode-enable-radix-cache"), f"ValueError: {why}", HOOK
    if mode == "prefill" and _backend(res) == "fake":
        yield (
            arg(res, "disaggregation-transfer-backend"),
            "AssertionError: Prefill server does not support 'fake' as the transfer backend",
            HOOK,
        )
    if mode not in ("prefill", "decode"):
        yield from _host_pool(res, key, mode)
        return
    backend = _backend(res)
    if env_true(res, STAGING) and backend not in ("mooncake", "nixl"):
        yield (
            arg(res, "disaggregation-transfer-backend"),
            f"ValueError: {STAGING} requires disaggregation_transfer_backend='mooncake' or "
            f"'nixl', got '{backend}'.",
            HOOK,
        )
    if flag(res, "enable-pd-role-switch") and (features := _role_switch_features(res, key)):
        yield (
            arg(res, "enable-pd-role-switch"),
            "ValueError: --enable-pd-role-switch does not rebuild role-specific state for the "
            f"following features: {', '.join(features)}. Remove these options or drop "
            "--enable-pd-role-switch.",
            HOOK,
        )
    yield from _host_pool(res, key, mode)
    if env_true(res, STAGING):
        queue = (
            "disaggregation/prefill.py PrefillBootstrapQueue.__init__"
            if mode == "prefill"
            else "disaggregation/decode.py DecodePreallocQueue.__init__"
        )
        yield (
            None,
            f"RuntimeError: {STAGING} is designed for non-MLA models (e.g. GQA, MHA). MLA models "
            "should not set this flag.",
            f"{queue}, at scheduler start: a DeepSeek-V4 pool counts as MLA",
        )


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    # a DeepSeek-V4 checkpoint SGLang refuses (SWA260) is checked too: 0.5.22 loads it after the
    # PD hook (arg_groups/pipeline.py 0.5.22:138 vs 175), so the hook's refusal comes first there
    refused = bool(res.events_of(Kind.CHECKPOINT_REFUSED))
    # a draft config.json SGLang's ModelConfig refuses (SWA208) fails when the draft worker is
    # built, after the argument hooks: their refusals come first, the scheduler's never come
    draft = any(e.data.get("role") == "draft" for e in res.events_of(Kind.MODEL_CONFIG_REFUSED))
    dsv4 = (is_dsv4(res) and not draft) or refused
    if not (dsv4 or draft) or release_key(res.profile.version) < (0, 5, 21):
        return
    for a, message, place in refusals(res):  # SGLang stops at the first
        if not dsv4 and place != HOOK:
            return
        loc = where(res, a)
        if a is None:
            env = res.deployment.env.get(STAGING)
            loc = env.location if env is not None and env.location is not None else loc
        yield Finding(
            CODE,
            SEVERITY,
            f"SGLang {res.profile.version} refuses this PD server: {message} ({place})",
            loc,
            Fix(_FIXES.get(message.split(":", 1)[1].split()[0], _FIX)),
            field=a.written if a is not None else STAGING,
        )
        return


_FIX = "Remove the option (or the features) the message names."
_FIXES = {
    "--enable-pd-role-switch": "Drop enable-pd-role-switch, or the features the message lists.",
    "SGLANG_DISAGG_STAGING_BUFFER": f"Unset {STAGING} (or set it to 0) for DeepSeek-V4.",
    "Prefill": "Use mooncake or nixl as the prefill server's disaggregation-transfer-backend.",
}
