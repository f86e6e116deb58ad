"""kube-scheduler v1.32's NodeResourcesFit Filter tables (fit_test.go), translated with the public testing kit:
TestEnoughRequests, TestNotEnoughRequests, TestStorageRequests, TestRestartableInitContainers,
TestPreFilterDisabled, TestEventsToRegister and the queueing-hint tables (Test_isSchedulableAfterPodChange,
Test_isSchedulableAfterNodeChange, TestIsFit and TestHaveAnyRequestedResourcesIncreased through the hints).

The scoring tables of fit_test.go (TestFitScore) are in test_noderesources_score.py. fit_test.go at v1.32 is not
in the reference store: the tables follow the closest stored version (v1.33 development: Score takes a NodeInfo),
checked against an older one (v1.30) and, where they differ, against v1.32 itself: TestPreFilterDisabled keeps
v1.32's message, which the v1.33 test no longer spells (read from a real v1.32 kube-scheduler's events).

Every node of a Filter table is kube's: allocatable (and capacity) cpu 10m, memory 20, pods 32, example.com/aaa 5,
ephemeral-storage 20, hugepages-2Mi 5 (TestNotEnoughRequests: cpu 10m, memory 20, pods 1; TestRestartable-
InitContainers: cpu 2m, pods 1). A kube ``framework.Resource{MilliCPU: c, Memory: m, ...}`` container is
``res(c, m, ...)`` here: requests in millicores and bytes, zeros written out as kube's test pods write them.

kube cases not expressed here, and why:
- TestEnoughRequests "both pod-level and container-level resources fit", "pod-level cpu resource not fit",
  "pod-level memory resource not fit", "pod-level hugepages resource fit", "both pod-level and container-level
  hugepages resource fit", "pod-level hugepages resource not fit", "one pod-level cpu resource fits and all init
  and non-init containers resources fit": pod-level resources (spec.resources) are behind the PodLevelResources
  gate, alpha and off in v1.32; kubesched's object model has no spec.resources.
- TestRestartableInitContainers "allow pod without restartable init containers if sidecar containers is
  disabled", "not allow pod with restartable init containers if sidecar containers is disabled": the
  SidecarContainers gate is on in v1.32 (default gates) and kubesched has no switch to turn it off.
- TestEventsToRegister "Register events with InPlacePodVerticalScaling feature enabled", "... feature disabled"
  (the latter is the SchedulingQueueHint-off variant): v1.32's default gates have queueing hints on and
  InPlacePodVerticalScaling off, which is the one variant kubesched runs ("... SchedulingQueueHint feature
  enabled" below).
- Test_isSchedulableAfterPodChange "backoff-wrong-old-object", "backoff-wrong-new-object" and
  Test_isSchedulableAfterNodeChange "backoff-wrong-new-object", "backoff-wrong-old-object": objects of the wrong
  type cannot be built (the kit's objects are typed).
- Test_isSchedulableAfterPodChange "skip-queue-on-other-unscheduled-pod", "skip-queue-on-other-pod-unrelated-
  resource-scaled-down", "queue-on-other-pod-some-resource-scale-down", "queue-on-target-pod-some-resource-scale-
  down": pod scale-down events need InPlacePodVerticalScaling, off in v1.32 ("skip-queue-on-disable-inplace-pod-
  vertical-scaling" below is the default-gates answer for the same event).
- TestIsFit "nil node" (no node object to build), and the "... pod-level resource ..." cases (PodLevelResources,
  as above).
- TestHaveAnyRequestedResourcesIncreased "requested-resources-decreased": the helper is private; through the
  Node/UpdateNodeAllocatable hint the modified node does not fit the pod, so the hint answers QueueSkip before it
  compares the two nodes and the row would not test the comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pytest

from kubesched.api import Node, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeInfo,
    QueueingHint,
    Status,
)
from kubesched.testing import PATHS, hint, like, make_node, make_pod, plugin_framework, plugin_instance

#: The scheduler path a table runs on (the kit's PATHS).
Path = Literal["per-node", "batch"]
FIT = "NodeResourcesFit"
EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_PAGE_A = "hugepages-2Mi"
NODE = "node"

Amounts = dict[str, str | int | float]


def res(milli_cpu: int = 0, memory: int = 0, storage: int = 0, **scalar: int) -> Amounts:
    """kube's ``framework.Resource`` as one container's requests (``newResourcePod`` writes every field)."""
    return {"cpu": f"{milli_cpu}m", "memory": memory, "ephemeral-storage": storage, **scalar}


def pod(*containers: Amounts, init: Sequence[Amounts] = (), overhead: Amounts | None = None,
        name: str = "pod", node: str = "") -> Pod:
    """kube's ``newResourcePod`` (one container per request set), ``newResourceInitPod`` (``init``) and
    ``newResourceOverheadPod`` (``overhead``); bound to ``node`` when given."""
    builder = make_pod(name).no_containers()
    for requests in containers:
        builder.container(requests)
    for requests in init:
        builder.init_req(False, **requests)
    if overhead is not None:
        builder.overhead(**overhead)
    if node:
        builder.node(node)
    return builder.obj()


def on_node(*containers: Amounts) -> list[Pod]:
    """The pod kube's NodeInfo holds: ``framework.NewNodeInfo(newResourcePod(...))``."""
    return [pod(*containers, name="existing", node=NODE)]


def fit_node(milli_cpu: int, memory: int, pods: int, extended_a: int, storage: int, huge_page_a: int) -> Node:
    """kube's ``makeResources``/``makeAllocatableResources``: capacity and allocatable alike."""
    return make_node(NODE).capacity(cpu=f"{milli_cpu}m", memory=memory, pods=pods, ephemeral_storage=storage,
                                    **{EXT_A: extended_a, HUGE_PAGE_A: huge_page_a}).obj()


def run_filter(path: Path, node: Node, existing: Sequence[Pod], incoming: Pod,
               args: Mapping[str, Any] | None = None) -> Status | None:
    """PreFilter and Filter of NodeResourcesFit for ``incoming`` on the one node."""
    framework = plugin_framework((FIT, args), path=path, nodes=[node], pods=existing)
    return framework.run_filter(incoming)[NODE]


def unschedulable(*resources: str) -> Status:
    """kube's ``framework.NewStatus(framework.Unschedulable, getErrReason(r)...)``."""
    return Status.unschedulable(*(f"Insufficient {r}" for r in resources))


# -- TestEnoughRequests ----------------------------------------------------------------------------------------------

ENOUGH_REQUESTS = [
    pytest.param(pod(), res(10, 20), None, None, id="no resources requested always fits"),
    pytest.param(pod(res(1, 1)), res(10, 20), None, unschedulable("cpu", "memory"), id="too many resources fails"),
    pytest.param(pod(res(1, 1), init=[res(3, 1)]), res(8, 19), None, unschedulable("cpu"),
                 id="too many resources fails due to init container cpu"),
    pytest.param(pod(res(1, 1), init=[res(3, 1), res(2, 1)]), res(8, 19), None, unschedulable("cpu"),
                 id="too many resources fails due to highest init container cpu"),
    pytest.param(pod(res(1, 1), init=[res(1, 3)]), res(9, 19), None, unschedulable("memory"),
                 id="too many resources fails due to init container memory"),
    pytest.param(pod(res(1, 1), init=[res(1, 3), res(1, 2)]), res(9, 19), None, unschedulable("memory"),
                 id="too many resources fails due to highest init container memory"),
    pytest.param(pod(res(1, 1), init=[res(1, 1)]), res(9, 19), None, None,
                 id="init container fits because it's the max, not sum, of containers and init containers"),
    pytest.param(pod(res(1, 1), init=[res(1, 1), res(1, 1)]), res(9, 19), None, None,
                 id="multiple init containers fit because it's the max, not sum, of containers and init containers"),
    pytest.param(pod(res(1, 1)), res(5, 5), None, None, id="both resources fit"),
    pytest.param(pod(res(2, 1)), res(9, 5), None, unschedulable("cpu"), id="one resource memory fits"),
    pytest.param(pod(res(1, 2)), res(5, 19), None, unschedulable("memory"), id="one resource cpu fits"),
    pytest.param(pod(res(5, 1)), res(5, 19), None, None, id="equal edge case"),
    pytest.param(pod(res(4, 1), init=[res(5, 1)]), res(5, 19), None, None, id="equal edge case for init container"),
    pytest.param(pod(res(**{EXT_A: 1})), res(), None, None, id="extended resource fits"),
    pytest.param(pod(res(), init=[res(**{EXT_A: 1})]), res(), None, None,
                 id="extended resource fits for init container"),
    pytest.param(pod(res(1, 1, **{EXT_A: 10})), res(0, 0, **{EXT_A: 0}), None, unschedulable(EXT_A),
                 id="extended resource capacity enforced"),
    pytest.param(pod(res(), init=[res(1, 1, **{EXT_A: 10})]), res(0, 0, **{EXT_A: 0}), None, unschedulable(EXT_A),
                 id="extended resource capacity enforced for init container"),
    pytest.param(pod(res(1, 1, **{EXT_A: 1})), res(0, 0, **{EXT_A: 5}), None, unschedulable(EXT_A),
                 id="extended resource allocatable enforced"),
    pytest.param(pod(res(), init=[res(1, 1, **{EXT_A: 1})]), res(0, 0, **{EXT_A: 5}), None, unschedulable(EXT_A),
                 id="extended resource allocatable enforced for init container"),
    pytest.param(pod(res(1, 1, **{EXT_A: 3}), res(1, 1, **{EXT_A: 3})), res(0, 0, **{EXT_A: 2}), None,
                 unschedulable(EXT_A), id="extended resource allocatable enforced for multiple containers"),
    pytest.param(pod(res(), init=[res(1, 1, **{EXT_A: 3}), res(1, 1, **{EXT_A: 3})]), res(0, 0, **{EXT_A: 2}),
                 None, None,
                 id="extended resource allocatable admits multiple init containers"),
    pytest.param(pod(res(), init=[res(1, 1, **{EXT_A: 6}), res(1, 1, **{EXT_A: 3})]), res(0, 0, **{EXT_A: 2}), None,
                 unschedulable(EXT_A), id="extended resource allocatable enforced for multiple init containers"),
    pytest.param(pod(res(1, 1, **{EXT_B: 1})), res(0, 0), None, unschedulable(EXT_B),
                 id="extended resource allocatable enforced for unknown resource"),
    pytest.param(pod(res(), init=[res(1, 1, **{EXT_B: 1})]), res(0, 0), None, unschedulable(EXT_B),
                 id="extended resource allocatable enforced for unknown resource for init container"),
    pytest.param(pod(res(1, 1, **{K8S_IO_A: 10})), res(0, 0), None, unschedulable(K8S_IO_A),
                 id="kubernetes.io resource capacity enforced"),
    pytest.param(pod(res(), init=[res(1, 1, **{K8S_IO_B: 10})]), res(0, 0), None, unschedulable(K8S_IO_B),
                 id="kubernetes.io resource capacity enforced for init container"),
    pytest.param(pod(res(1, 1, **{HUGE_PAGE_A: 10})), res(0, 0, **{HUGE_PAGE_A: 0}), None, unschedulable(HUGE_PAGE_A),
                 id="hugepages resource capacity enforced"),
    pytest.param(pod(res(), init=[res(1, 1, **{HUGE_PAGE_A: 10})]), res(0, 0, **{HUGE_PAGE_A: 0}), None,
                 unschedulable(HUGE_PAGE_A), id="hugepages resource capacity enforced for init container"),
    pytest.param(pod(res(1, 1, **{HUGE_PAGE_A: 3}), res(1, 1, **{HUGE_PAGE_A: 3})), res(0, 0, **{HUGE_PAGE_A: 2}), None,
                 unschedulable(HUGE_PAGE_A), id="hugepages resource allocatable enforced for multiple containers"),
    pytest.param(pod(res(1, 1, **{EXT_B: 1})), res(0, 0), {"ignored-resources": [EXT_B]}, None,
                 id="skip checking ignored extended resource"),
    pytest.param(pod(res(1, 1), overhead={"cpu": "3m", "memory": 13}), res(5, 5), None, None,
                 id="resources + pod overhead fits"),
    pytest.param(pod(res(1, 1), overhead={"cpu": "1m", "memory": 15}), res(5, 5), None, unschedulable("memory"),
                 id="requests + overhead does not fit for memory"),
    pytest.param(pod(res(1, 1, **{EXT_B: 1, K8S_IO_A: 1})), res(0, 0), {"ignored-resource-groups": ["example.com"]},
                 unschedulable(K8S_IO_A), id="skip checking ignored extended resource via resource groups"),
    pytest.param(pod(res(1, 1, **{EXT_A: 0})), res(0, 0, **{EXT_A: 6}), None, None,
                 id="skip checking extended resource request with quantity zero via resource groups"),
    pytest.param(pod(res(**{EXT_A: 1})), res(20, 30, **{EXT_A: 1}), None, None,
                 id="skip checking resource request with quantity zero"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "existing", "args", "want"), ENOUGH_REQUESTS)
def test_enough_requests(path: Path, incoming: Pod, existing: Amounts, args: Mapping[str, Any] | None,
                         want: Status | None) -> None:
    """Filter reports each resource the node lacks for the pod's effective request (kube's TestEnoughRequests)."""
    node = fit_node(10, 20, 32, 5, 20, 5)
    assert run_filter(path, node, on_node(existing), incoming, args) == like(want)


# -- TestNotEnoughRequests -------------------------------------------------------------------------------------------

NOT_ENOUGH_REQUESTS = [
    pytest.param(pod(), res(10, 20),
                 id="even without specified resources, predicate fails when there's no space for additional pod"),
    pytest.param(pod(res(1, 1)), res(5, 5),
                 id="even if both resources fit, predicate fails when there's no space for additional pod"),
    pytest.param(pod(res(5, 1)), res(5, 19),
                 id="even for equal edge case, predicate fails when there's no space for additional pod"),
    pytest.param(pod(res(5, 1), init=[res(5, 1)]), res(5, 19),
                 id="even for equal edge case, predicate fails when there's no space for additional pod due to init "
                    "container"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "existing"), NOT_ENOUGH_REQUESTS)
def test_not_enough_requests(path: Path, incoming: Pod, existing: Amounts) -> None:
    """A node whose one pod slot is taken rejects every pod with "Too many pods" (kube's TestNotEnoughRequests)."""
    node = make_node(NODE).allocatable(cpu="10m", memory=20, pods=1, ephemeral_storage=0,
                                       **{EXT_A: 0, HUGE_PAGE_A: 0}).obj()
    assert run_filter(path, node, on_node(existing), incoming) == like(Status.unschedulable("Too many pods"))


# -- TestStorageRequests ---------------------------------------------------------------------------------------------

STORAGE_REQUESTS = [
    pytest.param(pod(res(1, 1)), res(2, 10), None, id="empty storage requested, and pod fits"),
    pytest.param(pod(res(storage=25)), res(2, 2), unschedulable("ephemeral-storage"),
                 id="storage ephemeral local storage request exceeds allocatable"),
    pytest.param(pod(res(storage=5)), res(2, 2, 10), None, id="ephemeral local storage is sufficient"),
    pytest.param(pod(res(storage=10)), res(2, 2), None, id="pod fits"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "existing", "want"), STORAGE_REQUESTS)
def test_storage_requests(path: Path, incoming: Pod, existing: Amounts, want: Status | None) -> None:
    """Filter checks ephemeral-storage against what is left of it (kube's TestStorageRequests)."""
    node = fit_node(10, 20, 32, 5, 20, 5)
    assert run_filter(path, node, on_node(existing), incoming) == like(want)


# -- TestRestartableInitContainers -----------------------------------------------------------------------------------


def sidecar_pod(request: Amounts | None = None, sidecar_request: Amounts | None = None) -> Pod:
    """kube's ``newPodWithRestartableInitContainers``: a regular container and one restartable init container."""
    return (make_pod("pod").no_containers().container(request or {}, name="regular")
            .init_req(sidecar=True, **(sidecar_request or {})).obj())


RESTARTABLE_INIT_CONTAINERS = [
    pytest.param(make_pod("pod").no_containers().container(name="regular").obj(), None,
                 id="allow pod without restartable init containers if sidecar containers is enabled"),
    pytest.param(sidecar_pod(), None, id="allow pod with restartable init containers if sidecar containers is enabled"),
    pytest.param(sidecar_pod({"cpu": "1m"}, {"cpu": "1m"}), None,
                 id="allow pod if the total requested resources do not exceed the node's allocatable resources"),
    pytest.param(sidecar_pod({"cpu": "1m"}, {"cpu": "2m"}), Status.unschedulable("Insufficient cpu"),
                 id="not allow pod if the total requested resources do exceed the node's allocatable resources"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "want"), RESTARTABLE_INIT_CONTAINERS)
def test_restartable_init_containers(path: Path, incoming: Pod, want: Status | None) -> None:
    """Sidecars' requests add to the regular containers' (kube's TestRestartableInitContainers)."""
    node = make_node(NODE).allocatable(cpu="2m", memory=0, pods=1, ephemeral_storage=0,
                                       **{EXT_A: 0, HUGE_PAGE_A: 0}).obj()
    assert run_filter(path, node, [], incoming) == like(want)


# -- TestPreFilterDisabled -------------------------------------------------------------------------------------------


def test_pre_filter_disabled() -> None:
    """Filter without PreFilter's state is an Error in v1.32's words (kube's TestPreFilterDisabled)."""
    framework = plugin_framework(FIT, nodes=[make_node(NODE).obj()])
    filter_hook = framework.hook(FIT, "filter")
    assert filter_hook is not None
    status = filter_hook(CycleState(), make_pod("pod").no_containers().obj(), NodeInfo.of(make_node(NODE).obj()))
    assert status == like(Status(Code.ERROR, ('error reading "PreFilterNodeResourcesFit" from cycleState: not found',)))


# -- TestEventsToRegister --------------------------------------------------------------------------------------------


def test_events_to_register_with_scheduling_queue_hint_enabled() -> None:
    """With queueing hints on (v1.32's default) Fit registers Pod/Delete and Node/Add|UpdateNodeAllocatable
    (kube's "Register events with SchedulingQueueHint feature enabled")."""
    registrations: list[ClusterEventWithHint] = plugin_instance(FIT).events_to_register()
    events = [registration.event for registration in registrations]
    assert events == [ClusterEvent(EventResource.POD, ActionType.DELETE),
                      ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE)]


# -- Test_isSchedulableAfterPodChange --------------------------------------------------------------------------------

POD_DELETE = ClusterEvent(EventResource.POD, ActionType.DELETE)
POD_SCALE_DOWN = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN)
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_ALLOCATABLE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_ALLOCATABLE)


def cpu_pod(name: str, cpu: str, node: str = "") -> Pod:
    """``st.MakePod().Name(name).Req({cpu})`` (and ``.Node(node)``)."""
    builder = make_pod(name).no_containers().req(cpu=cpu)
    return (builder.node(node) if node else builder).obj()


POD_CHANGES = [
    pytest.param(cpu_pod("pod1", "1"), POD_DELETE, cpu_pod("pod2", "1", "fake"), None, QueueingHint.QUEUE,
                 id="queue-on-other-pod-deleted"),
    pytest.param(make_pod("pod").no_containers().obj(), POD_DELETE, make_pod("other").no_containers().obj(), None,
                 QueueingHint.QUEUE_SKIP, id="skip-queue-on-unscheduled-pod-deleted"),
    pytest.param(cpu_pod("pod1", "1"), POD_SCALE_DOWN, cpu_pod("pod2", "2", "fake"), cpu_pod("pod2", "1", "fake"),
                 QueueingHint.QUEUE_SKIP, id="skip-queue-on-disable-inplace-pod-vertical-scaling"),
]


@pytest.mark.parametrize(("incoming", "event", "old", "new", "want"), POD_CHANGES)
def test_is_schedulable_after_pod_change(incoming: Pod, event: ClusterEvent, old: Pod | None, new: Pod | None,
                                         want: QueueingHint) -> None:
    """A bound pod's deletion may free room; other pod changes do not (kube's Test_isSchedulableAfterPodChange)."""
    assert hint(FIT, incoming, event, old, new) is want


# -- Test_isSchedulableAfterNodeChange, TestIsFit, TestHaveAnyRequestedResourcesIncreased ----------------------------


def cap_node(**capacity: str) -> Node:
    """``st.MakeNode().Capacity({...})``: capacity and allocatable alike."""
    return make_node("node").capacity(**capacity).obj()


MEM2_EXT_A1 = pod(res(memory=2, **{EXT_A: 1}))

NODE_CHANGES = [
    pytest.param(pod(res(memory=2)), NODE_ADD, None, cap_node(memory="1"), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-node-add-without-sufficient-resources"),
    pytest.param(pod(res(**{EXT_A: 1})), NODE_ADD, None, cap_node(**{EXT_B: "1"}), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-node-add-without-required-resource-type"),
    pytest.param(MEM2_EXT_A1, NODE_ADD, None, cap_node(memory="4", **{EXT_A: "2"}), QueueingHint.QUEUE,
                 id="queue-on-node-add-with-sufficient-resources"),
    pytest.param(MEM2_EXT_A1, NODE_ALLOCATABLE, cap_node(memory="2", **{EXT_A: "2"}),
                 cap_node(memory="2", **{EXT_A: "1", EXT_B: "2"}), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-node-unrelated-changes"),
    pytest.param(MEM2_EXT_A1, NODE_ALLOCATABLE, cap_node(memory="2", **{EXT_A: "1"}),
                 cap_node(memory="2", **{EXT_A: "2"}), QueueingHint.QUEUE,
                 id="queue-on-pod-requested-resources-increase"),
    pytest.param(MEM2_EXT_A1, NODE_ALLOCATABLE, cap_node(memory="4", **{EXT_A: "2"}),
                 cap_node(memory="1", **{EXT_A: "2"}), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-node-changes-from-suitable-to-unsuitable"),
    pytest.param(MEM2_EXT_A1, NODE_ALLOCATABLE, cap_node(memory="1", **{EXT_A: "2"}),
                 cap_node(memory="4", **{EXT_A: "2"}), QueueingHint.QUEUE,
                 id="queue-on-node-changes-from-unsuitable-to-suitable"),
    # TestIsFit, through the Node/Add hint (Queue exactly when the pod fits the new node).
    pytest.param(make_pod("pod").req(cpu="2").obj(), NODE_ADD, None, cap_node(cpu="1"), QueueingHint.QUEUE_SKIP,
                 id="TestIsFit/insufficient resource"),
    pytest.param(make_pod("pod").req(cpu="1").obj(), NODE_ADD, None, cap_node(cpu="2"), QueueingHint.QUEUE,
                 id="TestIsFit/sufficient resource"),
    # TestHaveAnyRequestedResourcesIncreased, through the Node/UpdateNodeAllocatable hint: every modified node
    # fits the pod, so the hint answers Queue exactly when the comparison finds an increase.
    pytest.param(pod(res()), NODE_ALLOCATABLE,
                 cap_node(pods="1", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
                 cap_node(pods="1", cpu="2", memory="2", ephemeral_storage="2", **{EXT_A: "2"}),
                 QueueingHint.QUEUE_SKIP, id="TestHaveAnyRequestedResourcesIncreased/no-requested-resources"),
    pytest.param(pod(res()), NODE_ALLOCATABLE,
                 cap_node(pods="1", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
                 cap_node(pods="2", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
                 QueueingHint.QUEUE, id="TestHaveAnyRequestedResourcesIncreased/no-requested-resources-pods-increased"),
    pytest.param(pod(res(2, 2, 2, **{EXT_A: 2})), NODE_ALLOCATABLE,
                 cap_node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
                 cap_node(cpu="3", memory="4", ephemeral_storage="3", **{EXT_A: "4"}),
                 QueueingHint.QUEUE, id="TestHaveAnyRequestedResourcesIncreased/requested-resources-increased"),
    pytest.param(pod(res(2, 2)), NODE_ALLOCATABLE,
                 cap_node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
                 cap_node(cpu="1", memory="2", ephemeral_storage="1", **{EXT_A: "1"}),
                 QueueingHint.QUEUE_SKIP,
                 id="TestHaveAnyRequestedResourcesIncreased/non-requested-resources-decreased"),
    pytest.param(pod(res(2, 2)), NODE_ALLOCATABLE,
                 cap_node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
                 cap_node(cpu="1", memory="2", ephemeral_storage="5", **{EXT_A: "6"}),
                 QueueingHint.QUEUE_SKIP,
                 id="TestHaveAnyRequestedResourcesIncreased/non-requested-resources-increased"),
]


@pytest.mark.parametrize(("incoming", "event", "old", "new", "want"), NODE_CHANGES)
def test_is_schedulable_after_node_change(incoming: Pod, event: ClusterEvent, old: Node | None, new: Node,
                                          want: QueueingHint) -> None:
    """A new or grown node requeues the pod only when the pod fits it and, for an update, some resource the pod
    requests (or the pod count) grew (kube's Test_isSchedulableAfterNodeChange)."""
    assert hint(FIT, incoming, event, old, new) is want
