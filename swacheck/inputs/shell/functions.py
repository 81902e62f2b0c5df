"""Shell functions: the definitions a script makes, found among its commands.

``launch() { python3 -m sglang.launch_server --model-path m "$@"; }`` (or ``function launch
{ ... }``) defines ``launch``; ``launch --disaggregation-mode prefill`` then runs the body with
those arguments as ``$@``, ``$1``... (``Walker`` does that). Only brace bodies are read; a body
in a subshell (``f() ( ... )``) or braces that never close leave the commands as they are.
"""

from __future__ import annotations

from .words import _NAME, Lit, RawCommand


def reaches(functions: dict[str, list[RawCommand]], name: str, mentions) -> bool:  # type: ignore[no-untyped-def]
    """Whether the body of function ``name``, or of a function it calls (by name, in its
    literal text), holds text ``mentions`` (a compiled pattern) finds."""
    todo, seen = [name], {name}
    while todo:
        for cmd in functions.get(todo.pop(), []):
            text = " ".join(
                "".join(p.text for p in w.parts if isinstance(p, Lit)) for w in cmd.words
            )
            if mentions.search(text):
                return True
            for word in text.split():
                if word in functions and word not in seen:
                    seen.add(word)
                    todo.append(word)
    return False


def _head(cmd: RawCommand) -> tuple[str, list[RawCommand]] | None:
    """The name a command defines, with what of the body it already holds (``function f { cmd``),
    or None when it defines nothing."""
    names = [w.literal() for w in cmd.words]
    if cmd.defines:
        return names[-1], []  # type: ignore[return-value]
    if len(names) >= 2 and names[0] == "function" and names[1] and _NAME.fullmatch(names[1]):
        rest = cmd.words[2:]
        return names[1], [RawCommand(rest, cmd.span)] if rest else []
    return None


def _body_end(opened: list[RawCommand], commands: list[RawCommand], start: int) -> int | None:
    """The index of the command that closes the body starting at ``commands[start]`` (or in
    ``opened``); None when the body is not in braces or they never close."""
    depth = 0
    for k, cmd in enumerate([*opened, *commands[start:]]):
        first = cmd.words[0].literal() if cmd.words else None
        if first == "{":
            depth += 1
        elif first == "}":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0:
            return None  # the body is no brace group
        if depth == 0:
            return start + k - len(opened)
    return None


def split_functions(
    commands: list[RawCommand],
) -> tuple[list[RawCommand], dict[str, list[RawCommand]]]:
    """(the commands that are no function definition, each function's body by name)."""
    rest: list[RawCommand] = []
    functions: dict[str, list[RawCommand]] = {}
    i = 0
    while i < len(commands):
        head = _head(commands[i])
        if head is not None:
            name, opened = head
            end = _body_end(opened, commands, i + 1)
            if end is not None:
                functions[name] = [*opened, *commands[i + 1 : end + 1]]
                i = end + 1
                continue
        rest.append(commands[i])
        i += 1
    return rest, functions
