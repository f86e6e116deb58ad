"""scheduler_perf's ``churn`` op in recreate mode, run in operation time beside the measured pods.

scheduler_perf's SchedulingWithMixedChurn starts a churn op before its measured pods: every 1000 ms of wall time
it visits one slot per template (a node, a high-priority 9-CPU pod, a Service) and creates the object when the
slot is empty, or deletes the one it created there. A wall-clock interval would make the churn depend on how
fast the scheduler is (kube-scheduler schedules on the order of 100 pods a second there; kubesched thousands), so
kubesched ticks after every ``interval`` measured bindings instead: the same churn per scheduled pod on every
machine and every run, and so the same decisions on the fast path and with ``--reference``.
"""

from __future__ import annotations

from kubesched.api.meta import ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.workload import Service
from kubesched.sim.simulate import Simulation
from kubesched.testing.builders import make_node, make_pod

#: The namespace of the churned pods and Services (the measured pods are in sched-1).
CHURN_NAMESPACE = "churn"
#: Measured bindings between two churn ticks (scheduler_perf: 1000 ms).
CHURN_INTERVAL = 100


def churn_node(index: int) -> Node:
    """scheduler_perf's churn node: 4 CPU, 32Gi, 110 pods, like every other node of the benchmark."""
    return make_node(f"node-churn-{index}").capacity(cpu="4", memory="32Gi", pods=110).obj()


def churn_pod(index: int) -> Pod:
    """scheduler_perf's pod-high-priority-large-cpu: priority 10, 9 CPU and 500Mi, so it fits no node, and
    preemption cannot help. Grace period 0: the API server deletes a pod no node runs at once."""
    return (make_pod(f"pod-churn-{index}", CHURN_NAMESPACE).container({"cpu": "9", "memory": "500Mi"})
            .priority(10).grace_period(0).obj())


def churn_service(index: int) -> Service:
    """scheduler_perf's churn Service: selects ``app: foo``, which no benchmark pod carries."""
    name = f"service-churn-{index}"
    return Service(ObjectMeta(name=name, namespace=CHURN_NAMESPACE, uid=f"{CHURN_NAMESPACE}/{name}-uid"),
                   selector={"app": "foo"})


class Churn:
    """Recreate-mode churn of one node, one pod and one Service: each tick creates the three (odd ticks) or deletes
    the three it created (even ticks). A cluster listener: it counts measured bindings and puts each tick on the
    agenda as a request, so it lands between two scheduling cycles."""

    def __init__(self, sim: Simulation, measured: set[str], interval: int = CHURN_INTERVAL) -> None:
        self._sim = sim
        self._measured = measured
        self._interval = interval
        self._bound = 0
        self.ticks = 0
        self._node: Node | None = None
        self._pod: Pod | None = None
        self._service: Service | None = None

    def tick(self) -> None:
        """Create the three objects, or delete the three created by the tick before."""
        cluster = self._sim.cluster
        if self._node is None:
            index = self.ticks // 2
            self._node, self._pod, self._service = churn_node(index), churn_pod(index), churn_service(index)
            cluster.add_node(self._node)
            self._sim.add_pods([self._pod])
            cluster.services.append(self._service)
        else:
            cluster.delete_node(self._node.name)
            assert self._pod is not None
            assert self._service is not None
            cluster.delete_pod(self._pod)
            cluster.services.remove(self._service)
            self._node = self._pod = self._service = None
        self.ticks += 1

    # -- the cluster's listener ------------------------------------------------------------------------
    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A measured pod's binding counts towards the next tick."""
        if new.spec.node_name and not old.spec.node_name and new.uid in self._measured:
            self._bound += 1
            if self._bound % self._interval == 0:
                self._sim.agenda.at_request_end(self.tick)

    def on_node_add(self, node: Node) -> None:
        """Nothing to count."""

    def on_node_update(self, node: Node) -> None:
        """Nothing to count."""

    def on_node_delete(self, name: str) -> None:
        """Nothing to count."""

    def on_pod_add(self, pod: Pod) -> None:
        """Nothing to count."""

    def on_pod_delete(self, pod: Pod) -> None:
        """Nothing to count."""
