"""The one escaping boundary: every string that came from an input passes through one of these
functions, chosen by the kind of output, right before it is written.

Inputs are hostile (swacheck runs on pull requests from strangers). A path, a key or a value
can hold an ESC that drives a terminal or a CI log viewer, a bidi override (U+202E) that shows
text in another order than it is, rich markup, a line break that forges a log line or a GitHub
workflow command, bytes that are not UTF-8 (Python hands them over as lone surrogates with
``surrogateescape``), characters XML 1.0 cannot carry, or a credential. Renderers build their
output from plain data and call exactly one function here per piece of text:

==================  ==========================================  ==============================================
output              function                                    what it does (after :func:`redact`)
==================  ==========================================  ==============================================
terminal, stderr    :func:`terminal`                            every non-printable character (C0, DEL, C1,
(human, explain,                                                bidi/format characters such as U+202E and
why, errors)                                                    U+2066-2069, line/paragraph separators,
                                                                surrogates) shown as ``\\xNN``/``\\uNNNN``,
                                                                so the text is one line (a tab: ``\\t``). Rich
                                                                draws it only inside ``Text`` objects
                                                                (:func:`swacheck.report.human.text`), never
                                                                as markup, so ``[link=...]`` stays text and
                                                                ``a[/x]b`` cannot raise ``MarkupError``
GitHub workflow     :func:`workflow_message`,                   :func:`terminal`, then GitHub's own escaping:
command             :func:`workflow_property`                   ``%`` ``\\r`` ``\\n`` (and ``:`` ``,`` in
                                                                properties) as ``%25`` ``%0D`` ``%0A``
                                                                ``%3A`` ``%2C``; a message's lines are
                                                                joined with ``%0A``
Markdown (step      :func:`markdown`, :func:`markdown_code`     :func:`terminal`, then a backslash before
summary)                                                        every character Markdown or HTML could act
                                                                on (``\\ ` * _ { } [ ] < > | # ~ & !``); a
                                                                code span gets a fence longer than any
                                                                backtick run and ``\\|`` for GFM tables;
                                                                ``www.``, ``://`` and ``@`` get a word
                                                                joiner (``&#8288;``) so GitHub's
                                                                autolinker makes no link of them
XML (JUnit)         :func:`xml`                                 :func:`terminal`, or :func:`visible` keeping
                                                                line breaks for multi-line bodies: no
                                                                character XML 1.0 forbids, no raw control
                                                                character (ElementTree escapes ``& < > "``)
JSON, SARIF         :func:`json_text`, :func:`json_data`        line breaks and tabs stay (JSON escapes
                                                                them; an edit's replacement text needs
                                                                them); every other non-printable character
                                                                is shown escaped, so a viewer that decodes
                                                                ``\\u001b`` never shows a raw one
SARIF URI           :func:`path_for_uri`                        :func:`json_text` with line breaks shown
                                                                too, before percent-encoding
diff header         :func:`diff_path`                           quoted as git quotes a name (C escapes,
(``--diff``)                                                    octal bytes), so ``git apply`` and ``patch``
                                                                still find the real file; not redacted
==================  ==========================================  ==============================================

Terminal, XML and JSON text is also made :func:`inert` for GitHub's runner, which reads a log
line as a workflow command when it starts with ``::`` and, in its legacy form, wherever ``##[``
appears (``##[stop-commands]`` would silence every later annotation): a report printed or
``cat`` in a CI log must not carry one. stderr lines go through :func:`print_error`.

Every function first calls :func:`redact` (the credential shapes are listed in
``swacheck/model/text.py``, where the primitives every layer shares live: :func:`redact`,
:func:`visible`, :func:`inert`, :func:`terminal`, :func:`one_line`, :func:`diff_path`); this
module builds each output's escaping on them.
"""

from __future__ import annotations

import re
from typing import Any

from ..model.text import (
    _COMMAND_START,
    _TOKEN_HINT,
    _VALUE_HINT,
    REDACTED,
    _cached,
    _escape_char,
    diff_path,
    inert,
    keep,
    looks_random,
    one_line,
    redact,
    terminal,
    visible,
)

__all__ = [
    "REDACTED",
    "InertLines",
    "diff_output",
    "diff_path",
    "inert",
    "json_data",
    "json_text",
    "json_text_at",
    "keep",
    "looks_random",
    "markdown",
    "markdown_code",
    "one_line",
    "path_for_uri",
    "print_error",
    "redact",
    "terminal",
    "visible",
    "workflow_message",
    "workflow_property",
    "xml",
]


def _escape_data(text: str) -> str:
    """GitHub's ``escapeData`` (@actions/core command.ts). After :func:`terminal` no CR or LF is
    left: a line break inside an input shows as ``\\n``, and only the breaks between a
    message's lines (joined here) become ``%0A``."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_message(*lines: str) -> str:
    """A GitHub workflow command's message: each line :func:`terminal`, then GitHub's
    ``escapeData`` (``%``, CR, LF); the lines joined by an escaped line break (``%0A``)."""
    return "%0A".join(_escape_data(terminal(line)) for line in lines)


def workflow_property(text: str) -> str:
    """A GitHub workflow command's property value (``file=``, ``title=``): :func:`terminal`,
    then GitHub's ``escapeProperty`` (``%``, CR, LF, ``:``, ``,``)."""
    return _escape_data(terminal(text)).replace(":", "%3A").replace(",", "%2C")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#~&!])")


# where GitHub's autolinker would make a link of plain text: ``www.`` (any case), a scheme's
# ``://`` (``https://``, ``ftp://``...), an ``@`` (an e-mail address, ``mailto:``/``xmpp:``, an
# @-mention). A word joiner goes in between, written as the entity ``&#8288;`` (no raw invisible
# character in the file): U+2060 is invisible and, unlike a zero-width joiner, changes the shape
# of no neighbouring letter, so the text renders as written and no link forms, whether the
# linker reads the Markdown (cmark-gfm's autolink extension) or the rendered text
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")
WORD_JOINER = "&#8288;"


def markdown(text: str) -> str:
    """Input text as inline Markdown: no emphasis, link, image, HTML, entity, autolink
    (``www.``, ``https://``, an e-mail address) or table break."""
    out = _MARKDOWN_SPECIAL.sub(r"\\\1", terminal(text))
    if "www" in out.lower() or "://" in out or "@" in out:
        out = _AUTOLINK.sub(WORD_JOINER, out)
    return out


def markdown_code(text: str) -> str:
    """Input text as an inline code span, safe inside a GFM table cell."""
    text = terminal(text).replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def xml(text: str, lines: bool = False) -> str:
    """Input text for an XML attribute or text node (ElementTree escapes ``& < > "``): only
    characters XML 1.0 allows and no raw control character; ``lines`` keeps line breaks."""
    return inert(visible(redact(text), "\n" if lines else ""))


@_cached
def json_text(text: str) -> str:
    """A string for JSON or SARIF: redacted; line breaks and tabs stay (JSON escapes them),
    every other non-printable character is shown escaped."""
    return inert(visible(redact(text), "\t\n\r"))


def json_text_at(text: str) -> str | None:
    """:func:`json_text` of ``PLACE:LINE:COLUMN`` (a location as the reports write it) made from
    PLACE's, or None when that could differ. A report holds thousands of locations in a few
    hundred files; PLACE's escaping is kept (:data:`_PLACES`) and the tail appended.

    The same, because: the tail ``:digits:digits`` has no letter, ``_`` or ``-``, so no token
    hint, value hint or ``basic`` can reach into it, and a PLACE without any of them gets no
    substitution but the random-run pass, whose runs stop at ``:`` (and a run of digits is
    never random); ``visible`` works character by character; ``inert`` acts on ``##[``, which
    cannot reach into the tail, and on a leading ``::``, which the tail can only complete
    after a PLACE that is ``:`` (refused here with any PLACE that starts with one).
    tests/security/test_redaction.py holds the two equal for hostile PLACEs.
    """
    head, _, column = text.rpartition(":")
    place, colon, line = head.rpartition(":")
    if not (colon and column.isdigit() and line.isdigit() and (column + line).isascii()):
        return None
    escaped = _PLACES.get(place)
    if escaped is None:
        lower = place.lower()
        if _TOKEN_HINT.search(place) or _VALUE_HINT.search(lower) or "basic" in lower:
            return None
        escaped = json_text(place)
        if escaped.lstrip().startswith(":"):
            return None
        keep(_PLACES, place, escaped, 1 << 12)
    return escaped + text[len(place) :]


_PLACES: dict[str, str] = {}  # a location's PLACE -> its json_text, when json_text_at may use it
_JSON_TEXTS: dict[str, str] = {}  # short string -> json_text(string), for json_data's hot loop
_LEAVES = frozenset((int, float, bool, type(None)))


def _json_text(text: str) -> str:
    out = json_text(text)
    if len(text) <= 256:
        keep(_JSON_TEXTS, text, out, 1 << 14)
    return out


def json_data(value: Any) -> Any:
    """``value`` (dicts, lists, scalars) with :func:`json_text` applied to every string, keys too.

    Strings seen before are looked up inline and numbers kept without a call: a 2,000-deployment
    report holds 200,000 values (benchmarks/)."""
    kind = type(value)
    if kind is str:
        return _JSON_TEXTS.get(value) or _json_text(value)
    seen = _JSON_TEXTS.get
    if kind is dict:
        return {
            (seen(k) or _json_text(k)) if type(k) is str else k: v
            if type(v) in _LEAVES
            else (seen(v) or _json_text(v))
            if type(v) is str
            else json_data(v)
            for k, v in value.items()
        }
    if kind is list or kind is tuple:
        return [
            v
            if type(v) in _LEAVES
            else (seen(v) or _json_text(v))
            if type(v) is str
            else json_data(v)
            for v in value
        ]
    if isinstance(value, str):  # a str subclass
        return json_text(str(value))
    return value


def path_for_uri(text: str) -> str:
    """A path made safe before it is percent-encoded into a URI (SARIF ``artifactLocation``)."""
    return json_text(text).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def print_error(text: str) -> None:
    """One line on stderr, through :func:`terminal`."""
    import sys

    print(terminal(text), file=sys.stderr)


def diff_output(patch: str, read_by_a_person: bool, actions: bool) -> str:
    """``--diff``'s text as printed: the exact bytes of the files (``git apply`` and ``patch``
    take it) where it goes to a pipe or a file, and escaped at the same boundary as every report
    where a person or GitHub's runner reads it:

    - under GitHub Actions (``actions``), between ``::stop-commands::TOKEN`` and ``::TOKEN::``
      with a random token: the runner reads no line of the pull request's text as a workflow
      command (a YAML block scalar line ``  ::stop-commands::x`` is a context line, which the
      runner takes as one after its leading blank); ``git apply`` and ``patch`` pass over these
      two lines as they pass over swacheck's own heading lines;
    - on a terminal or in a log (``read_by_a_person``), each character :func:`visible` would
      escape (ESC, BEL, C1, bidi overrides...) shown as its escape, tabs and line ends kept."""
    if read_by_a_person and not patch.isprintable():
        patch = "".join(c if c.isprintable() or c in "\t\r\n" else _escape_char(c) for c in patch)
    if actions and patch:
        import secrets

        token = secrets.token_hex(16)
        patch = f"::stop-commands::{token}\n{patch}::{token}::\n"
    return patch


class InertLines:
    """A text stream around ``out`` that makes each line :func:`inert` where it starts with
    ``::``: rich wraps long text (a tree label) at spaces, and a continuation line indented with
    spaces alone could start with a ``::`` from the middle of an input. Everything else is
    passed through (``isatty``, ``encoding``, ...)."""

    def __init__(self, out: Any):
        self._out = out
        self._blank = True  # the current line holds only whitespace so far

    def write(self, text: str) -> int:
        lines = text.split("\n")
        if "::" in text:
            for i, line in enumerate(lines):
                if (i or self._blank) and line.lstrip().startswith("::"):
                    lines[i] = _COMMAND_START.sub(r"\1\\x3a", line, count=1)
            text = "\n".join(lines)
        last_blank = not lines[-1].strip()
        self._blank = last_blank if len(lines) > 1 else self._blank and last_blank
        return self._out.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)
