"""``swacheck why``: explain a DSV4 target/draft ``RuntimeError`` from a failed SGLang launch.

Four layers, each usable on its own:

* **reading** (:mod:`.parse`, pure): text or log lines -> one ``ParsedError`` per distinct error
  and a ``Malformed`` for each DSV4 message whose tuples cannot be read; the wording of every
  message in every release is in :mod:`.messages`;
* **diagnosis** (:mod:`.diagnose`, pure): a ``ParsedError`` -> ``Diagnosis``: which fields
  differ, the numbers derived from them and what in the inputs must differ;
* **matching** (:mod:`.match`): which deployment checked by :func:`swacheck.engine.run` predicts
  exactly these tuples, and the input keys behind the differing fields;
* **reporting**: the ``why`` renderers of :mod:`swacheck.report` (``why_human``, ``why_json``),
  run by :func:`.command.run_why`.
"""

from __future__ import annotations

from .command import run_why
from .diagnose import Derived, Diagnosis, diagnose
from .match import DeploymentMatch, Explained, Key, WhyReport, explain, match_deployment
from .messages import VERSIONS, WORDINGS, Wording
from .parse import Malformed, Parse, ParsedError, TupleError, parse_lines, parse_text, parse_tuples

__all__ = [
    "VERSIONS",
    "WORDINGS",
    "DeploymentMatch",
    "Derived",
    "Diagnosis",
    "Explained",
    "Key",
    "Malformed",
    "Parse",
    "ParsedError",
    "TupleError",
    "WhyReport",
    "Wording",
    "diagnose",
    "explain",
    "match_deployment",
    "parse_lines",
    "parse_text",
    "parse_tuples",
    "run_why",
]
