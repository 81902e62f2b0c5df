"""``swacheck explain --format json``: every deployment's trace as one JSON document (version 1)."""

from __future__ import annotations

import json
from functools import partial
from typing import TextIO

from ..explain import deployment_trace
from ..results import RunResult
from .escape import json_data
from .renderer import WholeRun, render_run


def write(result: RunResult, out: TextIO) -> None:
    data = {
        "version": 1,
        "deployments": [deployment_trace(r) for r in result.results],
        "errors": [e.to_json() for e in result.errors],
    }
    json.dump(json_data(data), out, indent=2)
    out.write("\n")


STREAMS = False  # one JSON document: Stream keeps the units
Stream = partial(WholeRun, write=write)


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)
