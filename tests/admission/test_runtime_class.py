"""RuntimeClass admission: a pod's RuntimeClass gives it the class's overhead and scheduling constraints, or
refuses it as the v1.32 API server does."""

from __future__ import annotations

import pytest

from kubesched.admission import runtime_class
from kubesched.api.pod import Toleration
from tests.admission.helpers import pod, refusal
from tests.admission.helpers import runtime_class as make_class

GVISOR = make_class("{handler: runsc, overhead: {podFixed: {cpu: 250m, memory: 120Mi}}, scheduling: {nodeSelector: "
                    "{sandbox: 'true'}, tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]}}")
CLASSES = {"gvisor": GVISOR}


def test_the_class_overhead_and_node_selector_are_the_pods() -> None:
    """spec.overhead is the class's; its node selector is merged into the pod's."""
    admitted = runtime_class.mutate(pod("{runtimeClassName: gvisor, nodeSelector: {zone: a}, containers: [{name: a}]}"),
                                    CLASSES)
    assert {n: q.text for n, q in admitted.spec.overhead.items()} == {"cpu": "250m", "memory": "120Mi"}
    assert dict(admitted.spec.node_selector) == {"zone": "a", "sandbox": "true"}
    runtime_class.validate(admitted, CLASSES)


def test_a_pod_without_a_class_is_left_alone() -> None:
    """No runtimeClassName: nothing changes."""
    original = pod("{containers: [{name: a}]}")
    assert runtime_class.mutate(original, CLASSES) is original


@pytest.mark.parametrize(("spec", "message"), [
    pytest.param("{runtimeClassName: kata, containers: [{name: a}]}",
                 'pods "web" is forbidden: pod rejected: RuntimeClass "kata" not found', id="unknown class"),
    pytest.param("{runtimeClassName: gvisor, overhead: {cpu: 1}, containers: [{name: a}]}",
                 'pods "web" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined '
                 "Overhead",
                 id="own overhead differs"),
    pytest.param("{runtimeClassName: gvisor, nodeSelector: {sandbox: 'false'}, containers: [{name: a}]}",
                 'pods "web" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = true; '
                 "pod.spec.nodeSelector[sandbox] = false", id="node selector conflict"),
])
def test_the_mutating_half_refuses(spec: str, message: str) -> None:
    """An unknown class, an overhead of the pod's own and a contradicting node selector are forbidden."""
    assert refusal(runtime_class.mutate, pod(spec), CLASSES) == message


def test_an_overhead_without_a_class_is_refused() -> None:
    """Only RuntimeClass admission sets an overhead: a pod setting one without a class is refused."""
    assert refusal(runtime_class.validate, pod("{overhead: {cpu: 1}, containers: [{name: a}]}"), CLASSES) == (
        'pods "web" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead')


def tol(key: str = "", operator: str = "Equal", value: str = "", effect: str = "",
        seconds: int | None = None) -> Toleration:
    """A toleration."""
    return Toleration(key, operator, value, effect, seconds)


@pytest.mark.parametrize(("first", "second", "want"), [
    pytest.param([tol("a", value="x")], [tol("b", value="y")], [tol("a", value="x"), tol("b", value="y")],
                 id="disjoint kept in order"),
    pytest.param([tol("a", value="x", effect="NoSchedule")], [tol("a", "Exists", effect="NoSchedule")],
                 [tol("a", "Exists", effect="NoSchedule")], id="a superset later drops the narrower"),
    pytest.param([tol("a", "Exists")], [tol("a", value="x", effect="NoSchedule")], [tol("a", "Exists")],
                 id="any effect covers one effect"),
    pytest.param([tol(operator="Exists")], [tol("a", value="x"), tol("b", "Exists", effect="NoExecute")],
                 [tol(operator="Exists")], id="empty key Exists covers everything"),
    pytest.param([tol("a", "Exists", effect="NoExecute", seconds=300)], [tol("a", "Exists", effect="NoExecute")],
                 [tol("a", "Exists", effect="NoExecute")], id="forever covers a time limit"),
    pytest.param([tol("a", "Exists", effect="NoExecute")], [tol("a", "Exists", effect="NoExecute", seconds=300)],
                 [tol("a", "Exists", effect="NoExecute")], id="a time limit does not cover forever"),
    pytest.param([tol("a", value="x")], [tol("a", value="x")], [tol("a", value="x")], id="equal ones kept once"),
])
def test_tolerations_merge_keeping_only_the_widest(first: list[Toleration], second: list[Toleration],
                                                   want: list[Toleration]) -> None:
    """MergeTolerations: the pod's then the class's tolerations, less those another one covers."""
    assert list(runtime_class.merge_tolerations(first, second)) == want
