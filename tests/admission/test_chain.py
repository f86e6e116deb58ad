"""The admission chain: the plugins in the v1.32 API server's order, validation after the mutating ones, and the
pods a dump shows as admitted taken as they are."""

from __future__ import annotations

import pytest

from kubesched.admission.chain import AdmissionObjects, admit, admit_all, is_admitted
from kubesched.admission.errors import FORBIDDEN, INVALID, AdmissionError, Cause, aggregate
from kubesched.api.pod import Toleration
from kubesched.api.replace import replaced
from kubesched.testing.builders import make_priority_class
from tests.admission.helpers import limit_range, pod, refusal, runtime_class

KWOK_RANGE = limit_range("[{type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 250m}, max: {cpu: '1'}, "
                         "min: {cpu: 100m}}]")
OBJECTS = AdmissionObjects.of([KWOK_RANGE], [runtime_class(
    "{handler: runsc, overhead: {podFixed: {cpu: 250m}}, scheduling: {tolerations: [{key: node.kubernetes.io/"
    "unreachable, operator: Exists, effect: NoExecute}]}}")], [make_priority_class("high", 1000).obj()])


def test_a_request_above_the_defaulted_limit_is_invalid() -> None:
    """KWOK's limit-range example: the default limit of 500m makes a 700m request invalid (HTTP 422)."""
    message = refusal(admit, pod("{containers: [{name: app, resources: {requests: {cpu: 700m}}}]}", "p1"), OBJECTS)
    assert message == ('Pod "p1" is invalid: spec.containers[0].resources.requests: Invalid value: "700m": must be '
                       "less than or equal to cpu limit of 500m")


def test_priority_refuses_before_the_validating_plugins() -> None:
    """An unknown PriorityClass is reported, not the LimitRange bound the pod also breaks: the mutating plugins
    run first."""
    spec = "{priorityClassName: gold, containers: [{name: app, resources: {limits: {cpu: 3}}}]}"
    assert refusal(admit, pod(spec), OBJECTS) == 'pods "web" is forbidden: no PriorityClass with name gold was found'


def test_every_plugin_changes_the_pod_in_order() -> None:
    """LimitRanger's defaults, Priority's value, DefaultTolerationSeconds' tolerations, then the RuntimeClass's
    overhead and tolerations merged (its unreachable toleration without a limit covers the 300 s one)."""
    admitted = admit(pod("{runtimeClassName: gvisor, priorityClassName: high, containers: [{name: app}]}"), OBJECTS)
    assert {n: q.text for n, q in admitted.spec.containers[0].limits.items()} == {"cpu": "500m"}
    assert (admitted.spec.priority, {n: q.text for n, q in admitted.spec.overhead.items()}) == (1000, {"cpu": "250m"})
    assert list(admitted.spec.tolerations) == [
        Toleration("node.kubernetes.io/not-ready", "Exists", effect="NoExecute", toleration_seconds=300),
        Toleration("node.kubernetes.io/unreachable", "Exists", effect="NoExecute")]


def test_a_pod_with_spec_priority_was_admitted_already() -> None:
    """A dump's pod (spec.priority set) meets no plugin again: no defaults, no tolerations, no bounds."""
    dumped = pod("{priority: 0, preemptionPolicy: PreemptLowerPriority, containers: [{name: app, resources: {limits: "
                 "{cpu: 3}}}]}")
    assert is_admitted(dumped)
    assert admit(dumped, OBJECTS) is dumped


def test_limit_ranges_of_another_namespace_do_not_apply() -> None:
    """A LimitRange bounds its own namespace's pods only."""
    admitted = admit(pod("{containers: [{name: app, resources: {limits: {cpu: 3}}}]}", namespace="other"), OBJECTS)
    assert {n: q.text for n, q in admitted.spec.containers[0].limits.items()} == {"cpu": "3"}


def test_pods_alike_share_the_admitted_spec_but_not_a_refusal() -> None:
    """admit_all admits a spec once per namespace (the pods keep their own node) and refuses each pod by name."""
    good = pod("{nodeName: n1, containers: [{name: app}]}", "a")
    twin = replaced(good, metadata=replaced(good.metadata, name="b"), spec=replaced(good.spec, node_name="n2"))
    bad = pod("{priorityClassName: gold, containers: [{name: app}]}", "c")
    pods, errors = admit_all([good, twin, bad], OBJECTS)
    first, second, third = pods
    assert first is not None
    assert second is not None
    assert third is None
    assert second.spec.tolerations is first.spec.tolerations
    assert (first.spec.node_name, second.spec.node_name) == ("n1", "n2")
    assert second.metadata.annotations == first.metadata.annotations
    assert [e and e.api_message() for e in errors] == [
        None, None, 'pods "c" is forbidden: no PriorityClass with name gold was found']


@pytest.mark.parametrize(("messages", "shown"), [
    pytest.param(["a"], "a", id="one"),
    pytest.param(["a", "b", "a"], "[a, b]", id="several, repeats once"),
    pytest.param(["a", "a"], "a", id="one repeated"),
])
def test_errors_aggregate_as_the_api_server_shows_them(messages: list[str], shown: str) -> None:
    """utilerrors.Aggregate: one alone, several deduplicated in brackets."""
    assert aggregate(messages) == shown


def test_an_invalid_pod_names_each_field() -> None:
    """A 422 lists "field: detail" for each cause; the loader gets one line per field."""
    error = AdmissionError(INVALID, "web", [Cause("spec.a", "Invalid value: 1"), Cause("spec.b", "Required value")])
    assert error.api_message() == 'Pod "web" is invalid: [spec.a: Invalid value: 1, spec.b: Required value]'
    assert [str(e) for e in error.input_errors("pods/default/web")] == [
        "pods/default/web: spec.a: Invalid value: 1", "pods/default/web: spec.b: Required value"]
    assert AdmissionError(FORBIDDEN, "web", [Cause("", "x")]).api_message() == 'pods "web" is forbidden: x'
