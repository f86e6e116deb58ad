"""The nominator's per-priority sums (the two-pass filter's overlay and preemption's dry run read them): after any
sequence of nominations and removals they equal the sums worked out from scratch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.runtime import _nominator as nominator_module
from kubesched.runtime._columns import ColumnStore
from kubesched.runtime._nominator import SUM_ROWS, Nominator
from kubesched.testing import make_node, make_pod

NODES = ("n0", "n1", "n2", "gone")  # "gone" is nominated to but not in the snapshot
PRIORITIES = (0, 10, 20)


def columns_of(names: tuple[str, ...]) -> ColumnStore:
    """Columns over empty nodes called ``names``."""
    columns = ColumnStore()
    columns.rebuild([NodeInfo.of(make_node(name).capacity(cpu="8").obj()) for name in names])
    return columns


def expected(nominator: Nominator, pod_info: PodInfo, columns: ColumnStore) -> tuple[dict[str, list[str]],
                                                                                     list[list[int]]]:
    """From scratch: other pods of at least the pod's priority, by node, and their sums per node position."""
    pod = pod_info.pod
    pods: dict[str, list[str]] = {}
    rows = [[0] * len(columns) for _ in range(SUM_ROWS)]
    for name in nominator.nominated_node_names():
        counted = [pi for pi in nominator.nominated_pods_for_node(name)
                   if pi.pod.uid != pod.uid and pi.pod.priority >= pod.priority]
        if not counted:
            continue
        pods[name] = [pi.pod.uid for pi in counted]
        at = columns.position.get(name)
        if at is None:
            continue
        for pi in counted:
            for row, amount in enumerate((1, pi.requests.milli_cpu, pi.requests.memory, pi.requests.ephemeral_storage,
                                          pi.non_zero_requests.milli_cpu, pi.non_zero_requests.memory)):
                rows[row][at] += amount
    return pods, rows


operations = st.lists(st.tuples(st.sampled_from(["add", "delete", "check"]), st.integers(0, 5),
                                st.sampled_from(NODES), st.sampled_from(PRIORITIES),
                                st.sampled_from(["0", "100m", "1500m"]), st.sampled_from(["0", "1Gi"])),
                      max_size=40)


@settings(max_examples=150, deadline=None)
@given(steps=operations, own=st.integers(0, 5))
def test_sums_follow_every_nomination_change(steps: list[tuple[str, int, str, int, str, str]], own: int) -> None:
    """Each check's sums (the checked pod's own nomination left out) equal those worked out from scratch."""
    _check_every_step(steps, own)


@settings(max_examples=150, deadline=None)
@given(steps=operations, own=st.integers(0, 5), limit=st.integers(1, 6))
def test_sums_survive_a_short_change_log(steps: list[tuple[str, int, str, int, str, str]], own: int,
                                          limit: int) -> None:
    """With a change log of a few entries (trimmed to what every sum has seen, else cut and the sums rebuilt), each
    check's sums still equal those worked out from scratch."""
    with mock.patch.object(nominator_module, "_MAX_LOG", limit):
        _check_every_step(steps, own)


def _check_every_step(steps: list[tuple[str, int, str, int, str, str]], own: int) -> None:
    """Run ``steps``; each check's sums equal the sums from scratch, then and still at the end (they are snapshots
    later nominations leave alone)."""
    nominator = Nominator()
    columns = columns_of(NODES[:3])
    seen: list[tuple[Any, Any]] = []
    for action, index, node, priority, cpu, memory in steps:
        pod = make_pod(f"p{index}").req(cpu=cpu, memory=memory).priority(priority).nominated(node).obj()
        if action == "add":
            nominator.add_nominated_pod(PodInfo.of(pod))
        elif action == "delete":
            nominator.delete_nominated_pod_if_exists(pod)
        else:
            checked = PodInfo.of(make_pod(f"p{own}").priority(priority).obj())
            found = nominator.nominated_sums(checked.pod, columns)
            assert found is not None
            seen.append((found, expected(nominator, checked, columns)))
            assert _shown(found) == seen[-1][1]
    for found, then in seen:
        assert _shown(found) == then


def _shown(found: tuple[Mapping[str, tuple[PodInfo, ...]], Any]) -> tuple[dict[str, list[str]], list[list[int]]]:
    pods, extra = found
    return {name: [pi.pod.uid for pi in infos] for name, infos in pods.items()}, extra.tolist()


def test_a_node_set_change_rebuilds_the_sums() -> None:
    """Sums are over the positions of the columns given: rebuilt columns (nodes reordered) get new sums."""
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo.of(make_pod("w").req(cpu="1").priority(10).nominated("n1").obj()))
    pod = make_pod("p").priority(10).obj()
    columns = columns_of(("n0", "n1"))
    first = nominator.nominated_sums(pod, columns)
    first = (first[0], first[1].copy()) if first is not None else None
    columns.rebuild([NodeInfo.of(make_node(name).obj()) for name in ("n1", "n0")])
    second = nominator.nominated_sums(pod, columns)
    assert first is not None
    assert second is not None
    assert (first[1][1].tolist(), second[1][1].tolist()) == ([0, 1000], [1000, 0])


def test_a_pod_requesting_a_scalar_resource_makes_the_sums_step_aside() -> None:
    """A counted pod requesting an extended resource: None, the callers add the pods one by one."""
    nominator = Nominator()
    waiting = make_pod("w").req(cpu="1", **{"example.com/gpu": "1"}).priority(10).nominated("n0").obj()
    nominator.add_nominated_pod(PodInfo.of(waiting))
    assert nominator.nominated_sums(make_pod("p").priority(10).obj(), columns_of(("n0",))) is None
    assert nominator.nominated_sums(make_pod("p").priority(20).obj(), columns_of(("n0",))) is not None


def test_leaving_out_the_asking_pods_own_nomination_leaves_the_kept_sums_alone() -> None:
    """Two pods of one priority nominated to two nodes: each one's sums leave out only its own nomination, whichever
    asks first (the kept sums are not edited for the pod asking)."""
    nominator = Nominator()
    columns = columns_of(("n0", "n1"))
    first = make_pod("a").req(cpu="1").priority(10).nominated("n0").obj()
    second = make_pod("b").req(cpu="2").priority(10).nominated("n1").obj()
    nominator.add_nominated_pod(PodInfo.of(first))
    nominator.add_nominated_pod(PodInfo.of(second))
    for_first = nominator.nominated_sums(first, columns)
    for_second = nominator.nominated_sums(second, columns)
    assert for_first is not None
    assert for_second is not None
    assert (for_first[1][1].tolist(), for_second[1][1].tolist()) == ([0, 2000], [1000, 0])


def test_a_trimmed_change_log_still_brings_the_sums_up_to_date() -> None:
    """With a log of two changes, a third change drops the two the sums have seen; the sums read next still count
    the third (the log's start number moves with what was dropped)."""
    nominator = Nominator()
    columns = columns_of(("n0", "n1", "n2"))
    asking = make_pod("asking").priority(0).obj()
    with mock.patch.object(nominator_module, "_MAX_LOG", 2):
        nominator.nominated_sums(asking, columns)
        for k, node in enumerate(("n0", "n1")):
            nominator.add_nominated_pod(PodInfo.of(make_pod(f"w{k}").req(cpu="1").nominated(node).obj()))
        nominator.nominated_sums(asking, columns)
        nominator.add_nominated_pod(PodInfo.of(make_pod("w2").req(cpu="1").nominated("n2").obj()))
        found = nominator.nominated_sums(asking, columns)
    assert found is not None
    assert found[1][0].tolist() == [1, 1, 1]


def test_the_sums_handed_out_cannot_be_written() -> None:
    """The per-node sums are the nominator's kept array, shared with every caller until the next change: a caller
    writing to them gets an error instead of corrupting what the next caller reads."""
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo.of(make_pod("w").req(cpu="1").priority(10).nominated("n0").obj()))
    found = nominator.nominated_sums(make_pod("p").priority(10).obj(), columns_of(("n0",)))
    assert found is not None
    with pytest.raises(ValueError, match="read-only"):
        found[1][1, 0] = 0


def test_a_sum_still_within_the_trimmed_log_catches_up_without_a_rebuild() -> None:
    """With a log of two changes, the third change drops only the first (the one every kept sum has seen): the
    sum that lags by two changes catches up from the log, the same object, rather than being built afresh."""
    nominator = Nominator()
    columns = columns_of(("n0", "n1", "n2"))
    ahead, behind = make_pod("ahead").priority(0).obj(), make_pod("behind").priority(10).obj()
    with mock.patch.object(nominator_module, "_MAX_LOG", 2):
        nominator.nominated_sums(ahead, columns)
        nominator.nominated_sums(behind, columns)
        kept = nominator._sums[10]
        for k, node in enumerate(("n0", "n1", "n2")):
            nominator.add_nominated_pod(PodInfo.of(make_pod(f"w{k}").req(cpu="1").priority(10).nominated(node).obj()))
            nominator.nominated_sums(ahead, columns)
            if k == 0:
                nominator.nominated_sums(behind, columns)
        found = nominator.nominated_sums(behind, columns)
    assert found is not None
    assert found[1][0].tolist() == [1, 1, 1]
    assert nominator._sums[10] is kept
