"""The deployment model: plain data every stage shares, owned by none of them.

The bottom layer (docs/architecture.md, "Layers"): it imports nothing of swacheck but itself
(and the leaf tables ``limits``, which budgets the tree's plain values). The readers produce it,
SGLang's resolution and the rules consume it, the reports render it.

- ``recordtype``: ``@record``, the dataclass decorator every record uses;
- ``records``: ``Location``, ``Val`` (a value with its provenance), ``Finding``, ``Fix``,
  ``Edit``, ``InputError``, ``InputProblem``, ``Summary``;
- ``tree``: the position-keeping tree that YAML and JSON load into (``Scalar``, ``Mapping``,
  ``Sequence``, ``Pair``, ``Document``, ``SourceFile``);
- ``deployment``: one server to check (``Deployment``, ``UnreadDeployment``, ``ServerArgs``,
  ``Arg``, ``ModelRef``, ``ExplicitGeometry``);
- ``text``: input text made safe to show (``one_line``, ``terminal``, ``redact``), on which the
  report's escaping (``report/escape.py``) is built.

Import from the submodules (``from swacheck.model.deployment import Deployment``): this file
imports nothing, so that importing one record does not load the others.
"""
