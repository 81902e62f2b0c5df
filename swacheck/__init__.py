"""swacheck: predict SGLang DeepSeek-V4 target/draft SWA geometry mismatches from config files."""

__version__ = "0.1.0"


# The Python API (docs/api.md), imported on first use so that the command line's start
# does not pay for it.
__all__ = [
    "check",
    "check_text",
    "Report",
    "Finding",
    "Location",
    "Deployment",
    "InputError",
    "__version__",
]


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    if name in __all__ and name != "__version__":
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'swacheck' has no attribute {name!r}")


def __dir__() -> list[str]:
    """What ``dir(swacheck)`` and completion show: the API names too, though imported lazily."""
    return sorted(set(globals()) | set(__all__))
