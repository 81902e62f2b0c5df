"""What every stage shares: the deployment's server arguments read as SGLang's argparse reads
them, the event list the stages append to in SGLang's order, and the resolved values by name.

A value comes back as a :class:`Val` (its text, where it was written) or ``None`` when it is
absent, refused, or of a type argparse rejects; a rejected value is one ``bad-value`` event
(SWA304), recorded once however often a stage reads it. See docs/sglang.md, "Config merge".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model.records import Val
from ...model.tree import Scalar, kind_name
from .. import flags
from ..events import Event, Kind
from ..resolution import Resolution

if TYPE_CHECKING:
    from ...model.deployment import Arg, Deployment
    from ...model.records import Location
    from ..models import ModelStore
    from ..version import SGLangProfile

TRUTHY = ("1", "true", "yes", "y")  # how SGLang's environment switches read "on"


def default(value: Any, why: str) -> Val:
    return Val(value, f"SGLang default ({why})")


class ArgReader:
    def __init__(self, dep: Deployment, models: ModelStore, profile: SGLangProfile):
        self.dep = dep
        self.models = models
        self.profile = profile
        self.events: list[Event] = []
        self.values: dict[str, Val] = {}
        self._bad_seen: set[int] = set()
        # a one-item list's value node -> the list (config_merge.as_merged): what was written
        self.from_list: dict[int, Any] = {}
        # why the draft has no pool when SGLang cannot load its config (resolve._pools): the
        # target's pool and rules stand, as SGLang refuses the draft only after them
        self.draft_refused = ""

    def has_event(self, kind: Kind) -> bool:
        return any(e.kind == kind for e in self.events)

    def event(
        self,
        kind: Kind,
        message: str,
        arg: Arg | None = None,
        location: Location | None = None,
        **data: Any,
    ) -> None:
        loc = location or (arg.key_loc if arg else None)
        self.events.append(Event(kind, message, loc, arg, data))

    def arg(self, name: str) -> Arg | None:
        return self.dep.server.args.get(name)

    def bad(self, arg: Arg, expected: str, said: str = "", node: Any = None) -> None:
        if id(arg.pair) in self._bad_seen:  # one refusal per value (check_values ran first)
            return
        self._bad_seen.add(id(arg.pair))
        node = node if node is not None else arg.node
        self.event(
            Kind.BAD_VALUE,
            f"{arg.written}: SGLang's argument parser rejects {kind_name(node)}; expected {expected}"
            + (f" ({said})" if said else ""),
            arg,
            location=node.loc,
            expected=expected,
        )

    def typed_arg(self, name: str) -> Val | None:
        """A value as argparse reads the text the --config merger emits for it.

        The merger writes ``str(value)`` (``srt/utils/server_args_config_parser.py``): ``"128"``
        is a valid int, ``128.0``, ``true`` and ``null`` (text ``None``) are not.
        """
        arg = self.dep.server.args.get(name)  # self.arg, inline: read ~17 times a deployment
        if arg is None or arg.kind.startswith("refused"):
            return None
        option = flags.options(self.profile).get(name)
        if option is None:  # not an option of this release: SWA303 reports it, read as absent
            return None
        node = arg.pair.value
        if not isinstance(node, Scalar):
            self.bad(arg, "a single value")
            return None
        text = "true" if node.value is True else "false" if node.value is False else str(node.value)
        value: Any = text
        if option.type == "int":
            try:
                value = int(text.strip())
            except ValueError:
                self.bad(arg, "an integer")
                return None
        if option.choices and text not in option.choices:
            hint = (
                " (quote 'null': an unquoted YAML null reaches SGLang as the text None)"
                if node.value is None
                else ""
            )
            self.bad(arg, "one of " + ", ".join(option.choices) + hint)
            return None
        return Val(value, arg.written, arg.value_loc)

    def int_arg(self, name: str, minimum: int | None = None) -> Val | None:
        val = self.typed_arg(name)
        if val is not None and not isinstance(val.value, int):
            return None  # not an option of this release (SWA303): no type, and SGLang stops anyway
        if val is not None and minimum is not None and val.value < minimum:
            arg = self.arg(name)
            assert arg is not None
            self.bad(
                arg, "a positive integer" if minimum == 1 else f"an integer of at least {minimum}"
            )
            return None
        return val

    def str_arg(self, name: str) -> Val | None:
        return self.typed_arg(name)

    def flag_arg(self, name: str) -> Val | None:
        """A store_true flag: the merger emits it only for YAML ``true``."""
        arg = self.arg(name)
        if arg is None:
            return None
        if not isinstance(arg.value, bool):
            self.bad(arg, "true or false")
            return None
        return Val(arg.value, arg.written, arg.value_loc)

    def flag_value(self, name: str) -> bool:
        arg = self.arg(name)
        return arg is not None and arg.value is True

    def plain_int(self, name: str, default: int) -> int:
        """An integer argument for a condition (a bad value is SWA304's: the default then)."""
        arg = self.arg(name)
        if arg is None or not isinstance(arg.node, Scalar):
            return default
        try:
            return int(str(arg.node.value).strip())
        except ValueError:
            return default

    def env_on(self, name: str) -> bool:
        val = self.dep.env.get(name)
        return val is not None and val.value.lower() in TRUTHY

    def skipped(self, reason: str, pd: bool) -> Resolution:
        return Resolution(
            self.dep,
            self.profile,
            self.values,
            self.events,
            "skipped",
            reason,
            pd=pd,
            duplicates=list(self.dep.duplicates),
        )
