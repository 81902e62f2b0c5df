"""SWA303 config-key-refused: a server-config key SGLang does not accept.

## What it does

Checks every key of an SGLang server config against the long flags of `launch_server`
(SGLang 0.5.23) and against what its `--config` loader
(`srt/utils/server_args_config_parser.py`) refuses:

- an unknown key (with a did-you-mean);
- a key whose action the loader refuses, such as `enable-dp-attention`
  (`DeprecatedStoreTrueAction` since 0.5.22; write `attn-dp-size: N` instead).

## Why it matters

SGLang refuses to start: argparse stops on an unrecognised argument, and the loader raises
`ValueError: Unsupported config option 'enable_dp_attention' with action 'DeprecatedStoreTrueAction'`.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
enable-dp-attention: true
max-runing-requests: 64
```

## Fix

Correct the spelling; use `attn-dp-size: N` (or `--enable-dp-attention` on the command line).
"""

from __future__ import annotations

import sys
from typing import Iterator

from .. import fixes
from ..model import Finding, Fix
from ..sglang.resolve import Resolution
from .base import Context, arg_mapping, finding_for_event

CODE = "SWA303"
NAME = "config-key-refused"
SEVERITY = "error"
SUMMARY = "unknown server-config key, or one SGLang's --config loader refuses"


def check(res: Resolution, ctx: Context) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    for event in res.events_of("unknown-key", "refused-key", "underscore-key"):
        arg = event.arg
        assert arg is not None
        if event.kind == "unknown-key":
            near = event.data.get("suggestion")
            if near:
                fix = Fix(f"Rename {arg.written!r} to {near!r}.", (fixes.replace(arg.key_loc, near),))
                message = f"{event.message}: SGLang does not know it; did you mean {near!r}?"
            else:
                fix = Fix(f"Remove {arg.written!r} or correct its name (see `python -m sglang.launch_server --help`).")
                message = f"{event.message}: SGLang does not know it"
        elif event.kind == "underscore-key":
            canonical = event.data["canonical"]
            fix = Fix(f"Write {canonical!r}.", (fixes.replace(arg.key_loc, canonical),))
            message = f"{event.message}: SGLang's --config loader passes it on as --{arg.written}, which launch_server does not accept; write {canonical!r}"
        else:
            edit = fixes.delete_line_of(arg.pair, arg_mapping(res))
            attn = res.deployment.server.get("dp-size")
            hint = f" and attn-dp-size: {attn.value}" if attn is not None else ""
            fix = Fix(
                f"Remove {arg.written!r}{hint}: set attn-dp-size in the file, or pass --enable-dp-attention on the command line.",
                (edit,) if edit else (),
            )
            message = f"{event.message}: ValueError: Unsupported config option '{arg.name.replace('-', '_')}' with action '{event.data['action']}'"
        event = type(event)(event.kind, message, event.location, arg, event.data)
        yield finding_for_event(rule, event, fix)
