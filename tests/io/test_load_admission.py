"""The loader reads LimitRange, ResourceQuota and RuntimeClass as the v1.32 API server checks them, and admits the
pods the input creates (a refusal is an input error located at its field); a dump's pods are taken as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import Source, load, load_groups
from tests.io.test_error_collection import errors_of, write

POD = "kind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: app, resources: {requests: {cpu: 700m}}}]}\n"
KWOK_RANGE = """kind: LimitRange
metadata: {name: cpu-limit-range}
spec:
  limits:
  - {type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 250m}, max: {cpu: "1"}, min: {cpu: 100m}}
---
"""


def test_the_admission_objects_are_read(tmp_path: Path) -> None:
    """LimitRanges, ResourceQuotas and RuntimeClasses are part of the input, not skipped kinds."""
    path = write(tmp_path / "in.yaml", KWOK_RANGE + "kind: ResourceQuota\nmetadata: {name: q, namespace: team}\n"
                 "spec: {hard: {pods: '5'}}\n---\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\n")
    cluster = load([path])
    assert [(r.namespace, r.name) for r in cluster.limit_ranges] == [("default", "cpu-limit-range")]
    assert [(q.namespace, q.name, dict(q.hard)) for q in cluster.resource_quotas] == [
        ("team", "q", {"pods": cluster.resource_quotas[0].hard["pods"]})]
    assert [(c.name, c.handler) for c in cluster.runtime_classes] == [("gvisor", "runsc")]
    assert cluster.warnings == ()


def test_kwoks_limit_range_example_pod_is_refused(tmp_path: Path) -> None:
    """The API server's 422 for the pod whose request exceeds the default limit, located at its field."""
    path = write(tmp_path / "in.yaml", KWOK_RANGE + POD)
    assert errors_of(path) == [f'{path}: pods/default/p1: spec.containers[0].resources.requests: Invalid value: '
                               '"700m": must be less than or equal to cpu limit of 500m']


def test_an_input_pod_breaking_a_bound_is_an_input_error_per_container(tmp_path: Path) -> None:
    """A LimitRange's refusal names each container with the API server's words."""
    path = write(tmp_path / "in.yaml", KWOK_RANGE + "kind: Pod\nmetadata: {name: p2}\nspec: {containers: [{name: a, "
                 "resources: {limits: {cpu: 3}}}]}\n")
    assert errors_of(path) == [f'{path}: pods/default/p2: spec.containers[0].resources: pods "p2" is forbidden: '
                               "maximum cpu usage per Container is 1, but limit is 3"]


def test_a_template_breaking_a_bound_is_an_input_error(tmp_path: Path) -> None:
    """Every pod of such a workload would be refused: its template is reported at its own field path."""
    path = write(tmp_path / "in.yaml", KWOK_RANGE + """kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {runtimeClassName: kata, containers: [{name: a}]}
""")
    assert errors_of(path) == [f'{path}: deployments/default/web: spec.template.spec.runtimeClassName: pods "web" is '
                               'forbidden: pod rejected: RuntimeClass "kata" not found']


def test_the_pods_the_input_creates_are_admitted_and_listed(tmp_path: Path) -> None:
    """A pod without spec.priority is admitted (defaults, tolerations) and its uid is in ``created``; a dumped pod
    with spec.priority is taken as it is."""
    path = write(tmp_path / "in.yaml", KWOK_RANGE + "kind: Pod\nmetadata: {name: new}\nspec: {containers: "
                 "[{name: a}]}\n---\nkind: Pod\nmetadata: {name: dumped}\nspec: {priority: 0, containers: "
                 "[{name: a}]}\n")
    new, dumped = load([path]).pods
    assert {n: q.text for n, q in new.spec.containers[0].limits.items()} == {"cpu": "500m"}
    assert [t.key for t in new.spec.tolerations] == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    assert (dumped.spec.containers[0].limits, dumped.spec.tolerations) == ({}, ())
    assert load([path]).created == frozenset({new.uid})


def test_a_later_groups_limit_range_does_not_admit_an_earlier_groups_pods(tmp_path: Path) -> None:
    """A scenario step's pods meet the objects created by that step and the ones before, not later ones."""
    pod = write(tmp_path / "pod.yaml", "kind: Pod\nmetadata: {name: early}\nspec: {containers: [{name: a}]}\n")
    limits = write(tmp_path / "limits.yaml", KWOK_RANGE)
    late = write(tmp_path / "late.yaml", "kind: Pod\nmetadata: {name: late}\nspec: {containers: [{name: a}]}\n")
    first, _, third = load_groups([Source((pod,)), Source((limits,)), Source((late,))])
    assert first.pods[0].spec.containers[0].limits == {}
    assert {n: q.text for n, q in third.pods[0].spec.containers[0].limits.items()} == {"cpu": "500m"}


@pytest.mark.parametrize(("limits", "errors"), [
    pytest.param("[{type: Container, max: {cpu: '1'}, min: {cpu: '2'}}]", [
        'spec.limits[0].min.cpu: Invalid value: "2": min value 2 is greater than max value 1',
        'spec.limits[0].defaultRequest.cpu: Invalid value: "1": min value 2 is greater than default request value 1',
        'spec.limits[0].default.cpu: Invalid value: "2": min value 2 is greater than default value 1'],
        id="min above max (defaults from max)"),
    pytest.param("[{type: Container, max: {cpu: '1'}, min: {cpu: 500m}, default: {cpu: 2}, defaultRequest: "
                 "{cpu: 100m}}]", [
        'spec.limits[0].defaultRequest.cpu: Invalid value: "100m": min value 500m is greater than default request '
        "value 100m",
        'spec.limits[0].default.cpu: Invalid value: "1": default value 2 is greater than max value 1'],
        id="default bounds"),
    pytest.param("[{type: Container, min: {cpu: 100m}, max: {cpu: '1'}, maxLimitRequestRatio: {cpu: 20}}]", [
        'spec.limits[0].maxLimitRequestRatio.cpu: Invalid value: "20": ratio 20 is greater than max/min = '
        "10.000000"], id="ratio above max over min"),
    pytest.param("[{type: Pod, default: {cpu: 1}, maxLimitRequestRatio: {cpu: 500m}}]", [
        "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
        'spec.limits[0].maxLimitRequestRatio.cpu: Invalid value: "500m": ratio 500m is less than 1'],
        id="pod defaults and a ratio below 1"),
    pytest.param("[{type: Foo}, {type: Container}, {type: Container, max: {foo: 1}}]", [
        'spec.limits[0].type: Invalid value: "Foo": must be a standard limit type or fully qualified',
        'spec.limits[2].type: Duplicate value: "Container"',
        "spec.limits[2].max.foo: Invalid value: foo: must be a standard resource type or fully qualified",
        "spec.limits[2].max.foo: Invalid value: foo: must be a standard resource for containers",
        "spec.limits[2].default.foo: Invalid value: foo: must be a standard resource type or fully qualified",
        "spec.limits[2].default.foo: Invalid value: foo: must be a standard resource for containers",
        "spec.limits[2].defaultRequest.foo: Invalid value: foo: must be a standard resource type or fully qualified",
        "spec.limits[2].defaultRequest.foo: Invalid value: foo: must be a standard resource for containers"],
        id="types and resource names"),
    pytest.param("[{type: PersistentVolumeClaim, max: {cpu: 1}}]", [
        "spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was "
        "provided"], id="claims need a storage bound"),
])
def test_a_limit_range_is_checked_as_the_api_server_checks_it(tmp_path: Path, limits: str, errors: list[str]) -> None:
    """ValidateLimitRange after the API server's defaulting, in its order (quantities shown as it writes them)."""
    path = write(tmp_path / "lr.yaml", f"kind: LimitRange\nmetadata: {{name: lr}}\nspec: {{limits: {limits}}}\n")
    assert errors_of(path) == [f"{path}: limitranges/default/lr: {e}" for e in errors]


@pytest.mark.parametrize(("spec", "errors"), [
    pytest.param("{hard: {foo: '1', requests.cpu: '-1', pods: 1500m}}", [
        "spec.hard.requests.cpu: Invalid value: \"-1\": must be greater than or equal to 0",
        "spec.hard.foo: Invalid value: foo: must be a standard resource type or fully qualified",
        "spec.hard.foo: Invalid value: foo: must be a standard resource for quota",
        'spec.hard.pods: Invalid value: "1500m": must be an integer'], id="hard"),
    pytest.param("{hard: {pods: '1', requests.cpu: '1'}, scopes: [BestEffort, NotBestEffort, Foo]}", [
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: unsupported '
        "scope applied to resource",
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: unsupported '
        "scope",
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: conflicting '
        "scopes"], id="scopes"),
    pytest.param("{hard: {pods: '1'}, scopeSelector: {matchExpressions: [{scopeName: BestEffort, operator: In, "
                 "values: [x]}, {scopeName: PriorityClass, operator: Exists}, {scopeName: PriorityClass, operator: "
                 "DoesNotExist}]}}", [
        "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' when scope is any of "
        "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
        "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"], id="exists-only scope"),
    pytest.param("{hard: {pods: '1'}, scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: In}, "
                 "{scopeName: Terminating, operator: Exists, values: [a]}, {scopeName: Bar, operator: Exists}, "
                 "{scopeName: PriorityClass, operator: Gt, values: [a]}]}}", [
        "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is "
        "'In' or 'NotIn' for scope selector",
        'spec.scopeSelector.matchExpressions.values: Invalid value: []string{"a"}: must be no value when `operator` '
        "is 'Exist' or 'DoesNotExist' for scope selector",
        'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Bar": unsupported scope',
        'spec.scopeSelector.matchExpressions.operator: Invalid value: "Gt": not a valid selector operator'],
        id="scope selector"),
])
def test_a_resource_quota_is_checked_as_the_api_server_checks_it(tmp_path: Path, spec: str, errors: list[str]) -> None:
    """ValidateResourceQuotaSpec's checks, each message once (the API server's aggregate drops repeats)."""
    path = write(tmp_path / "q.yaml", f"kind: ResourceQuota\nmetadata: {{name: q}}\nspec: {spec}\n")
    assert errors_of(path) == [f"{path}: resourcequotas/default/q: {e}" for e in errors]


def test_a_runtime_class_is_checked_as_the_api_server_checks_it(tmp_path: Path) -> None:
    """Handler, overhead, node selector and tolerations, with the API server's paths."""
    path = write(tmp_path / "rc.yaml", "kind: RuntimeClass\nmetadata: {name: bad}\nhandler: Not_Valid\n"
                 "overhead: {podFixed: {cpu: -1, foo: 1}}\nscheduling:\n  nodeSelector: {'a b': c}\n"
                 "  tolerations: [{key: x, operator: Exists, value: y}]\n")
    assert [e.split(": ", 2)[2] for e in errors_of(path)] == [
        "handler: Invalid value: \"Not_Valid\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'overhead.limits.cpu: Invalid value: "-1": must be greater than or equal to 0',
        "overhead.limits.foo: Invalid value: foo: must be a standard resource type or fully qualified",
        "overhead.limits.foo: Invalid value: foo: must be a standard resource for containers",
        "scheduling.nodeSelector: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "scheduling.tolerations.tolerations[0].operator: Invalid value: \"y\": value must be empty when `operator` is "
        "'Exists'"]


@pytest.mark.parametrize(("manifest", "warning"), [
    pytest.param("kind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {pods: '5', services: '2', "
                 "requests.storage: 10Gi}}\n", "resourcequotas/default/q: spec.hard: requests.storage, services: "
                 "kubesched enforces quotas on pods only; these limits are not checked", id="quota on other objects"),
    pytest.param("kind: LimitRange\nmetadata: {name: lr}\nspec: {limits: [{type: Container, max: {cpu: 1}}, "
                 "{type: PersistentVolumeClaim, max: {storage: 1Gi}}]}\n", "limitranges/default/lr: spec.limits[1]: "
                 "kubesched does not model PersistentVolumeClaims: their storage bounds are not checked",
                 id="claim bounds"),
])
def test_what_admission_does_not_enforce_is_said_per_object(tmp_path: Path, manifest: str, warning: str) -> None:
    """A quota's limits on other objects and a LimitRange's claim bounds are read past with a warning."""
    assert load([write(tmp_path / "in.yaml", manifest)]).warnings == (warning,)
