"""``@record`` behaves as ``@dataclass(slots=True)``: repr, equality, hashing, frozen, fields."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from swacheck.model.recordtype import record


def _pair(**options):
    """The same class made by ``@record`` and by ``@dataclass(slots=True)``."""

    def make(decorator):
        @decorator
        class Point:
            """A point."""

            x: int
            y: list[int] = field(default_factory=list)
            label: str = field(default="", compare=False)
            secret: str = field(default="", repr=False)

        return Point

    return make(record(**options)), make(dataclass(slots=True, **options))


def _one_field(decorator):
    @decorator
    class One:
        """One field."""

        x: int

    return One


OPTIONS = [{}, {"frozen": True}, {"unsafe_hash": True}, {"eq": False}, {"repr": False}]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_repr_is_the_dataclass_one(options):
    ours, theirs = _pair(**options)
    a, b = ours(1, [2], "p", "s"), theirs(1, [2], "p", "s")
    if options.get("repr", True):
        assert repr(a) == repr(b)
        assert repr(a).endswith(".Point(x=1, y=[2], label='p')")  # secret: repr=False
    else:
        assert repr(a).startswith("<") and " object at 0x" in repr(a)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_equality_and_hashing_are_the_dataclass_ones(options):
    ours, theirs = _pair(**options)
    for cls in (ours, theirs):
        a, same, other = cls(1, [2], "p"), cls(1, [2], "q"), cls(2, [2], "p")
        eq = options.get("eq", True)
        assert (a == same) is eq  # label is not compared
        assert a != other
        assert a.__eq__(object()) is NotImplemented or not eq
    hashable = options.get("frozen") or options.get("unsafe_hash") or not options.get("eq", True)
    assert (ours.__hash__ is None) == (theirs.__hash__ is None) == (not hashable)
    if hashable and options.get("eq", True):
        # y is a list: a field-hashing class fails as dataclass's does
        for cls in (ours, theirs):
            with pytest.raises(TypeError, match="unhashable"):
                hash(cls(1, [2]))


def test_hash_follows_the_compared_fields():
    @record(frozen=True)
    class Key:
        """A key."""

        a: str
        b: int
        note: str = field(default="", compare=False)

    assert hash(Key("x", 1, "one")) == hash(Key("x", 1, "two")) == hash(("x", 1))
    assert {Key("x", 1), Key("x", 1, "again"), Key("y", 1)} == {Key("x", 1), Key("y", 1)}


def test_one_field_compares_and_hashes_as_a_tuple():
    ours, theirs = (
        _one_field(record(unsafe_hash=True)),
        _one_field(dataclass(slots=True, unsafe_hash=True)),
    )
    assert hash(ours(3)) == hash(theirs(3)) == hash((3,))
    assert ours(3) == ours(3) and ours(3) != ours(4)


def test_frozen_slots_fields_and_replace():
    ours, _ = _pair(frozen=True)
    p = ours(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        p.other = 1  # type: ignore[attr-defined]  # slots: no other attribute
    assert [f.name for f in dataclasses.fields(ours)] == ["x", "y", "label", "secret"]
    assert dataclasses.replace(p, x=5) == ours(5)
    assert dataclasses.asdict(p) == {"x": 1, "y": [], "label": "", "secret": ""}
    assert ours.__doc__ == "A point."


def test_a_class_keeps_its_own_methods():
    @record
    class Own:
        """Its own repr and equality."""

        x: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    assert repr(Own(1)) == "own" and Own(1) == Own(2) and hash(Own(1)) != hash(None)


def test_a_record_is_not_equal_to_another_class_with_the_same_fields():
    a, b = _one_field(record), _one_field(record)
    assert a(1) != b(1) and a(1) == a(1)


def test_a_recursive_record_repr_ends():
    @record
    class Node:
        """A node."""

        child: object = None

    n = Node()
    n.child = n
    assert repr(n) == "test_a_recursive_record_repr_ends.<locals>.Node(child=...)"
