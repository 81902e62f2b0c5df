"""SWA224 v41-replay-refused: DeepSeek-V4.1's SWA bounded replay and DSpark PD combinations SGLang refuses.

## What it does

Checks what the DeepSeek-V4 model hook's `validate_deepseek_v41_features` and (0.5.23)
`validate_deepseek_v41_encoder_replay_budget` (`arg_groups/deepseek_v4_hook.py`, called from
`arg_groups/model_hook.py`) refuse, on the arguments as written (SGLang 0.5.22 and 0.5.23,
where the code was read):

- `enable-encoder-swa-bounded-replay` with a DeepSeek-V4 (not V4.1) target (0.5.23:277-280,
  0.5.22:211-214);
- with a V4.1 target, `enable-encoder-swa-bounded-replay` with what it does not support yet
  (one `ValueError` naming the first, 0.5.23:291-331, 0.5.22:223-249): a ROCm GPU other than
  gfx950 (with `--gpu`); a prefill CUDA graph (`cuda-graph-backend-prefill` `full`; 0.5.22 any
  but `disabled`; 0.5.23 on ROCm any but `disabled`); `attn-cp-size` > 1; 0.5.22 any attention
  DP, 0.5.23 attention DP on ROCm; 0.5.22 `enable-unified-cache-external-linker`;
  `enable-unified-memory`; 0.5.22 any PD server, 0.5.23 a PD decode server or a ROCm PD
  prefill server; `enable-mixed-chunk`; `enable-lora`; `enable-session-radix-cache`;
- its budget: `max-running-requests` written as 0 or less, or `chunked-prefill-size` written
  below 128 (0.5.22:250-258) -- in 0.5.23 below 128 + the page size (384) per attention-DP rank,
  the written size divided by the attention-DP size as `handle_data_parallelism` does
  (`validate_deepseek_v41_encoder_replay_budget`, 0.5.23:250-267);
- a V4.1 PD server with speculative decoding (DSPARK) that is not static ragged verify
  (`SGLANG_RAGGED_VERIFY_MODE` `cap-accept` / `compact`), not Mooncake or NIXL, with
  `dcp-size` > 1, or with context parallelism other than `enable-prefill-cp` with the
  interleave strategy on the prefill server (0.5.23:355-382, 0.5.22:286-313);
- `enable-decoder-swa-bounded-replay` on (0.5.23: only on the command line, `--config` refuses a
  BooleanOptionalAction) with a prefill CUDA graph other than `breakable`, or with attention DP
  that is not attention TP 1 (`attn-dp-size` = `tp-size`, no attention CP) on the built-in MoE
  (`none`; on CUDA also `megamoe`) (0.5.23:384-413, 0.5.22:339-375).

## Why it matters

The server stops while it resolves its arguments, e.g. `ValueError:
--enable-encoder-swa-bounded-replay does not support PD decode yet`.

## Example

```yaml
model-path: deepseek-ai/DeepSeek-V4.1-Flash
disaggregation-mode: decode
enable-encoder-swa-bounded-replay: true
```

## Fix

Turn the replay off where it is not supported (the message names the feature), or the feature;
run V4.1 DSpark PD with static ragged verify, Mooncake or NIXL, and no decode CP.

Fix safety: none — no automatic fix: each is a choice of how the server runs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..model.records import Finding
from ..sglang.resolve import Resolution
from ..sglang.version import release_key
from . import _refusals as R
from ._preflight import flag, gpu, is_dsv4, platform
from .base import RuleContext

CODE = "SWA224"
NAME = "v41-replay-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = (
    "DeepSeek-V4.1 encoder/decoder SWA bounded replay or DSpark PD with what "
    "validate_deepseek_v41_features refuses"
)
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits

_H = "arg_groups/deepseek_v4_hook.py"
ENCODER = "enable-encoder-swa-bounded-replay"
DECODER = "enable-decoder-swa-bounded-replay"
FEATURES = R.Site(_H, "validate_deepseek_v41_features", (("0.5.23", 329), ("0.5.22", 247)))
OFF = "Turn the bounded replay off, or the feature the message names."


def _v41(res: Resolution) -> bool:
    model = res.target.model if res.target is not None else None
    return model is not None and model.model_type == "deepseek_v41"


def _attn_dp(res: Resolution) -> int:
    val = res.values.get("attn_dp_size")
    return val.value if val is not None and isinstance(val.value, int) else 1


def _mode(res: Resolution) -> str:
    return R.raw(res, "disaggregation-mode") or "null"


def _encoder_features(res: Resolution, new: bool) -> Iterator[tuple[str, str]]:
    """(argument, feature) in the release's order."""
    rocm = platform(res) == "rocm"
    graph = R.raw(res, "cuda-graph-backend-prefill") or "disabled"
    _, known = gpu(res)
    if rocm and known is not None and known.gfx and not known.gfx.startswith("gfx95"):
        yield "model-path", "hardware other than CUDA or gfx950"
    mode = _mode(res)
    if new:
        items = (
            (
                "cuda-graph-backend-prefill",
                "prefill CUDA graphs other than breakable",
                graph == "full",
            ),
            (
                "cuda-graph-backend-prefill",
                "the prefill CUDA graph on ROCm",
                rocm and graph != "disabled",
            ),
            ("attn-cp-size", "context parallelism", R.as_int(res, "attn-cp-size", 1) > 1),
            ("attn-dp-size", "DP attention on ROCm", rocm and _attn_dp(res) > 1),
            ("enable-unified-memory", "unified memory", flag(res, "enable-unified-memory")),
            ("disaggregation-mode", "PD decode", mode == "decode"),
            ("disaggregation-mode", "PD prefill on ROCm", mode == "prefill" and rocm),
        )
    else:
        items = (
            ("cuda-graph-backend-prefill", "prefill CUDA graphs", graph != "disabled"),
            ("attn-dp-size", "DP attention", _attn_dp(res) > 1),
            ("attn-cp-size", "context parallelism", R.as_int(res, "attn-cp-size", 1) > 1),
            (
                "enable-unified-cache-external-linker",
                "external cache linker",
                flag(res, "enable-unified-cache-external-linker"),
            ),
            ("enable-unified-memory", "unified memory", flag(res, "enable-unified-memory")),
            ("disaggregation-mode", "PD disaggregation", mode != "null"),
        )
    yield from ((name, feature) for name, feature, on in items if on)
    for name, feature in (
        ("enable-mixed-chunk", "mixed prefill/decode"),
        ("enable-lora", "LoRA"),
        ("enable-session-radix-cache", "radix sessions"),
    ):
        if flag(res, name):
            yield name, feature


def _budget(res: Resolution, new: bool) -> Iterator[R.Refused]:
    mrr = R.raw(res, "max-running-requests")
    chunk = R.raw(res, "chunked-prefill-size")
    size = R.as_int(res, "chunked-prefill-size", 1 << 30)
    if new:
        dp = _attn_dp(res)
        size = size // dp if dp > 1 and chunk is not None else size
        floor = 128 + 256
    else:
        floor = 128
    low_mrr = mrr is not None and R.as_int(res, "max-running-requests", 1) <= 0
    if not (low_mrr or (chunk is not None and (size == 0 or size < floor))):
        return
    message = (
        "encoder SWA replay requires --max-running-requests > 0 and at least 384 chunked "
        "prefill tokens per attention DP rank (128 replay tokens plus one page)"
        if new
        else "encoder SWA replay requires explicit --max-running-requests and "
        "--chunked-prefill-size >= 128"
    )
    site = (
        R.Site(_H, "validate_deepseek_v41_encoder_replay_budget", (("0.5.23", 263),))
        if new
        else R.Site(_H, "validate_deepseek_v41_features", (("0.5.22", 256),))
    )
    yield R.Refused(
        "max-running-requests" if low_mrr else "chunked-prefill-size",
        "ValueError",
        message,
        site,
        "Raise max-running-requests above 0 and chunked-prefill-size (per attention-DP rank).",
    )


def _encoder(res: Resolution, new: bool) -> Iterator[R.Refused]:
    if not flag(res, ENCODER):
        return
    if not _v41(res):
        yield R.Refused(
            ENCODER,
            "ValueError",
            "--enable-encoder-swa-bounded-replay requires DeepSeek-V4.1",
            R.Site(_H, "validate_deepseek_v41_features", (("0.5.23", 278), ("0.5.22", 212))),
            "Remove enable-encoder-swa-bounded-replay (it is for DeepSeek-V4.1 only).",
        )
        return
    first = next(_encoder_features(res, new), None)
    if first is not None:
        yield R.Refused(
            first[0],
            "ValueError",
            f"--enable-encoder-swa-bounded-replay does not support {first[1]} yet",
            FEATURES,
            OFF,
        )
    yield from _budget(res, new)


def _dspark_pd(res: Resolution) -> Iterator[R.Refused]:
    mode = _mode(res)
    if mode == "null" or R.algorithm(res) is None:
        return
    ragged = res.deployment.env.get("SGLANG_RAGGED_VERIFY_MODE")
    backend = R.raw(res, "disaggregation-transfer-backend") or "mooncake"
    backend = "mooncake" if backend == "mooncake_tcp" else backend
    prefill_cp = flag(res, "enable-prefill-cp")
    supported_cp = mode == "prefill" and prefill_cp and R.raw(res, "cp-strategy") == "interleave"
    for name, on in (
        (
            "SGLANG_RAGGED_VERIFY_MODE",
            ragged is not None and str(ragged.value) in ("cap-accept", "compact"),
        ),
        ("disaggregation-transfer-backend", backend not in ("mooncake", "nixl")),
        (
            "enable-prefill-cp" if prefill_cp else "attn-cp-size",
            (prefill_cp or R.as_int(res, "attn-cp-size", 1) != 1) and not supported_cp,
        ),
        ("dcp-size", R.as_int(res, "dcp-size", 1) != 1),
    ):
        if on:
            yield R.Refused(
                name,
                "ValueError",
                "DeepSeek-V4.1 DSpark PD requires static verify, Mooncake or NIXL, DCP=1, and "
                "CP=1 on decode. Prefill CP requires --enable-prefill-cp with the interleave "
                "strategy. DP attention is supported when both servers use the same block size "
                "and target/draft KV layout.",
                R.Site(_H, "validate_deepseek_v41_features", (("0.5.23", 376), ("0.5.22", 307))),
                "Run V4.1 DSpark PD with SGLANG_RAGGED_VERIFY_MODE=static, Mooncake or NIXL, "
                "dcp-size 1, and CP only on the prefill server (enable-prefill-cp, interleave).",
                env=name.startswith("SGLANG_"),
            )
            return


def _decoder(res: Resolution) -> Iterator[R.Refused]:
    if not flag(res, DECODER):
        return
    graph = R.raw(res, "cuda-graph-backend-prefill") or "disabled"
    dp, tp = _attn_dp(res), R.as_int(res, "tp-size", 1)
    a2a = R.raw(res, "moe-a2a-backend") or "none"
    moe_ok = a2a in (("none", "megamoe") if platform(res) == "cuda" else ("none",))
    tp1 = dp == tp and R.as_int(res, "attn-cp-size", 1) == 1 and moe_ok
    for name, feature, on in (
        (
            "cuda-graph-backend-prefill",
            "the prefill CUDA graph",
            graph not in ("disabled", "breakable"),
        ),
        (
            "attn-dp-size",
            "DP attention other than attention TP 1 with supported MoE backends",
            dp > 1 and not tp1,
        ),
    ):
        if on:
            yield R.Refused(
                name,
                "ValueError",
                f"--enable-decoder-swa-bounded-replay cannot be combined with {feature} yet; "
                "disable one of them.",
                R.Site(_H, "validate_deepseek_v41_features", (("0.5.23", 409), ("0.5.22", 369))),
                OFF,
            )
            return


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    if not is_dsv4(res) or platform(res) not in ("cuda", "rocm"):
        return
    key = release_key(res.profile.version)[:3]
    if key not in ((0, 5, 22), (0, 5, 23)):
        return
    new = key == (0, 5, 23)
    refusals = list(_encoder(res, new))
    if _v41(res):
        refusals += [*_dspark_pd(res), *_decoder(res)]
    yield from R.findings(sys.modules[__name__], res, refusals)
