"""``@record``: a slotted dataclass whose ``__repr__``, ``__eq__`` and ``__hash__`` are shared.

``dataclasses`` writes out and compiles each class's methods when its module is imported. For
swacheck's classes that was about a sixth of a one-file run (benchmarks/bench.py): `__repr__`,
``__eq__`` and ``__hash__`` cost as much as ``__init__`` each. ``@record`` lets ``dataclass``
generate ``__init__`` (which runs once per object, so it stays generated) and gives every class
the same three functions below, which read the fields the class lists. They behave as the
generated ones do: the same ``repr`` text, ``==`` on same-class instances by the compared fields
(``NotImplemented`` otherwise), hashable when frozen or ``unsafe_hash=True`` and unhashable when
``eq`` is on without either; ``tests/test_recordtype.py`` holds them to ``dataclass``.

``dataclasses.fields``, ``replace`` and ``asdict`` work as on any dataclass, and type checkers
read ``@record`` as ``@dataclass`` (``dataclass_transform``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@recursive_repr()
def _repr(self: Any) -> str:
    names = type(self).__record_repr__
    return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is self.__class__:
        compared = self.__record_compared__
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_hashed__(self))


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` as a tuple (``attrgetter`` gives a bare value for one name)."""
    if len(names) > 1:
        return attrgetter(*names)  # type: ignore[return-value]
    if names:
        (name,) = names
        return lambda obj: (getattr(obj, name),)
    return lambda obj: ()


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(
    *,
    repr: bool = True,
    eq: bool = True,
    frozen: bool = False,
    unsafe_hash: bool = False,
    kw_only: bool = False,
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: type[T] | None = None,
    /,
    *,
    repr: bool = True,
    eq: bool = True,
    frozen: bool = False,
    unsafe_hash: bool = False,
    kw_only: bool = False,
) -> Any:
    """``@dataclass(slots=True, ...)`` with the shared ``__repr__``, ``__eq__``, ``__hash__``."""

    def wrap(cls: type[T]) -> type[T]:
        own = cls.__dict__
        made = dataclasses.dataclass(
            cls, repr=False, eq=False, frozen=frozen, kw_only=kw_only, slots=True
        )
        fields = dataclasses.fields(made)  # type: ignore[arg-type]
        if repr and "__repr__" not in own:
            made.__record_repr__ = tuple(f.name for f in fields if f.repr)  # type: ignore[attr-defined]
            made.__repr__ = _repr  # type: ignore[assignment,method-assign]
        if eq and "__eq__" not in own:
            compared = [f.name for f in fields if f.compare]
            made.__record_compared__ = staticmethod(_getter(compared))  # type: ignore[attr-defined]
            made.__eq__ = _eq  # type: ignore[assignment,method-assign]
        if "__hash__" in own:
            return made
        if unsafe_hash or (eq and frozen):
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            made.__record_hashed__ = staticmethod(_getter(hashed))  # type: ignore[attr-defined]
            made.__hash__ = _hash  # type: ignore[assignment,method-assign]
        elif eq:
            made.__hash__ = None  # type: ignore[assignment]
        return made

    return wrap if cls is None else wrap(cls)
