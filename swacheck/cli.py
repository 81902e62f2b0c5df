"""The command line: parse options into :class:`Settings`, run, print, exit. Nothing else."""

import os
import sys
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from . import __version__
from .limits import MAX_FILE_SIZE
from .report.escape import print_error, terminal
from .settings import FAIL_ON, FORMATS, Settings

EXIT_HELP = """\b
Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 usage error or an input
that cannot be read, parsed or resolved (printed as file:line:col: message)."""


class _DefaultCheck(TyperGroup):
    """`swacheck PATHS` means `swacheck check PATHS`, like ruff's old default command."""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version", "-V"):
            args = ["check", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_DefaultCheck,
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=(
        "Check SGLang DeepSeek-V4 speculative-decoding deployments for target/draft SWA KV-pool "
        "geometry mismatches, from the config files alone.\n\n"
        "Run `swacheck PATH...` (same as `swacheck check PATH...`); `swacheck rules` lists the rules."
    ),
)


def _version(value: bool) -> None:
    if value:
        from .sglang.version import DEFAULT

        from .sglang.version import PROFILES

        typer.echo(f"swacheck {__version__} (SGLang {DEFAULT.version} behaviour; knows {', '.join(PROFILES)})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    pass


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint=option)
        out[key] = value
    return out


def _settings(given: dict, no_config: bool) -> Settings:  # type: ignore[type-arg]
    """Defaults, then the project config file, then the options given; a bad config file exits 2."""
    from .config import ConfigError, build_settings

    try:
        return build_settings(given, use_config=not no_config)
    except ConfigError as exc:
        print_error(str(exc))
        raise typer.Exit(2) from None


def _root_dir(value: str | None) -> str | None:
    if value is None:
        return None
    if not os.path.isdir(value):
        raise typer.BadParameter(f"{value!r} is not a directory", param_hint="--root")
    return os.path.realpath(value)


def _version_choice(value: str | None) -> str | None:
    from .sglang.version import PROFILES

    if value is None:
        return None
    return _choice(value.removeprefix("v"), tuple(PROFILES), "--sglang-version")


def _choice(value: str, choices: tuple[str, ...], option: str) -> str:
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}", param_hint=option)
    return value


@app.command(epilog=EXIT_HELP)
def check(
    paths: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="PATH...", help="Files, directories (walked for *.yaml, *.yml, *.json, *.sh and Dockerfiles) or - for stdin.", show_default=False),
    ] = None,
    format: Annotated[
        Optional[str], typer.Option("--format", "-f", help=f"Output format: {', '.join(FORMATS)} (default human; github under GitHub Actions).")
    ] = None,
    platform: Annotated[
        Optional[str], typer.Option(help="The server's platform: cuda, rocm or npu (default cuda; a deployment file's own platform wins).")
    ] = None,
    env: Annotated[
        list[str], typer.Option("--env", "-e", metavar="KEY=VALUE", help="The server's environment (repeatable). swacheck never reads its own environment for this.")
    ] = [],
    model_config: Annotated[
        list[str], typer.Option("--model-config", metavar="ID=PATH", help="Use PATH (config.json or its folder) for model path ID (repeatable).")
    ] = [],
    select: Annotated[list[str], typer.Option(metavar="CODES", help="Only these rules: codes or prefixes, comma-separated or repeated (e.g. SWA1).")] = [],
    ignore: Annotated[list[str], typer.Option(metavar="CODES", help="Skip these rules: codes or prefixes.")] = [],
    sglang_version: Annotated[Optional[str], typer.Option("--sglang-version", metavar="X.Y.Z", help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).")] = None,
    fail_on: Annotated[Optional[str], typer.Option(help="Lowest severity that makes the exit code 1: error (default), warning or note.")] = None,
    exit_zero: Annotated[Optional[bool], typer.Option("--exit-zero", help="Exit 0 even when there are findings (input errors still exit 2).", show_default=False)] = None,
    align_to: Annotated[Optional[str], typer.Option(help="Which side a geometry fix keeps: target (default; the draft follows) or draft.")] = None,
    color: Annotated[Optional[str], typer.Option(help="Colour: auto (default), always or never. NO_COLOR and FORCE_COLOR are honoured.")] = None,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the report to this file; the summary line still goes to the terminal.")] = None,
    max_file_size: Annotated[Optional[int], typer.Option(min=1, max=MAX_FILE_SIZE, help="Refuse input files larger than this many bytes (default 10 MiB, also the most).")] = None,
    fix: Annotated[bool, typer.Option("--fix", help="Apply the safe fixes in place (only the edited spans change), then check again.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the fixes as a unified diff; write nothing.")] = False,
    unsafe_fixes: Annotated[
        Optional[bool], typer.Option("--unsafe-fixes", help="With --fix or --diff, also apply fixes that change what the deployment runs or the resources it uses.", show_default=False)
    ] = None,
    fix_model_configs: Annotated[
        bool, typer.Option("--fix-model-configs", help="With --fix, also edit model checkpoints' config.json files.")
    ] = False,
    no_config: Annotated[bool, typer.Option("--no-config", "--isolated", help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).")] = False,
    root: Annotated[Optional[str], typer.Option("--root", metavar="DIR", help="Read files that inputs refer to only inside DIR (default: the git top-level of the first path, else the working directory).")] = None,
    show_settings: Annotated[bool, typer.Option("--show-settings", help="Print every effective setting and where it came from, then exit.")] = False,
    show_pairs: Annotated[bool, typer.Option("--show-pairs", help="List the PD prefill/decode pairs found, and why, before the report.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list walked files that hold no deployment.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only findings.")] = False,
    command: Annotated[
        list[str], typer.Option("--command", metavar="COMMAND", help="Check a launch command given as text, e.g. \"python -m sglang.launch_server ...\" (repeatable).")
    ] = [],
) -> None:
    """Check deployments: print each one's target/draft geometry and every finding with its fix."""

    given = {
        "format": _choice(format, FORMATS, "--format") if format else None,
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "select": _codes(select, "--select"),
        "ignore": _codes(ignore, "--ignore"),
        "fail_on": _choice(fail_on, FAIL_ON, "--fail-on") if fail_on else None,
        "exit_zero": exit_zero,
        "align_to": _choice(align_to, ("target", "draft"), "--align-to") if align_to else None,
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
        "max_file_size": max_file_size,
        "sglang_version": _version_choice(sglang_version),
        "unsafe_fixes": unsafe_fixes,
    }
    settings = _settings(given, no_config)
    settings.root = _root_dir(root)
    if format is None and settings.sources.get("format") == "default" and os.environ.get("GITHUB_ACTIONS") == "true":
        settings.format, settings.sources["format"] = "github", "GITHUB_ACTIONS=true"
    settings.paths, settings.output, settings.verbose, settings.quiet = list(paths or []), output, verbose, quiet
    settings.commands = list(command)
    settings.fix, settings.diff, settings.fix_model_configs = fix, diff, fix_model_configs
    settings.show_pairs = show_pairs
    if fix and diff:
        raise typer.BadParameter("--fix and --diff exclude each other", param_hint="--diff")
    if show_settings:
        from .config import describe

        for key, value, source in describe(settings):
            typer.echo(terminal(f"{key:<17} {value}  ({source})"))
        raise typer.Exit(0)
    if not settings.paths and not settings.commands:
        raise typer.BadParameter("give at least one file or directory (or - for standard input)", param_hint="PATH...")
    raise typer.Exit(run_check(settings))


def _codes(values: list[str], option: str) -> tuple[str, ...] | None:
    codes = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    for code in codes:
        if not code.startswith("SWA") or not code[3:].isdigit() and code != "SWA":
            raise typer.BadParameter(f"{code!r} is not a rule code or prefix such as SWA1 or SWA101", param_hint=option)
    return codes or None


def run_check(settings: Settings) -> int:
    from .engine import without_cyclic_gc

    with without_cyclic_gc():
        return _run_check(settings)


def _run_check(settings: Settings) -> int:
    from .engine import run
    from .report import get

    renderer = get(settings.format)
    if hasattr(renderer, "Stream") and not (settings.diff or settings.fix or settings.show_pairs):
        return _stream_check(settings, renderer)
    if settings.diff:
        from .fixer import show_diff

        return show_diff(settings)
    failed = fixed = 0
    if settings.fix:
        from .fixer import apply_fixes

        _, failed, fixed = apply_fixes(settings)
    result = run(settings)  # with --fix: what is left, as written
    for error in result.errors:
        print(error, file=sys.stderr)
    if settings.show_pairs:
        print_pairs(result)
    if not _deliver(settings, lambda out: renderer.render(result, out), result):
        return 2
    if settings.fix:
        from .fixer import summary

        print_error(summary(result, settings, fixed))
    return 2 if failed else result.exit_code


def _stream_check(settings: Settings, renderer) -> int:  # type: ignore[no-untyped-def]
    """Check and report unit by unit, holding one unit in memory at a time (``engine.run_units``)."""
    from .engine import RunResult, run_units

    totals = RunResult(settings)

    def report(out) -> None:  # type: ignore[no-untyped-def]
        stream = renderer.Stream(settings, out)
        printed = 0
        for unit in run_units(settings, totals):
            totals.errors.extend(unit.errors)
            totals.skipped.extend(unit.skipped)
            for error in totals.errors[printed:]:
                print(error, file=sys.stderr)
            printed = len(totals.errors)
            stream.unit(unit)
        for error in totals.errors[printed:]:
            print(error, file=sys.stderr)
        stream.finish(totals)

    if not _deliver(settings, report, totals):
        return 2
    return totals.exit_code


def _deliver(settings: Settings, write, totals) -> bool:  # type: ignore[no-untyped-def]
    """``write(stream)`` the report to ``--output`` (then ``totals``' summary line to the
    terminal) or to standard output. False when the output file cannot be written."""
    if not settings.output:
        write(sys.stdout)
        return True
    try:
        with open(settings.output, "w", encoding="utf-8") as fh:
            write(fh)
    except OSError as exc:
        print_error(f"{settings.output}: cannot write the report: {exc.strerror or exc}")
        return False
    if not settings.quiet:
        from .report.human import summary_text

        print(terminal(f"{summary_text(totals)} -> {settings.output}"))
    return True


def print_pairs(result) -> None:  # type: ignore[no-untyped-def]
    """``--show-pairs``: each pair and why; each PD server left alone and why (to stderr)."""
    for pair in result.pairs:
        print_error(f"pair: {pair.prefill.deployment.file} (prefill) + {pair.decode.deployment.file} (decode): {pair.how}")
    for alone, why in result.alone:
        print_error(f"unpaired: {alone.deployment.file} ({alone.deployment.name}): {why}")
    if not result.pairs and not result.alone:
        print("no PD prefill/decode pairs among the checked deployments", file=sys.stderr)


@app.command("pair", epilog=EXIT_HELP)
def pair_command(
    prefill: Annotated[str, typer.Argument(metavar="PREFILL", help="The prefill server's config (or deployment file).")],
    decode: Annotated[str, typer.Argument(metavar="DECODE", help="The decode server's config (or deployment file).")],
    format: Annotated[Optional[str], typer.Option("--format", "-f", help=f"Output format: {', '.join(FORMATS)}.")] = None,
    platform: Annotated[Optional[str], typer.Option(help="The servers' platform: cuda, rocm or npu.")] = None,
    env: Annotated[list[str], typer.Option("--env", "-e", metavar="KEY=VALUE", help="The servers' environment (repeatable).")] = [],
    model_config: Annotated[list[str], typer.Option("--model-config", metavar="ID=PATH", help="Use PATH for model path ID (repeatable).")] = [],
    fail_on: Annotated[Optional[str], typer.Option(help="Lowest severity that makes the exit code 1.")] = None,
    color: Annotated[Optional[str], typer.Option(help="Colour: auto, always or never.")] = None,
    sglang_version: Annotated[Optional[str], typer.Option("--sglang-version", metavar="X.Y.Z", help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).")] = None,
    no_config: Annotated[bool, typer.Option("--no-config", "--isolated", help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).")] = False,
    root: Annotated[Optional[str], typer.Option("--root", metavar="DIR", help="Read files that inputs refer to only inside DIR (default: the git top-level of the first path, else the working directory).")] = None,
) -> None:
    """Check a PD prefill server against its decode server (and each against its own draft)."""

    given = {
        "format": _choice(format, FORMATS, "--format") if format else None,
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "fail_on": _choice(fail_on, FAIL_ON, "--fail-on") if fail_on else None,
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
        "sglang_version": _version_choice(sglang_version),
    }
    settings = _settings(given, no_config)
    settings.root = _root_dir(root)
    settings.paths, settings.pairs = [prefill, decode], [(prefill, decode)]
    raise typer.Exit(run_check(settings))


@app.command("explain", epilog=EXIT_HELP)
def explain(
    paths: Annotated[list[str], typer.Argument(metavar="PATH...", help="Files or directories, as for check.", show_default=False)],
    format: Annotated[str, typer.Option("--format", "-f", help="human (a tree) or json.")] = "human",
    platform: Annotated[Optional[str], typer.Option(help="The server's platform: cuda, rocm or npu.")] = None,
    env: Annotated[list[str], typer.Option("--env", "-e", metavar="KEY=VALUE", help="The server's environment (repeatable).")] = [],
    model_config: Annotated[list[str], typer.Option("--model-config", metavar="ID=PATH", help="Use PATH for model path ID (repeatable).")] = [],
    color: Annotated[Optional[str], typer.Option(help="Colour: auto, always or never.")] = None,
    sglang_version: Annotated[Optional[str], typer.Option("--sglang-version", metavar="X.Y.Z", help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).")] = None,
    no_config: Annotated[bool, typer.Option("--no-config", "--isolated", help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).")] = False,
    root: Annotated[Optional[str], typer.Option("--root", metavar="DIR", help="Read files that inputs refer to only inside DIR (default: the git top-level of the first path, else the working directory).")] = None,
) -> None:
    """Show how every geometry number was derived: formula, inputs, and where each input came from."""
    from .engine import run
    from .explain import render_human, render_json

    given = {
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
        "sglang_version": _version_choice(sglang_version),
    }
    _choice(format, ("human", "json"), "--format")
    settings = _settings(given, no_config)
    settings.root = _root_dir(root)
    settings.paths = list(paths)
    result = run(settings)
    for error in result.errors:
        print(error, file=sys.stderr)
    (render_json if format == "json" else render_human)(result, sys.stdout)
    raise typer.Exit(2 if result.errors else 0)


@app.command("rules")
def list_rules() -> None:
    """List every rule: code, name, default severity and what it checks."""
    from .rules import RULES

    width = max(len(r.NAME) for r in RULES)
    for rule in RULES:
        typer.echo(f"{rule.CODE}  {rule.NAME:<{width}}  {rule.SEVERITY:<7}  {rule.SUMMARY}")


@app.command("rule")
def show_rule(code: Annotated[str, typer.Argument(help="A rule code, e.g. SWA101.")]) -> None:
    """Print a rule's full documentation."""
    from .rules import BY_CODE, get

    rule = get(code)
    if rule is None:
        import difflib

        near = difflib.get_close_matches(code.upper(), list(BY_CODE), n=1)
        hint = f"; did you mean {near[0]}?" if near else "; `swacheck rules` lists them"
        print_error(f"unknown rule {code!r}{hint}")
        raise typer.Exit(2)
    typer.echo(f"{rule.CODE} ({rule.NAME}), default severity: {rule.SEVERITY}\n")
    typer.echo((rule.__doc__ or "").strip())


@app.command(
    "why",
    epilog="""\b
Exit codes: 0 the error was found and explained; 2 no DSV4 target/draft error in the text,
a malformed tuple, a log or PATH that cannot be read.""",
)
def why_command(
    args: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="TEXT [PATH...]",
            help="The error text (quoted), then deployment files or directories to match it against. "
            "With --from-log every argument is a PATH.",
            show_default=False,
        ),
    ] = None,
    from_log: Annotated[Optional[str], typer.Option("--from-log", metavar="FILE", help="Read the error from a log file (- for standard input).")] = None,
    format: Annotated[Optional[str], typer.Option("--format", "-f", help="Output format: human (default) or json.")] = None,
    color: Annotated[Optional[str], typer.Option(help="Colour: auto (default), always or never.")] = None,
    platform: Annotated[Optional[str], typer.Option(help="With PATHs: the server's platform, cuda, rocm or npu.")] = None,
    env: Annotated[list[str], typer.Option("--env", "-e", metavar="KEY=VALUE", help="With PATHs: the server's environment (repeatable).")] = [],
    model_config: Annotated[list[str], typer.Option("--model-config", metavar="ID=PATH", help="With PATHs: use PATH for model path ID (repeatable).")] = [],
    no_config: Annotated[bool, typer.Option("--no-config", "--isolated", help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).")] = False,
    root: Annotated[Optional[str], typer.Option("--root", metavar="DIR", help="Read files that inputs refer to only inside DIR (default: the git top-level of the first path, else the working directory).")] = None,
) -> None:
    """Explain a DSV4 target/draft RuntimeError of a failed SGLang launch, and find the deployment that caused it."""
    from .why import run_why

    given = {
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
    }
    fmt = _choice(format, ("human", "json"), "--format") if format else None
    items = list(args or [])
    text = None
    if from_log is None:
        if not items:
            raise typer.BadParameter("give the error text (quoted), or --from-log FILE", param_hint="TEXT")
        text, items = items[0], items[1:]
    settings = _settings(given, no_config)
    settings.root = _root_dir(root)
    settings.paths = items
    if fmt is None:  # the project's format applies when why has it
        fmt = settings.format if settings.format in ("human", "json") else "human"
    raise typer.Exit(run_why(settings, text=text, log=from_log, fmt=fmt))


# `swacheck PATHS...` (the common case) builds only the check command: typer inspects the
# signature of every command it builds, and building all six cost ~10 ms of every start.
_check_alone = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]})
_check_alone.command(epilog=EXIT_HELP)(check)
_WHOLE_APP = {"--help", "-h", "--version", "-V"}


def app_for(args: list[str]) -> tuple[typer.Typer, str]:
    """The typer app that runs ``args`` and its program name: the check command alone for
    ``swacheck PATHS...``, the whole app for a command name, help or the version."""
    names = {info.name or (info.callback.__name__ if info.callback else "") for info in app.registered_commands}
    if args and args[0] not in names and not _WHOLE_APP.intersection(args):
        return _check_alone, "swacheck check"
    return app, "swacheck"


def main() -> None:
    chosen, prog_name = app_for(sys.argv[1:])
    try:
        chosen(prog_name=prog_name)
    except KeyboardInterrupt:
        print("swacheck: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception as exc:  # a bug in swacheck: one line, never a traceback for the user
        print_error(f"swacheck: internal error: {type(exc).__name__}: {exc} (please report it; exit 2)")
        raise SystemExit(2) from None
