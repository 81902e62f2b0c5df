"""Stage 1, the ``--config`` merger and argparse: which keys SGLang takes, and what it makes of
their values.

SGLang's ``srt/utils/server_args_config_parser.py`` ``_convert_config_to_args`` (unchanged
0.5.17-0.5.23) turns each YAML key into ``--KEY str(value)`` before ``ServerArgs.add_cli_args``'s
argparse parser sees it. See docs/sglang.md, "Config merge".
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ... import limits
from ...model.deployment import Arg
from ...model.tree import Mapping, Scalar, Sequence
from .. import flags
from ..events import Kind

if TYPE_CHECKING:
    from .reader import ArgReader

# Option prefixes of SGLang forks that add their own flags: SGLang-KT (kvcache-ai's KTransformers
# integration: --kt-enable-dynamic-expert-update, --kt-gpu-prefill-token-threshold, ...)
FORK_PREFIXES = ("kt-",)
_NULL_HINT = " (quote 'null': an unquoted YAML null reaches SGLang as the text None)"


def merger_text(node: Any, item: bool = False) -> str:
    """The text SGLang's --config merger hands argparse for one value: ``str(value)``, JSON for a
    mapping, ``true``/``false`` for a boolean (a list item: ``str(item)``, so ``True``, and a
    mapping or list inside a list its Python ``str``)."""
    if item and isinstance(node, (Mapping, Sequence)):
        return str(node.plain())
    if isinstance(node, Mapping):
        return json.dumps(node.plain())
    value = node.value if isinstance(node, Scalar) else node
    if isinstance(value, bool) and not item:
        return "true" if value else "false"
    return str(value)


def as_merged(r: ArgReader) -> None:
    """A list under a one-value key, as the --config merger passes it on (``_add_list_arg``,
    ``srt/utils/server_args_config_parser.py`` 0.5.23:199-203, 0.5.22:171-175): an empty list
    emits nothing (the key is as good as absent: SGLang's default), a one-item list emits
    ``--KEY str(item)``, the item's text as if the key held it (``[8]`` is 8, ``[true]`` the text
    ``True``); several items emit ``--KEY a b ...``, which argparse refuses (``check_values``).
    A refused action's key is refused first, whatever its value; a command-line argument never
    meets the merger."""
    server = r.dep.server
    changed = False
    entries = []
    for arg in server.entries:
        node = arg.pair.value
        if arg.cli or not isinstance(node, Sequence) or arg.kind.startswith("refused:"):
            entries.append(arg)
            continue
        if not node.items:
            changed = True  # nothing reaches argparse
            continue
        if len(node.items) == 1 and arg.kind == "store":
            item = node.items[0]
            if not isinstance(item, Scalar) or isinstance(item.value, bool):
                item = Scalar(str(item.plain()), item.loc, True)
            r.from_list[id(item)] = node
            arg = replace(arg, pair=replace(arg.pair, value=item))
            changed = True
        entries.append(arg)
    if changed:
        args = {a.name: a for a in entries}
        r.dep = replace(r.dep, server=replace(server, args=args, entries=entries))


def rematch(r: ArgReader) -> None:
    """Match the written keys against the selected release's options (inputs used the newest)."""
    server = r.dep.server
    entries = []
    for arg in server.entries:
        m = flags.match(arg.written, r.profile)
        name = m.option.canonical if m.option is not None else arg.written.replace("_", "-")
        kind = (
            (flags.cli_kind(m.option) if arg.cli else m.option.kind)
            if m.option is not None
            else "unknown"
        )
        entries.append(Arg(name, arg.written, arg.pair, m.how, kind, arg.cli))
    r.dep = replace(
        r.dep, server=replace(server, args={a.name: a for a in entries}, entries=entries)
    )


def check_keys(r: ArgReader) -> None:
    """The --config merger and argparse: which keys SGLang takes (server_args_config_parser.py)."""
    server = r.dep.server
    standalone = server.mapping is not None and (
        server.file != r.dep.file or server.mapping.loc == r.dep.location
    )
    if server.file and server.file.lower().endswith(".json") and standalone and not r.dep.evidence:
        r.event(
            Kind.CONFIG_NOT_YAML,
            "SGLang's --config accepts only .yaml/.yml files",
            location=server.mapping.loc,
        )  # type: ignore[union-attr]
    refused: list[Arg] = []  # keys argparse does not take as written
    for arg in server.entries:
        if arg.how not in ("exact", "prefix"):  # argparse takes the usual key as it is
            refused.append(arg)
            if len(refused) <= limits.MAX_KEY_FINDINGS:
                _check_key(r, arg)
        if ":" not in arg.kind:  # neither valued-flag:ACTION nor refused:ACTION
            continue
        if arg.kind.startswith("valued-flag:") and arg.value is True:
            r.event(
                Kind.VALUED_FLAG,
                f"SGLang's --config loader passes {arg.written!r} on as --{arg.written} true",
                arg,
                action=arg.kind.split(":", 1)[1],
            )
        if arg.kind.startswith("refused:"):
            r.event(
                Kind.REFUSED_KEY,
                f"SGLang's --config loader refuses {arg.written!r}",
                arg,
                action=arg.kind.split(":", 1)[1],
            )
    more = refused[limits.MAX_KEY_FINDINGS :]
    if more:  # a launch of 80,000 unknown flags: one finding for the rest, no spelling search
        r.event(
            Kind.UNKNOWN_KEY,
            f"{len(more)} more server arguments argparse does not take as written, from "
            f"{more[0].written!r} on (not listed one by one: more than "
            f"{limits.MAX_KEY_FINDINGS} in one deployment)",
            more[0],
            more=len(more),
        )


def _check_key(r: ArgReader, arg: Arg) -> None:
    """A key argparse does not know as written: unknown, a fork's, underscored or ambiguous."""
    if arg.how == "unknown" and arg.written.replace("_", "-").startswith(FORK_PREFIXES):
        # a fork's own flag (SGLang-KT adds --kt-* beyond upstream's six): left alone, noted once (SWA303)
        r.event(
            Kind.FORK_KEY,
            f"{arg.written!r} is not an SGLang {r.profile.version} option",
            arg,
            fork="SGLang-KT",
        )
    elif arg.how == "unknown":
        r.event(
            Kind.UNKNOWN_KEY,
            f"unknown server argument {arg.written!r}",
            arg,
            suggestion=flags.did_you_mean(arg.written, r.profile),
        )
    elif (
        arg.how == "underscore"
        and not arg.kind.startswith("refused:")
        and not (arg.kind == "store_true" and arg.value is False)
    ):
        # the merger looks the action up with underscores: a refused action fails there first,
        # and an underscored store_true key set to false emits nothing, so argparse never sees it
        r.event(
            Kind.UNDERSCORE_KEY,
            f"{arg.written!r} is spelled with underscores",
            arg,
            canonical=flags.match(arg.written, r.profile).option.name,
        )  # type: ignore[union-attr]
    elif arg.how == "ambiguous":
        cands = flags.match(arg.written, r.profile).candidates
        r.event(
            Kind.AMBIGUOUS_KEY,
            f"{arg.written!r} is an ambiguous abbreviation",
            arg,
            candidates=cands,
        )


def check_values(r: ArgReader) -> None:
    """argparse's type and choices check of every value, not only those the resolver reads.

    The ``--config`` merger (``srt/utils/server_args_config_parser.py`` ``_convert_config_to_args``,
    unchanged 0.5.17-0.5.23) emits ``--KEY str(value)`` (a list: ``--KEY item ...``, a mapping:
    its JSON, a boolean of a valued option: ``true``/``false``); a store_true key is emitted
    bare for ``true``, dropped for ``false``, and for any other value becomes ``--KEY VALUE``,
    which argparse refuses: ``error: unrecognized arguments: VALUE``.
    """
    table = flags.options(r.profile)
    for arg in r.dep.server.entries:
        if arg.how == "exact":
            option = table.get(arg.written)
        elif arg.how == "prefix":
            option = flags.match(arg.written, r.profile).option
        else:
            continue
        if option is None:
            continue
        if arg.kind == "store_true":
            _check_flag_value(r, arg)
        elif arg.kind in ("store", "store-list"):
            node = arg.pair.value
            if type(node) is Scalar:  # one value, the usual case: checked here, without a list
                refusal = flags.value_refusal(option, merger_text(node))
                if refusal is not None:
                    _refuse(r, arg, option, node, refusal)
            else:
                _check_stored_value(r, arg, option)


def _check_flag_value(r: ArgReader, arg: Arg) -> None:
    """A store_true key with a value other than true/false: argparse gets ``--KEY VALUE``."""
    node = arg.node
    if arg.cli or isinstance(arg.value, bool) or arg.value == []:
        return
    emitted = (
        [merger_text(i, True) for i in node.items]
        if isinstance(node, Sequence)
        else [merger_text(node)]
    )
    said = (
        f"--{arg.written} {' '.join(emitted)}: error: unrecognized arguments: {' '.join(emitted)}"
    )
    r.bad(arg, "true or false", f"SGLang's --config loader passes it on as {said}")


def _check_stored_value(r: ArgReader, arg: Arg, option: Any) -> None:
    """Each value of a valued key, as argparse's type and choices see the merger's text."""
    node = arg.node
    if isinstance(node, Sequence):
        items = list(node.items)
    else:
        items = [node]
    for item in items[:1] if arg.kind == "store" else items:
        # a one-value option takes the first item (argparse checks it before it finds the rest)
        refusal = flags.value_refusal(option, merger_text(item, item is not node))
        if refusal is not None:
            _refuse(r, arg, option, item, refusal)
            return
    if arg.kind == "store" and isinstance(node, Sequence):  # two or more items (as_merged)
        emitted = [merger_text(i, True) for i in items]
        extra = " ".join(emitted[1:])
        r.bad(
            arg,
            "a single value",
            f"SGLang's --config loader passes it on as --{arg.written} {' '.join(emitted)}: "
            f"error: unrecognized arguments: {extra}",
        )


def _refuse(r: ArgReader, arg: Arg, option: Any, item: Any, refusal: tuple[str, str]) -> None:
    """argparse refuses ``item``, one of ``arg``'s values: the event that says so."""
    expected = refusal[0]
    if option.choices and isinstance(item, Scalar) and item.value is None and not arg.cli:
        expected += _NULL_HINT
    said = f"argparse: error: {refusal[1]}"
    written = r.from_list.get(id(item))
    if written is not None:  # a one-item list: the merger passed its item on as text
        said = (
            f"SGLang's --config loader passes the list on as --{arg.written} {item.value}: {said}"
        )
    r.bad(arg, expected, said, item)
