"""What the PD transfer-backend rules (SWA416-SWA418) share: the server's role and backend, and
its environment read as SGLang's ``srt/environ.py`` reads it (a value that does not parse is
warned about and the default used: ``EnvField.get``)."""

from __future__ import annotations

from ..model.records import Location
from ..sglang.resolve import Resolution
from ._preflight import text, where

BOOL_ON = ("true", "1", "yes", "y")
BOOL_OFF = ("false", "0", "no", "n")


def role(res: Resolution) -> str | None:
    """``prefill`` / ``decode`` on a PD server of a DeepSeek-V4 target, else None."""
    if res.target is None:
        return None
    mode = text(res, "disaggregation-mode")
    return mode if mode in ("prefill", "decode") else None


def backend(res: Resolution) -> str:
    value = text(res, "disaggregation-transfer-backend", "mooncake") or "mooncake"
    return "mooncake" if value == "mooncake_tcp" else value


def raw(res: Resolution, name: str) -> str | None:
    v = res.deployment.env.get(name)
    return None if v is None else str(v.value)


def env_bool(res: Resolution, name: str, default: bool) -> bool:
    value = raw(res, name)
    if value is None:
        return default
    low = value.lower()
    return True if low in BOOL_ON else False if low in BOOL_OFF else default


def env_float(res: Resolution, name: str, default: float) -> float:
    value = raw(res, name)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        return default


def env_int(res: Resolution, name: str, default: int | None) -> int | None:
    value = raw(res, name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        return default


def env_loc(res: Resolution, *names: str) -> Location | None:
    """The first of these variables the deployment sets, else the server's position."""
    for name in names:
        v = res.deployment.env.get(name)
        if v is not None and v.location is not None:
            return v.location
    return where(res, None)
