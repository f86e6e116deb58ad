"""Specification of the cache, NodeInfo accounting and the incremental snapshot."""

from __future__ import annotations

import operator

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework._cycle_state import CycleState, StateKey, StateNotFoundError
from kubesched.framework._node_info import HostPortInfo, NodeInfo, PodInfo
from kubesched.runtime import NodeSnapshot
from kubesched.runtime._cache import Cache, NodeTree, zone_key
from kubesched.testing import make_node, make_pod


class TestNodeInfo:
    """Tests for NodeInfo accounting."""

    def test_add_pod_sums_requests_non_zero_requests_and_ports(self) -> None:
        """Adding pods accumulates requests, non-zero requests (100m/200Mi defaults) and host ports."""
        info = NodeInfo.of(make_node("n").capacity(cpu="4", memory="8Gi").obj())
        info.add_pod(PodInfo.of(make_pod("a").req(cpu="1", memory="1Gi").obj()))
        info.add_pod(PodInfo.of(make_pod("b").host_port(8080).obj()))
        assert (info.requested.milli_cpu, info.requested.memory) == (1000, 2**30)
        assert (info.non_zero_requested.milli_cpu, info.non_zero_requested.memory) == (1100, 2**30 + 200 * 2**20)
        assert info.used_ports.conflicts("0.0.0.0", "TCP", 8080)

    def test_remove_pod_undoes_add_pod(self) -> None:
        """Removing a pod restores every sum and bumps the generation."""
        info = NodeInfo.of(make_node("n").capacity(cpu="4").obj())
        pod = make_pod("a").req(cpu="1").host_port(80).pod_affinity("zone", app="x").obj()
        info.add_pod(PodInfo.of(pod))
        generation = info.generation
        assert info.pods_with_affinity
        assert info.remove_pod(pod)
        assert (info.requested.milli_cpu, len(info.pods), len(info.used_ports)) == (0, 0, 0)
        assert not info.pods_with_affinity
        assert info.generation > generation

    def test_clone_is_independent(self) -> None:
        """Changing a clone leaves the original untouched."""
        info = NodeInfo.of(make_node("n").capacity(cpu="4").obj(), [PodInfo.of(make_pod("a").req(cpu="1").obj())])
        clone = info.clone()
        clone.add_pod(PodInfo.of(make_pod("b").req(cpu="2").obj()))
        assert (info.requested.milli_cpu, len(info.pods)) == (1000, 1)
        assert (clone.requested.milli_cpu, len(clone.pods)) == (3000, 2)

    def test_copy_from_makes_an_independent_copy_keeping_identity(self) -> None:
        """copy_from gives every field of the source, in containers of its own, to the same object."""
        pod = make_pod("a").req(cpu="1").host_port(80).pod_affinity("zone", anti=True, app="x").obj()
        source = NodeInfo.of(make_node("n").capacity(cpu="4").obj(), [PodInfo.of(pod)])
        target = NodeInfo()
        before = id(target)
        target.copy_from(source)
        assert id(target) == before
        for field in attrs.fields(NodeInfo):
            if field.name != "used_ports":  # HostPortInfo has no equality: compared below
                assert getattr(target, field.name) == getattr(source, field.name), field.name
        assert target.used_ports is not source.used_ports
        assert (len(target.used_ports), target.used_ports.conflicts("0.0.0.0", "TCP", 80)) == (1, True)
        def sums(info: NodeInfo) -> tuple[int, ...]:
            return (info.requested.milli_cpu, info.non_zero_requested.milli_cpu, info.allocatable.milli_cpu,
                    len(info.pods), len(info.pods_with_affinity), len(info.pods_with_required_anti_affinity),
                    len(info.used_ports))

        before_change = sums(source)
        target.add_pod(PodInfo.of(make_pod("b").req(cpu="2").host_port(81).pod_affinity("zone", anti=True,
                                                                                         app="y").obj()))
        target.allocatable.milli_cpu += 1
        assert sums(source) == before_change
        assert target.image_states is not source.image_states


@pytest.mark.parametrize(("used", "wanted", "conflict"), [
    (("0.0.0.0", "TCP", 80), ("127.0.0.1", "TCP", 80), True),
    (("127.0.0.1", "TCP", 80), ("0.0.0.0", "TCP", 80), True),
    (("127.0.0.1", "TCP", 80), ("127.0.0.2", "TCP", 80), False),
    (("0.0.0.0", "TCP", 80), ("0.0.0.0", "UDP", 80), False),
    (("", "", 80), ("0.0.0.0", "TCP", 80), True),
    (("10.0.0.1", "TCP", 80), ("10.0.0.1", "TCP", 8080), False),
], ids=["wildcard-used", "wildcard-wanted", "different-ips", "different-protocols", "defaults", "other-port"])
def test_host_port_conflicts(used: tuple[str, str, int], wanted: tuple[str, str, int], conflict: bool) -> None:
    """Host ports clash on the same protocol and port when the IPs match or either is 0.0.0.0."""
    ports = HostPortInfo()
    ports.add(*used)
    assert ports.conflicts(*wanted) is conflict


def test_host_ports_are_a_set_so_one_removal_frees_a_port_added_twice() -> None:
    """Adding a host port twice records it once; one removal frees it (kube-scheduler v1.32's HostPortInfo)."""
    ports = HostPortInfo()
    ports.add("", "", 80)
    ports.add("0.0.0.0", "TCP", 80)
    assert len(ports) == 1
    ports.remove("0.0.0.0", "TCP", 80)
    assert (len(ports), ports.conflicts("0.0.0.0", "TCP", 80)) == (0, False)


class TestCycleState:
    """Tests for CycleState."""

    KEY = StateKey[list[int]]("test")

    def test_read_missing_key_raises(self) -> None:
        """Reading a key never written raises StateNotFoundError."""
        with pytest.raises(StateNotFoundError, match="test: not found"):
            CycleState().read(self.KEY)

    def test_write_read_delete(self) -> None:
        """Values are read back by key and gone after delete."""
        state = CycleState()
        state.write(self.KEY, [1])
        assert state.read(self.KEY) == [1]
        state.delete(self.KEY)
        assert state.get(self.KEY) is None

    def test_clone_deep_copies_values_that_define_clone(self) -> None:
        """clone() calls clone() on values that have it and shares the others."""
        class Counter:
            def __init__(self, n: int) -> None:
                self.n = n

            def clone(self) -> Counter:
                return Counter(self.n)

        counter_key = StateKey[Counter]("counter")
        state = CycleState()
        state.write(counter_key, Counter(1))
        state.write(self.KEY, [1])
        copy = state.clone()
        copy.read(counter_key).n = 99
        copy.read(self.KEY).append(2)
        assert state.read(counter_key).n == 1
        assert state.read(self.KEY) == [1, 2]

    def test_keys_are_distinct_by_identity(self) -> None:
        """Two keys with the same name never collide."""
        a, b = StateKey[int]("same"), StateKey[int]("same")
        state = CycleState()
        state.write(a, 1)
        assert state.get(b) is None


def test_zone_key_combines_region_and_zone() -> None:
    """Nodes group by region and zone; nodes with neither share the empty zone."""
    assert zone_key(make_node("n").zone("a", region="r").obj()) == "r:\x00:a"
    assert zone_key(make_node("n").obj()) == ""


def test_node_tree_interleaves_zones() -> None:
    """The node list takes one node from each zone in turn."""
    tree = NodeTree()
    for name, zone in (("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c"), ("c2", "c")):
        tree.add(make_node(name).zone(zone).obj())
    assert tree.list() == ["a1", "b1", "c1", "a2", "c2", "a3"]


class TestCache:
    """Tests for Cache and update_snapshot."""

    def test_assume_then_forget(self) -> None:
        """An assumed pod counts on its node until forgotten."""
        cache = Cache()
        cache.add_node(make_node("n1").capacity(cpu="4").obj())
        pod = make_pod("p").req(cpu="1").node("n1").obj()
        cache.assume_pod(PodInfo.of(pod))
        assert cache.is_assumed_pod(pod)
        assert cache.node_info("n1").requested.milli_cpu == 1000  # type: ignore[union-attr]
        cache.forget_pod(pod)
        assert cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]

    def test_add_confirms_an_assumed_pod(self) -> None:
        """When the bound pod arrives, the assumed pod is replaced, not counted twice."""
        cache = Cache()
        cache.add_node(make_node("n1").capacity(cpu="4").obj())
        pod = make_pod("p").req(cpu="1").node("n1").obj()
        cache.assume_pod(PodInfo.of(pod))
        cache.add_pod(pod)
        assert not cache.is_assumed_pod(pod)
        assert cache.node_info("n1").requested.milli_cpu == 1000  # type: ignore[union-attr]

    def test_removed_node_with_pods_is_a_ghost_outside_the_snapshot(self) -> None:
        """A removed node's pods linger in the cache, but the node leaves the snapshot."""
        cache = Cache()
        cache.add_node(make_node("n1").obj())
        cache.add_node(make_node("n2").obj())
        cache.add_pod(make_pod("p").node("n1").obj())
        snapshot = NodeSnapshot()
        cache.update_snapshot(snapshot)
        cache.remove_node("n1")
        cache.update_snapshot(snapshot)
        assert [ni.name for ni in snapshot.list()] == ["n2"]
        assert cache.node_info("n1") is not None

    def test_snapshot_copies_only_changed_nodes_in_place(self) -> None:
        """An update keeps the snapshot's NodeInfo objects and refreshes only the changed one."""
        cache = Cache()
        for name in ("n1", "n2"):
            cache.add_node(make_node(name).capacity(cpu="4").obj())
        snapshot = NodeSnapshot()
        cache.update_snapshot(snapshot)
        first, second = snapshot.list()
        untouched_generation = second.generation
        cache.add_pod(make_pod("p").req(cpu="1").node("n1").obj())
        cache.update_snapshot(snapshot)
        assert snapshot.list()[0] is first
        assert snapshot.list()[1] is second
        assert first.requested.milli_cpu == 1000
        assert second.generation == untouched_generation

    def test_columns_give_the_snapshot_node_infos_at_positions_after_every_node_change(self) -> None:
        """infos_at answers the snapshot's NodeInfo objects at the positions asked, in that order, also once a node
        joined and the columns were rebuilt."""
        cache = Cache()
        for name in ("n1", "n2"):
            cache.add_node(make_node(name).obj())
        snapshot = NodeSnapshot()
        cache.update_snapshot(snapshot)
        listed = snapshot.list()
        assert snapshot.columns.infos_at(np.array([1, 0, 1], dtype=np.int64)) == [listed[1], listed[0], listed[1]]
        cache.add_node(make_node("n3").obj())
        cache.update_snapshot(snapshot)
        positions = np.arange(3, dtype=np.int64)
        assert all(map(operator.is_, snapshot.columns.infos_at(positions), snapshot.list()))
        assert [ni.name for ni in snapshot.columns.infos_at(positions)] == ["n1", "n2", "n3"]

    def test_snapshot_is_isolated_from_the_cache(self) -> None:
        """Changing the cache does not change a snapshot until it is updated again."""
        cache = Cache()
        cache.add_node(make_node("n1").capacity(cpu="4").obj())
        snapshot = NodeSnapshot()
        cache.update_snapshot(snapshot)
        cache.add_pod(make_pod("p").req(cpu="1").node("n1").obj())
        assert snapshot.list()[0].requested.milli_cpu == 0

    def test_affinity_lists_follow_pods(self) -> None:
        """Nodes holding pods with affinity are listed, and drop out when those pods leave."""
        cache = Cache()
        cache.add_node(make_node("n1").obj())
        pod = make_pod("p").pod_affinity("zone", anti=True, app="x").node("n1").obj()
        cache.add_pod(pod)
        snapshot = NodeSnapshot()
        cache.update_snapshot(snapshot)
        assert [ni.name for ni in snapshot.have_pods_with_required_anti_affinity] == ["n1"]
        cache.remove_pod(pod)
        cache.update_snapshot(snapshot)
        assert snapshot.have_pods_with_required_anti_affinity == []

    def test_image_states_count_nodes(self) -> None:
        """An image's summary counts every node that has it."""
        cache = Cache()
        cache.add_node(make_node("n1").image(100, "nginx:1").obj())
        cache.add_node(make_node("n2").image(100, "nginx:1").obj())
        snapshot = NodeSnapshot()
        cache.update_snapshot(snapshot)
        assert snapshot.list()[0].image_states["nginx:1"].num_nodes == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "remove"]), st.integers(0, 5), st.integers(0, 2)), max_size=40))
def test_snapshot_equals_a_fresh_one_after_any_sequence(ops: list[tuple[str, int, int]]) -> None:
    """After any sequence of pod adds/removes, the incremental snapshot equals one built from scratch."""
    cache = Cache()
    for n in range(3):
        cache.add_node(make_node(f"n{n}").capacity(cpu="64").obj())
    snapshot = NodeSnapshot()
    cache.update_snapshot(snapshot)
    live: dict[int, int] = {}
    for op, pod_id, node in ops:
        pod = make_pod(f"p{pod_id}").req(cpu=f"{pod_id + 1}00m").node(f"n{live.get(pod_id, node)}").obj()
        if op == "add" and pod_id not in live:
            cache.add_pod(pod)
            live[pod_id] = node
        elif op == "remove" and pod_id in live:
            cache.remove_pod(pod)
            del live[pod_id]
        cache.update_snapshot(snapshot)
    fresh = NodeSnapshot()
    cache.update_snapshot(fresh)
    assert len(fresh.list()) == 3
    assert [(ni.name, ni.requested.milli_cpu, len(ni.pods)) for ni in snapshot.list()] == \
           [(ni.name, ni.requested.milli_cpu, len(ni.pods)) for ni in fresh.list()]


def test_every_snapshot_gets_the_node_lists() -> None:
    """Several snapshots of one cache each get complete node lists, however late they are created."""
    cache = Cache()
    cache.add_node(make_node("n1").obj())
    first, second = NodeSnapshot(), NodeSnapshot()
    cache.update_snapshot(first)
    cache.update_snapshot(second)
    assert [ni.name for ni in first.list()] == [ni.name for ni in second.list()] == ["n1"]


def test_re_adding_a_node_in_another_zone_moves_it() -> None:
    """Adding a known node again with a new zone moves it in the zone order instead of listing it twice."""
    cache = Cache()
    cache.add_node(make_node("n").zone("a").obj())
    cache.add_node(make_node("m").zone("b").obj())
    cache.add_node(make_node("n").zone("b").obj())
    snapshot = NodeSnapshot()
    cache.update_snapshot(snapshot)
    assert [ni.name for ni in snapshot.list()] == ["m", "n"]
    cache.remove_node("n")
    cache.update_snapshot(snapshot)
    assert [ni.name for ni in snapshot.list()] == ["m"]
