"""``--baseline FILE`` and ``--write-baseline FILE``: the fingerprints of accepted findings."""

from __future__ import annotations

import typer

from .report.escape import print_error
from .settings import Settings

BASELINE_VERSION = 2  # 2: the fingerprints include the severity (1 left it out)


def read_baseline(path: str) -> frozenset[str]:
    """The fingerprints of a ``--write-baseline`` file; a file that cannot be used exits 2."""
    import json

    from .loading import read_text
    from .model.records import InputProblem

    try:  # the input reader: a regular file within the size limit (a FIFO, /dev/zero: refused)
        data = json.loads(read_text(path))
        if (
            not isinstance(data, dict)
            or data.get("version") != BASELINE_VERSION
            or not isinstance(data.get("fingerprints"), dict)
        ):
            raise ValueError(
                "a baseline of an older swacheck (version 1, whose fingerprints leave out the "
                "severity): write it again with --write-baseline"
                if isinstance(data, dict) and data.get("version") == 1
                else f"not a swacheck baseline (version {BASELINE_VERSION}, written by --write-baseline)"
            )
    except InputProblem as problem:
        print_error(f"{path}: cannot read the baseline: {problem.message}")
        raise typer.Exit(2) from None
    except ValueError as exc:  # json.JSONDecodeError too
        print_error(f"{path}: {exc}")
        raise typer.Exit(2) from None
    return frozenset(data["fingerprints"])


def write_baseline(settings: Settings, totals, code: int) -> int:  # type: ignore[no-untyped-def]
    """Write ``--write-baseline``: every finding's fingerprint with what it was, sorted. Exit 0
    (the findings are accepted), 2 when an input could not be checked or the file written."""
    import json

    from .report.escape import json_data  # messages and paths are input text: redacted
    from .safewrite import open_new_file  # never through a committed symbolic link

    data = {
        "version": BASELINE_VERSION,
        "tool": "swacheck",
        "fingerprints": json_data(dict(sorted(totals.fingerprints.items()))),
    }
    path = settings.write_baseline
    try:
        with open_new_file(path) as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
    except OSError as exc:
        print_error(f"{path}: cannot write the baseline: {exc.strerror or exc}")
        return 2
    n = len(totals.fingerprints)
    print_error(f"swacheck: wrote {n} finding{'s' if n != 1 else ''} to the baseline {path}")
    return 2 if code == 2 else 0
