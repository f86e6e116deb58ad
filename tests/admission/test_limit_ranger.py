"""LimitRanger: a LimitRange's defaults set on the containers that lack them, then its bounds enforced, worded as
the v1.32 API server words them (tests/kube/test_admission.py checks the wording against the binary)."""

from __future__ import annotations

import pytest

from kubesched.admission import limit_ranger
from kubesched.admission.errors import AdmissionError
from kubesched.api.pod import Container, Pod
from tests.admission.helpers import limit_range, pod, refusal

CPU_RANGE = "[{type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 250m}, max: {cpu: '1'}, min: {cpu: 100m}}]"


def resources(container: Container) -> tuple[dict[str, str], dict[str, str]]:
    """(requests, limits) of a container as texts."""
    return ({n: q.text for n, q in container.requests.items()}, {n: q.text for n, q in container.limits.items()})


def defaulted(spec: str, limits: str = CPU_RANGE) -> Pod:
    """The pod once LimitRanger's mutating half ran."""
    return limit_ranger.mutate(pod(spec), [limit_range(limits)])


@pytest.mark.parametrize(("spec", "want"), [
    pytest.param("{containers: [{name: app}]}", ({"cpu": "250m"}, {"cpu": "500m"}), id="both defaults"),
    pytest.param("{containers: [{name: app, resources: {requests: {cpu: 300m}}}]}", ({"cpu": "300m"}, {"cpu": "500m"}),
                 id="own request kept"),
    pytest.param("{containers: [{name: app, resources: {limits: {cpu: 800m}}}]}", ({"cpu": "800m"}, {"cpu": "800m"}),
                 id="own limit, request defaulted to it by the API first"),
    pytest.param("{containers: [{name: app, resources: {requests: {memory: 1Gi}}}]}",
                 ({"memory": "1Gi", "cpu": "250m"}, {"cpu": "500m"}), id="other resources kept"),
])
def test_a_container_gets_the_defaults_it_lacks(spec: str, want: tuple[dict[str, str], dict[str, str]]) -> None:
    """Default limits and default requests fill what the container does not set, and nothing else."""
    assert resources(defaulted(spec).spec.containers[0]) == want


def test_the_annotation_says_what_was_set_per_container() -> None:
    """kubernetes.io/limit-ranger lists the requests, then the limits set, per container (init containers too)."""
    admitted = defaulted("{initContainers: [{name: init}], containers: [{name: app, resources: {limits: {cpu: 1}}}]}")
    assert admitted.metadata.annotations[limit_ranger.ANNOTATION] == (
        "LimitRanger plugin set: cpu request for init container init; cpu limit for init container init")
    assert resources(admitted.spec.init_containers[0]) == ({"cpu": "250m"}, {"cpu": "500m"})


def test_a_pod_needing_no_default_is_left_as_it_is() -> None:
    """A pod whose containers set every defaulted resource is the same object, without annotation."""
    original = pod("{containers: [{name: app, resources: {requests: {cpu: 200m}, limits: {cpu: 400m}}}]}")
    assert limit_ranger.mutate(original, [limit_range(CPU_RANGE)]) is original


def test_max_alone_defaults_the_limit_and_the_request() -> None:
    """A Container item with only max is stored with default and defaultRequest equal to it, as the API server
    defaults it."""
    admitted = defaulted("{containers: [{name: app}]}", "[{type: Container, max: {memory: 1Gi}}]")
    assert resources(admitted.spec.containers[0]) == ({"memory": "1Gi"}, {"memory": "1Gi"})


def test_the_first_limit_range_by_name_sets_a_default() -> None:
    """Of two LimitRanges defaulting one resource, the first by name wins; the annotation is the last one's that
    set something."""
    first = limit_range("[{type: Container, default: {cpu: 700m}, defaultRequest: {cpu: 700m}}]", name="a")
    second = limit_range("[{type: Container, default: {cpu: 300m, memory: 1Gi}, defaultRequest: {cpu: 300m, "
                         "memory: 1Gi}}]", name="b")
    admitted = limit_ranger.mutate(pod("{containers: [{name: app}]}"), [second, first])
    both = {"cpu": "700m", "memory": "1Gi"}
    assert resources(admitted.spec.containers[0]) == (both, both)
    assert admitted.metadata.annotations[limit_ranger.ANNOTATION] == (
        "LimitRanger plugin set: memory request for container app; memory limit for container app")


@pytest.mark.parametrize(("limits", "spec", "message"), [
    pytest.param(CPU_RANGE, "{containers: [{name: app, resources: {limits: {cpu: 3}}}]}",
                 'pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 3', id="limit above max"),
    pytest.param(CPU_RANGE, "{containers: [{name: app, resources: {requests: {cpu: 50m}}}]}",
                 'pods "web" is forbidden: minimum cpu usage per Container is 100m, but request is 50m',
                 id="request below min"),
    pytest.param("[{type: Container, maxLimitRequestRatio: {cpu: 2}}]",
                 "{containers: [{name: app, resources: {requests: {cpu: 250m}, limits: {cpu: 1}}}]}",
                 'pods "web" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is '
                 "4.000000", id="ratio above the bound"),
    pytest.param("[{type: Container, maxLimitRequestRatio: {cpu: 2}}]", "{containers: [{name: app}]}",
                 'pods "web" is forbidden: cpu max limit to request ratio per Container is 2, but no request is '
                 "specified or request is 0", id="ratio without request"),
    pytest.param("[{type: Pod, max: {cpu: 1}}]",
                 "{containers: [{name: a, resources: {limits: {cpu: 700m}}}, "
                 "{name: b, resources: {limits: {cpu: 800m}}}]}",
                 'pods "web" is forbidden: maximum cpu usage per Pod is 1, but limit is 1500m',
                 id="pod max on the sum"),
    pytest.param("[{type: Pod, max: {cpu: 1}}]", "{containers: [{name: a}]}",
                 'pods "web" is forbidden: maximum cpu usage per Pod is 1.  No limit is specified',
                 id="pod max no limit"),
    pytest.param("[{type: Pod, min: {memory: 1Gi}}]", "{containers: [{name: a}]}",
                 'pods "web" is forbidden: minimum memory usage per Pod is 1Gi.  No request is specified',
                 id="pod min no request"),
    pytest.param(CPU_RANGE, "{initContainers: [{name: i, resources: {limits: {cpu: 2}}}], containers: [{name: a, "
                 "resources: {requests: {cpu: 10m}}}]}",
                 'pods "web" is forbidden: [minimum cpu usage per Container is 100m, but request is 10m, maximum cpu '
                 "usage per Container is 1, but limit is 2]", id="every bound broken, containers then init containers"),
    pytest.param(CPU_RANGE, "{containers: [{name: a, resources: {limits: {cpu: 2}}}, {name: b, resources: {limits: "
                 "{cpu: 2}}}]}", 'pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
                 id="a repeated message shown once"),
])
def test_a_pod_breaking_a_bound_is_forbidden(limits: str, spec: str, message: str) -> None:
    """The validating half refuses a (defaulted) pod with every bound of the LimitRange it breaks."""
    ranges = [limit_range(limits)]
    assert refusal(limit_ranger.validate, limit_ranger.mutate(pod(spec), ranges), ranges) == message


def test_each_broken_bound_is_located_at_its_container() -> None:
    """The loader's lines name the container whose bound is broken, one line per bound."""
    ranges = [limit_range(CPU_RANGE)]
    spec = "{containers: [{name: a, resources: {limits: {cpu: 3}}}, {name: b, resources: {requests: {cpu: 10m}}}]}"
    with pytest.raises(AdmissionError) as caught:
        limit_ranger.validate(limit_ranger.mutate(pod(spec), ranges), ranges)
    assert [str(e) for e in caught.value.input_errors("pods/default/web")] == [
        'pods/default/web: spec.containers[0].resources: pods "web" is forbidden: maximum cpu usage per Container '
        "is 1, but limit is 3",
        'pods/default/web: spec.containers[1].resources: pods "web" is forbidden: minimum cpu usage per Container is '
        "100m, but request is 10m"]


def test_only_the_first_limit_range_broken_is_reported() -> None:
    """LimitRanges are checked by name and the first one the pod breaks refuses it."""
    ranges = [limit_range("[{type: Container, max: {cpu: 1}}]", name="b"),
              limit_range("[{type: Container, max: {memory: 1Gi}}]", name="a")]
    spec = "{containers: [{name: app, resources: {limits: {cpu: 2, memory: 2Gi}}}]}"
    assert refusal(limit_ranger.validate, pod(spec), ranges) == (
        'pods "web" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi')


def test_a_pod_within_every_bound_is_admitted() -> None:
    """validate returns quietly for a pod the LimitRange allows."""
    ranges = [limit_range(CPU_RANGE)]
    limit_ranger.validate(limit_ranger.mutate(pod("{containers: [{name: app}]}"), ranges), ranges)
