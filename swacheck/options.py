"""The command line's options, each declared once: an ``Annotated`` alias per option that
several commands share (``cli.py`` gives it to each of them by parameter name), with every list
of choices taken from its registry: each command's formats (``report.REGISTRY``) and the fixed
choices of ``settings.py``. The values are checked by ``clisettings.py``.
"""

from typing import Annotated

import typer

from .report import formats_for
from .settings import COLORS, FAIL_ON, PLATFORMS

FORMATS = formats_for("check")
EXPLAIN_FORMATS = formats_for("explain")
WHY_FORMATS = formats_for("why")
RULES_FORMATS = formats_for("rules")
EXIT_HELP = """\b
Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 usage error, a named path
that does not exist or cannot be read, a deployment that cannot be read, parsed or
resolved (printed as file:line:col: message), or no deployment found at all (unless
--allow-empty). A file that cannot be a deployment is skipped and counted (-v lists it)."""


def _or(choices: tuple[str, ...]) -> str:
    """``a, b or c``."""
    return f"{', '.join(choices[:-1])} or {choices[-1]}" if len(choices) > 1 else choices[0]


def first_default(choices: tuple[str, ...]) -> str:
    """``a (default), b or c``."""
    return _or((f"{choices[0]} (default)", *choices[1:]))


# What a walked folder is read for (held to inputs/walk.EXTENSIONS and inputs/kinds.py's
# file kinds by tests/test_docs.py; not imported here, to keep the command line's start light).
WALK_HELP = (
    "Files, directories (walked for *.yaml, *.yml, *.json; shell and Slurm batch scripts *.sh, "
    "*.bash, *.sbatch, *.slurm; Dockerfiles; documents *.md, *.mdx, *.markdown, *.rst) or - for "
    "stdin."
)
PAIR_EXIT_HELP = """\b
Exit codes: 0 the two servers agree (no finding at or above --fail-on); 1 findings; 2 usage
error, or an input that cannot be read, parsed or resolved (printed as file:line:col: message)."""

# ------------------------------------------------------------------ options shared by commands

Paths = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="PATH...",
        help=WALK_HELP,
        show_default=False,
    ),
]


def _format(choices: tuple[str, ...], default: str) -> typer.models.OptionInfo:
    """``--format``: one declaration for every command; ``choices`` from the command's registry."""
    return typer.Option(
        "--format",
        "-f",
        "--output-format",
        metavar="FORMAT",
        help=f"Output format: {', '.join(choices)}{default}.",
    )


# check: GITHUB_ACTIONS=true chooses github (clisettings.check_settings); pair: human
Format = Annotated[str | None, _format(FORMATS, " (default human; github under GitHub Actions)")]
PairFormat = Annotated[str | None, _format(FORMATS, "")]
ExplainFormat = Annotated[str | None, _format(EXPLAIN_FORMATS, f" (default {EXPLAIN_FORMATS[0]})")]
WhyFormat = Annotated[str | None, _format(WHY_FORMATS, f" (default {WHY_FORMATS[0]})")]
Platform = Annotated[
    str | None,
    typer.Option(
        "--platform",
        metavar="PLATFORM",
        help=f"The server's platform: {_or(PLATFORMS)} (default {PLATFORMS[0]}; a deployment "
        "file's own platform wins).",
    ),
]
Env = Annotated[
    list[str],
    typer.Option(
        "--env",
        "-e",
        metavar="KEY=VALUE",
        help="The server's environment (repeatable). swacheck never reads its own environment for this.",
    ),
]
ModelConfig = Annotated[
    list[str],
    typer.Option(
        "--model-config",
        metavar="ID=PATH",
        help="Use PATH (config.json or its folder) for model path ID (repeatable).",
    ),
]
NoBuiltinModels = Annotated[
    bool | None,
    typer.Option(
        "--no-builtin-models",
        help="Do not take a model's values from swacheck's catalogue of the published DeepSeek-V4 "
        "checkpoints when no config.json is found (the configuration file's builtin-models).",
        show_default=False,
    ),
]
Select = Annotated[
    list[str],
    typer.Option(
        "--select",
        metavar="CODES",
        help="Only these rules: codes or prefixes, comma-separated or repeated (e.g. SWA1).",
    ),
]
ExtendSelect = Annotated[
    list[str],
    typer.Option(
        "--extend-select",
        metavar="CODES",
        help="Add these rules to the selected ones (the configuration file's select).",
    ),
]
Ignore = Annotated[
    list[str],
    typer.Option("--ignore", metavar="CODES", help="Skip these rules: codes or prefixes."),
]
FailOn = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        metavar="SEVERITY",
        help=f"Lowest severity that makes the exit code 1: {first_default(FAIL_ON)}.",
    ),
]
ExitZero = Annotated[
    bool | None,
    typer.Option(
        "--exit-zero",
        help="Exit 0 even when there are findings (input errors still exit 2).",
        show_default=False,
    ),
]
Color = Annotated[
    str | None,
    typer.Option(
        "--color",
        metavar="WHEN",
        help=f"Colour: {first_default(COLORS)}. NO_COLOR and FORCE_COLOR are honoured "
        "(colour only: off a terminal the lines stay plain).",
    ),
]
Output = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the report to this file; the summary line still goes to the terminal.",
    ),
]
SglangVersion = Annotated[
    str | None,
    typer.Option(
        "--sglang-version",
        metavar="X.Y.Z",
        help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).",
    ),
]
NoConfig = Annotated[
    bool,
    typer.Option(
        "--no-config",
        "--isolated",
        help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).",
    ),
]
Config = Annotated[
    str | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Read the settings from FILE (a swacheck.toml, or a pyproject.toml with "
        "[tool.swacheck]) instead of searching for one.",
    ),
]
Root = Annotated[
    str | None,
    typer.Option(
        "--root",
        metavar="DIR",
        help="Read files that inputs refer to only inside DIR (default: the git "
        "top-level of the first path, else the working directory).",
    ),
]
Statistics = Annotated[
    bool,
    typer.Option(
        "--statistics",
        help="Print how many findings each rule made instead of the report (with "
        "--output, the report goes to the file).",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print only findings.")]
