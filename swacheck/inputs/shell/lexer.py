"""The shell lexer: characters -> simple commands of raw (unexpanded) words.

``;`` ``&&`` ``||`` ``|`` ``&`` and newlines separate commands; comments are skipped;
redirections are dropped with their targets (an IO number such as the ``2`` of ``2>&1`` too);
heredoc bodies are skipped, except that a script written by a heredoc (``cat > run.sh <<EOF``)
that launches SGLang is read as commands too; ``NAME=( ... )`` is a bash array literal. The
words themselves are read by ``lexer_words``.
"""

from __future__ import annotations

import re

from ... import limits
from ...model.records import Location
from .lexer_words import ShellSyntaxError, WordLexer
from .spans import span_location
from .words import _ARRAY_START, _NAME, ArrayLit, Chars, Lit, RawCommand, RawWord

_HEREDOC_LAUNCH = re.compile(r"sglang\.launch_server|sglang\s+serve|dynamo\.sglang")
_OPERATORS = (
    "&&",
    "||",
    ";;",
    "&>>",
    "&>",
    ">>",
    "<<<",
    "<<-",
    "<<",
    "<&",
    ">&",
    "<>",
    ">|",
    ";",
    "&",
    "|",
    "(",
    ")",
    "<",
    ">",
)
_OPERATOR_START = frozenset(o[0] for o in _OPERATORS)
_REDIRECTS = {"&>>", "&>", ">>", "<<<", "<<-", "<<", "<&", ">&", "<>", ">|", "<", ">"}
_DECLARING = ("declare", "typeset", "local", "readonly", "export")
# inside `[[ ... ]]` these are words of the expression, not operators (bash lexes them so)
_IN_TEST = {"&&", "||", "(", ")", "<", ">"}
# words after which `[[` starts a conditional expression
_BEFORE_TEST = {"if", "elif", "while", "until", "!", "then", "else", "do", "{"}


class _Lexer(WordLexer):
    """Splits a text into simple commands; the state of the command being read is kept here."""

    def __init__(self, chars: Chars, expand: bool = True):
        super().__init__(chars, expand)
        self.depth_heredoc = 0
        self.heredoc_commands: list[
            RawCommand
        ] = []  # from heredoc bodies, added after their command
        self.out: list[RawCommand] = []
        self.words: list[RawWord] = []  # of the command being read
        self.heredocs: list[tuple[str, bool]] = []  # (delimiter, strip tabs) waiting for a newline
        self.redirect_target = False  # the next word is a redirection's target
        self.last_end = -1  # where the last word ended
        self.lexed = 0  # words lexed not yet charged to the budget (limits.MAX_WORDS)
        self.budget = limits.current()
        self.in_test = False  # inside `[[ ... ]]`
        self.stdin: RawWord | None = None  # the here-string of the command being read

    def commands(self) -> list[RawCommand]:
        t = self.t
        while self.i < self.n:
            c = t[self.i]
            if self.continuation():
                continue
            if c in " \t\r":
                self.i += 1
            elif c == "\n":
                self.newline()
            elif c == "#":
                end = t.find("\n", self.i)
                self.i = self.n if end < 0 else end
            elif c in _OPERATOR_START and (op := self.operator()) is not None:
                self.after_operator(op)
            else:
                self.add_word()
        self.finish()
        if self.lexed:
            self.budget.words(self.lexed, self.span_location_of_last(self.out))
        return self.out

    def finish(self, defines: bool = False, op: str = "\n") -> None:
        """End the command being read with the operator ``op``; an operator with no command
        before it is kept with the previous command's (``a) ;;``: ``)`` then ``;;``)."""
        words = self.words
        self.in_test = False
        if words:
            first, last = words[0].span, words[-1].span
            span = (
                (first[0], first[1], last[2]) if first and last and first[0] is last[0] else first
            )
            self.out.append(RawCommand(words, span, defines, [op], self.stdin))
        elif self.out and len(self.out[-1].ops) < 8:
            self.out[-1].ops.append(op)
        self.words = []
        self.stdin = None

    def newline(self) -> None:
        self.i += 1
        self.finish()
        if self.heredocs:
            self.skip_heredocs(self.heredocs)
            self.heredocs = []
            self.out.extend(self.heredoc_commands)
            self.heredoc_commands = []

    def operator(self) -> str | None:
        return next((o for o in _OPERATORS if self.t.startswith(o, self.i)), None)

    def after_operator(self, op: str) -> None:
        start = self.i
        self.i += len(op)
        if self.in_test and op in _IN_TEST:
            self.words.append(
                RawWord([Lit(op, list(self.s[start : self.i]), False)], self.span(start, self.i))
            )
            self.last_end = self.i
            return
        if op == "(" and (end := self.function_parens()) is not None:
            self.i = end  # `NAME ()` / `function NAME ()`: a function's head, its body next
            self.finish(defines=True, op="()")
            return
        if op not in _REDIRECTS:
            self.finish(op=op)
            return
        words = self.words
        # an IO number written right before (`2>&1`) belongs to the redirection
        if words and self.last_end == start and (words[-1].literal() or "x").isdigit():
            words.pop()
        if op in ("<<", "<<-"):
            delim = self.heredoc_delimiter()
            if delim is not None:
                self.heredocs.append((delim, op == "<<-"))
            return
        self.redirect_target = op if op == "<<<" else True

    def function_parens(self) -> int | None:
        """Where ``()`` ends when the ``(`` just read follows a function's name (``launch () {``):
        the command so far is one name, or ``function`` and a name; None otherwise."""
        names = [w.literal() for w in self.words]
        if names[:1] == ["function"]:
            names = names[1:]
        if len(names) != 1 or names[0] is None or not _NAME.fullmatch(names[0]):
            return None
        j = self.i
        while j < self.n and self.t[j] in " \t":
            j += 1
        return j + 1 if j < self.n and self.t[j] == ")" else None

    def add_word(self) -> None:
        word = self.word()
        if self.t.startswith("(", self.i) and self.array_assignment(word):
            word = self.array(word)  # NAME=( ... ), NAME+=( ... )
        self.last_end = self.i
        self.lexed += 1
        if self.lexed == 1000:  # limits.MAX_WORDS, counted a thousand at a time
            self.budget.words(self.lexed, span_location(word.span))
            self.lexed = 0
        if self.redirect_target:
            if self.redirect_target == "<<<":
                self.stdin = word
            self.redirect_target = False
            return
        lit = word.literal()
        if lit == "[[" and all(w.literal() in _BEFORE_TEST for w in self.words):
            self.in_test = True
        elif lit == "]]":
            self.in_test = False
        self.words.append(word)

    def array_assignment(self, word: RawWord) -> bool:
        """Whether ``word`` followed by ``(`` starts an array literal: ``NAME=`` written where an
        assignment can be (before the command, or as an argument of ``declare`` and the like)."""
        words = self.words
        return bool(_ARRAY_START.fullmatch(word.literal() or "")) and (
            all(w.assignment() for w in words) or (words[0].literal() or "") in _DECLARING
        )

    def array(self, name: RawWord) -> RawWord:
        """``NAME=( ... )``: the items up to the matching ``)`` (newlines and comments allowed)."""
        open_at = self.i
        self.i += 1
        items: list[RawWord] = []
        while True:
            if self.i >= self.n:
                raise self.fail("unterminated array (...)", open_at)
            if self.continuation():
                continue
            c = self.t[self.i]
            if c in " \t\r\n":
                self.i += 1
                continue
            if c == "#":
                while self.i < self.n and self.t[self.i] != "\n":
                    self.i += 1
                continue
            if c == ")":
                self.i += 1
                break
            if c in ";&|(<>":
                raise self.fail(f"unexpected {c!r} in an array (...)", self.i)
            items.append(self.word())
        end = self.s[self.i - 1]
        whole = (
            (name.span[0], name.span[1], end[2])
            if name.span is not None and end is not None and name.span[0] is end[0]
            else name.span
        )
        return RawWord(name.parts + [ArrayLit(items, self.span(open_at, self.i))], whole)

    @staticmethod
    def span_location_of_last(commands: list[RawCommand]) -> Location | None:
        return (
            span_location(commands[-1].words[-1].span) if commands and commands[-1].words else None
        )

    def heredoc_delimiter(self) -> str | None:
        while self.i < self.n and self.t[self.i] in " \t":
            self.i += 1
        if self.i >= self.n or self.t[self.i] == "\n":
            return None
        saved = self.expand
        self.expand = False
        word = self.word()
        self.expand = saved
        return "".join(p.text if isinstance(p, Lit) else p.raw for p in word.parts)

    def skip_heredocs(self, heredocs: list[tuple[str, bool]]) -> None:
        for delim, strip_tabs in heredocs:
            body_start = self.i
            body_end = self.n
            while self.i < self.n:
                end = self.t.find("\n", self.i)
                end = self.n if end < 0 else end
                line = self.t[self.i : end]
                line_start = self.i
                self.i = min(end + 1, self.n)
                if (line.lstrip("\t") if strip_tabs else line).rstrip("\r") == delim:
                    body_end = line_start
                    break
            if _HEREDOC_LAUNCH.search(self.t, body_start, body_end) and self.depth_heredoc < 4:
                # a script written by a heredoc (`cat > run.sh <<EOF`): its launch lines count
                sub = _Lexer(
                    Chars(self.t[body_start:body_end], self.s[body_start:body_end]), self.expand
                )
                sub.depth_heredoc = self.depth_heredoc + 1
                try:
                    self.heredoc_commands.extend(sub.commands())
                except ShellSyntaxError:
                    pass


def lex(chars: Chars, expand: bool = True) -> list[RawCommand]:
    """Split text into simple commands of raw words. Raises :class:`ShellSyntaxError`."""
    return _Lexer(chars, expand).commands()
