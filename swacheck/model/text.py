"""Text primitives every layer needs: input text made safe to show on one line.

Inputs are hostile (swacheck runs on pull requests from strangers): a path, a key or a value can
hold an ESC that drives a terminal, a bidi override that shows text in another order than it is,
a line break that forges a log line or a GitHub workflow command, bytes that are not UTF-8 (lone
surrogates under ``surrogateescape``), or a credential. A reader that quotes an input in an
error (:func:`one_line`), the records that print themselves, and every renderer's escaping in
``report/escape.py`` (the one escaping boundary of the outputs, built on these) use:

- :func:`redact`: credential-looking values become ``***``;
- :func:`visible`: every non-printable character shown as ``\\xNN``/``\\uNNNN``;
- :func:`inert`: nothing GitHub's runner reads as a workflow command (``::``, ``##[``);
- :func:`terminal` (= :func:`one_line`): all three, for a terminal, a CI log or stderr;
- :func:`diff_path`: a file name quoted as git quotes one, for a unified diff header.

Every output function first calls :func:`redact`: a value that looks like a credential becomes
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
# (the GitHub and GitLab prefixes exactly, not any ``gl?-``: every ``speculative-eagle-topk`` in
# a message ran the token patterns, ~35 us a line)
_TOKEN_HINT = re.compile(
    r"gh[pousr]_|gl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|oas|agent)-|github_pat_|xox|xapp-|hf_|api_org_|[spr]k[_-]|npm_|pypi-|eyJ|-----BEGIN|A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|NPA|NVA|IPA|Iza)"
)
_VALUE_HINTS = ("auth", "bearer", "://", "key", "secret", "pass", "cred", "token")
_VALUE_HINT = re.compile("|".join(map(re.escape, _VALUE_HINTS)))  # any of them (one C search)
# where the value patterns can match (lower case): a header, a scheme, a URL, or a secret-looking
# name followed by ``:`` or ``=`` (each name of _SECRET_WORD ends with one of these words), so
# that ``speculative-num-draft-tokens 4`` does not run them (~50 us a line)
_VALUE_PLACE = re.compile(
    r"auth|bearer|://|(?:key|secret|password|passwd|passphrase|credential|credentials|token)"
    r"[\"']?\s*[:=]"
)
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
# a cache past this many strings is emptied between units (trim): at 4,096 the strings kept
# across units grew a run of 20,000 tiny configs by 3 MB (33.2 -> 31.5 MB), at no cost in time
TRIM = 512
_CACHES: list[Any] = []


def _cached(fn: Any) -> Any:
    """``fn`` with an LRU cache for short strings: a report repeats the same strings (paths,
    origins, messages) many times: at 2,000 deployments the JSON report holds 261,000 strings,
    13,000 of them distinct."""
    cached = lru_cache(maxsize=1 << 14)(fn)
    _CACHES.append(cached)

    def call(text: str) -> str:
        return cached(text) if len(text) <= CACHED else fn(text)

    call.__doc__, call.__name__, call.__wrapped__ = fn.__doc__, fn.__name__, fn  # type: ignore[attr-defined]
    return call


def trim() -> None:
    """Empty each string cache that holds more than ``TRIM`` strings: called between the units
    of a streamed report, so that its memory stays flat however many files a run reads (most
    strings name one unit's files; the ones every unit repeats are cached again at once)."""
    for cached in _CACHES:
        if cached.cache_info().currsize > TRIM:
            cached.cache_clear()


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
        if _VALUE_PLACE.search(lower):  # the flags' redaction only ever writes ***
            text = _values().sub(_value, text)
    if "basic" in lower:
        text = _BASIC.sub(_basic, text)
    # a random-looking run mixes upper and lower case (looks_random): none without a capital
    return _RUN.sub(_run, text) if capitals and len(text) >= RANDOM_MIN else text


@_cached
def terminal(text: str) -> str:
    """Input text for a terminal, a CI log or stderr: redacted, on one line, nothing the
    terminal acts on. Give it to rich only inside a ``Text`` (never as markup)."""
    return inert(visible(redact(text)))


def one_line(text: str) -> str:
    """Input text shown on one line (a path or a key inside a message): :func:`terminal`."""
    return terminal(text)


def keep(memo: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    """``memo[key] = value``, first emptying ``memo`` when it holds ``size`` entries: bounded
    whatever the input, and the strings of the files being reported come back in at once (a memo
    that stopped taking entries once full missed 167,000 times at 20,000 deployments)."""
    if len(memo) >= size:
        memo.clear()
    memo[key] = value


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
