"""The long options ``launch_server`` accepts, and how SGLang reads them from a ``--config`` file.

Data: ``data/server-args-<version>.tsv``, read from ``ServerArgs.add_cli_args``
(``srt/server_args.py``) of the released wheel. The ``--config`` merger
(``srt/utils/server_args_config_parser.py``) emits each YAML key verbatim as ``--KEY`` and each
value as text, and argparse (``allow_abbrev=True``) parses the result. So, exactly as SGLang:

- ``page-size`` and aliases such as ``model`` or ``tensor-parallel-size`` work;
- ``page_size`` does not (no underscore aliases are registered): "unrecognized arguments";
- a unique prefix such as ``speculative-algo`` works; an ambiguous one is an error;
- options whose action is not a plain store/store_true (``enable-dp-attention``, the
  ``BooleanOptionalAction`` flags, ``lora-paths``) are refused by the merger whatever the value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
import os

from .version import SGLangProfile

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")  # shipped in the wheel


@dataclass(slots=True, unsafe_hash=True)
class Option:
    name: str  # as written on the command line, without dashes
    canonical: str  # the option's first long name (aliases point at it)
    kind: str  # store | store-list | store_true | refused:ACTION
    type: str  # int | str | float | ... | -
    choices: tuple[str, ...]


@dataclass(slots=True, unsafe_hash=True)
class KeyMatch:
    """How a config key reaches argparse: ``how`` is exact, prefix, underscore, ambiguous or unknown."""

    how: str
    option: Option | None = None
    candidates: tuple[str, ...] = ()


def options(profile: SGLangProfile) -> dict[str, Option]:
    return _read(profile.args_file)


@lru_cache(maxsize=None)
def _read(name: str) -> dict[str, Option]:
    with open(os.path.join(_DATA, name), encoding="utf-8") as fh:
        text = fh.read()
    out: dict[str, Option] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        opt, canonical, kind, typ, choices = line.split("\t")
        out[opt] = Option(opt, canonical, kind, typ, () if choices == "-" else tuple(choices.split(",")))
    return out


@lru_cache(maxsize=4096)
def _match(key: str, args_file: str) -> KeyMatch:
    table = _read(args_file)
    if key in table:
        return KeyMatch("exact", table[key])
    prefixed = tuple(sorted(o for o in table if o.startswith(key))) if key else ()
    if len(prefixed) == 1:
        return KeyMatch("prefix", table[prefixed[0]])
    if len(prefixed) > 1:
        return KeyMatch("ambiguous", None, prefixed)
    dashed = key.replace("_", "-")
    if dashed != key and dashed in table:
        return KeyMatch("underscore", table[dashed])
    return KeyMatch("unknown")


def match(key: str, profile: SGLangProfile) -> KeyMatch:
    return _match(key, profile.args_file)


def did_you_mean(key: str, profile: SGLangProfile) -> str | None:
    return _did_you_mean(key.replace("_", "-"), profile.args_file)


@lru_cache(maxsize=4096)
def _did_you_mean(key: str, args_file: str) -> str | None:
    import difflib  # only for an unknown key

    near = difflib.get_close_matches(key, sorted(_read(args_file)), n=1, cutoff=0.75)
    return near[0] if near else None


def cli_kind(option: Option) -> str:
    """How an option behaves on a command line, where no ``--config`` merger refuses anything.

    The merger refuses actions other than store/store_true (``refused:ACTION``) and passes
    ``key: true`` of a no-value action on as ``--key true`` (``valued-flag:ACTION``); argparse
    itself takes them: ``lora-paths`` a list, an action with a type (``DeprecatedAliasStoreAction``,
    a typed ``DeprecatedStoreConstAction``) one value, the rest (``DeprecatedStoreTrueAction``,
    ``BooleanOptionalAction``, ``DeprecatedAction`` of ``--collect-tokens-histogram``) none.
    """
    kind = option.kind
    if not kind.startswith(("refused:", "valued-flag:")):
        return kind
    if kind.endswith(":LoRAPathAction"):
        return "store-list"
    return "store" if option.type != "-" else "store_true"
