"""The command line: the commands, their options, parsing into :class:`Settings`, running, exit.

The options several commands share are declared once in ``options.py``, with every list of
choices taken from its registry; the values are checked and made into settings by
``clisettings.py`` (with the checks ``config.py`` shares with the configuration file) and run
by ``runner.py``; ``--fix`` and ``--diff`` are ``fixer.py``'s.

Imports are kept to what the command needs: ``--version`` and ``--help`` load neither PyYAML
nor rich (tests/test_startup.py).
"""

import os
import sys
from typing import Annotated

import typer
from typer.core import TyperGroup

from . import __version__
from .options import (
    EXIT_HELP,
    EXPLAIN_FORMATS,
    PAIR_EXIT_HELP,
    RULES_FORMATS,
    WHY_FORMATS,
    Color,
    Config,
    Env,
    ExitZero,
    ExplainFormat,
    ExtendSelect,
    FailOn,
    Format,
    Ignore,
    ModelConfig,
    NoBuiltinModels,
    NoConfig,
    Output,
    PairFormat,
    Paths,
    Platform,
    Quiet,
    Root,
    Select,
    SglangVersion,
    Statistics,
    WhyFormat,
    first_default,
)
from .settings import ALIGN_TO, MAX_FILE_SIZE


class _DefaultCheck(TyperGroup):
    """`swacheck PATHS` means `swacheck check PATHS`, like ruff's old default command."""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and args[0] not in _WHOLE_APP:
            args = ["check", *args]
        return super().parse_args(ctx, args)


def _usage(make, *args):  # type: ignore[no-untyped-def]
    """``make(*args)``, a command's settings; a bad option value (``clisettings.BadValue``) is
    shown as click shows a usage error: the usage line, a hint and the message; exit 2."""
    from .clisettings import BadValue

    try:
        return make(*args)
    except BadValue as exc:
        raise typer.BadParameter(exc.message, param_hint=exc.param_hint) from None


app = typer.Typer(
    cls=_DefaultCheck,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=(
        "Check SGLang DeepSeek-V4 speculative-decoding deployments, from the config files alone, "
        "for what stops them at start-up: target/draft SWA KV-pool geometry, refused arguments, "
        "PD pair mismatches, MoE runner, KV dtype and memory.\n\n"
        "Run `swacheck PATH...` (same as `swacheck check PATH...`); `swacheck rules` lists the rules."
    ),
)


def _version(value: bool) -> None:
    if value:
        from .sglang.version import DEFAULT, PROFILES

        typer.echo(
            f"swacheck {__version__} (SGLang {DEFAULT.version} behaviour; knows {', '.join(PROFILES)})"
        )
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = None,
) -> None:
    pass


@app.command(epilog=EXIT_HELP)
def check(
    paths: Paths = None,
    format: Format = None,
    platform: Platform = None,
    env: Env = [],
    gpu: Annotated[
        str | None,
        typer.Option(
            "--gpu",
            metavar="NAME",
            help="The GPU the servers run on (H100, H200, A100, B200, MI300X, ...) for the "
            "SWA5xx preflight rules; a deployment file's gpu: wins.",
        ),
    ] = None,
    model_config: ModelConfig = [],
    no_builtin_models: NoBuiltinModels = None,
    select: Select = [],
    extend_select: ExtendSelect = [],
    ignore: Ignore = [],
    exclude: Annotated[
        list[str],
        typer.Option(
            "--exclude",
            metavar="PATTERNS",
            help="gitignore-style patterns (names, globs, paths: vendored, *.json, "
            "data/x.yaml) a walk skips (comma-separated or repeated; added to the "
            "configuration file's).",
        ),
    ] = [],
    extend_exclude: Annotated[
        list[str],
        typer.Option(
            "--extend-exclude",
            metavar="PATTERNS",
            help="More patterns to skip, added to exclude (as the configuration's extend-exclude).",
        ),
    ] = [],
    respect_gitignore: Annotated[
        bool | None,
        typer.Option(
            "--respect-gitignore/--no-respect-gitignore",
            help="Whether a walk leaves out what .gitignore files and .git/info/exclude "
            "ignore (default: it does).",
            show_default=False,
        ),
    ] = None,
    sglang_version: SglangVersion = None,
    fail_on: FailOn = None,
    exit_zero: ExitZero = None,
    align_to: Annotated[
        str | None,
        typer.Option(
            "--align-to",
            metavar="SIDE",
            help=f"Which side a geometry fix keeps: {ALIGN_TO[0]} (default; the draft follows) "
            f"or {ALIGN_TO[1]}.",
        ),
    ] = None,
    color: Color = None,
    output: Output = None,
    max_file_size: Annotated[
        int | None,
        typer.Option(
            "--max-file-size",
            metavar="BYTES",
            min=1,
            max=MAX_FILE_SIZE,
            help="Refuse input files larger than this many bytes (default 10 MiB, also the most).",
        ),
    ] = None,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Apply the safe fixes in place (only the edited spans change), then check again.",
        ),
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print the fixes as a unified diff; write nothing.")
    ] = False,
    unsafe_fixes: Annotated[
        bool | None,
        typer.Option(
            "--unsafe-fixes",
            help="With --fix or --diff, also apply fixes that change what the deployment "
            "runs or the resources it uses.",
            show_default=False,
        ),
    ] = None,
    fix_model_configs: Annotated[
        bool,
        typer.Option(
            "--fix-model-configs",
            help="With --fix, also edit model checkpoints' config.json files.",
        ),
    ] = False,
    no_config: NoConfig = False,
    config: Config = None,
    stdin_filename: Annotated[
        str | None,
        typer.Option(
            "--stdin-filename",
            metavar="NAME",
            help="Check standard input (-) as the file NAME: its name decides how it is "
            "read, its folder where referenced files are found.",
        ),
    ] = None,
    root: Root = None,
    show_settings: Annotated[
        bool,
        typer.Option(
            "--show-settings",
            help="Print every effective setting and where it came from, then exit.",
        ),
    ] = False,
    show_pairs: Annotated[
        bool,
        typer.Option(
            "--show-pairs",
            help="List the PD prefill/decode pairs found, and why, before the report.",
        ),
    ] = False,
    statistics: Statistics = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            help="Leave out the findings recorded in FILE (written by --write-baseline): "
            "only new findings are reported.",
        ),
    ] = None,
    write_baseline: Annotated[
        str | None,
        typer.Option(
            "--write-baseline",
            metavar="FILE",
            help="Record every finding's fingerprint in FILE, then exit 0 (2 on input errors).",
        ),
    ] = None,
    allow_empty: Annotated[
        bool,
        typer.Option(
            "--allow-empty",
            help="Exit 0, not 2, when no deployment is found (the pre-commit hook uses it).",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Full tables for passing deployments and agreeing PD pairs; also list files that hold no deployment.",
        ),
    ] = False,
    quiet: Quiet = False,
    command: Annotated[
        list[str],
        typer.Option(
            "--command",
            metavar="COMMAND",
            help='Check a launch command given as text, e.g. "python -m sglang.launch_server ..." (repeatable).',
        ),
    ] = [],
) -> None:
    """Check deployments: print each one's target/draft geometry and every finding with its fix."""
    values = dict(locals())  # every option above, by parameter name
    from .clisettings import check_settings
    from .runner import run_check, show_settings_and_exit

    settings = _usage(check_settings, values)
    if show_settings:
        show_settings_and_exit(settings)
    raise typer.Exit(run_check(settings))


@app.command("pair", epilog=PAIR_EXIT_HELP)
def pair_command(
    prefill: Annotated[
        str,
        typer.Argument(metavar="PREFILL", help="The prefill server's config (or deployment file)."),
    ],
    decode: Annotated[
        str,
        typer.Argument(metavar="DECODE", help="The decode server's config (or deployment file)."),
    ],
    format: PairFormat = None,
    platform: Platform = None,
    env: Env = [],
    model_config: ModelConfig = [],
    no_builtin_models: NoBuiltinModels = None,
    fail_on: FailOn = None,
    select: Select = [],
    extend_select: ExtendSelect = [],
    ignore: Ignore = [],
    exit_zero: ExitZero = None,
    color: Color = None,
    output: Output = None,
    sglang_version: SglangVersion = None,
    no_config: NoConfig = False,
    config: Config = None,
    root: Root = None,
    statistics: Statistics = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Every compared value of the pair, not only those that differ."
        ),
    ] = False,
    quiet: Quiet = False,
) -> None:
    """Check a PD prefill server against its decode server (and each against its own draft)."""
    values = dict(locals())
    from .clisettings import pair_settings
    from .runner import run_check

    raise typer.Exit(run_check(_usage(pair_settings, values)))


@app.command(
    "explain",
    epilog="""\b
Exit codes: 0 every deployment was explained (whatever its findings); 2 usage error, or an
input that cannot be read, parsed or resolved (printed as file:line:col: message).""",
)
def explain(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATH...", help="Files or directories, as for check.", show_default=False
        ),
    ] = None,
    format: ExplainFormat = None,
    glossary: Annotated[
        bool,
        typer.Option(
            "--glossary",
            help="Print what the words in swacheck's reports mean (SWA, PD, MTP, ...) and exit.",
        ),
    ] = False,
    platform: Platform = None,
    env: Env = [],
    model_config: ModelConfig = [],
    no_builtin_models: NoBuiltinModels = None,
    color: Color = None,
    sglang_version: SglangVersion = None,
    no_config: NoConfig = False,
    root: Root = None,
) -> None:
    """Show how every geometry number was derived: formula, inputs, and where each input came from."""
    values = dict(locals())
    if glossary:
        from .glossary import render

        typer.echo(render(), nl=False)
        raise typer.Exit(0)
    from .clisettings import explain_settings
    from .runner import run_explain

    settings, fmt = _usage(explain_settings, values, EXPLAIN_FORMATS)
    raise typer.Exit(run_explain(settings, fmt))


@app.command("rules")
def list_rules(
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            "--output-format",
            metavar="FORMAT",
            help=f"{first_default(RULES_FORMATS)}.",
        ),
    ] = RULES_FORMATS[0],
) -> None:
    """List every rule: code, name, default severity and what it checks."""
    from .clisettings import choice
    from .runner import print_rules

    print_rules(_usage(choice, format, RULES_FORMATS, "--format"))


@app.command("rule")
def show_rule(
    code: Annotated[
        str,
        typer.Argument(
            metavar="CODE|NAME", help="A rule code or name, e.g. SWA101 or unified-ring-mismatch."
        ),
    ],
) -> None:
    """Print a rule's full documentation."""
    from .runner import print_rule

    raise typer.Exit(print_rule(code))


@app.command(
    "why",
    epilog="""\b
Exit codes: 0 the error was found and explained; 2 no DSV4 target/draft error in the text,
a malformed tuple, a log or PATH that cannot be read.""",
)
def why_command(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TEXT [PATH...]",
            help="The error text (quoted), then deployment files or directories to match it against. "
            "With --from-log every argument is a PATH.",
            show_default=False,
        ),
    ] = None,
    from_log: Annotated[
        str | None,
        typer.Option(
            "--from-log",
            metavar="FILE",
            help="Read the error from a log file (- for standard input).",
        ),
    ] = None,
    format: WhyFormat = None,
    color: Color = None,
    platform: Platform = None,
    env: Env = [],
    model_config: ModelConfig = [],
    no_builtin_models: NoBuiltinModels = None,
    no_config: NoConfig = False,
    root: Root = None,
) -> None:
    """Explain a DSV4 target/draft RuntimeError of a failed SGLang launch, and find the deployment that caused it."""
    values = dict(locals())
    from .clisettings import why_settings
    from .why import run_why

    settings, text, fmt = _usage(why_settings, values, WHY_FORMATS)
    raise typer.Exit(run_why(settings, text=text, log=from_log, fmt=fmt))


# `swacheck PATHS...` (the common case) builds only the check command: typer inspects the
# signature of every command it builds, and building all six cost ~10 ms of every start.
_check_alone = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
_check_alone.command(epilog=EXIT_HELP)(check)
_WHOLE_APP = {"--help", "-h", "--version", "-V", "--install-completion", "--show-completion"}


def command_names() -> list[str]:
    return [
        info.name or (info.callback.__name__ if info.callback else "")
        for info in app.registered_commands
    ]


def mistyped_command(args: list[str]) -> str | None:
    """The command ``args[0]`` was probably meant to be, when it is no path and no command
    (``swacheck rulse``): taken for a path it would only say "no such file"."""
    if (
        not args
        or args[0] in command_names()
        or args[0].startswith("-")
        or os.path.lexists(args[0])
    ):
        return None
    if "/" in args[0] or os.sep in args[0] or "." in args[0]:
        return None
    import difflib

    near = difflib.get_close_matches(args[0].lower(), command_names(), n=1, cutoff=0.6)
    return near[0] if near else None


def app_for(args: list[str]) -> tuple[typer.Typer, str]:
    """The typer app that runs ``args`` and its program name: the check command alone for
    ``swacheck PATHS...``, the whole app for a command name, help or the version."""
    if args and args[0] not in command_names() and not _WHOLE_APP.intersection(args):
        return _check_alone, "swacheck check"
    return app, "swacheck"


def main() -> None:
    meant = mistyped_command(sys.argv[1:])
    if meant is not None:
        from .report.escape import print_error

        print_error(
            f"swacheck: {sys.argv[1]!r} is neither a command nor a file; did you mean `swacheck {meant}`?"
        )
        raise SystemExit(2)
    chosen, prog_name = app_for(sys.argv[1:])
    try:
        chosen(prog_name=prog_name)
    except KeyboardInterrupt:
        print("swacheck: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception as exc:  # a bug in swacheck: one line, never a traceback for the user
        from .runner import internal_error

        raise SystemExit(internal_error(exc)) from None
