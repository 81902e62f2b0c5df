"""SWA204 unified-fp8-with-pd: unified-KV fp8 under PD with pipeline parallelism or HiSparse.

## What it does

Reports `SGLANG_DSV4_UNIFIED_KV_FP8=1` in the server environment of a unified-KV deployment
(ROCm, `SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton`) that runs with
`disaggregation-mode: prefill|decode` together with `pp-size > 1` or `enable-hisparse`.

## Why it matters

SGLang 0.5.23 refuses that combination when it sizes the pools
(`check_dsv4_unified_fp8_pd_supported`, `srt/model_executor/pool_configurator.py:148-169`):
`ValueError: SGLANG_DSV4_UNIFIED_KV_FP8=1 does not support PD disaggregation with pp_size=2 ...`.
(Earlier snapshots raised `NotImplementedError` for fp8 under any PD; 0.5.23 transfers the
extra rope regions and refuses only PP and HiSparse. The fp8 layout also needs an AMD gfx95
GPU, which swacheck cannot see: it assumes one.)

## Example

```yaml
swacheck: 1
platform: rocm
env: {SGLANG_HACK_FLASHMLA_BACKEND: unified_kv_triton, SGLANG_DSV4_UNIFIED_KV_FP8: "1"}
server: {model-path: models/DeepSeek-V4-Flash, disaggregation-mode: decode, pp-size: 2}
```

## Fix

Run PD with `pp-size: 1` (and without `enable-hisparse`), or unset `SGLANG_DSV4_UNIFIED_KV_FP8`.

Fix safety: unsafe — it changes pipeline parallelism or drops HiSparse.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import fixes
from ..model.records import Finding, Fix, Related
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext, arg_mapping

CODE = "SWA204"
NAME = "unified-fp8-with-pd"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "SGLANG_DSV4_UNIFIED_KV_FP8 with unified KV under PD together with pp-size > 1 or enable-hisparse"
FIX_SAFETY = "unsafe"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.UNIFIED_FP8_PD):
        arg = event.arg
        env = event.data["env"]
        if event.data["why"] == "pd":
            fix = Fix(
                f"Unset SGLANG_DSV4_UNIFIED_KV_FP8 on PD servers (SGLang "
                f"{res.profile.version} refuses it for any PD server; 0.5.22+ only with "
                f"pp-size > 1 or HiSparse)."
            )
        elif event.data["why"] == "pp-size" and arg is not None:
            fix = Fix(
                "Run PD with pp-size 1, or unset SGLANG_DSV4_UNIFIED_KV_FP8.",
                (fixes.replace(arg.value_loc, "1"),),
                safe=False,
            )
        else:
            edit = fixes.delete_line_of(arg.pair, arg_mapping(res)) if arg is not None else None
            fix = Fix(
                "Drop enable-hisparse, or unset SGLANG_DSV4_UNIFIED_KV_FP8.",
                (edit,) if edit else (),
                safe=False,
            )
        related = (
            (Related(env.location, "SGLANG_DSV4_UNIFIED_KV_FP8 set here"),) if env.location else ()
        )
        yield Finding(
            CODE,
            SEVERITY,
            f"ValueError: {event.message} (pool_configurator.py {res.profile.fp8_pd_raised_in})",
            event.location or env.location or res.deployment.location,
            fix,
            related,
            event.data["why"],
        )
