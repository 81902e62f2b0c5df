"""The command line's option values, checked and made into :class:`Settings`.

``cli.py`` declares the options and hands each command's values here by parameter name. A
value that needs a registry is checked with the function ``config.py`` uses for the
configuration file (one check of rule codes for both); a bad value is a usage error (exit 2).
Defaults, then the configuration file, then the options given: ``config.build_settings``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from . import config
from .settings import ALIGN_TO, COLORS, FAIL_ON, PLATFORMS, Settings

Values = dict[str, Any]  # a command's option values, by parameter name

# ``swacheck check``'s option values when none is given: what typer passes ``cli.check`` for
# ``swacheck PATH...``, which ``entry.py`` runs without typer (tests/test_entry.py holds the two
# equal). Not changed by the checks below.
CHECK_DEFAULTS: Values = {
    "paths": None,
    **dict.fromkeys(("env", "model_config", "select", "extend_select", "ignore", "exclude"), ()),
    **dict.fromkeys(("format", "platform", "gpu", "sglang_version", "fail_on", "exit_zero"), None),
    "no_builtin_models": None,
    **dict.fromkeys(("align_to", "color", "output", "max_file_size", "unsafe_fixes"), None),
    **dict.fromkeys(("config", "stdin_filename", "root", "baseline", "write_baseline"), None),
    **dict.fromkeys(("fix", "diff", "fix_model_configs", "no_config", "show_settings"), False),
    **dict.fromkeys(("show_pairs", "statistics", "allow_empty", "verbose", "quiet"), False),
    "extend_exclude": (),
    "respect_gitignore": None,
    "command": (),
}


class BadValue(Exception):
    """An option's value is wrong: ``cli.py`` shows it as the command line's usage error (exit 2).
    Raised here rather than typer's own, so that ``swacheck PATH...`` can run without typer
    (``entry.py``)."""

    def __init__(self, message: str, param_hint: str) -> None:
        super().__init__(message)
        self.message, self.param_hint = message, param_hint


def choice(value: str, choices: tuple[str, ...], option: str) -> str:
    if value not in choices:
        raise BadValue(f"{value!r} is not one of {', '.join(choices)}", param_hint=option)
    return value


def _one_of(choices: tuple[str, ...] | Callable[[], tuple[str, ...]]) -> Callable[[Any, str], Any]:
    """An option's check against its choices (given, or the registry's at the time of the check);
    an empty value is no value."""

    def check(value: str | None, option: str) -> str | None:
        if not value:
            return None
        return choice(value, choices() if callable(choices) else choices, option)

    return check


def pairs(values: list[str], option: str) -> dict[str, str]:
    """``KEY=VALUE`` options (``--env``, ``--model-config``) as a dict."""
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            from .model.text import terminal

            raise BadValue(f"expected KEY=VALUE, got '{terminal(item)}'", param_hint=option)
        out[key] = value
    return out


def codes(values: list[str], option: str) -> tuple[str, ...] | None:
    """Rule codes or prefixes, comma-separated or repeated, checked by ``config.rule_codes``."""
    given = [c.strip() for v in values for c in v.split(",") if c.strip()]
    if not given:
        return None
    try:
        return config.rule_codes(given)
    except ValueError as exc:
        raise BadValue(str(exc), param_hint=option) from None


def gpu(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    name = config.gpu_name(value)
    if name is None:
        raise BadValue(
            "give a GPU name such as H100, H200, A100, B200 or MI355X", param_hint=option
        )
    return name


def release(value: str | None, option: str) -> str | None:
    """A known release; a newer one gives the newest profile and a warning (sglang/version.py)."""
    from .model.text import terminal
    from .report.escape import print_error
    from .sglang.version import lookup

    if value is None:
        return None
    try:
        profile, warning = lookup(value)
    except ValueError as exc:
        raise BadValue(terminal(str(exc)), param_hint=option) from None
    if warning:
        print_error(f"swacheck: warning: {option}: {warning}")
    return profile.version


def _as_given(value: Any, option: str) -> Any:
    return value


def root_dir(value: str | None) -> str | None:
    if value is None:
        return None
    if not os.path.isdir(value):
        raise BadValue(f"{value!r} is not a directory", param_hint="--root")
    return os.path.realpath(value)


# parameter -> (Settings attribute, option, check), checked in this order; each command gives
# the ones it declares. None from a check: not given (the configuration file or default stays).
GIVEN: dict[str, tuple[str, str, Callable[[Any, str], Any]]] = {
    "format": ("format", "--format", _one_of(lambda: config.FORMATS)),
    "platform": ("platform", "--platform", _one_of(PLATFORMS)),
    "gpu": ("gpu", "--gpu", gpu),
    "env": ("env", "--env", pairs),
    "model_config": ("model_configs", "--model-config", pairs),
    "no_builtin_models": (
        "builtin_models",
        "--no-builtin-models",
        lambda v, o: False if v else None,
    ),
    "select": ("select", "--select", codes),
    "extend_select": ("extend_select", "--extend-select", codes),
    "ignore": ("ignore", "--ignore", codes),
    "fail_on": ("fail_on", "--fail-on", _one_of(FAIL_ON)),
    "exit_zero": ("exit_zero", "--exit-zero", _as_given),
    "align_to": ("align_to", "--align-to", _one_of(ALIGN_TO)),
    "color": ("color", "--color", _one_of(COLORS)),
    "max_file_size": ("max_file_size", "--max-file-size", _as_given),
    "sglang_version": ("sglang_version", "--sglang-version", release),
    "unsafe_fixes": ("unsafe_fixes", "--unsafe-fixes", _as_given),
    "respect_gitignore": ("respect_gitignore", "--respect-gitignore", _as_given),
}


def given(values: Values) -> dict[str, Any]:
    """The settings the options give (None where not given), checked."""
    return {
        attr: check(values[name], option)
        for name, (attr, option, check) in GIVEN.items()
        if name in values
    }


def build(values: Values, chosen: dict[str, Any] | None = None) -> Settings:
    """Defaults, then the project config file (``--config FILE``, else the nearest one), then the
    options given (``chosen``: already checked), and ``--root``; a bad config file exits 2."""
    if chosen is None:
        chosen = given(values)
    no_config, config_file = values.get("no_config", False), values.get("config")
    if config_file is not None and no_config:
        raise BadValue("--config and --no-config exclude each other", param_hint="--config")
    import warnings

    from .report.escape import print_error
    from .sglang.version import NewerReleaseWarning

    root = root_dir(values.get("root"))

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NewerReleaseWarning)
            settings = config.build_settings(
                chosen, use_config=not no_config, config_file=config_file, root=root
            )
        for w in caught:  # a configuration file's newer sglang-version: one line, not a traceback
            print_error(f"swacheck: warning: {w.message}")
    except config.ConfigError as exc:
        print_error(str(exc))
        raise SystemExit(2) from None
    settings.root = root
    return settings


def check_settings(values: Values) -> Settings:
    """``swacheck check``'s settings."""
    settings = build(values)
    for name in ("exclude", "extend_exclude"):
        patterns = values.get(name)
        if patterns:
            setattr(
                settings,
                name,
                (
                    *getattr(settings, name),
                    *(n.strip() for e in patterns for n in e.split(",") if n.strip()),
                ),
            )
            settings.sources[name] = "command line"
    if (
        values["format"] is None
        and settings.sources.get("format") == "default"
        and os.environ.get("GITHUB_ACTIONS") == "true"
    ):
        settings.format, settings.sources["format"] = "github", "GITHUB_ACTIONS=true"
    for name in ("output", "verbose", "quiet", "fix", "diff", "fix_model_configs"):
        setattr(settings, name, values[name])
    for name in ("show_pairs", "allow_empty", "statistics", "write_baseline"):
        setattr(settings, name, values[name])
    settings.paths, settings.commands = list(values["paths"] or []), list(values["command"])
    if values["baseline"] is not None:
        from .baseline import read_baseline

        settings.baseline = read_baseline(values["baseline"])
    _stdin_and_fixes(settings, values["stdin_filename"])
    if not values["show_settings"] and not settings.paths and not settings.commands:
        raise BadValue(
            "give at least one file or directory (or - for standard input)", param_hint="PATH..."
        )
    return settings


def _stdin_and_fixes(settings: Settings, stdin_filename: str | None) -> None:
    if stdin_filename is not None:
        if "-" not in settings.paths:  # as ruff: the option alone reads standard input
            named = [p for p in settings.paths if p != stdin_filename]
            at = settings.paths.index(stdin_filename) if stdin_filename in settings.paths else None
            settings.paths = named + ["-"] if at is None else [*named[:at], "-", *named[at:]]
        if settings.fix or settings.diff:  # the edits would be made to the file on disk
            raise BadValue(
                "--fix and --diff cannot edit standard input", param_hint="--stdin-filename"
            )
        settings.stdin_filename = stdin_filename
    if settings.fix and settings.diff:
        raise BadValue("--fix and --diff exclude each other", param_hint="--diff")


def pair_settings(values: Values) -> Settings:
    """``swacheck pair PREFILL DECODE``'s settings."""
    settings = build(values)
    prefill, decode = values["prefill"], values["decode"]
    settings.paths, settings.pairs = [prefill, decode], [(prefill, decode)]
    for name in ("output", "statistics", "verbose", "quiet"):
        setattr(settings, name, values[name])
    return settings


def explain_settings(values: Values, formats: tuple[str, ...]) -> tuple[Settings, str]:
    """``swacheck explain``'s settings and output format (its own: human or json)."""
    if not values["paths"]:
        raise BadValue("give at least one file or directory", param_hint="PATH...")
    chosen = given({k: v for k, v in values.items() if k != "format"})
    fmt = formats[0] if values["format"] is None else choice(values["format"], formats, "--format")
    settings = build(values, chosen)
    settings.paths = list(values["paths"])
    return settings, fmt


def why_settings(values: Values, formats: tuple[str, ...]) -> tuple[Settings, str | None, str]:
    """``swacheck why``'s settings, error text (None with ``--from-log``) and output format: the
    project's format when it is one of ``formats``, else the first."""
    chosen = given({k: v for k, v in values.items() if k != "format"})
    fmt = choice(values["format"], formats, "--format") if values["format"] else None
    items = list(values["args"] or [])
    text = None
    if values["from_log"] is None:
        if not items:
            raise BadValue("give the error text (quoted), or --from-log FILE", param_hint="TEXT")
        text, items = items[0], items[1:]
    settings = build(values, chosen)
    settings.paths = items
    if fmt is None:
        fmt = settings.format if settings.format in formats else formats[0]
    return settings, text, fmt
