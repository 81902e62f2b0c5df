"""POSIX shell words with positions: tokenise, expand variables, walk a script's commands.

Only what launch commands need, but exactly as ``sh`` does it: single and double quotes,
backslash escapes, ``\\``-newline continuations, comments, ``;`` ``&&`` ``||`` ``|`` ``&``
and newlines between commands, redirections (dropped, heredoc bodies skipped), ``$VAR``,
``${VAR}``, ``${VAR:-default}`` (and ``-``, ``=``, ``:=``, ``+``, ``:+``, ``?``, ``:?``),
field splitting of unquoted expansions, and arithmetic (``$((STEPS + 1))``) over numbers the
file gives (``arithmetic``). Nothing is executed: command substitutions (``$(...)``,
backquotes), arithmetic over anything else, positional parameters (``$1``, ``"$@"``) and
variables that nobody set are *unknown*, never guessed; a string that holds one (``FLAGS="--tp 8
--port $((BASE + RANK))"``) still gives the words around it.

Every character of a word remembers where it came from (a file and an offset), also through
a variable: ``--page-size $PS`` after ``PS=64`` points at the ``64`` of the assignment, so a
finding (and a fix) lands on the text to edit.

Three layers, used in this order, one module each (this package re-exports what the readers of
launch commands use):

- ``lexer``: :func:`lex` turns characters into :class:`RawCommand` s of :class:`RawWord` s
  (unexpanded; ``words`` defines both, ``spans`` the character origins);
- ``expansion``: :func:`expand` turns a raw word into :class:`Word` s, given the variables
  known then;
- ``control``: :func:`parse` reads if/case/loops/``&&``/``||`` out of the lexed commands;
  ``conditions`` evaluates ``[[ ]]``/``[ ]``/``test``; ``worlds`` keeps the ways a script can go
  when a condition is not decided by the files;
- ``walker``: :class:`Walker` runs through a script's commands as bash would, keeps assignments
  and ``export`` s, and yields every other simple command.
"""

from __future__ import annotations

from .expansion import Env, Var, expand, expand_one, split_words
from .lexer import ShellSyntaxError, lex
from .spans import Source, Span, SpanChain, SpanRun, join_spans, span_location
from .walker import Command, Walker, syntax_problem
from .words import Chars, RawCommand, RawWord, Unknown, Word

__all__ = [
    "Chars",
    "Command",
    "Env",
    "RawCommand",
    "RawWord",
    "ShellSyntaxError",
    "Source",
    "Span",
    "SpanChain",
    "SpanRun",
    "Unknown",
    "Var",
    "Walker",
    "Word",
    "expand",
    "expand_one",
    "join_spans",
    "lex",
    "span_location",
    "split_words",
    "syntax_problem",
]
