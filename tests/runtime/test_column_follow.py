"""The snapshot's columns follow one node added or removed by moving one row (ColumnStore.follow): every column and
on-demand index must then read as after a rebuild, and remembered per-node rows travel with their nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.framework._node_info import PodInfo
from kubesched.runtime import NodeSnapshot
from kubesched.runtime._cache import Cache
from kubesched.runtime._columns import ColumnStore
from kubesched.testing import make_node, make_pod

ZONES = ["a", "b", "c", ""]


def node(index: int, zone: str, cpu: int = 4, gpus: int = 0) -> Node:
    """Node n<index> in ``zone`` ("" for none), with ``cpu`` CPUs and ``gpus`` example.com/gpu."""
    builder = make_node(f"n{index}").capacity(cpu=str(cpu), memory="8Gi", pods=10,
                                               **({"example.com/gpu": str(gpus)} if gpus else {}))
    return (builder.zone(zone) if zone else builder).obj()


def _low(pod_info: PodInfo) -> tuple[int, int]:
    return 1, pod_info.requests.milli_cpu


def read(columns: ColumnStore) -> dict[str, Any]:
    """Everything a plugin reads from the columns, indexes included, by node name."""
    codes, values = columns.label_values("zone")
    totals = columns.pod_totals("low", _low, 2)
    return {
        "names": list(columns.names), "position": dict(columns.position), "exact": columns.exact,
        "allocatable": {k: v.tolist() for k, v in sorted(columns.allocatable.items()) if v.any()},
        "requested": {k: v.tolist() for k, v in sorted(columns.requested.items()) if v.any()},
        "non_zero": {k: v.tolist() for k, v in sorted(columns.non_zero_requested.items())},
        "pods": columns.pod_count.tolist(), "zones": [values[c] if c >= 0 else None for c in codes.tolist()],
        "totals": totals.tolist(), "infos": [info.name for info in columns.infos_at(columns.all_positions())],
    }


OPS = st.lists(st.tuples(st.sampled_from(["add", "remove", "update", "pod", "unpod"]), st.integers(0, 6),
                         st.sampled_from(ZONES), st.integers(0, 2)), max_size=30)


@settings(max_examples=150, deadline=None)
@given(OPS)
def test_columns_read_as_rebuilt_after_any_sequence_of_node_and_pod_changes(ops: list[tuple[str, int, str, int]]
                                                                            ) -> None:
    """Nodes added (new zones too), removed, updated, pods added and removed, the snapshot refreshed after each:
    the columns and their indexes equal a fresh snapshot's, and a remembered row is only ever its own node's."""
    cache = Cache()
    snapshot = NodeSnapshot()
    zones: dict[int, str] = {}
    pods: dict[int, int] = {}
    for op, index, zone, extra in ops:
        if op == "add" and index not in zones:
            cache.add_node(node(index, zone, gpus=extra))
            zones[index] = zone
        elif op == "remove" and index in zones:
            cache.remove_node(f"n{index}")
            del zones[index]
        elif op == "update" and index in zones:
            cache.update_node(node(index, zones[index], cpu=4 + extra))
        elif op == "pod" and index in zones and index not in pods:
            cache.add_pod(make_pod(f"p{index}").req(cpu=f"{extra + 1}00m").node(f"n{index}").obj())
            pods[index] = index
        elif op == "unpod" and index in pods:
            cache.remove_pod(make_pod(f"p{index}").req(cpu="100m").node(f"n{index}").obj())
            del pods[index]
        cache.update_snapshot(snapshot)
        columns = snapshot.columns
        rows = columns.node_rows("answers", 1)
        assert all(value == name for known, value, name in zip(rows.known.tolist(), rows.values, columns.names,
                                                                 strict=True) if known)
        rows.known[:] = True
        rows.values[:] = list(columns.names)
        fresh = NodeSnapshot()
        cache.update_snapshot(fresh)
        assert read(columns) == read(fresh.columns)


def test_a_node_added_keeps_the_other_nodes_remembered_rows() -> None:
    """A node joining a zone moves one row: the rows remembered for the other nodes stay known, its own is not."""
    cache = Cache()
    for i in range(4):
        cache.add_node(node(i, ZONES[i % 2]))
    snapshot = NodeSnapshot()
    cache.update_snapshot(snapshot)
    rows = snapshot.columns.node_rows("answers", 1)
    rows.known[:] = True
    cache.add_node(node(9, "a"))
    cache.update_snapshot(snapshot)
    after = snapshot.columns.node_rows("answers", 1)
    assert dict(zip(snapshot.columns.names, after.known.tolist(), strict=True)) == {
        "n0": True, "n1": True, "n2": True, "n3": True, "n9": False}
    assert np.array_equal(snapshot.columns.pod_count, np.zeros(5))


def test_a_node_removed_with_its_zone_moves_the_rows_after_it() -> None:
    """The one node of a zone listed between others leaves: the rows after it move up with their nodes, their
    remembered rows and their pods."""
    cache = Cache()
    for i, zone in enumerate(["a", "b", "c", "a"]):
        cache.add_node(node(i, zone))
    cache.add_pod(make_pod("p").req(cpu="500m").node("n2").obj())
    snapshot = NodeSnapshot()
    cache.update_snapshot(snapshot)
    rows = snapshot.columns.node_rows("answers", 1)
    rows.known[:] = True
    rows.values[:] = list(snapshot.columns.names)
    cache.remove_node("n1")
    cache.update_snapshot(snapshot)
    columns = snapshot.columns
    after = columns.node_rows("answers", 1)
    assert columns.names == ["n0", "n2", "n3"]
    assert (after.values, after.known.tolist()) == (["n0", "n2", "n3"], [True, True, True])
    assert columns.requested["cpu"].tolist() == [0, 500, 0]
