"""SWA307 launch-not-checked: a launch swacheck found but could not check, and why.

## What it does

Says where a launch was found that swacheck cannot turn into server arguments, instead of
passing it silently:

- a launch assembled at run time beyond what can be read (`eval "$CMD"` of a string built in
  a loop, a command read from a file or a command substitution): "launch assembled at runtime;
  not evaluated";
- a Kubernetes custom resource holding containers none of which runs SGLang in a form
  swacheck can read (a wrapper script inside the image, an operator that builds the command);
- a Helm chart or Jinja template that mentions SGLang (`{{ }}` is not YAML until rendered);
- a placeholder to fill in, in a doc (`<DeepSeek-V4-Flash>`, `/path/to/model`, `$MODEL`);
- a speculative or PD launch whose model id says nothing about the model and whose
  `config.json` is not found;
- a launch a bound stopped reading, an **error** (exit 1 under the default `--fail-on
  error`: a run that could not read part of what the files launch must not pass): a call of
  the script's own function past the 64 calls swacheck follows (the first such call of a
  function that holds a launch), an `eval` or `sh -c` nested more than 5 deep, a custom
  resource whose containers lie past the container search's budget of 200,000 nodes.

Launches of other models without speculative decoding or PD, and models whose id names
another family, are reported as not applicable without a note.

## Why it matters

"Checked 0 deployments" on a folder of custom resources, or a pass on a script whose launch
swacheck never saw, would read as "no problem found".

## Example

```bash
CMD="python3 -m sglang.launch_server"
for f in $(cat flags.txt); do CMD="$CMD --$f"; done
eval "$CMD"
```

## Fix

Check the launch as it is really run: `swacheck --command "python3 -m sglang.launch_server ..."`,
render templates first (`helm template CHART | swacheck -`), fill in placeholders, or point
swacheck at the model with `--model-config ID=PATH`.

Fix safety: none — no automatic fix: there is nothing swacheck could check to fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model.records import Finding, Fix
from ..sglang.events import Kind
from ..sglang.resolve import Resolution
from .base import RuleContext

CODE = "SWA307"
NAME = "launch-not-checked"
FIX_SAFETY = "none"  # safe | unsafe | mixed (the doc says which) | none: no edits
SEVERITY = "note"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
# still checked on a launch that is not swacheck's business for these reasons (Resolution.quiet)
QUIET = ("no-pools", "unknown")
SUMMARY = (
    "launch found but not checked (assembled at run time, template, unknown "
    "custom resource, placeholder, unknown model)"
)

_FIX = Fix(
    'Check the launch as it is run (swacheck --command "python3 -m sglang.launch_server ..."), render templates first '
    "(helm template CHART | swacheck -), fill in placeholders, or give the model with --model-config ID=PATH."
)


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    for event in res.events_of(Kind.NOT_CHECKED):
        yield Finding(
            CODE,
            "error" if event.data.get("limit") else SEVERITY,
            event.message,
            event.location or res.deployment.location,
            _FIX,
            (),
            "not-checked",
        )
    for kind, message, where in getattr(res.deployment, "notes", ()):
        if kind == "note":
            yield Finding(
                CODE, SEVERITY, message, where or res.deployment.location, _FIX, (), "not-checked"
            )
