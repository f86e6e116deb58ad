"""`kubesched capacity --add-nodes NODE.yaml [--target N]`: how many nodes of that shape must be added until N
copies fit, or without --target until every pending pod of the input is bound, as open-simulator answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.capacity import CapacityRun, load_capacity_input
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from tests.cli.test_capacity import NODE, answer, pod, run, write

WORKER = "kind: Node\nmetadata: {name: worker, labels: {kubernetes.io/hostname: worker, pool: spot}}\n" \
         "status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n"


def cluster(tmp_path: Path, *pending: str) -> list[str]:
    """One 2-CPU node running a 1-CPU pod, the ``pending`` pods, and the 1-CPU pod to copy."""
    return [write(tmp_path, "pod.yaml", pod("app", "1")),
            write(tmp_path, "in.yaml", NODE.format(name="a", cpu=2), pod("running", "1", node="a"), *pending),
            "--add-nodes", write(tmp_path, "worker.yaml", WORKER)]


def test_without_target_nodes_are_added_until_every_pending_pod_is_bound(tmp_path: Path) -> None:
    """Four pending 1-CPU pods, one of which fits the cluster: two 2-CPU workers place the other three; then the
    copies fill what is left (one, on the second worker)."""
    document = answer(*cluster(tmp_path, *(pod(f"wait-{i}", "1") for i in range(4))))
    assert document["addedNodes"] == {"template": "nodes/worker", "count": 2,
                                      "names": ["worker-capacity-1", "worker-capacity-2"], "target": None,
                                      "reached": True, "message": None, "pending": []}
    assert (document["copies"], document["nodes"]) == (1, [{"node": "worker-capacity-2", "copies": 1}])


@pytest.mark.parametrize(("target", "added", "copies"), [
    pytest.param(1, 0, 1, id="fits-already"),
    pytest.param(2, 1, 2, id="one-node"),
    pytest.param(7, 3, 7, id="three-nodes"),
])
def test_with_target_nodes_are_added_until_that_many_copies_fit(tmp_path: Path, target: int, added: int,
                                                                copies: int) -> None:
    """--target N: one copy fits the cluster, each worker takes two more."""
    document = answer(*cluster(tmp_path), "--target", str(target))
    assert (document["addedNodes"]["count"], document["addedNodes"]["reached"]) == (added, True)
    assert (document["copies"], document["stop"]["reason"]) == (copies, "TargetReached")


def test_max_nodes_bounds_the_nodes_added(tmp_path: Path) -> None:
    """--max-nodes 2 before --target 10 is reached: not reached, said so, the copies that then fit counted."""
    document = answer(*cluster(tmp_path), "--target", "10", "--max-nodes", "2")
    assert document["addedNodes"]["count"] == 2
    assert (document["addedNodes"]["reached"], document["addedNodes"]["message"]) == (False, "reached --max-nodes 2")
    assert (document["copies"], document["stop"]["reason"]) == (5, "Unschedulable")


def test_a_pod_no_added_node_can_hold_stops_the_adding(tmp_path: Path) -> None:
    """A 3-CPU pending pod never fits a 2-CPU worker: after the first worker stays useless to it, no more are
    added, and the message says why."""
    document = answer(*cluster(tmp_path, pod("huge", "3")))
    assert document["addedNodes"]["count"] == 1
    assert document["addedNodes"]["reached"] is False
    assert document["addedNodes"]["message"] == (
        "node worker-capacity-1 was added but none of the pending pods fits on it, so more nodes of that shape would "
        "not help (default/huge: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
        "2 No preemption victims found for incoming pod.)")
    assert document["addedNodes"]["pending"] == ["default/huge"]


def test_added_nodes_take_their_own_name_as_hostname(tmp_path: Path, registry: PluginRegistry) -> None:
    """An added node is the template under a fresh name, its kubernetes.io/hostname label following the name."""
    given = load_capacity_input(write(tmp_path, "pod.yaml", pod("app", "1")),
                                [write(tmp_path, "in.yaml", NODE.format(name="a", cpu=1))],
                                write(tmp_path, "worker.yaml", WORKER), ["default-scheduler"])
    from kubesched.capacity import CapacityOptions

    capacity_run = CapacityRun(given, load_config("default", registry), registry,
                               options=CapacityOptions(node=given.node, target=3))
    capacity_run.run()
    nodes = capacity_run.sim.cluster.nodes
    assert capacity_run.added == ["worker-capacity-1"]
    assert dict(nodes["worker-capacity-1"].labels) == {"kubernetes.io/hostname": "worker-capacity-1", "pool": "spot"}


def test_the_table_names_the_nodes_added(tmp_path: Path) -> None:
    """The table says how many nodes were added, which, and whether the goal was reached."""
    code, out, err = run(*cluster(tmp_path), "--target", "3")
    assert code == 0, err
    assert "added 1 node(s) like nodes/worker (worker-capacity-1); 3 copies: reached" in out.splitlines()
