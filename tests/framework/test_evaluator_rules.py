"""Evaluator.keeps_reference: which of the overridable rules a subclass keeps in their reference form (what the
runtime's accelerator may stand in for), worked out once per class when it is defined."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.api.pod import Pod
from kubesched.framework import Evaluator
from kubesched.framework.preemption import CHOICE_RULES, DRY_RUN_RULES
from kubesched.testing import make_node
from tests.framework.preemption_cluster import preemption_cluster

EVERY_RULE = (*DRY_RUN_RULES, *CHOICE_RULES, "more_important_pod")


class Plain(Evaluator):
    """A subclass redefining none of the rules."""


class OwnImportance(Evaluator):
    """A subclass with its own more_important_pod (the later started pod first)."""

    def more_important_pod(self, a: Pod, b: Pod) -> bool:
        return not super().more_important_pod(a, b)


class InheritsImportance(OwnImportance):
    """A subclass of that subclass redefining nothing itself."""


def evaluator(cls: type[Evaluator]) -> Evaluator:
    """An instance of ``cls`` on a one-node cluster whose handle holds the runtime's accelerator."""
    return cls("DefaultPreemption", preemption_cluster([make_node("n0").obj()]).framework.handle)


def test_a_subclass_redefining_no_rule_keeps_every_reference_rule() -> None:
    """The accelerator stands in for its dry run and its choice."""
    plain = evaluator(Plain)
    assert plain.keeps_reference(*EVERY_RULE)
    assert plain.accelerator(DRY_RUN_RULES) is plain.handle.preemption_accelerator is not None
    assert plain.accelerator(CHOICE_RULES) is not None


def test_a_subclass_redefining_one_rule_gives_up_that_rule_alone() -> None:
    """Its own more_important_pod: no accelerator where that rule counts, the accelerator for the choice."""
    own = evaluator(OwnImportance)
    assert not own.keeps_reference("more_important_pod")
    assert not own.keeps_reference(*EVERY_RULE)
    assert own.keeps_reference(*DRY_RUN_RULES, *CHOICE_RULES)
    assert own.accelerator(("more_important_pod",)) is None
    assert own.accelerator(CHOICE_RULES) is not None


def test_a_rule_redefined_by_a_parent_class_counts_for_its_subclasses() -> None:
    """A subclass inheriting a redefined rule does not keep its reference form either."""
    assert not evaluator(InheritsImportance).keeps_reference("more_important_pod")


class Registered:
    """A mixin whose own ``__init_subclass__`` records every subclass and its class keywords."""

    seen: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        Registered.seen.append((cls.__name__, dict(kwargs)))


def test_an_evaluator_subclass_passes_class_creation_on_to_a_mixin() -> None:
    """Evaluator's ``__init_subclass__`` calls the next one in the MRO with the class keywords."""

    class Mixed(Evaluator, Registered, tag="x"):
        """An Evaluator mixed with Registered, created with a class keyword."""

    assert ("Mixed", {"tag": "x"}) in Registered.seen
    assert evaluator(Mixed).keeps_reference(*EVERY_RULE)
