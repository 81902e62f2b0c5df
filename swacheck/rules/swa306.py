"""SWA306 shell-pitfall: a shell mistake that silently changes what SGLang receives.

## What it does

Reports, in launch scripts (and shell text in Kubernetes, Compose, SkyPilot, srt-slurm and
Markdown docs), the mistakes that make the shell hand SGLang something other than what the
text shows:

- a comment or a blank line inside a `\\`-continued command: bash ends the command there, and
  the flags below it are run as a separate command (or not at all) -- they never reach the
  server;
- a `\\` followed by trailing spaces: the backslash escapes the space instead of the newline,
  so the command ends at that line and argparse gets `' '` as an argument (SGLang exits: this
  one is reported as an error);
- flags behind a switch that is off by default: `${ENABLE_MTP:+--speculative-algorithm EAGLE}`
  where `ENABLE_MTP` is set nowhere in the file nor given with `--env` -- the launch is read
  without them;
- a single-dash long flag (`-tp-size 8`): SGLang's options are all spelt with two dashes, and
  argparse exits with "unrecognized arguments" (an error).

## Why it matters

The server starts with the flags above the break only: a speculative launch can lose
`--speculative-eagle-topk 1` and die at start-up, or a PD decode server can lose
`--disaggregation-mode decode` and come up as a plain server. Nothing in the log points at the
script.

## Example

```bash
python3 -m sglang.launch_server --model-path /models/DeepSeek-V4-Flash \\
    --tp-size 8 \\
    # --enable-dp-attention \\
    --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
```

The comment ends the command: the server runs without speculative decoding.

## Fix

Move commented-out flags below the command (or delete them), remove blank lines and the spaces
after a final `\\`, and write long options with two dashes.

Fix safety: none — no automatic fix: which line was meant to continue, or which flags the
switch should add, is the author's call.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.resolve import Resolution
from .base import RuleContext

CODE = "SWA306"
NAME = "shell-pitfall"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits
SEVERITY = "warning"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
# still checked on a launch that is not swacheck's business for these reasons (Resolution.quiet)
QUIET = ("no-pools", "unknown")
SUMMARY = (
    "comment or blank line inside a continued command, backslash before "
    "trailing spaces, single-dash long flag, flags behind a switch set "
    "nowhere"
)

FIXES = {
    "continuation-comment": "Move the commented-out line below the command or delete it: bash ends "
    "the command at a comment line.",
    "continuation-blank": "Delete the blank line: bash ends the command there.",
    "trailing-space": "Delete the spaces after the backslash so that it continues the line.",
    "single-dash": "Write the option with two dashes.",
    "switch-off": "Set the switch in the file, or check the launch with it on: swacheck --env NAME=1.",
}


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for kind, message, where in getattr(res.deployment, "notes", ()):
        if kind.startswith("pitfall:"):
            what = kind.split(":", 1)[1]
            # a `\ ` word and a single-dash long flag make argparse exit: those are errors
            severity = "error" if what in ("trailing-space", "single-dash") else SEVERITY
            yield Finding(
                CODE,
                severity,
                message,
                where or res.deployment.location,
                Fix(FIXES.get(what, "Fix the shell text.")),
                (),
                what,
            )
