"""``swacheck why`` for the terminal: each explained error as soon as it is explained, then a
summary line. Through the human report's writer: every piece of text through report/escape.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from ..why.parse import format_tuple
from .common import Row, edit_text, fmt
from .escape import terminal
from .human import PlainWriter, RichWriter, make_writer, wrap_words
from .renderer import render_pieces

if TYPE_CHECKING:
    from ..why.match import Explained, WhyReport

STREAMS = True  # each error is written as it comes


class Stream:
    def __init__(self, settings: Any, out: TextIO):
        self.w = make_writer(out, settings.color)
        self.with_paths = bool(settings.paths)
        self.distinct = 0
        self.total = 0

    def unit(self, item: Explained) -> None:
        w = self.w
        if self.distinct:
            w.print()
        self.distinct += 1
        self.total += item.error.count
        _error(w, item)
        if self.with_paths:
            _deployments(w, item)
        w.flush()

    def finish(self, report: WhyReport) -> None:
        distinct, total = self.distinct, self.total
        self.w.print()
        self.w.line(
            (
                f"Explained {distinct} distinct DSV4 target/draft error{'s' if distinct != 1 else ''} "
                f"({total} occurrence{'s' if total != 1 else ''}) from {report.source}.",
                "dim",
            )
        )
        self.w.flush()


def render(report: WhyReport, out: TextIO) -> None:
    render_pieces(Stream, report.settings, report.items, report, out)


def _error(w: PlainWriter | RichWriter, item: Explained) -> None:
    """The message, where it comes from, its tuples side by side and the diagnosis."""
    err, diag = item.error, item.diagnosis
    w.line((err.message, "bold red"))
    times = "once" if err.count == 1 else f"{err.count} times"
    info = f"  {err.wording.check} · printed by SGLang {err.wording.version_range}"
    if err.frame_versions:
        info += (
            f" · its line in the traceback's utils.py is SGLang {', '.join(err.frame_versions)}'s"
        )
    info += f" · seen {times}, first on line {err.first_line}"
    w.line((info, "dim"))
    if err.fields:
        rows, styles = [], []
        for name, tv, dv in zip(err.fields, err.target, err.draft):  # type: ignore[arg-type]
            rows.append(Row((name, fmt(tv), fmt(dv)), tv != dv))  # type: ignore[arg-type]
            styles.append("bold red" if tv != dv else None)
        for x in diag.derived:
            rows.append(Row((f"{x.name} ({x.how})", fmt(x.target), fmt(x.draft)), x.differs))  # type: ignore[arg-type]
            styles.append("red" if x.differs else "dim")
        w.table(
            ("field", "target", "draft"),
            rows,
            title_rows=False,
            styles=styles,
            overflow="ellipsis",
        )
    w.line(("Why:", "bold"))
    for sentence in diag.sentences:
        if w.width is None:  # plain lines, unwrapped
            w.line((f"  - {sentence}", None))
            continue
        for line in wrap_words(terminal(sentence), w.width, "  - ", "    "):
            w.line((line, None))


def _predicted_text(kind: str, predicted: dict[str, Any]) -> str:
    t, d = predicted["target"], predicted["draft"]
    if kind == "unified_mode":
        return f"predicts target {'unified' if t else 'paged'} KV, draft {'unified' if d else 'paged'} KV"
    if kind == "draft_ratios":
        return f"predicts draft compression ratios {d}"
    return f"predicts target={format_tuple(tuple(t))}, draft={format_tuple(tuple(d))}"


def _deployments(w: PlainWriter | RichWriter, item: Explained) -> None:
    matches = item.deployments
    if not matches:
        w.line(("Deployments: none found in the given paths.", "yellow"))
        return
    hits = sum(m.matches for m in matches)
    w.line(
        (
            f"Deployments ({hits} of {len(matches)} match{'es' if len(matches) == 1 else ''}):",
            "bold",
        )
    )
    for m in matches:
        line: list[tuple[str, str | None]] = [
            ("  ", None),
            (m.title, "bold"),
            (f"  ({m.details})", "dim"),
            (": ", None),
        ]
        if m.matches:
            line.append(("matches: this is the deployment that failed", "bold green"))
        else:
            line.append(("does not match", "yellow"))
        if m.predicted is not None:
            line.append((f" ({_predicted_text(item.error.kind, m.predicted)})", None))
        w.line(*line)
        if m.note:
            w.line((f"    {m.note}", "dim"))
        if not m.matches:
            continue
        for key in m.keys:
            w.line((f"    {key}: {key.what}", None))
        if m.finding is not None and m.finding.fix is not None:
            w.line((f"    fix ({m.finding.code}): ", "green"), (m.finding.fix.description, None))
            for e in m.finding.fix.edits:
                w.line((f"      {e.file}:{e.line}:{e.column}: {edit_text(e)}", "green"))
    if not hits:
        w.line(
            (
                "  No deployment predicts this error: the failed launch used other inputs than these files "
                "(give its server config, --platform and --env as it ran).",
                "dim",
            )
        )
