"""Hard limits: the budgets no input and no repository configuration can raise.

swacheck runs on pull requests from strangers, so every file is hostile: a few hundred bytes
must not be able to take gigabytes of memory, minutes of CPU, or the whole run with them.
Each budget below, when exceeded, is ONE input error for the file that exceeded it
(``file:line:col: message``, exit 2); the other files are still checked.

| limit                   | hard maximum       | counted                                                        | may be lowered by               |
|-------------------------|--------------------|----------------------------------------------------------------|---------------------------------|
| ``MAX_FILE_SIZE``       | 10 MiB             | bytes of one file read (input, server config, sourced script,  | ``--max-file-size``,            |
|                         |                    | env file, model ``config.json``, standard input)               | ``max-file-size`` in the config |
| ``MAX_RUN_BYTES``       | 256 MiB            | bytes of every file read in one run                            | (fixed)                         |
| ``MAX_NESTING``         | 200 levels         | YAML / JSON nesting of one document                            | (fixed)                         |
| ``MAX_YAML_NODES``      | 250,000            | YAML nodes (scalars, lists, mappings) or JSON values of a file | (fixed)                         |
|                         |                    | (an alias counts the nodes it stands for each time it is used) |                                 |
| ``MAX_PLAIN_NODES``     | 100,000            | items a value swacheck reads expands to (YAML aliases)         | (fixed)                         |
| ``MAX_WORD``            | 1 MiB (characters) | one shell word as written, or any word after variable          | (fixed)                         |
|                         |                    | expansion (shell, Dockerfile, Kubernetes ``$(VAR)``, Compose)  |                                 |
| ``MAX_EXPANSION``       | 16 MiB (characters)| characters that variable expansion substitutes in one file     | (fixed)                         |
| ``MAX_ITEMS``           | 100,000            | bash array elements and function arguments (``"${A[@]}"``,     | (fixed)                         |
|                         |                    | ``"$@"``) expansion gives in one file (their characters count  |                                 |
|                         |                    | to ``MAX_EXPANSION`` too)                                      |                                 |
| ``MAX_NUMBER_DIGITS``   | 100 digits         | digits of one YAML / JSON integer (hex, octal... counted in    | (fixed)                         |
|                         |                    | decimal digits); a JSON number past a double's range too       |                                 |
| ``MAX_SOURCE_DEPTH``    | 8                  | ``. FILE`` inside ``. FILE`` (a file that sources itself,      | (fixed)                         |
|                         |                    | directly or through others, is an error at once)               |                                 |
| ``MAX_SOURCES``         | 100                | ``. FILE`` / ``source FILE`` read while reading one file       | (fixed)                         |
| ``MAX_WORDS``           | 100,000            | shell words of one file (with the files it sources and its     | (fixed)                         |
|                         |                    | ``sh -c`` strings)                                             |                                 |
| ``MAX_RUN_WORDS``       | 5,000,000          | words made of YAML values in one run (container and service    | (fixed)                         |
|                         |                    | commands, args, env): an alias counts each time it is used;    |                                 |
|                         |                    | per file they count to ``MAX_WORDS`` and their characters to   |                                 |
|                         |                    | ``MAX_EXPANSION``                                              |                                 |
| ``MAX_REFERENCES``      | 50,000             | variable references expanded for one file, known or not        | (fixed)                         |
| ``MAX_STAGES``          | 100                | ``FROM`` stages of one Dockerfile                              | (fixed)                         |
| ``MAX_INSTRUCTIONS``    | 10,000             | instructions of one Dockerfile                                 | (fixed)                         |
| ``MAX_WALK_DEPTH``      | 100 levels         | folders below a folder named on the command line that a walk   | (fixed)                         |
|                         |                    | enters (a deeper one is skipped, counted and listed with -v)   |                                 |
| ``MAX_DEPLOYMENTS``     | 1,000              | deployments (launch commands, containers, services, documents) | (fixed)                         |
|                         |                    | found in one file                                              |                                 |
| ``MAX_KEY_FINDINGS``    | 64                 | keys argparse refuses (unknown, ambiguous, underscored) that   | (fixed)                         |
|                         |                    | get a finding each in one deployment; the rest are one finding |                                 |
|                         |                    | that counts them (no spelling search for them)                 |                                 |

Real deployments stay far below every one of them: a launch script is a few KiB with a handful
of variables, a manifest a few hundred nodes. A repository configuration may only *lower*
``max-file-size``: a value above the hard maximum is a configuration error (exit 2) naming
the setting, never silently used, so a pull request cannot raise a budget by editing
``pyproject.toml``. The command line cannot raise it either.

Only regular files are ever opened as inputs or as files an input refers to: FIFOs, devices
and sockets (``server: /dev/zero``, ``/dev/stdin``, a FIFO in a walked folder) are refused
without being opened for reading in a way that could block (``O_NONBLOCK``, then ``fstat``);
``-`` is the only way to read standard input, and it is capped at ``MAX_FILE_SIZE`` too.

Memory: with these budgets, peak RSS stays within ``100 MB + 30 x`` the bytes read
(``tests/security/test_memory.py``; ``benchmarks/hostile.py`` prints the figures).

The per-run counter (:func:`charge_read`) is reset by :func:`start_run` at the start of every
run (``engine.run_units``); the per-file budgets are :class:`Budget` objects that
``inputs.read_inputs`` installs with :func:`budget` while it reads one input file (and
``launch.read_commands`` for each ``--command``), so a script's sourced files and sh -c strings
are charged to it. YAML nodes, nesting and Dockerfile stages and instructions are counted by
their readers directly.
"""

from __future__ import annotations

import contextvars

from .model.records import InputProblem, Location
from .model.text import one_line

MiB = 1024 * 1024

MAX_FILE_SIZE = 10 * MiB
MAX_RUN_BYTES = 256 * MiB
MAX_NESTING = 200
MAX_YAML_NODES = 250_000
MAX_PLAIN_NODES = 100_000
MAX_WORD = 1 * MiB
MAX_EXPANSION = 16 * MiB
MAX_ITEMS = 100_000
MAX_NUMBER_DIGITS = 100
_MAX_NUMBER = 10**MAX_NUMBER_DIGITS
MAX_SOURCE_DEPTH = 8
MAX_SOURCES = 100
MAX_WORDS = 100_000
MAX_RUN_WORDS = 5_000_000
MAX_DEPLOYMENTS = 1_000
MAX_KEY_FINDINGS = 64
MAX_WALK_DEPTH = 100
MAX_REFERENCES = 50_000
MAX_STAGES = 100
MAX_INSTRUCTIONS = 10_000


# --------------------------------------------------------------------------- bytes read per run

_run_bytes = [0]
_run_words = [0]  # words made of YAML values (Budget.yaml_word)


def start_run() -> None:
    """A new run: nothing read yet."""
    _run_bytes[0] = 0
    _run_words[0] = 0


def run_bytes() -> int:
    """The bytes this run has read so far."""
    return _run_bytes[0]


def charge_read(size: int, path: str) -> None:
    """Count ``size`` bytes read from ``path``; an :class:`InputProblem` once the run is over budget."""
    if _run_bytes[0] + size > MAX_RUN_BYTES:
        raise InputProblem(
            f"not read: this run has read {_run_bytes[0]} bytes, and this file would "
            f"pass the limit of {MAX_RUN_BYTES} bytes per run",
            file=path,
        )
    _run_bytes[0] += size


# --------------------------------------------------------------------------- numbers

NUMBER_TOO_LONG = f"an integer of more than {MAX_NUMBER_DIGITS} digits (the limit on a number); no setting is that large"


def number_too_long(text: str) -> bool:
    """Whether an integer literal's text has more digits than any number may (before it is
    converted: Python refuses to convert more than 4,300 decimal digits, and a hex literal of
    thousands of digits converts, but cannot be printed)."""
    return len(text) > MAX_NUMBER_DIGITS + 8 and sum(c.isalnum() for c in text) > MAX_NUMBER_DIGITS


def integer_too_large(value: int) -> bool:
    """Whether a converted integer has more than ``MAX_NUMBER_DIGITS`` decimal digits."""
    return value.bit_length() > 3 * MAX_NUMBER_DIGITS and abs(value) >= _MAX_NUMBER


# --------------------------------------------------------------------------- per-file budgets


class Budget:
    """What variable expansion, sourcing and launch finding may still spend on one file."""

    __slots__ = (
        "path",
        "expanded",
        "sources",
        "deployments",
        "lexed",
        "references",
        "items",
        "spent",
    )

    def __init__(self, path: str):
        self.path = path
        self.expanded = 0
        self.items = 0
        self.spent: InputProblem | None = None
        self.sources = 0
        self.deployments = 0
        self.lexed = 0
        self.references = 0

    @property
    def name(self) -> str:
        return one_line(self.path) if self.path else "this input"

    def expand(self, size: int, at: Location | None) -> None:
        """``size`` characters substituted for a variable reference at ``at``, making a word of ``size``
        characters at least."""
        if size > MAX_WORD:
            raise InputProblem(
                f"a variable expands to more than {MAX_WORD} characters here (the limit on one word)",
                at,
                file=self.path or None,
            )
        self.expanded += size
        if self.expanded > MAX_EXPANSION:
            raise InputProblem(
                f"variable expansion passes {MAX_EXPANSION} characters in {self.name} here (the limit per file)",
                at,
                file=self.path or None,
            )

    def elements(self, items: list, at: Location | None) -> None:  # type: ignore[type-arg]
        """``items`` (words) given by ``"${A[@]}"``, ``"$@"``, ``$1``...: each counts against
        ``MAX_ITEMS`` and its characters against ``MAX_EXPANSION`` (an array that doubles itself,
        ``A=("${A[@]}" "${A[@]}")``, or a function that calls itself with ``"$@" "$@"`` grows
        by items, not by long words)."""
        self.items += len(items)
        if self.items > MAX_ITEMS:
            raise InputProblem(
                f"array and argument expansion passes {MAX_ITEMS} items in {self.name} here "
                "(the limit per file)",
                at,
                file=self.path or None,
            )
        size = sum(len(item.text) for item in items)
        if size:
            self.expand(size, at)

    def yaml_word(self, size: int, at: Location | None) -> None:
        """A word made of a YAML value (a container's or service's command, args or env), of
        ``size`` characters: YAML aliases share one node among many places, so each use counts
        (1,000 containers that alias one whose args alias 40,000 items made 40 million words).
        Once past a budget, every later word of the file raises the same problem (one line)."""
        if self.spent is not None:
            raise self.spent
        self.lexed += 1
        self.expanded += size
        _run_words[0] += 1
        if self.lexed > MAX_WORDS:
            why = f"more than {MAX_WORDS} words in {self.name} here (the limit per file"
        elif self.expanded > MAX_EXPANSION:
            why = f"words pass {MAX_EXPANSION} characters in {self.name} here (the limit per file"
        elif _run_words[0] > MAX_RUN_WORDS:
            why = f"this run has made more than {MAX_RUN_WORDS} words of YAML values (the limit per run"
        else:
            return
        self.spent = InputProblem(
            why + "; a YAML alias counts each time it is used)", at, file=self.path or None
        )
        raise self.spent

    def word(self, size: int, at: Location | None) -> None:
        """A word built by expansion is ``size`` characters long."""
        if size > MAX_WORD:
            raise InputProblem(
                f"a word expands to more than {MAX_WORD} characters here (the limit on one word)",
                at,
                file=self.path or None,
            )

    def reference(self, at: Location | None) -> None:
        """One more variable reference expanded, known or not (each costs its bookkeeping)."""
        self.references += 1
        if self.references > MAX_REFERENCES:
            raise InputProblem(
                f"more than {MAX_REFERENCES} variable references in {self.name} (the limit per file)",
                at,
                file=self.path or None,
            )

    def words(self, count: int, at: Location | None) -> None:
        """``count`` more shell words lexed (a script, the files it sources, ``sh -c`` strings)."""
        self.lexed += count
        if self.lexed > MAX_WORDS:
            raise InputProblem(
                f"more than {MAX_WORDS} shell words in {self.name} (the limit per file)",
                at,
                file=self.path or None,
            )

    def source(self, at: Location | None) -> None:
        self.sources += 1
        if self.sources > MAX_SOURCES:
            raise InputProblem(
                f"more than {MAX_SOURCES} files sourced while reading {self.name} (the limit per file)",
                at,
                file=self.path or None,
            )

    def deployment(self, at: Location | None) -> None:
        self.deployments += 1
        if self.deployments > MAX_DEPLOYMENTS:
            raise InputProblem(
                f"more than {MAX_DEPLOYMENTS} deployments in {self.name} (the limit per file)",
                at,
                file=self.path or None,
            )


_current: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "swacheck_budget", default=None
)


def current() -> Budget:
    """The budget of the file being read; when none is installed, a fresh one for this call alone
    (a word's limit still holds; per-file totals need :func:`budget`)."""
    found = _current.get()
    return found if found is not None else Budget("")


class budget:
    """Install a fresh :class:`Budget` for ``path`` while its launches are read (a class rather
    than a ``@contextmanager`` generator: it is entered once per input file)."""

    __slots__ = ("fresh", "token")

    def __init__(self, path: str):
        self.fresh = Budget(path)

    def __enter__(self) -> Budget:
        self.token = _current.set(self.fresh)
        return self.fresh

    def __exit__(self, *exc: object) -> None:
        _current.reset(self.token)
