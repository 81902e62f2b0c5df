"""The rule registry (swacheck/rules/__init__.py): every rule module listed once, in code order,
each declaring a SCOPE whose function it defines, so the engine runs every rule by its SCOPE."""

from __future__ import annotations

from pathlib import Path

from swacheck import engine
from swacheck.rules import (
    DEPLOYMENT_RULES,
    PAIR_RULES,
    RULES,
    SCOPES,
    SUPPRESSION_RULES,
    UNPAIRED_RULES,
    in_scope,
)

RULES_DIR = Path(__file__).resolve().parent.parent / "swacheck" / "rules"


def test_every_rule_module_is_registered_once_in_code_order():
    modules = sorted(p.stem for p in RULES_DIR.glob("swa*.py"))
    assert [r.__name__.rpartition(".")[2] for r in RULES] == modules
    assert [r.CODE for r in RULES] == sorted(r.CODE for r in RULES)
    assert len({r.CODE for r in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.CODE.lower() == rule.__name__.rpartition(".")[2]


def test_every_rule_declares_a_scope_and_defines_its_function():
    for rule in RULES:
        assert rule.SCOPE in SCOPES, rule.CODE
        assert callable(getattr(rule, SCOPES[rule.SCOPE], None)), rule.CODE
        # and none of another scope's, which the engine would never call
        others = {f for s, f in SCOPES.items() if s != rule.SCOPE}
        assert not [f for f in others if hasattr(rule, f)], rule.CODE


def test_the_scopes_split_the_rules():
    assert DEPLOYMENT_RULES == in_scope("deployment")
    by_scope = DEPLOYMENT_RULES + PAIR_RULES + UNPAIRED_RULES + SUPPRESSION_RULES
    assert sorted(r.CODE for r in by_scope) == [r.CODE for r in RULES]
    assert [r.CODE for r in UNPAIRED_RULES] == ["SWA400"]
    assert [r.CODE for r in SUPPRESSION_RULES] == ["SWA901", "SWA902"]


def test_the_engine_names_no_rule():
    # every rule is run through its SCOPE: the engine's source names no rule code or module
    source = Path(engine.__file__).read_text(encoding="utf-8")
    for rule in RULES:
        assert rule.CODE not in source and rule.CODE.lower() not in source, rule.CODE


def test_quiet_launches_are_checked_by_the_rules_that_say_so():
    quiet = {r.CODE: r.QUIET for r in RULES if hasattr(r, "QUIET")}
    assert quiet == {
        "SWA306": ("no-pools", "unknown"),
        "SWA307": ("no-pools", "unknown"),
        "SWA600": ("before-dsv4",),
    }
    assert all(r.SCOPE == "deployment" for r in RULES if hasattr(r, "QUIET"))
