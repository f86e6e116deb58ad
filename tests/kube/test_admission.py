"""Admission against the real v1.32 API server: each case creates the same objects (LimitRanges, ResourceQuotas,
RuntimeClasses, PriorityClasses, earlier pods) on a real API server and in kubesched's simulated one, then one pod,
and both must refuse it with the same message or admit it the same way (defaulted resources, the LimitRanger
annotation, tolerations, overhead, node selector, priority).

The API server runs LimitRanger, DefaultTolerationSeconds, RuntimeClass and ResourceQuota by default and Priority as
the fixture enables it. No quota controller runs: a quota's status starts as its hard limits with zero usage, and the
API server's own admission keeps the usage as the earlier pods are created, as kubesched's does.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kubesched.admission.amounts import show
from kubesched.admission.errors import AdmissionError
from kubesched.api.pod import Pod
from kubesched.io import decode, decode_admission, decode_pod
from kubesched.kube.rest import ApiError, KubeApi
from kubesched.sim.admission import ApiAdmission
from kubesched.sim.agenda import VirtualClock
from kubesched.sim.cluster import InMemoryCluster
from kubesched.testing.kube import ControlPlane

pytestmark = [pytest.mark.kube, pytest.mark.slow]

CLUSTER_OBJECTS = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
scheduling:
  nodeSelector: {sandbox: "true"}
  tolerations:
  - {key: sandbox, operator: Exists, effect: NoSchedule}
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}
"""
KWOK_RANGE = ("{kind: LimitRange, metadata: {name: cpu}, spec: {limits: [{type: Container, default: {cpu: 500m}, "
              "defaultRequest: {cpu: 250m}, max: {cpu: '1'}, min: {cpu: 100m}}]}}")
COMPUTE_QUOTA = ("{kind: ResourceQuota, metadata: {name: compute}, spec: {hard: {requests.cpu: '1', limits.memory: "
                 "1Gi, pods: '3'}}}")


def spec_pod(name: str, spec: str) -> str:
    """A pod (flow YAML) with that spec."""
    return f"{{kind: Pod, metadata: {{name: {name}}}, spec: {spec}}}"


SMALL = "{containers: [{name: a, image: x, resources: {requests: {cpu: 600m}, limits: {memory: 600Mi}}}]}"
CASES = [
    pytest.param([KWOK_RANGE], [], spec_pod("p1", "{containers: [{name: app, image: x, resources: {requests: "
                                                  "{cpu: 700m}}}]}"), id="a request above the defaulted limit"),
    pytest.param([KWOK_RANGE], [], spec_pod("p2", "{initContainers: [{name: i, image: x}], containers: [{name: app, "
                                                  "image: x, resources: {requests: {cpu: 300m}}}]}"),
                 id="limit range defaults and annotation"),
    pytest.param([KWOK_RANGE], [], spec_pod("p3", "{containers: [{name: a, image: x, resources: {requests: {cpu: 2},"
                                                  " limits: {cpu: 3}}}, {name: b, image: x, resources: {requests: "
                                                  "{cpu: 50m}}}]}"), id="limit range bounds aggregated"),
    pytest.param(["{kind: LimitRange, metadata: {name: ratio}, spec: {limits: [{type: Container, "
                  "maxLimitRequestRatio: {cpu: 2}}]}}"], [],
                 spec_pod("p4", "{containers: [{name: a, image: x, resources: {requests: {cpu: 100m}, limits: "
                                "{cpu: 1}}}]}"), id="limit to request ratio"),
    pytest.param(["{kind: LimitRange, metadata: {name: pod}, spec: {limits: [{type: Pod, max: {cpu: 1}}]}}"], [],
                 spec_pod("p5", "{containers: [{name: a, image: x, resources: {limits: {cpu: 700m}}}, {name: b, "
                                "image: x, resources: {limits: {cpu: 800m}}}]}"), id="pod maximum on the sum"),
    pytest.param([], [], spec_pod("p6", "{runtimeClassName: gvisor, nodeSelector: {zone: a}, tolerations: [{key: "
                                        "sandbox, operator: Equal, value: x, effect: NoSchedule}, {operator: Exists, "
                                        "effect: NoSchedule}], containers: [{name: a, image: x}]}"),
                 id="runtime class overhead, selector and tolerations"),
    pytest.param([], [], spec_pod("p7", "{runtimeClassName: gvisor, nodeSelector: {sandbox: 'false'}, containers: "
                                        "[{name: a, image: x}]}"), id="runtime class selector conflict"),
    pytest.param([], [], spec_pod("p8", "{runtimeClassName: kata, containers: [{name: a, image: x}]}"),
                 id="unknown runtime class"),
    pytest.param([], [], spec_pod("p9", "{overhead: {cpu: 1}, containers: [{name: a, image: x}]}"),
                 id="overhead without a runtime class"),
    pytest.param([], [], spec_pod("p10", "{priorityClassName: gold, containers: [{name: a, image: x}]}"),
                 id="unknown priority class"),
    pytest.param([], [], spec_pod("p11", "{tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, "
                                         "effect: NoExecute, tolerationSeconds: 20}], containers: [{name: a, "
                                         "image: x}]}"), id="own not-ready toleration kept"),
    pytest.param([COMPUTE_QUOTA], [spec_pod("before", SMALL)], spec_pod("p12", SMALL), id="quota exceeded"),
    pytest.param([COMPUTE_QUOTA], [], spec_pod("p13", "{initContainers: [{name: i, image: x}], containers: [{name: a, "
                                                      "image: x}, {name: b, image: x, resources: {requests: {cpu: 1}"
                                                      "}}]}"), id="quota needs cpu and memory stated"),
    pytest.param(["{kind: ResourceQuota, metadata: {name: high}, spec: {hard: {pods: '1'}, scopeSelector: "
                  "{matchExpressions: [{scopeName: PriorityClass, operator: In, values: [high]}]}}}"],
                 [spec_pod("first", "{priorityClassName: high, containers: [{name: a, image: x}]}"),
                  spec_pod("low", "{containers: [{name: a, image: x}]}")],
                 spec_pod("p14", "{priorityClassName: high, containers: [{name: a, image: x}]}"),
                 id="quota scoped to a priority class"),
    pytest.param(["{kind: ResourceQuota, metadata: {name: best}, spec: {hard: {pods: '1'}, scopes: [BestEffort]}}"],
                 [spec_pod("first", "{containers: [{name: a, image: x}]}")],
                 spec_pod("p15", "{containers: [{name: a, image: x, resources: {requests: {cpu: 100m}}}]}"),
                 id="quota scoped to best effort pods"),
]


def _plural(kind: str) -> tuple[str, str]:
    """(API path prefix, resource) of a kind."""
    return {"PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses"),
            "RuntimeClass": ("/apis/node.k8s.io/v1", "runtimeclasses"),
            "LimitRange": ("/api/v1", "limitranges"), "ResourceQuota": ("/api/v1", "resourcequotas"),
            "Pod": ("/api/v1", "pods"), "Namespace": ("/api/v1", "namespaces")}[kind]


def _post(api: KubeApi, obj: dict[str, Any], namespace: str = "") -> dict[str, Any]:
    prefix, plural = _plural(obj["kind"])
    obj = {"apiVersion": {"PriorityClass": "scheduling.k8s.io/v1", "RuntimeClass": "node.k8s.io/v1"}.get(
        obj["kind"], "v1"), **obj}
    path = f"{prefix}/namespaces/{namespace}/{plural}" if namespace else f"{prefix}/{plural}"
    return api.request("POST", path, body=obj)


@pytest.fixture(scope="module")
def api(kube_control_plane: ControlPlane) -> KubeApi:
    """The module's API server, with the cluster-scoped objects every case shares."""
    connection = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    for obj in yaml.safe_load_all(CLUSTER_OBJECTS):
        _post(connection, obj)
    return connection


def _real(api: KubeApi, namespace: str, objects: list[str], before: list[str], pod: str) -> tuple[str, Any]:
    """What the real API server does with ``pod`` after creating ``objects`` and ``before`` in ``namespace``."""
    _post(api, {"kind": "Namespace", "metadata": {"name": namespace}})
    for text in objects:
        created = _post(api, yaml.safe_load(text), namespace)
        if created["kind"] == "ResourceQuota":
            hard = created["spec"]["hard"]
            created["status"] = {"hard": hard, "used": dict.fromkeys(hard, "0")}
            api.request("PUT", f"/api/v1/namespaces/{namespace}/resourcequotas/{created['metadata']['name']}/status",
                        body=created)
    for text in before:
        _post(api, yaml.safe_load(text), namespace)
    try:
        return "admitted", _summary_of_json(_post(api, yaml.safe_load(pod), namespace))
    except ApiError as error:
        return "refused", error.message


def _simulated(namespace: str, objects: list[str], before: list[str], pod: str) -> tuple[str, Any]:
    """What kubesched's simulated API server does with the same objects and pods."""
    admission = ApiAdmission(cluster := InMemoryCluster(VirtualClock()))
    shared = list(yaml.safe_load_all(CLUSTER_OBJECTS))
    admission.add(priority_classes=[decode.priority_class(o) for o in shared if o["kind"] == "PriorityClass"],
                  runtime_classes=[decode_admission.runtime_class(o) for o in shared if o["kind"] == "RuntimeClass"])
    for text in objects:
        obj = yaml.safe_load(text)
        obj["metadata"]["namespace"] = namespace
        if obj["kind"] == "LimitRange":
            admission.add(limit_ranges=[decode_admission.limit_range(obj)])
        else:
            admission.add(quotas=[decode_admission.resource_quota(obj)])

    def pod_of(text: str) -> Pod:
        obj = yaml.safe_load(text)
        obj["metadata"].update(namespace=namespace, uid=f"{namespace}/{obj['metadata']['name']}")
        return decode_pod.pod(obj)

    for text in before:
        cluster.add_pod(admission.admit(pod_of(text)))
    try:
        return "admitted", _summary_of_pod(admission.admit(pod_of(pod)))
    except AdmissionError as error:
        return "refused", error.api_message()


def _summary_of_json(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj["spec"]
    containers = [(c["name"], c.get("resources", {}).get("requests", {}), c.get("resources", {}).get("limits", {}))
                  for c in [*spec.get("initContainers", []), *spec["containers"]]]
    tolerations = [(t.get("key", ""), t.get("operator", "Equal"), t.get("value", ""), t.get("effect", ""),
                    t.get("tolerationSeconds")) for t in spec.get("tolerations", [])]
    return {"containers": containers, "tolerations": tolerations, "overhead": spec.get("overhead", {}),
            "nodeSelector": spec.get("nodeSelector", {}), "priority": spec.get("priority"),
            "annotation": obj["metadata"].get("annotations", {}).get("kubernetes.io/limit-ranger")}


def _summary_of_pod(pod: Pod) -> dict[str, Any]:
    def shown(values: Any) -> dict[str, str]:
        return {name: show(q) for name, q in values.items()}

    return {"containers": [(c.name, shown(c.requests), shown(c.limits))
                           for c in (*pod.spec.init_containers, *pod.spec.containers)],
            "tolerations": [(t.key, t.operator, t.value, t.effect, t.toleration_seconds) for t in pod.spec.tolerations],
            "overhead": shown(pod.spec.overhead), "nodeSelector": dict(pod.spec.node_selector),
            "priority": pod.spec.priority, "annotation": pod.metadata.annotations.get("kubernetes.io/limit-ranger")}


@pytest.mark.parametrize(("objects", "before", "pod"), CASES)
def test_kubesched_admits_as_the_api_server_does(api: KubeApi, request: pytest.FixtureRequest, objects: list[str],
                                                  before: list[str], pod: str) -> None:
    """The same verdict: the same refusal message, or the same admitted pod."""
    namespace = f"case-{request.node.callspec.indices['objects']}"
    assert _simulated(namespace, objects, before, pod) == _real(api, namespace, objects, before, pod)
