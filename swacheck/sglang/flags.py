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

import json
import os
from functools import cache, lru_cache

from ..model.recordtype import record
from .version import SGLangProfile

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")  # shipped in the wheel


@record(unsafe_hash=True)
class Option:
    """One server flag of a release: its name, canonical name, argparse action, type and choices."""

    name: str  # as written on the command line, without dashes
    canonical: str  # the option's first long name (aliases point at it)
    kind: str  # store | store-list | store_true | refused:ACTION
    type: str  # int | str | float | ... | -
    choices: tuple[str, ...]


@record(unsafe_hash=True)
class KeyMatch:
    """How a config key reaches argparse: ``how`` is exact, prefix, underscore, ambiguous or unknown."""

    how: str
    option: Option | None = None
    candidates: tuple[str, ...] = ()


def options(profile: SGLangProfile) -> dict[str, Option]:
    return _read(profile.args_file)


@cache
def _read(name: str) -> dict[str, Option]:
    with open(os.path.join(_DATA, name), encoding="utf-8") as fh:
        text = fh.read()
    out: dict[str, Option] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        opt, canonical, kind, typ, choices = line.split("\t")
        out[opt] = Option(
            opt, canonical, kind, typ, () if choices == "-" else tuple(choices.split(","))
        )
    return out


@cache
def _name_set(name: str) -> frozenset[str]:
    """The option names of a flag table, without building its options: what ``removed_flag``
    asks of each older release (building every table cost ~5% of a run with one unknown key)."""
    with open(os.path.join(_DATA, name), encoding="utf-8") as fh:
        text = fh.read()
    return frozenset(
        line.partition("\t")[0] for line in text.splitlines() if line and not line.startswith("#")
    )


@cache
def _names(args_file: str) -> list[str]:
    """The option names of a flag table, sorted: the ones a prefix abbreviates are a range."""
    return sorted(_read(args_file))


def _prefixed(key: str, args_file: str) -> tuple[str, ...]:
    """The options ``key`` is a prefix of (argparse's abbreviations), found by bisection: a
    launch of 100,000 distinct unknown flags costs no scan of the table per flag."""
    from bisect import bisect_left

    names = _names(args_file)
    out = []
    for name in names[bisect_left(names, key) :]:
        if not name.startswith(key):
            break
        out.append(name)
    return tuple(out)


@lru_cache(maxsize=4096)
def _match(key: str, args_file: str) -> KeyMatch:
    table = _read(args_file)
    if key in table:
        return KeyMatch("exact", table[key])
    prefixed = _prefixed(key, args_file) if key else ()
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


def typo_of(key: str, profile: SGLangProfile) -> str | None:
    """The one option ``key`` is an unambiguous typo of, or None.

    A typo is one edit away (a character added, dropped or changed, or two neighbours
    swapped) from exactly one option of this release and from no other. A looser spelling
    suggestion (``did_you_mean``) is only a hint: renaming to it could turn a flag into a
    different one (``disable-piecewise-cuda-graph`` is close to ``disable-decode-cuda-graph``).
    """
    return _typo_of(key.replace("_", "-"), profile.args_file)


@lru_cache(maxsize=4096)
def _typo_of(key: str, args_file: str) -> str | None:
    if len(key) < 6:  # short keys are one edit from many things (tp, pp, dp ...)
        return None
    near = [o for o in _read(args_file) if abs(len(o) - len(key)) <= 1 and _one_edit(key, o)]
    return near[0] if len(near) == 1 else None


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one insertion, deletion, substitution or swap."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i in range(len(short)) if short[i] != long_[i]), len(short))
    return short[i:] == long_[i + 1 :]


def removed_flag(key: str, profile: SGLangProfile) -> str | None:
    """The newest earlier SGLang release (of those swacheck knows) that accepted ``key``, when
    this release no longer does: a removed flag, never to be "corrected" to a neighbour."""
    from .version import PROFILES, release_key

    dashed = key.replace("_", "-")
    if dashed in _read(profile.args_file):
        return None
    older = _older.get(profile.version)
    if older is None:
        older = [p for v, p in PROFILES.items() if release_key(v) < release_key(profile.version)]
        older = _older[profile.version] = sorted(
            older, key=lambda p: release_key(p.version), reverse=True
        )
    for p in older:
        if dashed in _name_set(p.args_file):
            return p.version
    return None


_older: dict[str, list[SGLangProfile]] = {}  # release -> the earlier profiles, newest first


def replacement(name: str, profile: SGLangProfile) -> tuple[tuple[str, str], ...] | None:
    """The ``(option, value)`` entries SGLang names in place of deprecated ``name``, or None."""
    entries = dict(profile.deprecated).get(name)  # only where every option it names is a plain one
    table = _read(profile.args_file)
    if entries and all(
        k in table and table[k].kind == "store" and v in table[k].choices for k, v in entries
    ):
        return entries
    return None


# ``human_readable_int`` (srt/utils/common.py, SGLang 0.5.23:3394): an integer, or a number with
# an SI (k, M, G, T; decimals allowed) or IEC (Ki, Mi, Gi, Ti; integers only) suffix.
_HUMAN_INT = r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)"


def _convert(typ: str, text: str) -> tuple[bool, object]:
    """argparse's ``type(text)`` for the types swacheck can run itself; (False, None) when it raises
    ``ValueError`` (argparse: ``invalid TYPE value``)."""
    import re

    try:
        if typ == "int":
            return True, int(text)
        if typ == "float":
            return True, float(text)
        if typ == "human_readable_int":
            m = re.fullmatch(_HUMAN_INT, text.strip())
            if m:
                return ("." not in m.group(1) or not m.group(2).endswith("i")), None
            return True, int(text.strip())
        if (
            typ == "loads"
        ):  # json.loads (srt/server_args.py 0.5.12:23 ``import json``, ``type=json.loads``)
            return True, json.loads(text)
    except ValueError:
        return False, None
    return True, text


def _strict_json(text: str) -> object:
    """``orjson.loads``: JSON without NaN/Infinity (``ValueError`` where orjson raises)."""

    def refuse(constant: str) -> object:
        raise ValueError(constant)

    return json.loads(text, parse_constant=refuse)


def _type_error(typ: str, flag: str, text: str) -> str | None:
    """What an SGLang type function raising ``argparse.ArgumentTypeError`` prints, or None.

    ``json_list_type`` (srt/utils/common.py 0.5.12:3775, 0.5.23:4818: ``orjson.loads``);
    ``parse_cuda_graph_backend_arg`` (srt/model_executor/cuda_graph_config.py 0.5.22:237,
    0.5.23:237: the retired ``tc_piecewise``); ``parse_cuda_graph_config_arg`` (the same file,
    0.5.14:178, 0.5.17:216, 0.5.20:236, 0.5.23:252: JSON, and a JSON object; the per-phase keys
    are left to SGLang).
    """
    if typ == "json_list_type":
        try:
            _strict_json(text)
        except ValueError:
            return f"Invalid JSON list: {text}. Please provide a valid JSON list."
    elif typ == "parse_cuda_graph_backend_arg" and text == "tc_piecewise":
        return "tc_piecewise was removed; select breakable, full, or disabled"
    elif typ == "parse_cuda_graph_config_arg":
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as e:
            return f"{flag} must be JSON: {e}"
        if not isinstance(parsed, dict):
            return f"{flag} must be a JSON object, got {type(parsed).__name__}"
    return None


_EXPECTED = {
    "int": "an integer",
    "float": "a number",
    "human_readable_int": "an integer (or 1k, 1M, 1Ki, ...)",
    "loads": "JSON",
    "json_list_type": "a JSON list",
    "parse_cuda_graph_config_arg": "a JSON object",
    "parse_cuda_graph_backend_arg": "a backend other than tc_piecewise",
}


def value_refusal(option: Option, text: str) -> tuple[str, str] | None:
    """``(expected, what argparse prints)`` when argparse refuses ``text`` for ``option``, else None.

    The ``--config`` merger hands argparse ``str(value)`` (``srt/utils/server_args_config_parser.py``,
    ``_add_scalar_arg``/``_add_list_arg``, the same in 0.5.17-0.5.23); argparse calls the option's
    ``type`` on it, then checks ``choices`` against the converted value. The types swacheck can
    reproduce exactly are checked (int, float, human_readable_int, json.loads, json_list_type,
    parse_cuda_graph_config_arg as far as JSON, parse_cuda_graph_backend_arg), and choices of
    any type; ``json-model-override-args`` is left to the resolver, the other types (str,
    nullable_str) take any text.
    """
    return _refusal(option.canonical, option.type, option.choices, text)


# a fleet writes the same few values (tp-size 8, page-size 64, ...): each is judged once, keyed
# by what the verdict reads (hashing the whole Option would cost more than most verdicts)
@lru_cache(maxsize=4096)
def _refusal(
    canonical: str, typ: str, choices: tuple[str, ...], text: str
) -> tuple[str, str] | None:
    flag = "--" + canonical
    ok, value = _convert(typ, text)
    if not ok:
        if typ == "human_readable_int":
            said = f"Invalid integer value: {text.strip()!r}"
        else:
            said = f"invalid {typ} value: {text!r}"
        return _EXPECTED[typ], f"argument {flag}: {said}"
    said = _type_error(typ, flag, text)
    if said is not None:
        return _EXPECTED[typ], f"argument {flag}: {said}"
    if choices:
        conv = int if typ == "int" else float if typ == "float" else None
        try:
            allowed: list = [conv(c) for c in choices] if conv is not None else list(choices)
        except ValueError:  # a table row swacheck cannot convert: compare the text
            allowed = list(choices)
        if conv is None or not all(isinstance(a, conv) for a in allowed):
            value = text
        if value not in allowed:
            listed = ", ".join(repr(c) for c in allowed)
            return "one of " + ", ".join(
                choices
            ), f"argument {flag}: invalid choice: {value!r} (choose from {listed})"
    return None
