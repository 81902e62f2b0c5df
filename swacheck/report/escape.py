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
                                                                backtick run and ``\\|`` for GFM tables
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

Every function first calls :func:`redact`: a value that looks like a credential becomes
``***`` in every output (defence in depth: the root keeps most secrets out, but a value that
reached a report must not carry one). What counts as a credential:

- known token shapes: GitHub ``ghp_ gho_ ghu_ ghs_ ghr_ github_pat_``, GitLab ``glpat-`` (and
  its siblings), Slack ``xox?-``/``xapp-``, Hugging Face ``hf_``/``api_org_``, OpenAI/Anthropic
  style ``sk-...``, Stripe ``sk_live_``..., AWS access key ids ``AKIA``/``ASIA``..., Google
  ``AIza``, npm ``npm_``, PyPI ``pypi-``, JSON web tokens;
- an ``Authorization:``/``Proxy-Authorization:`` header value, ``Bearer``/``Basic`` credentials,
  the password of a ``scheme://user:password@host`` URL, a PEM private-key block;
- the value of a name that says it is a secret (``HF_TOKEN=...``, ``api-key: ...``,
  ``--api-key ...``, ``password=...``), unless it is a whole reference to an upper-case
  environment variable (``--api-key "$SGLANG_API_KEY"``: it names the secret, and is how one
  should be passed) or the ``VALUE`` of swacheck's own advice;
- a long high-entropy string (:func:`looks_random`): a run of at least 16 letters and digits
  that mixes upper case, lower case and digits, switches between them often (not CamelCase)
  and has near-maximal character entropy. Hex strings (git commits such as a Hugging Face
  snapshot folder, sha256 digests, UUIDs), model names (``DeepSeek-V4-Flash-MTP``), flags and
  paths are not: tests/security/test_redaction.py checks both sides.

The functions are idempotent (escaping escaped text changes nothing), so a piece may pass
through the boundary twice. :func:`redact`, :func:`terminal` and :func:`json_text` are cached
(a report repeats its paths and origins), and :func:`redact` runs a pattern only when a cheap
literal test says it can match: at 2,000 deployments the JSON report is unchanged in time
within measurement noise.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache, lru_cache
from typing import Any

REDACTED = "***"

# ---------------------------------------------------------------------------------------------
# Characters
# ---------------------------------------------------------------------------------------------

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(c: str) -> str:
    named = _NAMED.get(c)
    if named is not None:
        return named
    n = ord(c)
    if 0xDC80 <= n <= 0xDCFF:  # a byte that is not UTF-8, carried with surrogateescape
        return f"\\x{n - 0xDC00:02x}"
    if n < 0x100:
        return f"\\x{n:02x}"
    if n < 0x10000:
        return f"\\u{n:04x}"
    return f"\\U{n:08x}"


# GitHub's runner reads a log line as a workflow command when it starts with "::" after leading
# whitespace (ActionCommand.TryParseV2), and as a legacy command wherever "##[" appears in it
# (ActionCommand.TryParse, still tried: "##[stop-commands]x" would silence every later
# annotation). Both are shown escaped in every output that may reach a log.
_COMMAND_START = re.compile(r"^(\s*):")


def inert(text: str) -> str:
    """``text`` that GitHub's runner cannot read as a workflow command: ``##[`` becomes
    ``#\\x23[`` and a leading ``::`` becomes ``\\x3a:``."""
    if "##[" in text:
        text = text.replace("##[", "#\\x23[")
    if "::" in text and text.lstrip().startswith("::"):
        text = _COMMAND_START.sub(r"\1\\x3a", text, count=1)
    return text


def visible(text: str, keep: str = "") -> str:
    """Every character that is not printable (``str.isprintable``: control characters C0, DEL
    and C1, format characters such as the bidi overrides U+202A-202E and isolates U+2066-2069,
    zero-width characters, line and paragraph separators, surrogates, unassigned code points)
    shown as a visible escape, except those in ``keep``. No redaction."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else _escape_char(c) for c in text)


# ---------------------------------------------------------------------------------------------
# Credentials
# ---------------------------------------------------------------------------------------------

# a name whose value is a credential (matched without what comes before it, which stays as it is);
# "token" alone is too common in SGLang's flags (bucket-time-to-first-token,
# kt-max-deferred-experts-per-token), so not after the words that make it a count
_SECRET_WORD = (
    r"(?:api[_-]?key|apikey|access[_-]?key|secret|client[_-]?secret|password|passwd|passphrase|credentials?|private[_-]?key"
    r"|(?<!first[_-])(?<!per[_-])(?<!next[_-])(?<!last[_-])(?<!draft[_-])(?<!eos[_-])(?<!bos[_-])(?<!pad[_-])(?<!stop[_-])token)"
)
_QUOTED_OR_WORD = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s'",;]+)"""

_TOKENS = [  # no \b before the prefixes: it would stop the regex engine from skipping ahead to them
    # from 8 characters on when the tail mixes a digit and a capital (a token cut short by a
    # message that truncates still loses its visible part; hf_transfer stays)
    r"(?:ghp|gho|ghu|ghs|ghr)_(?=[A-Za-z0-9]{0,40}?[0-9])(?=[A-Za-z0-9]{0,40}?[A-Z])[A-Za-z0-9]{8,}",
    # GitHub's grammar: 36 base62 characters, which may hold no digit at all
    r"(?:ghp|gho|ghu|ghs|ghr)_(?=[A-Za-z0-9]{0,35}[A-Z])(?=[A-Za-z0-9]{0,35}[a-z])[A-Za-z0-9]{36}(?![A-Za-z0-9])",
    r"github_pat_[A-Za-z0-9_]{8,}",
    r"gl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|oas|agent)-[A-Za-z0-9_-]{8,}",
    r"xox[abposre]-[A-Za-z0-9-]{10,}",
    r"xapp-[A-Za-z0-9-]{10,}",
    r"hf_(?=[A-Za-z0-9]{0,40}?[0-9])(?=[A-Za-z0-9]{0,40}?[A-Z])[A-Za-z0-9]{8,}",
    # Hugging Face's grammar: 34 letters of both cases, no digit (hf_transfer, hf_xet stay)
    r"hf_(?=[A-Za-z]{0,33}[A-Z])(?=[A-Za-z]{0,33}[a-z])[A-Za-z]{34}(?![A-Za-z0-9])",
    r"api_org_[A-Za-z0-9]{20,}",
    # a run that starts with sk- and holds 20 letters or digits in a row: one start per run, the
    # run taken whole (possessive), so "sk-aa-aa-aa-..." is one linear pass, not a polynomial one
    r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*?[A-Za-z0-9]{20})[A-Za-z0-9_-]++",
    r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Za-z0-9])",
    r"AIza[0-9A-Za-z_-]{35}",
    r"npm_[A-Za-z0-9]{36}",
    r"pypi-[A-Za-z0-9_-]{50,}",
    r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
]
_SECRETS_PATTERN = "|".join(
    [
        # a PEM private key, to its END line (or to the end of the text when cut short)
        r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        *_TOKENS,
    ]
)


@cache
def _secrets() -> re.Pattern[str]:  # compiled on first use, as _values(): most runs never need it
    return re.compile(_SECRETS_PATTERN, re.S)


# what follows a secret-looking name but is no secret: a whole reference to an environment
# variable (``--api-key "$SGLANG_API_KEY"``: a name, the way a key is meant to be passed; upper
# case only, as such names are written, so a password such as ``$ecret1`` is still redacted), and
# the ``VALUE`` of swacheck's own advice (``--env HF_TOKEN=VALUE``). A reference with a default,
# ``${HF_TOKEN:-...}``, is redacted: the default may be the secret.
_NOT_A_VALUE = (
    r"""(?!\*\*\*|(?-i:["']?\$(?:\{[A-Z_][A-Z0-9_]*\}|[A-Z_][A-Z0-9_]*(?![\w{]))["']?(?:[\s,;.)]|$)"""
    r"""|-?VALUE(?:[\s,;.)}]|$)))"""
)
# the value after a header name, an auth scheme or a secret-looking name; group 1 is kept.
# Compiled on first use (:func:`_values`): it takes 10 ms, and most runs never need it.
_VALUES_PATTERN = (
    r"(?i)"
    r"((?:proxy-)?authorization\s*[:=]\s*)(?!\*\*\*)(?:(?:bearer|basic|token|digest|bot|negotiate|aws4-hmac-sha256)\s+)?"
    + _QUOTED_OR_WORD
    + r"|"
    r"(bearer\s+)(?=[A-Za-z0-9._~+/=-]{12,})(?=\S*[0-9._~+/=-])[A-Za-z0-9._~+/=-]+|"
    r"(://)[^/\s:@'\"]++:[^/\s@'\"]++(?=@)|"
    r"(" + _SECRET_WORD + r"""["']?\s*[:=]\s*)""" + _NOT_A_VALUE + _QUOTED_OR_WORD
)


@cache
def _values() -> re.Pattern[str]:
    return re.compile(_VALUES_PATTERN)


# a flag whose name ends with a secret-looking word (``--api-key``, ``--admin-api-key``): each
# flag name is found once, whole (one start per run of name characters, possessive), and its
# ending tested apart; a lazy ``--[A-Za-z0-9-]*?api-key`` tried every start against every length
# (20,000 dashes and "key": 370 s)
_FLAG = re.compile(r"(?<![A-Za-z0-9-])--[A-Za-z0-9-]++")


@cache
def _flag_parts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return (
        re.compile(r"(?i)" + _SECRET_WORD + r"\Z"),
        re.compile(r"(?i)(?:=|\s+)" + _NOT_A_VALUE + _QUOTED_OR_WORD),
    )


def _redact_flags(text: str) -> str:
    """The value after each flag named for a secret (``--api-key hunter2``) as ``***``."""
    secret_end, value = _flag_parts()
    out, done = [], 0
    for m in _FLAG.finditer(text):
        if m.start() < done or not secret_end.search(m.group()):
            continue
        v = value.match(text, m.end())
        if v is not None:
            sep = v.group()[: len(v.group()) - len(v.group().lstrip("= \t\n\r\f\v"))]
            out.append(text[done : m.end()] + sep + REDACTED)
            done = v.end()
    return "".join(out) + text[done:] if out else text


# literal tests that decide which patterns can match at all (see :func:`redact`)
_TOKEN_HINT = re.compile(
    r"g[hl][a-z]{0,6}[_-]|github_pat_|xox|xapp-|hf_|api_org_|[spr]k[_-]|npm_|pypi-|eyJ|-----BEGIN|A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|NPA|NVA|IPA|Iza)"
)
_VALUE_HINTS = ("auth", "bearer", "://", "key", "secret", "pass", "cred", "token")
_VALUE_HINT = re.compile("|".join(map(re.escape, _VALUE_HINTS)))  # any of them (one C search)
# "Basic <base64 of user:password>"
_BASIC = re.compile(r"(?i)(\bbasic\s+)([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])")
# a run that may be a random token: letters, digits and the separators of base64 (url)
_RUN = re.compile(r"[A-Za-z0-9+/=_.-]{16,}")
_SEGMENT = re.compile(r"[/_+=.-]")
_HEX = re.compile(r"[0-9a-fA-F]{12,}")
_CHUNK = re.compile(r"[A-Z]*[a-z]+|[A-Z]+|[0-9]+")
RANDOM_MIN = 16  # letters and digits in one piece
RANDOM_CHUNK = 3.2  # mean length of the case/digit chunks (CamelCase words are longer)
RANDOM_ENTROPY = 0.75  # share of the maximal entropy for the length (log2 of min(length, 62))


def _random_piece(piece: str) -> bool:
    if not (
        any(c.isdigit() for c in piece)
        and any(c.isupper() for c in piece)
        and any(c.islower() for c in piece)
    ):
        return False
    if len(piece) / len(_CHUNK.findall(piece)) > RANDOM_CHUNK:
        return False
    n = len(piece)
    entropy = -sum(k / n * math.log2(k / n) for k in Counter(piece).values())
    return entropy >= RANDOM_ENTROPY * math.log2(min(n, 62))


def looks_random(run: str) -> bool:
    """A run of token characters that looks like a generated secret, not a name or a hash.

    Split at ``/ _ + = . -``; pieces of 12 or more hex digits (commit ids, digests) are ignored.
    Random when one piece of at least :data:`RANDOM_MIN` characters is, or when the pieces are
    long on average (base64url with a few separators) and random together. A piece is random
    when it mixes upper case, lower case and digits, its case/digit chunks average at most
    :data:`RANDOM_CHUNK` characters and its entropy is at least :data:`RANDOM_ENTROPY` of the
    maximum for its length."""
    if run.islower() or run.isupper():  # one case only (most paths and names): never random here
        return False
    pieces = [p for p in _SEGMENT.split(run) if p and not _HEX.fullmatch(p)]
    if any(len(p) >= RANDOM_MIN and _random_piece(p) for p in pieces):
        return True
    joined = "".join(pieces)
    return (
        len(joined) >= 24
        and len(pieces) <= len(joined) / 6
        and max(map(len, pieces)) >= 10
        and _random_piece(joined)
    )


def _value(match: re.Match[str]) -> str:
    for group in match.groups():
        if group is not None:
            return group + REDACTED
    return REDACTED


def _basic(match: re.Match[str]) -> str:
    import base64
    import binascii

    try:
        decoded = base64.b64decode(match.group(2) + "=" * (-len(match.group(2)) % 4), validate=True)
    except (binascii.Error, ValueError):
        return match.group()
    return match.group(1) + REDACTED if b":" in decoded else match.group()


def _run(match: re.Match[str]) -> str:
    return REDACTED if looks_random(match.group()) else match.group()


CACHED = 1024  # strings up to this long are cached (a long one is rare, and would pin memory)


def _cached(fn: Any) -> Any:
    """``fn`` with an LRU cache for short strings: a report repeats the same strings (paths,
    origins, messages) many times: at 2,000 deployments the JSON report holds 261,000 strings,
    13,000 of them distinct."""
    cached = lru_cache(maxsize=1 << 14)(fn)

    def call(text: str) -> str:
        return cached(text) if len(text) <= CACHED else fn(text)

    call.__doc__, call.__name__, call.__wrapped__ = fn.__doc__, fn.__name__, fn  # type: ignore[attr-defined]
    return call


@_cached
def redact(text: str) -> str:
    """``text`` with every credential-looking value replaced by ``***`` (see the module doc)."""
    if len(text) < 10:  # the shortest credential shape, "api-key: x", is longer
        return text
    # substring tests (C speed) decide which patterns can match: Python's regex engine tries an
    # alternation at every position, ~15 us for a 50-character string
    if _TOKEN_HINT.search(text):
        text = _secrets().sub(REDACTED, text)
    lower = text.lower()
    capitals = lower != text  # the substitutions below add none
    if _VALUE_HINT.search(lower):
        if "--" in text:
            text = _redact_flags(text)
        text = _values().sub(_value, text)
    if "basic" in lower:
        text = _BASIC.sub(_basic, text)
    # a random-looking run mixes upper and lower case (looks_random): none without a capital
    return _RUN.sub(_run, text) if capitals and len(text) >= RANDOM_MIN else text


# ---------------------------------------------------------------------------------------------
# One function per output kind
# ---------------------------------------------------------------------------------------------


@_cached
def terminal(text: str) -> str:
    """Input text for a terminal, a CI log or stderr: redacted, on one line, nothing the
    terminal acts on. Give it to rich only inside a ``Text`` (never as markup)."""
    return inert(visible(redact(text)))


def one_line(text: str) -> str:
    """Input text shown on one line (a path or a key inside a message): :func:`terminal`."""
    return terminal(text)


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


def markdown(text: str) -> str:
    """Input text as inline Markdown: no emphasis, link, image, HTML, entity or table break."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", terminal(text))


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


def keep(memo: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    """``memo[key] = value``, first emptying ``memo`` when it holds ``size`` entries: bounded
    whatever the input, and the strings of the files being reported come back in at once (a memo
    that stopped taking entries once full missed 167,000 times at 20,000 deployments)."""
    if len(memo) >= size:
        memo.clear()
    memo[key] = value


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


_GIT_NAMED = {
    7: "\\a",
    8: "\\b",
    9: "\\t",
    10: "\\n",
    11: "\\v",
    12: "\\f",
    13: "\\r",
    34: '\\"',
    92: "\\\\",
}


def diff_path(path: str) -> str:
    """A file name for a unified diff header (``--- a/NAME``), quoted the way git quotes one
    (``"a/x\\377.yaml"``: C escapes and octal bytes) when it holds anything but printable
    characters, so the header shows no control character and ``git apply``/``patch`` still
    find the real file (not redacted: a patch must name it)."""
    if path.isprintable() and '"' not in path and "\\" not in path and "##[" not in path:
        return path
    import os

    out = []
    for b in os.fsencode(path):  # the bytes of the name on disk (surrogateescape undone)
        named = _GIT_NAMED.get(b)
        out.append(named if named else chr(b) if 0x20 <= b < 0x7F and b != 0x23 else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


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
