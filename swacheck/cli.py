"""The command line: parse options into :class:`Settings`, run, print, exit. Nothing else."""

import os
import sys
from typing import Annotated

import typer
from typer.core import TyperGroup

from . import __version__
from .limits import MAX_FILE_SIZE
from .report.escape import print_error, terminal
from .settings import FAIL_ON, FORMATS, Settings

EXIT_HELP = """\b
Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 usage error, an input
that cannot be read, parsed or resolved (printed as file:line:col: message), or no
deployment found at all (unless --allow-empty)."""


class _DefaultCheck(TyperGroup):
    """`swacheck PATHS` means `swacheck check PATHS`, like ruff's old default command."""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and args[0] not in _WHOLE_APP:
            args = ["check", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_DefaultCheck,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
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


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(
                f"expected KEY=VALUE, got '{terminal(item)}'", param_hint=option
            )
        out[key] = value
    return out


def _settings(given: dict, no_config: bool, config: str | None = None) -> Settings:  # type: ignore[type-arg]
    """Defaults, then the project config file (``--config FILE``, else the nearest one), then the
    options given; a bad config file exits 2."""
    from .config import ConfigError, build_settings

    if config is not None and no_config:
        raise typer.BadParameter(
            "--config and --no-config exclude each other", param_hint="--config"
        )
    try:
        return build_settings(given, use_config=not no_config, config_file=config)
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


def _gpu_name(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.strip() or len(value) > 100:
        raise typer.BadParameter(
            "give a GPU name such as H100, H200, A100, B200 or MI355X", param_hint="--gpu"
        )
    return value.strip()


def _choice(value: str, choices: tuple[str, ...], option: str) -> str:
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}", param_hint=option)
    return value


@app.command(epilog=EXIT_HELP)
def check(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATH...",
            help="Files, directories (walked for *.yaml, *.yml, *.json, *.sh and Dockerfiles) or - for stdin.",
            show_default=False,
        ),
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            "--output-format",
            help=f"Output format: {', '.join(FORMATS)} (default human; github under GitHub Actions).",
        ),
    ] = None,
    platform: Annotated[
        str | None,
        typer.Option(
            help="The server's platform: cuda, rocm or npu (default cuda; a deployment file's own platform wins)."
        ),
    ] = None,
    env: Annotated[
        list[str],
        typer.Option(
            "--env",
            "-e",
            metavar="KEY=VALUE",
            help="The server's environment (repeatable). swacheck never reads its own environment for this.",
        ),
    ] = [],
    gpu: Annotated[
        str | None,
        typer.Option(
            "--gpu",
            metavar="NAME",
            help="The GPU the servers run on (H100, H200, A100, B200, MI300X, ...) for the "
            "SWA5xx preflight rules; a deployment file's gpu: wins.",
        ),
    ] = None,
    model_config: Annotated[
        list[str],
        typer.Option(
            "--model-config",
            metavar="ID=PATH",
            help="Use PATH (config.json or its folder) for model path ID (repeatable).",
        ),
    ] = [],
    select: Annotated[
        list[str],
        typer.Option(
            metavar="CODES",
            help="Only these rules: codes or prefixes, comma-separated or repeated (e.g. SWA1).",
        ),
    ] = [],
    extend_select: Annotated[
        list[str],
        typer.Option(
            "--extend-select",
            metavar="CODES",
            help="Add these rules to the selected ones (the configuration file's select).",
        ),
    ] = [],
    ignore: Annotated[
        list[str], typer.Option(metavar="CODES", help="Skip these rules: codes or prefixes.")
    ] = [],
    exclude: Annotated[
        list[str],
        typer.Option(
            "--exclude",
            metavar="NAMES",
            help="File or folder names to skip when walking directories (comma-separated "
            "or repeated; added to the configuration file's).",
        ),
    ] = [],
    sglang_version: Annotated[
        str | None,
        typer.Option(
            "--sglang-version",
            metavar="X.Y.Z",
            help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).",
        ),
    ] = None,
    fail_on: Annotated[
        str | None,
        typer.Option(
            help="Lowest severity that makes the exit code 1: error (default), warning or note."
        ),
    ] = None,
    exit_zero: Annotated[
        bool | None,
        typer.Option(
            "--exit-zero",
            help="Exit 0 even when there are findings (input errors still exit 2).",
            show_default=False,
        ),
    ] = None,
    align_to: Annotated[
        str | None,
        typer.Option(
            help="Which side a geometry fix keeps: target (default; the draft follows) or draft."
        ),
    ] = None,
    color: Annotated[
        str | None,
        typer.Option(
            help="Colour: auto (default), always or never. NO_COLOR and FORCE_COLOR are honoured."
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the report to this file; the summary line still goes to the terminal.",
        ),
    ] = None,
    max_file_size: Annotated[
        int | None,
        typer.Option(
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
    no_config: Annotated[
        bool,
        typer.Option(
            "--no-config",
            "--isolated",
            help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).",
        ),
    ] = False,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="Read the settings from FILE (a swacheck.toml, or a pyproject.toml with "
            "[tool.swacheck]) instead of searching for one.",
        ),
    ] = None,
    stdin_filename: Annotated[
        str | None,
        typer.Option(
            "--stdin-filename",
            metavar="NAME",
            help="Check standard input (-) as the file NAME: its name decides how it is "
            "read, its folder where referenced files are found.",
        ),
    ] = None,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="Read files that inputs refer to only inside DIR (default: the git "
            "top-level of the first path, else the working directory).",
        ),
    ] = None,
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
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics",
            help="Print how many findings each rule made instead of the report (with "
            "--output, the report goes to the file).",
        ),
    ] = False,
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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only findings.")] = False,
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

    given = {
        "format": _choice(format, FORMATS, "--format") if format else None,
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "gpu": _gpu_name(gpu),
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "select": _codes(select, "--select"),
        "extend_select": _codes(extend_select, "--extend-select"),
        "ignore": _codes(ignore, "--ignore"),
        "fail_on": _choice(fail_on, FAIL_ON, "--fail-on") if fail_on else None,
        "exit_zero": exit_zero,
        "align_to": _choice(align_to, ("target", "draft"), "--align-to") if align_to else None,
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
        "max_file_size": max_file_size,
        "sglang_version": _version_choice(sglang_version),
        "unsafe_fixes": unsafe_fixes,
    }
    settings = _settings(given, no_config, config)
    if exclude:
        settings.exclude = (
            *settings.exclude,
            *(n.strip() for e in exclude for n in e.split(",") if n.strip()),
        )
        settings.sources["exclude"] = "command line"
    settings.root = _root_dir(root)
    if (
        format is None
        and settings.sources.get("format") == "default"
        and os.environ.get("GITHUB_ACTIONS") == "true"
    ):
        settings.format, settings.sources["format"] = "github", "GITHUB_ACTIONS=true"
    settings.paths, settings.output, settings.verbose, settings.quiet = (
        list(paths or []),
        output,
        verbose,
        quiet,
    )
    settings.commands = list(command)
    settings.fix, settings.diff, settings.fix_model_configs = fix, diff, fix_model_configs
    settings.show_pairs, settings.allow_empty, settings.statistics = (
        show_pairs,
        allow_empty,
        statistics,
    )
    if baseline is not None:
        settings.baseline = _read_baseline(baseline)
    settings.write_baseline = write_baseline
    if stdin_filename is not None:
        if "-" not in settings.paths:
            raise typer.BadParameter(
                "needs - (standard input) among the paths", param_hint="--stdin-filename"
            )
        if fix or diff:  # the edits would be made to the file on disk, not to the text read
            raise typer.BadParameter(
                "--fix and --diff cannot edit standard input", param_hint="--stdin-filename"
            )
        settings.stdin_filename = stdin_filename
    if fix and diff:
        raise typer.BadParameter("--fix and --diff exclude each other", param_hint="--diff")
    if show_settings:
        from .config import describe

        for key, value, source in describe(settings):
            typer.echo(terminal(f"{key:<17} {value}  ({source})"))
        raise typer.Exit(0)
    if not settings.paths and not settings.commands:
        raise typer.BadParameter(
            "give at least one file or directory (or - for standard input)", param_hint="PATH..."
        )
    raise typer.Exit(run_check(settings))


BASELINE_VERSION = 1


def _read_baseline(path: str) -> frozenset[str]:
    """The fingerprints of a ``--write-baseline`` file; a file that cannot be used exits 2."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if (
            not isinstance(data, dict)
            or data.get("version") != BASELINE_VERSION
            or not isinstance(data.get("fingerprints"), dict)
        ):
            raise ValueError("not a swacheck baseline (version 1, written by --write-baseline)")
    except OSError as exc:
        print_error(f"{path}: cannot read the baseline: {exc.strerror or exc}")
        raise typer.Exit(2) from None
    except ValueError as exc:  # json.JSONDecodeError too
        print_error(f"{path}: {exc}")
        raise typer.Exit(2) from None
    return frozenset(data["fingerprints"])


def _write_baseline(settings: Settings, totals, code: int) -> int:  # type: ignore[no-untyped-def]
    """Write ``--write-baseline``: every finding's fingerprint with what it was, sorted. Exit 0
    (the findings are accepted), 2 when an input could not be checked or the file written."""
    import json

    from .report.escape import (
        json_data,
    )  # messages and paths are input text: redacted like every output

    data = {
        "version": BASELINE_VERSION,
        "tool": "swacheck",
        "fingerprints": json_data(dict(sorted(totals.fingerprints.items()))),
    }
    path = settings.write_baseline
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
    except OSError as exc:
        print_error(f"{path}: cannot write the baseline: {exc.strerror or exc}")
        return 2
    n = len(totals.fingerprints)
    print_error(f"swacheck: wrote {n} finding{'s' if n != 1 else ''} to the baseline {path}")
    return 2 if code == 2 else 0


def _codes(values: list[str], option: str) -> tuple[str, ...] | None:
    codes = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    for code in codes:
        if not code.startswith("SWA") or not code[3:].isdigit() and code != "SWA":
            raise typer.BadParameter(
                f"{code!r} is not a rule code or prefix such as SWA1 or SWA101", param_hint=option
            )
    return codes or None


def run_check(settings: Settings) -> int:
    from .engine import without_cyclic_gc

    with without_cyclic_gc():
        return _run_check(settings)


def _run_check(settings: Settings) -> int:
    from .engine import run
    from .report import get

    renderer = get(settings.format)
    if settings.statistics and not settings.output:  # the table replaces the report
        from .report import statistics as renderer
    if renderer.STREAMS and not (settings.diff or settings.fix or settings.show_pairs):
        return _stream_check(settings, renderer)
    if settings.diff:
        from .fixer import show_diff

        return show_diff(settings)
    failed = fixed = 0
    if settings.fix:
        from .fixer import apply_fixes

        _, failed, fixed = apply_fixes(settings)
    result = run(settings)  # with --fix: what is left, as written
    print_notes(settings, result.notes)
    for error in result.errors:
        print(error, file=sys.stderr)
    if settings.show_pairs:
        print_pairs(result)
    if not _deliver(settings, lambda out: renderer.render(result, out), result):
        return 2
    if settings.fix:
        from .fixer import summary

        print_error(summary(result, settings, fixed))
    code = 2 if failed else result.exit_code
    if settings.write_baseline:
        return _write_baseline(settings, result, code)
    return code


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
            totals.notes.extend(unit.notes)
            print_notes(settings, unit.notes)
            for error in totals.errors[printed:]:
                print(error, file=sys.stderr)
            printed = len(totals.errors)
            stream.unit(unit)
        for error in totals.errors[printed:]:
            print(error, file=sys.stderr)
        stream.finish(totals)

    if not _deliver(settings, report, totals):
        return 2
    if settings.write_baseline:
        return _write_baseline(settings, totals, totals.exit_code)
    return totals.exit_code


def print_notes(settings: Settings, notes) -> None:  # type: ignore[no-untyped-def]
    """Files named explicitly that hold no deployment, one ``file: skipped, ...`` line each on
    standard error (not with -q): visible, but not an error, since a glob names every file."""
    if not settings.quiet:
        for note in notes:
            print(note, file=sys.stderr)


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
    if settings.statistics:
        from .report.statistics import table

        sys.stdout.write(table(totals))
    if not settings.quiet:
        from .report.human import summary_text

        print(terminal(f"{summary_text(totals)} -> {settings.output}"))
    return True


def print_pairs(result) -> None:  # type: ignore[no-untyped-def]
    """``--show-pairs``: each pair and why; each PD server left alone and why (to stderr)."""
    for pair in result.pairs:
        print_error(
            f"pair: {pair.prefill.deployment.file} (prefill) + {pair.decode.deployment.file} (decode): {pair.how}"
        )
    for alone, why in result.alone:
        print_error(f"unpaired: {alone.deployment.file} ({alone.deployment.name}): {why}")
    if not result.pairs and not result.alone:
        print("no PD prefill/decode pairs among the checked deployments", file=sys.stderr)


@app.command("pair", epilog=EXIT_HELP)
def pair_command(
    prefill: Annotated[
        str,
        typer.Argument(metavar="PREFILL", help="The prefill server's config (or deployment file)."),
    ],
    decode: Annotated[
        str,
        typer.Argument(metavar="DECODE", help="The decode server's config (or deployment file)."),
    ],
    format: Annotated[
        str | None,
        typer.Option(
            "--format", "-f", "--output-format", help=f"Output format: {', '.join(FORMATS)}."
        ),
    ] = None,
    platform: Annotated[
        str | None, typer.Option(help="The servers' platform: cuda, rocm or npu.")
    ] = None,
    env: Annotated[
        list[str],
        typer.Option(
            "--env", "-e", metavar="KEY=VALUE", help="The servers' environment (repeatable)."
        ),
    ] = [],
    model_config: Annotated[
        list[str],
        typer.Option(
            "--model-config", metavar="ID=PATH", help="Use PATH for model path ID (repeatable)."
        ),
    ] = [],
    fail_on: Annotated[
        str | None, typer.Option(help="Lowest severity that makes the exit code 1.")
    ] = None,
    select: Annotated[
        list[str],
        typer.Option(
            metavar="CODES",
            help="Only these rules: codes or prefixes, comma-separated or repeated.",
        ),
    ] = [],
    extend_select: Annotated[
        list[str],
        typer.Option(
            "--extend-select", metavar="CODES", help="Add these rules to the selected ones."
        ),
    ] = [],
    ignore: Annotated[
        list[str], typer.Option(metavar="CODES", help="Skip these rules: codes or prefixes.")
    ] = [],
    exit_zero: Annotated[
        bool | None,
        typer.Option(
            "--exit-zero",
            help="Exit 0 even when there are findings (input errors still exit 2).",
            show_default=False,
        ),
    ] = None,
    color: Annotated[str | None, typer.Option(help="Colour: auto, always or never.")] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the report to this file; the summary line still goes to the terminal.",
        ),
    ] = None,
    sglang_version: Annotated[
        str | None,
        typer.Option(
            "--sglang-version",
            metavar="X.Y.Z",
            help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).",
        ),
    ] = None,
    no_config: Annotated[
        bool,
        typer.Option(
            "--no-config",
            "--isolated",
            help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).",
        ),
    ] = False,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="Read the settings from FILE instead of searching for one.",
        ),
    ] = None,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="Read files that inputs refer to only inside DIR (default: the git "
            "top-level of the first path, else the working directory).",
        ),
    ] = None,
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics", help="Print how many findings each rule made instead of the report."
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Every compared value of the pair, not only those that differ."
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only findings.")] = False,
) -> None:
    """Check a PD prefill server against its decode server (and each against its own draft)."""

    given = {
        "format": _choice(format, FORMATS, "--format") if format else None,
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "select": _codes(select, "--select"),
        "extend_select": _codes(extend_select, "--extend-select"),
        "ignore": _codes(ignore, "--ignore"),
        "fail_on": _choice(fail_on, FAIL_ON, "--fail-on") if fail_on else None,
        "exit_zero": exit_zero,
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
        "sglang_version": _version_choice(sglang_version),
    }
    settings = _settings(given, no_config, config)
    settings.root = _root_dir(root)
    settings.paths, settings.pairs = [prefill, decode], [(prefill, decode)]
    settings.output, settings.statistics, settings.verbose, settings.quiet = (
        output,
        statistics,
        verbose,
        quiet,
    )
    raise typer.Exit(run_check(settings))


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
    format: Annotated[
        str, typer.Option("--format", "-f", "--output-format", help="human (a tree) or json.")
    ] = "human",
    glossary: Annotated[
        bool,
        typer.Option(
            "--glossary",
            help="Print what the words in swacheck's reports mean (SWA, PD, MTP, ...) and exit.",
        ),
    ] = False,
    platform: Annotated[
        str | None, typer.Option(help="The server's platform: cuda, rocm or npu.")
    ] = None,
    env: Annotated[
        list[str],
        typer.Option(
            "--env", "-e", metavar="KEY=VALUE", help="The server's environment (repeatable)."
        ),
    ] = [],
    model_config: Annotated[
        list[str],
        typer.Option(
            "--model-config", metavar="ID=PATH", help="Use PATH for model path ID (repeatable)."
        ),
    ] = [],
    color: Annotated[str | None, typer.Option(help="Colour: auto, always or never.")] = None,
    sglang_version: Annotated[
        str | None,
        typer.Option(
            "--sglang-version",
            metavar="X.Y.Z",
            help="Predict the behaviour of this SGLang release (default: the newest swacheck knows).",
        ),
    ] = None,
    no_config: Annotated[
        bool,
        typer.Option(
            "--no-config",
            "--isolated",
            help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).",
        ),
    ] = False,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="Read files that inputs refer to only inside DIR (default: the git "
            "top-level of the first path, else the working directory).",
        ),
    ] = None,
) -> None:
    """Show how every geometry number was derived: formula, inputs, and where each input came from."""
    from .engine import run
    from .report import formats_for, get

    if glossary:
        from .glossary import render

        typer.echo(render(), nl=False)
        raise typer.Exit(0)
    if not paths:
        raise typer.BadParameter("give at least one file or directory", param_hint="PATH...")
    given = {
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
        "sglang_version": _version_choice(sglang_version),
    }
    _choice(format, formats_for("explain"), "--format")
    settings = _settings(given, no_config)
    settings.root = _root_dir(root)
    settings.paths = list(paths)
    result = run(settings)
    for error in result.errors:
        print(error, file=sys.stderr)
    get(format, "explain").render(result, sys.stdout)
    raise typer.Exit(2 if result.errors else 0)


@app.command("rules")
def list_rules(
    format: Annotated[
        str, typer.Option("--format", "-f", "--output-format", help="text (default) or json.")
    ] = "text",
) -> None:
    """List every rule: code, name, default severity and what it checks."""
    from .report import formats_for, get
    from .rules import RULES

    _choice(format, formats_for("rules"), "--format")
    get(format, "rules").render(list(RULES), sys.stdout)


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
    from .rules import BY_CODE, RULES, get

    by_name = {r.NAME: r for r in RULES}
    rule = get(code) or by_name.get(code.lower().replace("_", "-"))
    if rule is None:
        import difflib

        near = difflib.get_close_matches(
            code.upper(), list(BY_CODE), n=1
        ) or difflib.get_close_matches(code.lower(), list(by_name), n=1)
        hint = f"; did you mean {near[0]}?" if near else "; `swacheck rules` lists them"
        print_error(f"unknown rule {code!r}{hint}")
        raise typer.Exit(2)
    from .report import get as renderer

    renderer("text", "rule").render(rule, sys.stdout)


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
    format: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Output format: human (default) or json."),
    ] = None,
    color: Annotated[
        str | None, typer.Option(help="Colour: auto (default), always or never.")
    ] = None,
    platform: Annotated[
        str | None, typer.Option(help="With PATHs: the server's platform, cuda, rocm or npu.")
    ] = None,
    env: Annotated[
        list[str],
        typer.Option(
            "--env",
            "-e",
            metavar="KEY=VALUE",
            help="With PATHs: the server's environment (repeatable).",
        ),
    ] = [],
    model_config: Annotated[
        list[str],
        typer.Option(
            "--model-config",
            metavar="ID=PATH",
            help="With PATHs: use PATH for model path ID (repeatable).",
        ),
    ] = [],
    no_config: Annotated[
        bool,
        typer.Option(
            "--no-config",
            "--isolated",
            help="Ignore pyproject.toml [tool.swacheck] and swacheck.toml (use on untrusted pull requests).",
        ),
    ] = False,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="Read files that inputs refer to only inside DIR (default: the git "
            "top-level of the first path, else the working directory).",
        ),
    ] = None,
) -> None:
    """Explain a DSV4 target/draft RuntimeError of a failed SGLang launch, and find the deployment that caused it."""
    from .why import run_why

    given = {
        "platform": _choice(platform, ("cuda", "rocm", "npu"), "--platform") if platform else None,
        "env": _pairs(env, "--env"),
        "model_configs": _pairs(model_config, "--model-config"),
        "color": _choice(color, ("auto", "always", "never"), "--color") if color else None,
    }
    from .report import formats_for

    fmt = _choice(format, formats_for("why"), "--format") if format else None
    items = list(args or [])
    text = None
    if from_log is None:
        if not items:
            raise typer.BadParameter(
                "give the error text (quoted), or --from-log FILE", param_hint="TEXT"
            )
        text, items = items[0], items[1:]
    settings = _settings(given, no_config)
    settings.root = _root_dir(root)
    settings.paths = items
    if fmt is None:  # the project's format applies when why has it
        fmt = settings.format if settings.format in formats_for("why") else "human"
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
        print_error(
            f"swacheck: internal error: {type(exc).__name__}: {exc} (please report it; exit 2)"
        )
        raise SystemExit(2) from None
