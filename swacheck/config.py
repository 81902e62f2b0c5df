"""Project configuration: ``[tool.swacheck]`` in ``pyproject.toml``, or a ``swacheck.toml``.

The file is found by walking up from the working directory; in one folder ``swacheck.toml``
wins over ``pyproject.toml`` (a ``pyproject.toml`` without ``[tool.swacheck]`` is passed
over). Command-line options win over the file, the file over the defaults, and every
effective setting remembers where it came from (``--show-settings``).

```toml
[tool.swacheck]
select = ["SWA1", "SWA2"]          # codes or prefixes
ignore = ["SWA203"]
fail-on = "warning"                # error | warning | note
format = "human"
platform = "rocm"
env = { SGLANG_HACK_FLASHMLA_BACKEND = "unified_kv_triton" }
model-config = { "/models/DeepSeek-V4-Flash" = "checkpoints/v4-flash" }
exclude = ["vendored", "*.json", "data/x.yaml"]   # gitignore-style patterns
per-file-ignores = { "models/*/config.json" = ["SWA301"] }
sglang-version = "0.5.23"
```
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import Any

from .report import formats_for
from .settings import ALIGN_TO, COLORS, FAIL_ON, MAX_FILE_SIZE, PLATFORMS, Settings

FORMATS = formats_for("check")  # the report registry
# setting name in the file -> Settings attribute
KEYS = {
    "select": "select",
    "extend-select": "extend_select",
    "ignore": "ignore",
    "fail-on": "fail_on",
    "exit-zero": "exit_zero",
    "unsafe-fixes": "unsafe_fixes",
    "format": "format",
    "platform": "platform",
    "gpu": "gpu",
    "env": "env",
    "model-config": "model_configs",
    "builtin-models": "builtin_models",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "respect-gitignore": "respect_gitignore",
    "per-file-ignores": "per_file_ignores",
    "align-to": "align_to",
    "color": "color",
    "max-file-size": "max_file_size",
    "sglang-version": "sglang_version",
}
CHOICES = {
    "fail-on": FAIL_ON,
    "format": FORMATS,
    "platform": PLATFORMS,
    "align-to": ALIGN_TO,
    "color": COLORS,
}


def rule_codes(values: Iterable[str]) -> tuple[str, ...]:
    """Rule codes or prefixes (``SWA101``, ``SWA1``), upper-cased. The one check of both the
    command line (``--select``, ``--extend-select``, ``--ignore``) and the configuration file
    (those and ``per-file-ignores``): a ValueError names the first value that is no code or
    prefix of a rule in the registry (``SWA1234`` selects nothing, so it is a mistake)."""
    from .rules import BY_CODE  # the registry; a run imports it anyway

    codes = tuple(v.upper() for v in values)
    for code in codes:
        if not re.fullmatch(r"SWA\d*", code) or not any(c.startswith(code) for c in BY_CODE):
            raise ValueError(
                f"{code!r} is not a rule code or prefix such as SWA1 or SWA101; "
                "`swacheck rules` lists the rule codes"
            )
    return codes


def gpu_name(value: Any) -> str | None:
    """A ``--gpu`` / ``gpu =`` name, stripped; None when it cannot be one."""
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        return None
    return value.strip()


class ConfigError(ValueError):
    """A configuration file or option swacheck cannot use (exit 2)."""


def _check_place(path: str, root: str | None) -> None:
    """Refuse a configuration file in version-control metadata, or one that lies in the root as
    named but outside it once symbolic links are followed (a pull request can commit
    ``pyproject.toml -> /proc/self/environ``), as a named input is refused: nothing of it is read.
    The root is ``--root``, else the version-control top-level above the file's folder (else the
    working directory), as a run's."""
    from .paths import find_root, in_vcs_metadata

    if in_vcs_metadata(path):
        raise ConfigError(
            f"{_rel(path)}: inside version-control metadata (.git, .hg, .svn), or a link to it; "
            "swacheck never reads it"
        )
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    target = os.path.realpath(path)
    if target == os.path.join(folder, os.path.basename(path)):
        return  # not a link: a file found by walking up may lie above the root (the user's own)
    top = root or find_root([folder])
    if _within(folder, top) and not _within(target, top):
        raise ConfigError(
            f"{_rel(path)}: a symbolic link to outside the root {top!r}; not read (--root)"
        )


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def read_config(path: str, root: str | None = None) -> tuple[str, dict[str, Any], str] | None:
    """(path, the swacheck table, file text) of one config file; None for a ``pyproject.toml``
    without ``[tool.swacheck]`` (any other name is read like ``swacheck.toml``). ``root``: the
    run's ``--root``, if given (``_check_place``)."""
    import tomllib  # only when there is a file to read

    _check_place(path, root)
    try:
        from .loading import special_kind

        kind = special_kind(os.stat(path).st_mode)
        if kind is not None:  # a FIFO or a device would block or never end
            raise ConfigError(f"{_rel(path)}: is {kind}, not a regular file")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_SIZE + 1)
        if len(raw) > MAX_FILE_SIZE:
            raise ConfigError(
                f"{_rel(path)}: file is more than {MAX_FILE_SIZE} bytes, above the limit"
            )
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{_rel(path)}: cannot read: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{_rel(path)}: invalid TOML: {exc}") from None
    text = raw.decode("utf-8")
    if os.path.basename(path) != "pyproject.toml":
        return path, data.get("tool", {}).get("swacheck", data), text
    table = data.get("tool", {}).get("swacheck")
    return (path, table, text) if table is not None else None


def find_config(start: str, root: str | None = None) -> tuple[str, dict[str, Any], str] | None:
    """(path, the swacheck table, file text) of the nearest config file, or None."""
    folder = os.path.abspath(start)
    while True:
        for name in ("swacheck.toml", "pyproject.toml"):
            path = os.path.join(folder, name)
            if os.path.isfile(path):  # a link to a file outside the root too: refused
                found = read_config(path, root)
                if found is not None:
                    return found
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _where(text: str, key: str) -> str:
    """``:LINE:COL`` of ``key =`` in the file, when it can be found."""
    for number, line in enumerate(text.splitlines(), 1):
        m = re.match(rf'\s*"?{re.escape(key)}"?\s*=', line)
        if m:
            return f":{number}:{line.index(key) + 1}"
    return ""


def _codes(key: str, value: Any, where: str, base: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f'{where}: {key} must be a list of rule codes or prefixes such as "SWA1", got {value!r}'
        )
    try:
        return rule_codes(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {key}: {exc}") from None


def _choice(key: str, value: Any, where: str, base: str) -> Any:
    if value not in CHOICES[key]:
        raise ConfigError(f"{where}: {key} must be one of {', '.join(CHOICES[key])}, got {value!r}")
    return value


def _release(key: str, value: Any, where: str, base: str) -> str:
    import warnings

    from .sglang.version import NewerReleaseWarning, lookup

    try:
        profile, warning = lookup(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: sglang-version {exc}") from None
    if warning:  # the newest profile; the CLI prints it as one line
        warnings.warn(NewerReleaseWarning(f"{where}: {warning}"), stacklevel=2)
    return profile.version


def _gpu(key: str, value: Any, where: str, base: str) -> str:
    name = gpu_name(value)
    if name is None:
        raise ConfigError(
            f'{where}: gpu must be a GPU name such as "H100" or "MI355X", got {value!r}'
        )
    return name


def _bool(key: str, value: Any, where: str, base: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def _size(key: str, value: Any, where: str, base: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: max-file-size must be a positive integer, got {value!r}")
    if value > MAX_FILE_SIZE:  # a pull request must not raise a budget (limits.py)
        raise ConfigError(
            f"{where}: max-file-size {value} is above the hard maximum of {MAX_FILE_SIZE} bytes; "
            "a configuration can only lower it"
        )
    return value


def _strings(key: str, value: Any, where: str, base: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where}: {key} must be a table of strings, got {value!r}")
    if key == "model-config":  # paths in the file are relative to the file
        return {k: os.path.normpath(os.path.join(base, v)) for k, v in value.items()}
    return dict(value)


def _names(key: str, value: Any, where: str, base: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"{where}: {key} must be a list of gitignore-style patterns (names, globs, paths), "
            f"got {value!r}"
        )
    return tuple(value)


def _per_file(key: str, value: Any, where: str, base: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: per-file-ignores must be a table of glob = [codes], got {value!r}"
        )
    return {
        glob: _codes(f"per-file-ignores {glob!r}", codes, where, base)
        for glob, codes in value.items()
    }


# setting name in the file -> its check and conversion: (key, value, where, base folder) -> value
CONVERT: dict[str, Callable[[str, Any, str, str], Any]] = {
    "select": _codes,
    "extend-select": _codes,
    "ignore": _codes,
    "fail-on": _choice,
    "exit-zero": _bool,
    "unsafe-fixes": _bool,
    "format": _choice,
    "platform": _choice,
    "gpu": _gpu,
    "env": _strings,
    "model-config": _strings,
    "builtin-models": _bool,
    "exclude": _names,
    "extend-exclude": _names,
    "respect-gitignore": _bool,
    "per-file-ignores": _per_file,
    "align-to": _choice,
    "color": _choice,
    "max-file-size": _size,
    "sglang-version": _release,
}


def convert(key: str, value: Any, where: str, base: str) -> Any:
    """A setting's value checked and converted as the configuration file's (raises ConfigError)."""
    return CONVERT[key](key, value, where, base)


def build_settings(
    cli: dict[str, Any],
    cwd: str | None = None,
    use_config: bool = True,
    config_file: str | None = None,
    root: str | None = None,
) -> Settings:
    """Defaults, then the config file (``config_file``, else the nearest one above ``cwd``), then
    the options given on the command line (not None). ``root``: ``--root`` (a real path), if given:
    a configuration file is read only through the root rules (``_check_place``)."""
    settings = Settings()
    sources = dict.fromkeys(KEYS.values(), "default")
    if config_file is not None:
        if not os.path.isfile(config_file):
            raise ConfigError(f"{config_file}: no such configuration file")
        found = read_config(config_file, root)
        if found is None:
            raise ConfigError(f"{_rel(config_file)}: no [tool.swacheck] table")
    else:
        found = find_config(cwd or os.getcwd(), root) if use_config else None
    if found is not None:
        path, table, text = found
        settings.config_file = path
        if not isinstance(table, dict):
            raise ConfigError(f"{_rel(path)}: [tool.swacheck] must be a table")
        base = os.path.dirname(path)
        for key, value in table.items():
            where = _rel(path) + _where(text, key)
            if key not in KEYS:
                import difflib  # only for a misspelt setting

                near = difflib.get_close_matches(key, list(KEYS), n=1)
                hint = (
                    f"; did you mean {near[0]!r}?"
                    if near
                    else f"; known settings: {', '.join(KEYS)}"
                )
                raise ConfigError(f"{where}: unknown setting {key!r}{hint}")
            setattr(settings, KEYS[key], convert(key, value, where, base))
            sources[KEYS[key]] = _rel(path)
        if "per-file-ignores" in table:
            settings.per_file_ignores_base = base
        if "exclude" in table or "extend-exclude" in table:
            settings.exclude_base = base
    for attr, value in cli.items():
        if value is None:
            continue
        if attr in ("env", "model_configs"):
            if not value:
                continue
            merged = dict(getattr(settings, attr))
            merged.update(value)
            value = merged
        setattr(settings, attr, value)
        sources[attr] = "command line"
    settings.sources = sources
    return settings


def toml_value(value: object) -> str:
    """A setting's value as it would be written in ``[tool.swacheck]``: strings quoted, lists in
    brackets, tables inline, booleans ``true``/``false`` (never a Python tuple or repr)."""
    import re

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        keys = (k if re.fullmatch(r"[A-Za-z0-9_-]+", str(k)) else _quoted(str(k)) for k in value)
        pairs = (f"{k} = {toml_value(v)}" for k, v in zip(keys, value.values()))
        return "{ " + ", ".join(pairs) + " }"
    return _quoted(str(value))


def _quoted(text: str) -> str:
    """A TOML basic string; control and bidi characters are left for ``escape.terminal`` (the
    one place that shows them as escapes, and redacts credentials), not escaped here."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def describe(settings: Settings) -> list[tuple[str, str, str]]:
    """(setting, effective value, where it came from) for ``--show-settings``: each value in
    TOML's syntax (:func:`toml_value`); a setting that is not set says ``(none)``."""
    rows = []
    for key, attr in KEYS.items():
        value = getattr(settings, attr)
        if value is None:
            shown = (
                "(none: cuda, or a deployment file's own platform)"
                if key == "platform"
                else "(none)"
            )
        else:
            shown = toml_value(value)
        rows.append((key, shown, settings.sources.get(attr, "default")))
    return rows
