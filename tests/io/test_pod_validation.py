"""Pod-spec rules the API server (v1.32) enforces with HTTP 422 and that bear on scheduling: ``load`` rejects the
same pods, naming the field the API server names, in its words (each message here was read from a real
kube-apiserver v1.32's 422 Status causes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.io.load import InputErrorList, load

Spec = dict[str, Any]


def container(name: str = "c", **fields: Any) -> dict[str, Any]:
    """A container named ``name`` with ``fields``."""
    return {"name": name, "image": "i", **fields}


def resources(**requirements: dict[str, str]) -> Spec:
    """A pod spec whose one container has these resource requirements."""
    return {"containers": [container(resources=requirements)]}


def ports(*entries: dict[str, Any]) -> Spec:
    """A pod spec whose one container has these ports."""
    return {"containers": [container(ports=list(entries))]}


def tolerations(*entries: dict[str, Any]) -> Spec:
    """A pod spec with these tolerations."""
    return {"containers": [container()], "tolerations": list(entries)}


SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchLabels": {"app": "web"}}}


def node_term(*requirements: dict[str, Any]) -> Spec:
    """A pod spec whose required node affinity has one term with these matchExpressions."""
    term = {"matchExpressions": list(requirements)}
    return {"containers": [container()], "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}}


def spread(*entries: dict[str, Any]) -> Spec:
    """A pod spec with these topology spread constraints."""
    return {"containers": [container()], "topologySpreadConstraints": list(entries)}


def constraint(**changes: Any) -> dict[str, Any]:
    """A valid spread constraint with ``changes`` (None removes a field)."""
    return {k: v for k, v in {**SPREAD, **changes}.items() if v is not None}


def messages(spec: Spec, tmp_path: Path, *others: dict[str, Any], **pod: Any) -> list[str]:
    """Every message ``load`` reports for a pod ``p`` with ``spec`` (beside ``others``), without the file and
    object prefix."""
    path = tmp_path / "pod.yaml"
    documents = [{"kind": "Pod", "metadata": {"name": "p"}, "spec": spec, **pod}, *others]
    path.write_text("\n---\n".join(json.dumps(d) for d in documents), encoding="utf-8")
    with pytest.raises(InputErrorList) as excinfo:
        load([path])
    prefix = f"{path}: pods/default/p: "
    found = [str(e) for e in excinfo.value.errors]
    assert all(m.startswith(prefix) for m in found), found
    return [m.removeprefix(prefix) for m in found]


def accepted(spec: Spec, tmp_path: Path) -> bool:
    """Whether ``load`` takes a pod ``p`` with ``spec``."""
    path = tmp_path / "pod.yaml"
    path.write_text(json.dumps({"kind": "Pod", "metadata": {"name": "p"}, "spec": spec}), encoding="utf-8")
    return len(load([path]).pods) == 1


R = "spec.containers[0].resources"
T = "spec.tolerations[0]"
S = "spec.topologySpreadConstraints[0]"
AFFINITY = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm"
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")

REJECTED = [
    pytest.param(resources(requests={"example.com/foo": "1"}),
                 [f"{R}.limits: Required value: Limit must be set for non overcommitable resources"],
                 id="extended-request-without-limit"),
    pytest.param(resources(requests={"example.com/foo": "1"}, limits={"example.com/foo": "2"}),
                 [f'{R}.requests: Invalid value: "1": must be equal to example.com/foo limit of 2'],
                 id="extended-request-not-equal-to-limit"),
    pytest.param(resources(requests={"example.com/a": "1k"}, limits={"example.com/a": "1500"}),
                 [f'{R}.requests: Invalid value: "1k": must be equal to example.com/a limit of 1500'],
                 id="extended-request-below-limit"),
    pytest.param(resources(requests={"hugepages-2Mi": "2Mi", "memory": "1Gi"}),
                 [f"{R}.limits: Required value: Limit must be set for non overcommitable resources"],
                 id="hugepages-request-without-limit"),
    pytest.param(resources(limits={"hugepages-2Mi": "2Mi"}),
                 [f"{R}: Forbidden: HugePages require cpu or memory"], id="hugepages-without-cpu-or-memory"),
    pytest.param(resources(limits={"hugepages-1Gi": "1.5Gi", "cpu": "1"}),
                 [f'{R}.limits.hugepages-1Gi: Invalid value: "1536Mi": 1536Mi is not positive integer multiple '
                  "of hugepages-1Gi",
                  f'{R}.requests.hugepages-1Gi: Invalid value: "1536Mi": 1536Mi is not positive integer multiple '
                  "of hugepages-1Gi"], id="hugepages-not-a-multiple-of-the-page"),
    pytest.param(resources(limits={"example.com/foo": "1.5"}),
                 [f'{R}.limits.example.com/foo: Invalid value: "1500m": must be an integer',
                  f'{R}.requests.example.com/foo: Invalid value: "1500m": must be an integer'],
                 id="extended-resource-not-whole"),
    pytest.param(resources(requests={"foo": "1"}),
                 [f"{R}.requests.foo: Invalid value: foo: must be a standard resource type or fully qualified",
                  f"{R}.requests.foo: Invalid value: foo: must be a standard resource for containers"],
                 id="resource-name-unknown"),
    pytest.param(resources(requests={"pods": "1"}),
                 [f"{R}.requests.pods: Invalid value: pods: must be a standard resource for containers"],
                 id="resource-name-not-for-containers"),
    pytest.param(resources(requests={"example.com/-x": "1"}, limits={"example.com/-x": "1"}),
                 [f"{R}.limits.example.com/-x: Invalid value: example.com/-x: {NAME_PART}",
                  f"{R}.limits.example.com/-x: Invalid value: example.com/-x: doesn't follow extended resource name "
                  "standard",
                  f"{R}.requests.example.com/-x: Invalid value: example.com/-x: {NAME_PART}",
                  f"{R}.requests.example.com/-x: Invalid value: example.com/-x: doesn't follow extended resource "
                  "name standard"], id="resource-name-not-extended"),
    pytest.param(resources(requests={"cpu": "2"}, limits={"cpu": "0.0000000001"}),
                 [f'{R}.requests: Invalid value: "2": must be less than or equal to cpu limit of 1m'],
                 id="quantities-rounded-up-to-thousandths"),
    pytest.param(resources(requests={"cpu": "2"}, limits={"cpu": "1"}),
                 [f'{R}.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
                 id="cpu-request-above-limit"),
    pytest.param(resources(requests={"cpu": "1.5"}, limits={"cpu": "1000m"}),
                 [f'{R}.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1'],
                 id="cpu-quantities-shown-canonical"),
    pytest.param(resources(requests={"memory": "0.5Gi"}, limits={"memory": "100Mi"}),
                 [f'{R}.requests: Invalid value: "512Mi": must be less than or equal to memory limit of 100Mi'],
                 id="memory-request-above-limit"),
    pytest.param(resources(requests={"memory": "3000000k"}, limits={"memory": "1e3"}),
                 [f'{R}.requests: Invalid value: "3G": must be less than or equal to memory limit of 1e3'],
                 id="memory-decimal-and-exponent-forms"),
    pytest.param(resources(requests={"ephemeral-storage": "2Gi"}, limits={"ephemeral-storage": "1Gi"}),
                 [f'{R}.requests: Invalid value: "2Gi": must be less than or equal to ephemeral-storage limit '
                  "of 1Gi"], id="ephemeral-storage-request-above-limit"),
    pytest.param(resources(requests={"cpu": "2", "memory": "2Gi", "example.com/a": "1", "example.com/b": "1"},
                           limits={"cpu": "1", "memory": "1Gi", "example.com/b": "2"}),
                 [f'{R}.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
                  f"{R}.limits: Required value: Limit must be set for non overcommitable resources",
                  f'{R}.requests: Invalid value: "1": must be equal to example.com/b limit of 2',
                  f'{R}.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi'],
                 id="every-resource-problem-at-once"),
    pytest.param({"initContainers": [container("i", resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})],
                  "containers": [container()]},
                 ['spec.initContainers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu '
                  "limit of 1"], id="init-container-request-above-limit"),
    pytest.param({"containers": [container(), container()]},
                 ['spec.containers[1].name: Duplicate value: "c"'], id="duplicate-container-names"),
    pytest.param({"initContainers": [container("x"), container("c")], "containers": [container(), container("x")]},
                 ['spec.initContainers[0].name: Duplicate value: "x"',
                  'spec.initContainers[1].name: Duplicate value: "c"'], id="init-container-named-like-a-container"),
    pytest.param({"initContainers": [container(), container()], "containers": [container("d")]},
                 ['spec.initContainers[1].name: Duplicate value: "c"'], id="duplicate-init-container-names"),
    pytest.param({"containers": [container("")]}, ["spec.containers[0].name: Required value"],
                 id="container-without-name"),
    pytest.param({"containers": [container("A_b")]},
                 ['spec.containers[0].name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower '
                  "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
                  "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
                 id="container-name-not-a-label"),
    pytest.param(ports({"containerPort": 80, "hostPort": 70000}),
                 ["spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, "
                  "inclusive"], id="host-port-above-range"),
    pytest.param(ports({"containerPort": 80, "hostPort": -1}),
                 ["spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"],
                 id="host-port-negative"),
    pytest.param(ports({"hostPort": 80}), ["spec.containers[0].ports[0].containerPort: Required value"],
                 id="host-port-without-container-port"),
    pytest.param(ports({"containerPort": 0}), ["spec.containers[0].ports[0].containerPort: Required value"],
                 id="container-port-zero"),
    pytest.param(ports({"containerPort": 70000}),
                 ["spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, "
                  "inclusive"], id="container-port-above-range"),
    pytest.param(ports({"containerPort": 80, "protocol": "tcp"}),
                 ['spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", '
                  '"UDP"'], id="protocol-unsupported"),
    pytest.param(ports({"containerPort": 80, "hostPort": 80}, {"containerPort": 81, "hostPort": 80}),
                 ['spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//80"'],
                 id="host-port-twice-in-a-container"),
    pytest.param({"containers": [container(ports=[{"containerPort": 80, "hostPort": 80, "hostIP": "1.2.3.4"}]),
                                 container("d", ports=[{"containerPort": 81, "hostPort": 80,
                                                        "hostIP": "1.2.3.4"}])]},
                 ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP/1.2.3.4/80"'],
                 id="host-port-twice-across-containers"),
    pytest.param({"initContainers": [container("i", ports=[{"containerPort": 80, "hostPort": 80},
                                                           {"containerPort": 81, "hostPort": 80}])],
                  "containers": [container()]},
                 ['spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//80"'],
                 id="host-port-twice-in-an-init-container"),
    pytest.param({"containers": [container()], "nodeSelector": {"a b": "x", "k": "a b"}},
                 [f'spec.nodeSelector: Invalid value: "a b": {NAME_PART}',
                  f'spec.nodeSelector: Invalid value: "a b": {LABEL_VALUE}'], id="node-selector-not-labels"),
    pytest.param({"containers": [container()], "schedulingGates": [{"name": "a.io/x"}, {"name": "a.io/x"}]},
                 ['spec.schedulingGates[1]: Duplicate value: "a.io/x"'], id="scheduling-gate-repeated"),
    pytest.param(tolerations({"key": "k", "operator": "Exists", "value": "v"}),
                 [f"{T}.operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"],
                 id="toleration-exists-with-value"),
    pytest.param(tolerations({"operator": "Equal", "value": "v"}),
                 [f'{T}.operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means '
                  '"match all values and all keys"'], id="toleration-equal-without-key"),
    pytest.param(tolerations({"value": "v"}),
                 [f'{T}.operator: Invalid value: "": operator must be Exists when `key` is empty, which means '
                  '"match all values and all keys"'], id="toleration-default-operator-without-key"),
    pytest.param(tolerations({"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}),
                 [f"{T}.effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` "
                  "is set"], id="toleration-seconds-with-no-schedule"),
    pytest.param(tolerations({"key": "k", "operator": "Exists", "tolerationSeconds": 5}),
                 [f"{T}.effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set"],
                 id="toleration-seconds-without-effect"),
    pytest.param(tolerations({"key": "k", "operator": "Exists", "value": "v", "effect": "NoSchedule",
                              "tolerationSeconds": 3}),
                 [f"{T}.effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` "
                  "is set",
                  f"{T}.operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"],
                 id="toleration-problems-in-api-server-order"),
    pytest.param(tolerations({"key": "k", "operator": "Exists", "effect": "Bogus"}),
                 [f'{T}.effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", '
                  '"NoExecute"'], id="toleration-effect-unsupported"),
    pytest.param(tolerations({"key": "k", "operator": "In"}),
                 [f'{T}.operator: Unsupported value: "In": supported values: "Equal", "Exists"'],
                 id="toleration-operator-unsupported"),
    pytest.param(tolerations({"key": "a b", "operator": "Exists"}),
                 [f'{T}.key: Invalid value: "a b": {NAME_PART}'], id="toleration-key-not-a-label-key"),
    pytest.param(tolerations({"key": "k", "operator": "Equal", "value": "a b"}),
                 [f'{T}.operator: Invalid value: "a b": {LABEL_VALUE}'], id="toleration-value-not-a-label-value"),
    pytest.param(tolerations({"key": "k", "value": "-" + "a" * 30}),
                 [f'{T}.operator: Invalid value: "-{"a" * 30}": {LABEL_VALUE}'], id="toleration-value-bad-start"),
    pytest.param(spread(constraint(matchLabelKeys=["app"])),
                 [f'{S}.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector'],
                 id="match-label-key-in-match-labels"),
    pytest.param(spread(constraint(labelSelector={"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                                   matchLabelKeys=["x", "app"])),
                 [f'{S}.matchLabelKeys[1]: Invalid value: "app": exists in both matchLabelKeys and labelSelector'],
                 id="match-label-key-in-match-expressions"),
    pytest.param(spread(constraint(matchLabelKeys=["a b"])),
                 [f'{S}.matchLabelKeys[0]: Invalid value: "a b": {NAME_PART}'], id="match-label-key-not-a-key"),
    pytest.param(spread(constraint(matchLabelKeys=[""])),
                 [f'{S}.matchLabelKeys[0]: Invalid value: "": name part must be non-empty',
                  f'{S}.matchLabelKeys[0]: Invalid value: "": {NAME_PART}'], id="match-label-key-empty"),
    pytest.param(spread(constraint(labelSelector={"matchLabels": {"a b": "c d"}})),
                 [f'{S}.labelSelector.matchLabels: Invalid value: "a b": {NAME_PART}',
                  f'{S}.labelSelector.matchLabels: Invalid value: "c d": {LABEL_VALUE}'],
                 id="spread-selector-labels-invalid"),
    pytest.param({"containers": [container()], "affinity": {"podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {
            "topologyKey": "zone", "labelSelector": {"matchExpressions": [
                {"key": "a b", "operator": "In", "values": ["ok", "c d"]}]},
            "namespaceSelector": {"matchLabels": {"a b": "x"}}}}]}}},
                 [f"{AFFINITY}.labelSelector.matchExpressions[0].key: Invalid value: \"a b\": {NAME_PART}",
                  f"{AFFINITY}.labelSelector.matchExpressions[0].values[1]: Invalid value: \"c d\": {LABEL_VALUE}",
                  f"{AFFINITY}.namespaceSelector.matchLabels: Invalid value: \"a b\": {NAME_PART}"],
                 id="affinity-selectors-invalid"),
    pytest.param(spread(constraint(maxSkew=0)), [f"{S}.maxSkew: Invalid value: 0: must be greater than zero"],
                 id="max-skew-zero"),
    pytest.param(spread(constraint(maxSkew=-1)), [f"{S}.maxSkew: Invalid value: -1: must be greater than zero"],
                 id="max-skew-negative"),
    pytest.param(spread(constraint(whenUnsatisfiable="Bogus")),
                 [f'{S}.whenUnsatisfiable: Unsupported value: "Bogus": supported values: "DoNotSchedule", '
                  '"ScheduleAnyway"'], id="when-unsatisfiable-unsupported"),
    pytest.param(spread(constraint(whenUnsatisfiable=None)),
                 [f'{S}.whenUnsatisfiable: Unsupported value: "": supported values: "DoNotSchedule", '
                  '"ScheduleAnyway"'], id="when-unsatisfiable-missing"),
    pytest.param(spread(constraint(whenUnsatisfiable="ScheduleAnyway", minDomains=2)),
                 [f"{S}.minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
                  "not ScheduleAnyway"], id="min-domains-with-schedule-anyway"),
    pytest.param(spread(constraint(minDomains=0)), [f"{S}.minDomains: Invalid value: 0: must be greater than zero"],
                 id="min-domains-zero"),
    pytest.param(spread(constraint(whenUnsatisfiable="ScheduleAnyway", minDomains=-1)),
                 [f"{S}.minDomains: Invalid value: -1: must be greater than zero",
                  f"{S}.minDomains: Invalid value: -1: can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
                  "not ScheduleAnyway"], id="min-domains-both-problems"),
    pytest.param({"hostNetwork": True, "containers": [container(ports=[{"containerPort": 80, "hostPort": 81}])]},
                 ["spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when "
                  "`hostNetwork` is true"], id="host-network-port-differs"),
    pytest.param({"hostNetwork": True, "containers": [container(ports=[{"containerPort": 80},
                                                                       {"containerPort": 80, "hostPort": 80}])]},
                 ['spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//80"'],
                 id="host-network-defaulted-port-repeated"),
    pytest.param(spread(constraint(), constraint(maxSkew=2), constraint(maxSkew=3)),
                 ['spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: '
                  '"{zone, DoNotSchedule}"',
                  'spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: Duplicate value: '
                  '"{zone, DoNotSchedule}"'], id="constraint-repeated"),
]


@pytest.mark.parametrize(("spec", "expected"), REJECTED)
def test_api_server_rejects_pod(spec: Spec, expected: list[str], tmp_path: Path) -> None:
    """A pod the API server rejects is rejected with the API server's field path and words."""
    assert messages(spec, tmp_path) == expected


@pytest.mark.parametrize("spec", [
    pytest.param(resources(limits={"example.com/foo": "2"}), id="extended-limit-alone"),
    pytest.param(resources(requests={"example.com/a": "2"}, limits={"example.com/a": "2000m"}),
                 id="extended-request-equal-to-limit"),
    pytest.param(resources(requests={"kubernetes.io/a": "1"}), id="prefixed-native-request-without-limit"),
    pytest.param(resources(requests={"cpu": "1.0002"}, limits={"cpu": "1.0001"}), id="equal-at-thousandths"),
    pytest.param(resources(limits={"example.com/a": "2k"}), id="extended-resource-in-thousands"),
    pytest.param(resources(requests={"cpu": "1", "memory": "1Gi"}, limits={"cpu": "1000m", "memory": "2Gi"}),
                 id="requests-within-limits"),
    pytest.param({"initContainers": [container("i", ports=[{"containerPort": 80, "hostPort": 80}])],
                  "containers": [container(ports=[{"containerPort": 80, "hostPort": 80}])]},
                 id="init-container-shares-a-host-port"),
    pytest.param(ports({"containerPort": 80, "hostPort": 80}, {"containerPort": 80, "hostPort": 80,
                                                               "protocol": "UDP"}), id="host-port-per-protocol"),
    pytest.param(ports({"containerPort": 80}, {"containerPort": 81}), id="no-host-ports"),
    pytest.param(tolerations({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5}),
                 id="toleration-seconds-with-no-execute"),
    pytest.param(spread(constraint(), constraint(whenUnsatisfiable="ScheduleAnyway")),
                 id="same-key-other-action"),
    pytest.param(spread(constraint(matchLabelKeys=["x", "x"])), id="match-label-key-repeated"),
    pytest.param({"hostNetwork": True, "initContainers": [container("i", ports=[{"containerPort": 90,
                                                                                  "hostPort": 91}])],
                  "containers": [container()]}, id="host-network-init-container-ports-unchecked"),
    pytest.param(node_term({"key": "foo", "operator": "NotIn", "values": ["invalid value: ___@#$%^"]}),
                 id="node-affinity-value-not-a-label-value"),
    pytest.param(node_term({"key": "cores", "operator": "Gt", "values": ["abc"]}),
                 id="node-affinity-gt-value-not-an-integer"),
])
def test_api_server_accepts_pod(spec: Spec, tmp_path: Path) -> None:
    """A pod the API server accepts loads."""
    assert accepted(spec, tmp_path)


def test_running_pod_is_held_to_the_same_rules(tmp_path: Path) -> None:
    """A pod already bound to a node (as in a dump) was validated on creation, so it is checked the same way."""
    spec = {**resources(requests={"example.com/foo": "1"}), "nodeName": "n1"}
    node = {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"example.com/foo": "4"}}}
    assert messages(spec, tmp_path, node, status={"phase": "Running"}) == [
        f"{R}.limits: Required value: Limit must be set for non overcommitable resources"]


def pod_term(*requirements: dict[str, Any]) -> Spec:
    """A pod spec whose required pod affinity has one term selecting with these matchExpressions."""
    term = {"topologyKey": "zone", "labelSelector": {"matchExpressions": list(requirements)}}
    return {"containers": [container()], "affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term]}}}


NODE_REQ = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]" \
           ".matchExpressions[0]"
POD_REQ = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector" \
          ".matchExpressions[0]"
IN_NEEDS_VALUES = "Required value: must be specified when `operator` is 'In' or 'NotIn'"
EXISTS_TAKES_NONE = "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"


@pytest.mark.parametrize(("spec", "expected"), [
    pytest.param(node_term({"key": "zone", "operator": "In"}), [f"{NODE_REQ}.values: {IN_NEEDS_VALUES}"],
                 id="node-in-without-values"),
    pytest.param(node_term({"key": "zone", "operator": "Exists", "values": ["a"]}),
                 [f"{NODE_REQ}.values: {EXISTS_TAKES_NONE}"], id="node-exists-with-values"),
    pytest.param(node_term({"key": "zone"}), [f"{NODE_REQ}.operator: Required value"], id="node-no-operator"),
    pytest.param(pod_term({"key": "app", "operator": "NotIn"}), [f"{POD_REQ}.values: {IN_NEEDS_VALUES}"],
                 id="label-notin-without-values"),
    pytest.param(pod_term({"key": "app", "operator": "DoesNotExist", "values": ["a"]}),
                 [f"{POD_REQ}.values: {EXISTS_TAKES_NONE}"], id="label-does-not-exist-with-values"),
    pytest.param(pod_term({"key": "app"}), [f"{POD_REQ}.operator: Required value"], id="label-no-operator"),
])
def test_selector_requirements_follow_their_operator(spec: Spec, expected: list[str], tmp_path: Path) -> None:
    """Node and label selector requirements share the operator rules: an operator is required, In/NotIn need
    values and Exists/DoesNotExist take none."""
    assert messages(spec, tmp_path) == expected


def test_host_network_ports_default_to_host_ports(tmp_path: Path) -> None:
    """As the API server defaults them, a hostNetwork pod's ports without hostPort (init containers' too) get
    their containerPort as hostPort, so NodePorts counts them."""
    path = tmp_path / "pod.yaml"
    path.write_text(json.dumps({"kind": "Pod", "metadata": {"name": "p"}, "spec": {
        "hostNetwork": True, "initContainers": [container("i", ports=[{"containerPort": 7070}])],
        "containers": [container(ports=[{"containerPort": 80}, {"containerPort": 81, "hostPort": 81},
                                        {"containerPort": 82, "protocol": "UDP"}])]}}), encoding="utf-8")
    spec = load([path]).pods[0].spec
    assert [(p.container_port, p.host_port, p.protocol) for p in spec.containers[0].ports] == [
        (80, 80, "TCP"), (81, 81, "TCP"), (82, 82, "UDP")]
    assert [(p.container_port, p.host_port) for p in spec.init_containers[0].ports] == [(7070, 7070)]


def test_ports_of_other_pods_keep_no_host_port(tmp_path: Path) -> None:
    """Without hostNetwork a port without hostPort stays without one."""
    path = tmp_path / "pod.yaml"
    path.write_text(json.dumps({"kind": "Pod", "metadata": {"name": "p"}, "spec": {
        "hostNetwork": False, "containers": [container(ports=[{"containerPort": 80}])]}}), encoding="utf-8")
    assert load([path]).pods[0].spec.containers[0].ports[0].host_port == 0
