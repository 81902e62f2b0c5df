"""SWA303 config-key-refused: a server-config key SGLang does not accept.

## What it does

Checks every key of an SGLang server config against the long flags of `launch_server`
(SGLang 0.5.23) and against what its `--config` loader
(`srt/utils/server_args_config_parser.py`) refuses:

- an unknown key (with a did-you-mean). argparse accepts aliases (`model`,
  `tensor-parallel-size`) and unique prefixes (`speculative-algo`), so those pass;
- an underscore spelling (`page_size`): the merger emits `--page_size`, which argparse does
  not know (no underscore aliases are registered);
- an ambiguous prefix (`speculative-draft-model-` matches several options);
- a key whose action the loader refuses whatever its value: `enable-dp-attention` and
  `disable-cuda-graph` (`DeprecatedStoreTrueAction`), the `BooleanOptionalAction` flags,
  `lora-paths`;
- a server config that is not YAML: `--config` accepts only `.yaml` / `.yml`.

A key of an SGLang fork the release does not know -- SGLang-KT's `kt-*` flags beyond upstream's
six (`kt-enable-dynamic-expert-update`, `kt-gpu-prefill-token-threshold`, ...) -- is left alone:
one note per deployment lists them (the fork's own parser takes them).

A deployment gets one finding for each of its first 64 such keys (`limits.MAX_KEY_FINDINGS`) and
one more that counts the rest, from the first of them on: a launch of thousands of unknown flags
is garbage, and listing (and spell-checking) each would cost time and memory without end.

## Why it matters

SGLang refuses to start: argparse stops with `error: unrecognized arguments: --page_size 64`,
the loader raises
`ValueError: Unsupported config option 'enable_dp_attention' with action 'DeprecatedStoreTrueAction'`
or `ValueError: Config file must be YAML format, got: .json`.

## Example

```yaml
model-path: models/DeepSeek-V4-Flash
enable-dp-attention: true
max-runing-requests: 64
```

## Fix

Correct the spelling; use `attn-dp-size: N` (or `--enable-dp-attention` on the command line).

Fix safety: mixed — an underscore spelling and an unambiguous typo of an existing flag (one
letter added, dropped, changed or two swapped, and no other flag that close) are renamed: safe
(when the right spelling is set too, a rename would write it twice: the typo is deleted when both
give the same value, and a hint otherwise).
A flag SGLang removed is never renamed to a different flag: the fix deletes it and says why,
unsafe, as are moving a refused key to the command line and `enable-dp-attention`. Other
spelling suggestions are hints only. A deprecated flag is replaced by what SGLang's own
deprecation table names (`disable-cuda-graph: true` -> `cuda-graph-backend-decode: disabled` and
`cuda-graph-backend-prefill: disabled`, read from SGLang 0.5.23): safe.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

from .. import fixes
from ..model.records import Finding, Fix
from ..sglang import flags
from ..sglang.events import Event, Kind
from ..sglang.resolve import Resolution
from ..sglang.version import PROFILES
from .base import RuleContext, arg_mapping, finding_for_event

if TYPE_CHECKING:
    from ..model.deployment import Arg

CODE = "SWA303"
NAME = "config-key-refused"
SEVERITY = "error"
SCOPE = "deployment"  # what it checks: deployment | pair | unpaired | suppressions
SUMMARY = "unknown server-config key, or one SGLang's --config loader refuses"
FIX_SAFETY = "mixed"  # safe | unsafe | mixed (the doc says which) | none: no edits


def check(res: Resolution, ctx: RuleContext) -> Iterator[Finding]:
    rule = sys.modules[__name__]
    yield from _not_yaml(rule, res)
    yield from _valued_flags(rule, res)
    yield from _forks(rule, res)
    for event in res.events_of(
        Kind.UNKNOWN_KEY, Kind.REFUSED_KEY, Kind.UNDERSCORE_KEY, Kind.AMBIGUOUS_KEY
    ):
        fix, message = _key(res, event)
        yield finding_for_event(rule, event, fix, message=message)


def _not_yaml(rule: ModuleType, res: Resolution) -> Iterator[Finding]:
    for event in res.events_of(Kind.CONFIG_NOT_YAML):
        fix = Fix(
            "Save the server config as YAML (.yaml or .yml); JSON is valid YAML, so renaming the file is enough."
        )
        yield finding_for_event(
            rule,
            event,
            fix,
            field="config",
            message=f"{event.message}: ValueError: Config file must be YAML format, got: .json",
        )


def _valued_flags(rule: ModuleType, res: Resolution) -> Iterator[Finding]:
    for event in res.events_of(Kind.VALUED_FLAG):
        arg = event.arg
        assert arg is not None
        edit = fixes.delete_line_of(arg.pair, arg_mapping(res))
        fix = Fix(
            f"Remove {arg.written!r} from the file and pass --{arg.written} on the command line.",
            (edit,) if edit else (),
            safe=False,
        )
        yield finding_for_event(
            rule,
            event,
            fix,
            message=f"{event.message}: error: unrecognized arguments: true ({event.data['action']} takes no value)",
        )


def _fork_only(rule: ModuleType, res: Resolution) -> Iterator[Finding]:
    """A launch checked as a fork (its own flag table): the flags upstream SGLang lacks, once."""
    upstream = flags.options(PROFILES[res.profile.version])
    own = [
        a
        for a in res.deployment.server.entries
        if a.how != "unknown"
        and a.name not in upstream
        and a.written.replace("_", "-") not in upstream
    ]
    if not own:
        return
    names = ", ".join(dict.fromkeys(a.written for a in own))
    yield Finding(
        rule.CODE,
        "note",
        f"{res.profile.fork} flags, not options of upstream SGLang {res.profile.version}: {names}; "
        f"checked as {res.profile.fork} reads them (its own flag table)",
        own[0].key_loc,
        Fix(
            "Nothing to change while the server runs the fork; upstream SGLang would refuse these flags."
        ),
        field=own[0].name,
    )


def _forks(rule: ModuleType, res: Resolution) -> Iterator[Finding]:
    if res.profile.fork:
        yield from _fork_only(rule, res)
    forks = res.events_of(Kind.FORK_KEY)
    if forks:
        names = ", ".join(e.arg.written for e in forks if e.arg is not None)
        yield finding_for_event(
            rule,
            forks[0],
            Fix(
                "Nothing to change if the server runs SGLang-KT; upstream SGLang would refuse these flags."
            ),
            message=f"{forks[0].data['fork']} flags, not options of SGLang "
            f"{res.profile.version}: {names}; swacheck leaves them unchecked",
            severity="note",
        )


def _key(res: Resolution, event: Event) -> tuple[Fix, str]:
    """The fix and message of a key argparse or the --config merger refuses."""
    arg = event.arg
    assert arg is not None
    if event.kind == Kind.AMBIGUOUS_KEY:
        cands = event.data["candidates"]
        fix = Fix(
            f"Write the option in full: one of {', '.join(cands[:5])}{', ...' if len(cands) > 5 else ''}."
        )
        return (
            fix,
            f"{event.message}: argparse refuses it (could match {', '.join('--' + c for c in cands[:5])})",
        )
    if event.kind == Kind.UNKNOWN_KEY and event.data.get("more"):
        fix = Fix(
            "Remove the arguments SGLang does not know or correct their names "
            "(see `python -m sglang.launch_server --help`); swacheck lists only the first ones."
        )
        return fix, f"{event.message}: error: unrecognized arguments"
    if event.kind == Kind.UNKNOWN_KEY:
        return _unknown(res, event, arg)
    if event.kind == Kind.UNDERSCORE_KEY:
        canonical = event.data["canonical"]
        fix = Fix(f"Write {canonical!r}.", (fixes.replace(arg.key_loc, canonical),))
        return (
            fix,
            f"{event.message}: SGLang's argument parser gets --{arg.written}: error: unrecognized arguments",
        )
    message = (
        f"{event.message}: ValueError: Unsupported config option "
        f"'{arg.name.replace('-', '_')}' with action '{event.data['action']}'"
    )
    return _refused_fix(res, arg), message


def _unknown(res: Resolution, event: Event, arg: Arg) -> tuple[Fix, str]:
    near = event.data.get("suggestion")
    removed = flags.removed_flag(arg.written, res.profile)
    typo = None if removed else flags.typo_of(arg.written, res.profile)
    if removed:  # never "corrected" to a neighbouring flag, which does something else
        edit = fixes.delete_line_of(arg.pair, arg_mapping(res))
        fix = Fix(
            f"Delete {arg.written!r}: SGLang {res.profile.version} no longer has this option (SGLang {removed} "
            "still had it) and names no replacement; check its release notes for what to use instead.",
            (edit,) if edit else (),
            safe=False,
        )
        return (
            fix,
            f"{event.message}: error: unrecognized arguments (removed after SGLang {removed})",
        )
    taken = res.deployment.server.get(typo) if typo else None
    if typo and taken is not None and taken.value == arg.value:
        edit = fixes.delete_line_of(arg.pair, arg_mapping(res))
        fix = Fix(
            f"Delete {arg.written!r}: {typo!r} is already set to the same value ({taken.key_loc}).",
            (edit,) if edit else (),
        )
        return fix, f"{event.message}: error: unrecognized arguments (did you mean {typo!r}?)"
    if typo and taken is not None:  # renamed, one of the two values would be lost
        fix = Fix(
            f"Rename {arg.written!r} to {typo!r} or delete it, by hand: {typo!r} is already set "
            f"({taken.key_loc}), and a rename would write it twice, one of the two values ignored."
        )
        return fix, f"{event.message}: error: unrecognized arguments (did you mean {typo!r}?)"
    if typo:  # one letter from exactly one option: a typo, safe to rename
        fix = Fix(f"Rename {arg.written!r} to {typo!r}.", (fixes.replace(arg.key_loc, typo),))
        return fix, f"{event.message}: error: unrecognized arguments (did you mean {typo!r}?)"
    if near:  # a spelling suggestion stays a hint
        fix = Fix(
            f"Did you mean {near!r}? Correct the name by hand (see `python -m sglang.launch_server --help`)."
        )
        return fix, f"{event.message}: error: unrecognized arguments (did you mean {near!r}?)"
    fix = Fix(
        f"Remove {arg.written!r} or correct its name (see `python -m sglang.launch_server --help`)."
    )
    return fix, f"{event.message}: error: unrecognized arguments"


def _refused_fix(res: Resolution, arg: Arg) -> Fix:
    """A key the --config merger refuses (an action it cannot express in a file)."""
    if arg.name == "enable-dp-attention":
        dp = res.deployment.server.get("dp-size")
        edits = []
        if (
            dp is not None
            and arg.value is True
            and res.deployment.server.get("attn-dp-size") is None
        ):
            edits.append(fixes.replace(dp.key_loc, "attn-dp-size"))
        if (edit := fixes.delete_line_of(arg.pair, arg_mapping(res))) is not None:
            edits.append(edit)
        return Fix(
            f"Remove {arg.written!r} and write attn-dp-size: N in place of dp-size: N "
            "(what --enable-dp-attention does on the command line).",
            tuple(edits),
            safe=False,
        )
    named = flags.replacement(arg.name, res.profile)
    if named is not None and isinstance(arg.value, bool):
        # SGLang's own deprecation table names the replacement: written in the file, it does
        # exactly what the deprecated flag does on the command line (safe)
        written = ", ".join(f"{k}: {v}" for k, v in named)
        if arg.value:
            edit = fixes.replace_entry(arg.pair, arg_mapping(res), named)
            text = (
                f"Write {written} in place of {arg.written!r}: SGLang "
                f"{res.profile.version} names them as its replacement."
            )
        else:
            edit = fixes.delete_line_of(arg.pair, arg_mapping(res))
            text = (
                f"Remove {arg.written!r}: false is its default (SGLang "
                f"{res.profile.version} names {written} as its replacement)."
            )
        return Fix(text, (edit,) if edit else ())
    edit = fixes.delete_line_of(arg.pair, arg_mapping(res))
    return Fix(
        f"Remove {arg.written!r} from the file and pass it on the command line.",
        (edit,) if edit else (),
        safe=False,
    )
