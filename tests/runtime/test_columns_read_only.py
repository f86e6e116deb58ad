"""NodeColumns hands plugins read-only arrays, which the cache still keeps up to date."""

from __future__ import annotations

import pytest

from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.runtime import NodeSnapshot
from kubesched.testing import make_node, make_pod


def _snapshot() -> NodeSnapshot:
    nodes = [NodeInfo.of(make_node(f"n{i}").zone("z1").capacity(cpu="4", memory="8Gi", pods=10).obj())
             for i in range(3)]
    return NodeSnapshot.of(nodes)


def test_an_in_place_change_to_a_column_fails_instead_of_corrupting_the_snapshot() -> None:
    """``free -= ...`` on a column a batch form received raises; the snapshot's figures stay right."""
    columns = _snapshot().columns
    allocatable, _requested = columns.resource("cpu")
    with pytest.raises(ValueError, match="read-only"):
        allocatable -= 1
    assert allocatable.tolist() == [4000, 4000, 4000]


@pytest.mark.parametrize("read", [
    lambda c: c.label_values("topology.kubernetes.io/zone")[0],
    lambda c: c.pod_counts("all", lambda _pod: 1),
    lambda c: c.pod_count,
    lambda c: c.all_positions(),
], ids=["label codes", "pod counts", "pod count", "positions"])
def test_every_array_a_plugin_reads_is_read_only(read: object) -> None:
    """Label codes, pod-count indexes, the pod count and the positions cannot be written by a plugin either."""
    array = read(_snapshot().columns)  # type: ignore[operator]
    with pytest.raises(ValueError, match="read-only"):
        array[0] = 7


def test_the_cache_still_updates_read_only_columns() -> None:
    """A row refresh (a pod bound on a node) reaches the arrays and the indexes, which stay read-only."""
    snapshot = _snapshot()
    columns = snapshot.columns
    counts = columns.pod_counts("all", lambda _pod: 1)
    node = snapshot.node_info_list[1]
    node.add_pod(PodInfo.of(make_pod("p").req(cpu="500m").obj().with_node_name(node.name)))
    columns.update(node)
    assert columns.requested["cpu"].tolist() == [0, 500, 0]
    assert columns.pod_counts("all", lambda _pod: 1).tolist() == [0, 1, 0]
    assert counts.tolist() == [0, 1, 0]
    assert not columns.requested["cpu"].flags.writeable


def test_a_node_that_no_longer_has_an_extended_resource_reads_none_of_it() -> None:
    """n0 offers two GPUs and runs a pod using one; once the pod is gone and the node offers none, its row of the
    GPU columns reads zero (another node's GPUs keep the columns in use)."""
    gpu = "example.com/gpu"
    nodes = [NodeInfo.of(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods=10, **{gpu: "2"}).obj())
             for i in range(2)]
    snapshot = NodeSnapshot.of(nodes)
    columns = snapshot.columns
    node = nodes[0]
    user = PodInfo.of(make_pod("user").req(cpu="1", **{gpu: "1"}).obj().with_node_name("n0"))
    node.add_pod(user)
    columns.update(node)
    assert [array.tolist() for array in columns.resource(gpu)] == [[2, 2], [1, 0]]
    node.remove_pod(user.pod)
    node.set_node(make_node("n0").capacity(cpu="4", memory="8Gi", pods=10).obj())
    columns.update(node)
    assert [array.tolist() for array in columns.resource(gpu)] == [[0, 2], [0, 0]]
