"""The plain settings object: the CLI parses options into it and nothing else.

A leaf: it imports nothing of swacheck's, so ``swacheck --version`` and ``--help`` do not pay for
the YAML loader or the report formats. The choices that come from a registry (formats, rule
codes, SGLang releases) are checked where the settings are built (``config.py``); the fixed
ones are declared here, once.
"""

from __future__ import annotations

from dataclasses import field

from .model.recordtype import record

FAIL_ON = ("error", "warning", "note")  # the severities (records.SEVERITIES), lowest last
PLATFORMS = ("cuda", "rocm", "npu")
ALIGN_TO = ("target", "draft")  # the side a geometry fix keeps
COLORS = ("auto", "always", "never")
MAX_FILE_SIZE = 10 * 1024 * 1024  # the hard per-file budget, limits.MAX_FILE_SIZE (a test pins it)


@record
class Settings:
    """Everything a run is configured with: defaults, then the configuration file, then the options."""

    paths: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)  # --command: launch commands given as text
    format: str = "human"
    platform: str | None = None  # None: cuda, unless a deployment file says otherwise
    gpu: str | None = (
        None  # --gpu: the GPU model the servers run on (sglang/gpus.py); a deployment file's gpu: wins
    )
    env: dict[str, str] = field(default_factory=dict)
    model_configs: dict[str, str] = field(default_factory=dict)
    # no config.json found: take the model's values from swacheck's catalogue of the published
    # checkpoints (--no-builtin-models, builtin-models = false: off)
    builtin_models: bool = True
    fail_on: str = "error"
    align_to: str = "target"
    color: str = "auto"
    output: str | None = None
    verbose: bool = False
    quiet: bool = False
    max_file_size: int = MAX_FILE_SIZE
    exclude: tuple[str, ...] = ()  # gitignore-style patterns a walk leaves out
    extend_exclude: tuple[str, ...] = ()  # more of them, added to exclude
    exclude_base: str = "."  # the folder the patterns are relative to (the config file's)
    respect_gitignore: bool = True  # walks leave out what .gitignore / .git/info/exclude ignore
    select: tuple[str, ...] = ()  # codes or prefixes; empty: every rule
    extend_select: tuple[
        str, ...
    ] = ()  # added to select (e.g. a rule a project's select leaves out)
    ignore: tuple[str, ...] = ()
    exit_zero: bool = False
    stdin_filename: str | None = (
        None  # check standard input ("-") as this file: its name and folder
    )
    stdin_text: str | None = (
        None  # the text of "-" given in memory (swacheck.check_text), not read from stdin
    )
    baseline: frozenset[str] | None = None  # --baseline FILE: fingerprints of findings to leave out
    write_baseline: str | None = (
        None  # --write-baseline FILE: write every finding's fingerprint there
    )
    statistics: bool = False  # --statistics: findings per rule instead of the report
    allow_empty: bool = False  # a run that finds no deployment exits 0, not 2 (the pre-commit hook)
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)  # glob -> codes
    per_file_ignores_base: str = "."  # globs are relative to the config file's folder
    # the SGLang release whose behaviour is predicted: the newest profile (sglang/version.py
    # NEWEST, pinned by tests/test_startup.py so this module stays a leaf)
    sglang_version: str = "0.5.23"
    pairs: list[tuple[str, str]] = field(
        default_factory=list
    )  # explicit (prefill file, decode file)
    show_pairs: bool = False
    fix: bool = False  # apply the fixes in place
    diff: bool = False  # print the fixes as a unified diff, write nothing
    fix_model_configs: bool = False  # also edit model checkpoints' config.json files
    unsafe_fixes: bool = False  # also apply fixes that change what runs (fixer.py)
    config_file: str | None = None
    root: str | None = (
        None  # --root; None: the VCS top-level of the first path, else the working directory
    )
    sources: dict[str, str] = field(default_factory=dict)  # attribute -> where its value came from

    def rule_enabled(self, code: str) -> bool:
        selected = not self.select or any(
            code.startswith(p) for p in (*self.select, *self.extend_select)
        )
        return selected and not any(code.startswith(p) for p in self.ignore)
