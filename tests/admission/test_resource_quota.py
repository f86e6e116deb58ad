"""ResourceQuota admission: what a pod uses, which quotas count it (their resources and scopes), and the refusal
when one would be exceeded, worded as the v1.32 API server words it."""

from __future__ import annotations

import pytest

from kubesched.admission import resource_quota
from kubesched.admission.amounts import ZERO, show
from kubesched.api.admission_objects import ResourceQuota, ScopedResourceSelectorRequirement
from kubesched.api.quantity import Quantity
from tests.admission.helpers import pod, quota, refusal


def usage_of(spec: str, status: str = "{}") -> dict[str, str]:
    """The pod's quota usage, amounts as the API server prints them."""
    return {name: show(q) for name, q in resource_quota.usage(pod(spec, status=status)).items()}


@pytest.mark.parametrize(("spec", "status", "want"), [
    pytest.param("{containers: [{name: a}]}", "{}", {"count/pods": "1", "pods": "1"}, id="best effort"),
    pytest.param("{containers: [{name: a, resources: {requests: {cpu: 250m, memory: 1Gi}, limits: {memory: 2Gi}}}, "
                 "{name: b, resources: {requests: {cpu: 250m}}}]}", "{}",
                 {"count/pods": "1", "pods": "1", "cpu": "500m", "requests.cpu": "500m", "memory": "1Gi",
                  "requests.memory": "1Gi", "limits.memory": "2Gi"}, id="containers summed"),
    pytest.param("{initContainers: [{name: i, resources: {requests: {cpu: 2}}}], containers: [{name: a, resources: "
                 "{requests: {cpu: 1}}}]}", "{}",
                 {"count/pods": "1", "pods": "1", "cpu": "2", "requests.cpu": "2"}, id="the larger of init and run"),
    pytest.param("{containers: [{name: a, resources: {limits: {example.com/gpu: 2, hugepages-2Mi: 4Mi, cpu: 1}}}]}",
                 "{}", {"count/pods": "1", "pods": "1", "cpu": "1", "requests.cpu": "1", "limits.cpu": "1",
                        "requests.example.com/gpu": "2", "hugepages-2Mi": "4Mi", "requests.hugepages-2Mi": "4Mi"},
                 id="extended resources and hugepages"),
    pytest.param("{containers: [{name: a, resources: {requests: {cpu: 1}}}]}", "{phase: Succeeded}",
                 {"count/pods": "1"}, id="a finished pod counts as an object only"),
])
def test_a_pods_usage_is_the_pod_evaluators(spec: str, status: str, want: dict[str, str]) -> None:
    """count/pods always; pods, requests and limits (cpu, memory, ephemeral-storage, hugepages, extended
    resources as requests.NAME) while the pod has not finished."""
    assert usage_of(spec, status) == want


@pytest.mark.parametrize(("scope", "operator", "values", "spec", "matches"), [
    pytest.param("Terminating", "Exists", (), "{activeDeadlineSeconds: 60, containers: [{name: a}]}", True,
                 id="terminating with a deadline"),
    pytest.param("NotTerminating", "Exists", (), "{activeDeadlineSeconds: 60, containers: [{name: a}]}", False,
                 id="not terminating without one"),
    pytest.param("BestEffort", "Exists", (),
                 "{containers: [{name: a, resources: {requests: {ephemeral-storage: 1Gi}}}]}", True,
                 id="best effort asks no cpu or memory"),
    pytest.param("NotBestEffort", "Exists", (), "{containers: [{name: a, resources: {limits: {memory: 1Gi}}}]}", True,
                 id="not best effort"),
    pytest.param("PriorityClass", "In", ("high",), "{priorityClassName: high, containers: [{name: a}]}", True,
                 id="class in"),
    pytest.param("PriorityClass", "NotIn", ("high",), "{containers: [{name: a}]}", True, id="no class is not in"),
    pytest.param("PriorityClass", "Exists", (), "{containers: [{name: a}]}", False, id="class exists"),
    pytest.param("PriorityClass", "DoesNotExist", (), "{containers: [{name: a}]}", True, id="class does not exist"),
    pytest.param("CrossNamespacePodAffinity", "Exists", (),
                 "{affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, "
                 "namespaces: [other]}]}}, containers: [{name: a}]}", True, id="cross-namespace affinity"),
])
def test_a_scope_matches_the_pods_it_names(scope: str, operator: str, values: tuple[str, ...], spec: str,
                                           matches: bool) -> None:
    """podMatchesScopeFunc, scope by scope."""
    requirement = ScopedResourceSelectorRequirement(scope, operator, values)
    assert resource_quota.scope_matches(pod(spec), requirement) is matches


def used(q: ResourceQuota, **amounts: str) -> tuple[ResourceQuota, dict[str, Quantity]]:
    """The quota with its usage so far (zero for every limited resource not given)."""
    values = dict.fromkeys(q.hard, ZERO)
    values.update({name.replace("_", "."): Quantity.parse(text) for name, text in amounts.items()})
    return q, values


COMPUTE = quota("{hard: {requests.cpu: '1', limits.memory: 1Gi, pods: '2'}}", name="compute")
SMALL_POD = "{containers: [{name: a, resources: {requests: {cpu: 600m}, limits: {memory: 600Mi}}}]}"


def test_a_pod_exceeding_a_quota_is_forbidden_with_what_it_exceeds() -> None:
    """The message shows, for the exceeded resources only, what the pod asks, what is used and the limit."""
    assert refusal(resource_quota.admit, pod(SMALL_POD, name="b"), [used(COMPUTE, requests_cpu="600m",
                                                                          limits_memory="600Mi", pods="1")]) == (
        'pods "b" is forbidden: exceeded quota: compute, requested: limits.memory=600Mi,requests.cpu=600m, used: '
        "limits.memory=600Mi,requests.cpu=600m, limited: limits.memory=1Gi,requests.cpu=1")


def test_a_pod_within_the_quota_is_admitted() -> None:
    """Usage plus the pod's request up to the limit is allowed."""
    resource_quota.admit(pod(SMALL_POD), [used(COMPUTE, requests_cpu="400m", pods="1")])


def test_a_container_not_stating_a_limited_cpu_or_memory_is_forbidden() -> None:
    """With cpu or memory limited, each container (init containers too) must state it."""
    spec = "{initContainers: [{name: i}], containers: [{name: a}, {name: b, resources: {requests: {cpu: 1}}}]}"
    assert refusal(resource_quota.admit, pod(spec), [used(COMPUTE)]) == (
        'pods "web" is forbidden: failed quota: compute: must specify limits.memory for: a,b,i; requests.cpu for: a,i')


def test_a_quota_whose_scope_excludes_the_pod_does_not_count() -> None:
    """A BestEffort quota at its limit does not refuse a pod that asks for cpu."""
    best_effort = quota("{hard: {pods: '1'}, scopes: [BestEffort]}")
    resource_quota.admit(pod("{containers: [{name: a, resources: {requests: {cpu: 1}}}]}"),
                         [used(best_effort, pods="1")])


def test_a_quota_on_nothing_a_pod_uses_does_not_count() -> None:
    """A quota of services only neither refuses pods nor makes them state cpu."""
    resource_quota.admit(pod("{containers: [{name: a}]}"), [used(quota("{hard: {services: '0'}}"))])


def test_the_first_quota_by_name_that_refuses_is_reported() -> None:
    """Quotas are checked in name order."""
    pods_quota = quota("{hard: {pods: '1'}}", name="a-pods")
    assert refusal(resource_quota.admit, pod(SMALL_POD), [used(COMPUTE, pods="2"), used(pods_quota, pods="1")]) == (
        'pods "web" is forbidden: exceeded quota: a-pods, requested: pods=1, used: pods=1, limited: pods=1')
