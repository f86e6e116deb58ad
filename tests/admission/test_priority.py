"""The Priority admission plugin: resolving a pod's PriorityClass into spec.priority and spec.preemptionPolicy."""

from __future__ import annotations

import attrs
import pytest

from kubesched.admission.errors import AdmissionError
from kubesched.admission.priority import (
    DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS,
    admit_pod,
    default_priority_class,
    effective_priority_classes,
)
from kubesched.api.meta import ObjectMeta
from kubesched.api.pod import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER, Pod
from kubesched.api.policy import PriorityClass, builtin_priority_classes
from kubesched.testing.builders import PodBuilder, make_pod


def pc(name: str, value: int, *, default: bool = False, policy: str = PREEMPT_LOWER_PRIORITY) -> PriorityClass:
    """A PriorityClass."""
    return PriorityClass(ObjectMeta(name=name), value, global_default=default, preemption_policy=policy)


def with_class(builder: PodBuilder, class_name: str) -> Pod:
    """The built pod with spec.priorityClassName set."""
    pod = builder.obj()
    return attrs.evolve(pod, spec=attrs.evolve(pod.spec, priority_class_name=class_name))


def admit_one(pod: Pod, classes: list[PriorityClass]) -> Pod:
    """The pod as the Priority plugin admits it with ``classes`` (fails if it is rejected)."""
    by_name = effective_priority_classes(classes)
    return admit_pod(pod, by_name, default_priority_class(by_name))


def rejection(pod: Pod, classes: list[PriorityClass]) -> str:
    """The loader's line for the refusal admitting ``pod`` gives."""
    with pytest.raises(AdmissionError) as excinfo:
        admit_one(pod, classes)
    [line] = excinfo.value.input_errors(f"pods/{pod.key}")
    return str(line)


def resolved(pod: Pod) -> tuple[int | None, str, str | None]:
    """(spec.priority, spec.priorityClassName, spec.preemptionPolicy)."""
    return pod.spec.priority, pod.spec.priority_class_name, pod.spec.preemption_policy


def test_pod_with_a_class_gets_its_value_and_policy() -> None:
    """A named class sets spec.priority and spec.preemptionPolicy."""
    pod = admit_one(with_class(make_pod("web"), "batch"), [pc("batch", 10, policy=PREEMPT_NEVER)])
    assert resolved(pod) == (10, "batch", PREEMPT_NEVER)


def test_pod_without_class_gets_the_global_default() -> None:
    """A pod naming no class gets the globalDefault class's value, name and policy."""
    classes = [pc("other", 5), pc("standard", 1000, default=True)]
    assert resolved(admit_one(make_pod("web").obj(), classes)) == (1000, "standard", PREEMPT_LOWER_PRIORITY)


def test_global_default_policy_never_is_applied() -> None:
    """The default class's preemptionPolicy is applied too."""
    classes = [pc("lazy", 1, default=True, policy=PREEMPT_NEVER)]
    assert resolved(admit_one(make_pod("web").obj(), classes)) == (1, "lazy", PREEMPT_NEVER)


def test_several_global_defaults_the_lowest_value_wins() -> None:
    """With more than one globalDefault class (an API race), the lowest value is used."""
    classes = [pc("mid", 500, default=True), pc("low", -10, default=True), pc("high", 900, default=True)]
    assert resolved(admit_one(make_pod("web").obj(), classes)) == (-10, "low", PREEMPT_LOWER_PRIORITY)


def test_default_priority_class_picks_the_lowest_default() -> None:
    """default_priority_class() returns the lowest-valued globalDefault class, or None without one."""
    mid, low = pc("mid", 500, default=True), pc("low", 100, default=True)
    assert default_priority_class({"mid": mid, "low": low, "x": pc("x", 1)}) == low
    assert default_priority_class({"x": pc("x", 1)}) is None


def test_explicit_class_overrides_the_global_default() -> None:
    """The globalDefault only applies to pods naming no class."""
    classes = [pc("standard", 1000, default=True), pc("gold", 5000)]
    assert resolved(admit_one(with_class(make_pod("web"), "gold"), classes)) == (5000, "gold", PREEMPT_LOWER_PRIORITY)


def test_no_default_class_gives_priority_zero_and_preempt_lower_priority() -> None:
    """Without any default class the pod gets priority 0, no class name and PreemptLowerPriority."""
    assert DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS == 0
    assert resolved(admit_one(make_pod("web").obj(), [pc("gold", 5000)])) == (0, "", PREEMPT_LOWER_PRIORITY)


def test_policy_never_without_any_class_is_forbidden() -> None:
    """Admission computes PreemptLowerPriority when no class applies, so asking for Never is forbidden."""
    pod = make_pod("web").preemption_policy(PREEMPT_NEVER).obj()
    assert rejection(pod, []) == (
        'pods/default/web: spec.preemptionPolicy: pods "web" is forbidden: the string value of PreemptionPolicy '
        "(Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority "
        "from the given PriorityClass name")


def test_policy_preempt_lower_priority_without_any_class_is_accepted() -> None:
    """A pod already carrying the computed PreemptLowerPriority is accepted."""
    pod = make_pod("web").preemption_policy(PREEMPT_LOWER_PRIORITY).obj()
    assert resolved(admit_one(pod, [])) == (0, "", PREEMPT_LOWER_PRIORITY)


def test_priority_zero_without_any_class_is_accepted() -> None:
    """A pod with spec.priority 0 and no class matches the computed default."""
    assert resolved(admit_one(make_pod("web").priority(0).obj(), [])) == (0, "", PREEMPT_LOWER_PRIORITY)


def test_nonzero_priority_without_any_class_is_kept() -> None:
    """A pod with spec.priority was admitted when created: it keeps its priority though no class applies."""
    assert resolved(admit_one(make_pod("web").priority(7).obj(), [])) == (7, "", PREEMPT_LOWER_PRIORITY)


@pytest.mark.parametrize(("name", "value"), [("system-cluster-critical", 2_000_000_000),
                                             ("system-node-critical", 2_000_001_000)])
def test_system_classes_are_built_in(name: str, value: int) -> None:
    """The system classes exist without being in the input, with their fixed values."""
    pod = admit_one(with_class(make_pod("dns", "kube-system"), name), [])
    assert resolved(pod) == (value, name, PREEMPT_LOWER_PRIORITY)


def test_built_in_classes_are_not_global_defaults() -> None:
    """Neither system class is a globalDefault, so pods without a class still get 0."""
    assert [(c.name, c.value, c.global_default) for c in builtin_priority_classes()] == [
        ("system-cluster-critical", 2_000_000_000, False), ("system-node-critical", 2_000_001_000, False)]
    assert resolved(admit_one(make_pod("web").obj(), [])) == (0, "", PREEMPT_LOWER_PRIORITY)


def test_effective_classes_are_the_input_plus_built_ins() -> None:
    """effective_priority_classes() adds the system classes to the input's classes."""
    assert sorted(effective_priority_classes([pc("gold", 5)])) == ["gold", "system-cluster-critical",
                                                                    "system-node-critical"]


def test_matching_priority_already_present_is_accepted() -> None:
    """A dumped pod whose spec.priority and policy equal what admission computes is accepted unchanged."""
    pod = with_class(make_pod("etl").priority(10).preemption_policy(PREEMPT_NEVER), "batch")
    assert resolved(admit_one(pod, [pc("batch", 10, policy=PREEMPT_NEVER)])) == (10, "batch", PREEMPT_NEVER)


def test_admitted_priority_without_class_name_is_kept_as_it_is() -> None:
    """A dumped pod without class name but with a priority is not given the default class's name."""
    pod = make_pod("web").priority(1000).obj()
    assert resolved(admit_one(pod, [pc("standard", 1000, default=True)])) == (1000, "", PREEMPT_LOWER_PRIORITY)


def test_priority_differing_from_the_class_is_kept() -> None:
    """spec.priority is what kube-scheduler reads, even when the class's value has changed since admission."""
    pod = with_class(make_pod("web").priority(5), "gold")
    assert resolved(admit_one(pod, [pc("gold", 1000)])) == (5, "gold", PREEMPT_LOWER_PRIORITY)


def test_unknown_class_is_forbidden() -> None:
    """Naming a class that does not exist is forbidden."""
    assert rejection(with_class(make_pod("web", "shop"), "gold"), []) == (
        'pods/shop/web: spec.priorityClassName: pods "web" is forbidden: no PriorityClass with name gold was found')


def test_admit_pod_raises_a_forbidden_admission_error() -> None:
    """admit_pod() refuses as the API server does (403), naming the field at fault."""
    with pytest.raises(AdmissionError) as excinfo:
        admit_pod(with_class(make_pod("web"), "gold"), effective_priority_classes([]), None)
    assert excinfo.value.api_message() == 'pods "web" is forbidden: no PriorityClass with name gold was found'
    assert [c.field for c in excinfo.value.causes] == ["spec.priorityClassName"]


def test_admission_does_not_touch_other_fields() -> None:
    """Only priority, class name and preemption policy change."""
    pod = make_pod("web").req(cpu="1").label(app="web").node_selector(disk="ssd").obj()
    admitted = admit_one(pod, [pc("standard", 1000, default=True)])
    assert attrs.evolve(admitted.spec, priority=None, priority_class_name="", preemption_policy=None) == pod.spec
    assert (admitted.metadata, admitted.status) == (pod.metadata, pod.status)
