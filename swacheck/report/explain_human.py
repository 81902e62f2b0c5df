"""``swacheck explain`` for the terminal: one tree per deployment, each number with its formula
and the origin of its inputs. Through the human report's writer and report/escape.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TextIO

from rich.text import Text
from rich.tree import Tree

from ..explain import deployment_trace
from ..results import DeploymentResult, RunResult
from .common import heading
from .human import Segment, cell, make_writer, text, wrap_words
from .renderer import render_run

STREAMS = True  # each deployment is written as its unit comes


class Stream:
    def __init__(self, settings: Any, out: TextIO):
        self.w = make_writer(out, settings.color)

    def unit(self, unit: RunResult) -> None:
        for r in unit.results:
            for line in tree_lines(deployment_tree(r), self.w.width):
                self.w.line(*line)
            self.w.line()
        self.w.flush()

    def finish(self, totals: RunResult) -> None:
        pass  # the input errors go to standard error


def segments(label: Text) -> list[Segment]:
    """A label's text as (text, style) segments: each span's style, unstyled text between."""
    out: list[Segment] = []
    at = 0
    for span in sorted(label.spans, key=lambda s: s.start):
        if span.start > at:
            out.append((label.plain[at : span.start], None))
        out.append((label.plain[span.start : span.end], str(span.style)))
        at = span.end
    if at < len(label.plain):
        out.append((label.plain[at:], str(label.style) or None))
    return out


def tree_lines(
    tree: Tree, width: int | None, prefix: str = "", own: str = "", last: bool = True
) -> Iterator[list[Segment]]:
    """The tree as lines behind ``├──``/``└──`` guides, as rich draws them. With a ``width`` (a
    terminal) a long label wraps between words under its own guide, never inside a path or a
    tuple; without one (plain output) every label is one line."""
    label = tree.label if isinstance(tree.label, Text) else cell(str(tree.label))
    below = prefix + (("    " if last else "│   ") if own else "")
    children = list(tree.children)
    rest = below + ("│   " if children else "    ")
    yield from _label_lines(label, prefix + own, rest, width)
    for i, child in enumerate(children):
        end = i == len(children) - 1
        yield from tree_lines(child, width, below, "└── " if end else "├── ", end)


def _label_lines(label: Text, first: str, rest: str, width: int | None) -> Iterator[list[Segment]]:
    parts = segments(label)
    if width is None or len(first) + len(label.plain) <= width:
        yield [(first, None), *parts]
        return
    style = parts[0][1] if parts else None
    for n, line in enumerate(wrap_words(label.plain, width, first, rest)):
        guide = first if n == 0 else rest
        yield [(guide, None), (line[len(guide) :], style)]


def render(result: RunResult, out: TextIO) -> None:
    render_run(Stream, result, out)


def _label(n: dict[str, Any]) -> str:
    text = f"{n['name']} = {'None' if n['value'] is None else n['value']}"
    if n["see"]:
        return text + f"  (the {n['see']} above)"
    if n["formula"]:
        text += f" = {n['formula']}"
    elif n["origin"] and n["origin"] != n["name"]:
        text += f"  ({n['origin']})"
    if n["location"]:
        loc = n["location"]
        text += f"  [{loc['file']}:{loc['line']}:{loc['column']}]"
    return text


def _add(tree: Tree, n: dict[str, Any]) -> None:
    branch = tree.add(cell(_label(n), "bold" if not n["inputs"] else None))
    for child in n["inputs"]:
        _add(branch, child)


def deployment_tree(r: DeploymentResult) -> Tree:
    title, details = heading(r)
    trace = deployment_trace(r)
    root = Tree(text((title, "bold"), (f"  ({details})", "dim")))
    res = r.resolution
    if res.skip_reason:
        root.add(cell(res.skip_reason, "dim"))
    verdict = (
        "SGLang compares target and draft (PD disaggregation with a draft pool)"
        if res.checked_by_sglang
        else "SGLang does not compare the pools here (no PD disaggregation or no draft pool)"
    )
    root.add(cell(verdict, "dim"))
    for role in ("target", "draft"):
        pool = trace[role]
        if pool is None:
            continue
        branch = root.add(cell(f"{role} {tuple(pool['tuple'])}", "bold cyan"))
        _add(branch, pool["unified"])
        for field in pool["fields"]:
            _add(branch, field)
    if (pre := trace.get("preflight")) is not None:
        _preflight(root.add(cell("preflight (SWA5xx)", "bold cyan")), pre)
    for note in trace["notes"]:
        root.add(cell(f"note: {note}", "dim"))
    return root


def _preflight(branch: Tree, pre: dict[str, Any]) -> None:
    """The GPU and the checkpoint facts the SWA5xx rules used."""
    g = pre["gpu"]
    where = (
        f"  [{g['location']['file']}:{g['location']['line']}:{g['location']['column']}]"
        if g["location"]
        else ""
    )
    if g["known"]:
        gib = g["memory_bytes"] / (1 << 30)
        branch.add(
            cell(
                f"gpu = {g['name']} ({g['architecture']}, {gib:.2f} GiB, FP8 "
                f"{'yes' if g['fp8'] else 'no'}, FP4 {'yes' if g['fp4'] else 'no'})  "
                f"({g['origin']}; {g['memory_source']}){where}"
            )
        )
    else:
        branch.add(cell(f"gpu = {g['given']}: not a GPU swacheck knows  ({g['origin']}){where}"))
    c = pre["checkpoint"]
    if c is None:
        return
    branch.add(
        cell(
            f"routed experts = {c['experts'].upper()}  "
            f"({c['experts_origin']}{'; assumed' if c['experts_assumed'] else ''})"
        )
    )
    if c["weight_bytes"] is not None:
        branch.add(
            cell(
                f"weights = {c['weight_bytes'] / (1 << 30):.2f} GiB  "
                f"({c['weights_origin']}{'; approximate' if c['weights_approximate'] else ''})"
            )
        )
    else:
        branch.add(
            cell(
                "weights = unknown  (no model.safetensors.index.json inside the root, no catalogue entry)"
            )
        )
