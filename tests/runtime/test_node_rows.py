"""NodeColumns' per-node sums over pods (``pod_totals``) and remembered per-node results (``node_rows``) follow
the snapshot: a changed node's sums are redone and its remembered result is forgotten."""

from __future__ import annotations

import numpy as np
import pytest

from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.runtime import NodeSnapshot
from kubesched.runtime._columns import PickedNodes
from kubesched.testing import make_node, make_pod


def _snapshot() -> NodeSnapshot:
    nodes = [NodeInfo.of(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods=10).obj()) for i in range(3)]
    for i, node in enumerate(nodes):
        for k in range(i):
            node.add_pod(PodInfo.of(make_pod(f"p{i}-{k}").req(cpu=f"{100 * (k + 1)}m").priority(k).obj()
                                    .with_node_name(node.name)))
    return NodeSnapshot.of(nodes)


def _cpu_below_one(pod_info: PodInfo) -> tuple[int, int]:
    """(1, cpu) for a pod of priority 0, else nothing."""
    return (1, pod_info.requests.milli_cpu) if pod_info.pod.priority < 1 else (0, 0)


def test_pod_totals_sum_each_amount_over_each_nodes_pods() -> None:
    """One row per node, one column per amount: here how many priority-0 pods and their cpu."""
    totals = _snapshot().columns.pod_totals("low", _cpu_below_one, 2)
    assert totals.tolist() == [[0, 0], [1, 100], [1, 100]]


def test_pod_totals_follow_a_changed_node_and_stay_read_only() -> None:
    """A pod added to a node shows in the sums read afterwards (and in the array read before); nobody writes them."""
    snapshot = _snapshot()
    columns = snapshot.columns
    before = columns.pod_totals("low", _cpu_below_one, 2)
    node = snapshot.node_info_list[0]
    node.add_pod(PodInfo.of(make_pod("new").req(cpu="250m").obj().with_node_name(node.name)))
    columns.update(node)
    assert columns.pod_totals("low", _cpu_below_one, 2).tolist() == [[1, 250], [1, 100], [1, 100]]
    assert before.tolist() == [[1, 250], [1, 100], [1, 100]]
    with pytest.raises(ValueError, match="read-only"):
        before[0, 0] = 3


def test_node_rows_start_unknown() -> None:
    """New rows hold nothing: every node's result is still to be worked out."""
    rows = _snapshot().columns.node_rows("answers", 2)
    assert rows.known.tolist() == [False, False, False]
    assert rows.numbers.shape == (3, 2)
    assert rows.values == [None, None, None]


def test_node_rows_are_kept_until_their_node_changes() -> None:
    """A result written for every node is read back under the same key; changing one node forgets only its row."""
    snapshot = _snapshot()
    columns = snapshot.columns
    rows = columns.node_rows("answers", 2)
    for at in range(3):
        rows.numbers[at] = (at, 10 * at)
        rows.values[at] = f"answer {at}"
        rows.known[at] = True
    node = snapshot.node_info_list[2]
    node.add_pod(PodInfo.of(make_pod("new").req(cpu="1").obj().with_node_name(node.name)))
    columns.update(node)
    again = columns.node_rows("answers", 2)
    assert again is rows
    assert again.known.tolist() == [True, True, False]
    assert again.values == ["answer 0", "answer 1", None]
    assert again.numbers[:2].tolist() == [[0, 0], [1, 10]]


def test_node_rows_of_different_keys_or_widths_are_apart() -> None:
    """Another key, or the same key with another width, is another table."""
    columns = _snapshot().columns
    rows = columns.node_rows("answers", 2)
    rows.known[0] = True
    assert not columns.node_rows("other", 2).known[0]
    assert not columns.node_rows("answers", 3).known[0]


def test_node_rows_are_forgotten_when_the_node_set_changes() -> None:
    """A rebuild (nodes added, removed or reordered) starts every row afresh."""
    snapshot = _snapshot()
    columns = snapshot.columns
    rows = columns.node_rows("answers", 1)
    rows.known[:] = True
    columns.rebuild(snapshot.node_info_list)
    assert columns.node_rows("answers", 1).known.tolist() == [False, False, False]


def test_picked_nodes_read_the_nodes_at_the_indexes() -> None:
    """A PickedNodes is the sequence of the nodes at the indexes, in their order: length, items, slices, iteration."""
    infos = _snapshot().node_info_list
    picked = PickedNodes(infos, np.array([2, 0], dtype=np.int64))
    assert len(picked) == 2
    assert picked[0] is infos[2]
    assert picked[-1] is infos[0]
    assert picked[1:] == [infos[0]]
    assert [info.name for info in picked] == ["n2", "n0"]


def test_many_changes_to_one_node_leave_the_other_rows_known() -> None:
    """Indexes catch up on the changed rows however many changes there were: a node changed a hundred times
    forgets only its own row, and the sums stay right."""
    snapshot = _snapshot()
    columns = snapshot.columns
    rows = columns.node_rows("answers", 1)
    rows.known[:] = True
    columns.pod_totals("low", _cpu_below_one, 2)
    node = snapshot.node_info_list[0]
    for k in range(100):
        pod_info = PodInfo.of(make_pod(f"churn-{k}").req(cpu="10m").obj().with_node_name(node.name))
        node.add_pod(pod_info)
        columns.update(node)
        node.remove_pod(pod_info.pod)
        columns.update(node)
    assert columns.node_rows("answers", 1).known.tolist() == [False, True, True]
    assert columns.pod_totals("low", _cpu_below_one, 2).tolist() == [[0, 0], [1, 100], [1, 100]]


def test_an_index_read_after_every_change_stays_right_across_many_changes() -> None:
    """Read after each of hundreds of changes to alternating nodes (the recent changes the indexes catch up from
    are dropped and restarted along the way), the sums always equal the nodes' pods."""
    snapshot = _snapshot()
    columns = snapshot.columns
    infos = snapshot.node_info_list
    for k in range(300):
        node = infos[k % 3]
        node.add_pod(PodInfo.of(make_pod(f"more-{k}").req(cpu="1m").obj().with_node_name(node.name)))
        columns.update(node)
        expected = [[sum(1 for p in info.pods if p.pod.priority < 1),
                     sum(p.requests.milli_cpu for p in info.pods if p.pod.priority < 1)] for info in infos]
        assert columns.pod_totals("low", _cpu_below_one, 2).tolist() == expected


def _toggle(columns_snapshot: NodeSnapshot, extra: list[PodInfo], at: int) -> None:
    """Add node ``at``'s extra pod if it lacks it, else remove it, and tell the columns (one change)."""
    node = columns_snapshot.node_info_list[at]
    pod_info = extra[at]
    if any(p.pod.uid == pod_info.pod.uid for p in node.pods):
        node.remove_pod(pod_info.pod)
    else:
        node.add_pod(pod_info)
    columns_snapshot.columns.update(node)


@pytest.mark.parametrize("after", [1, 2, 3, 12, 80])
def test_an_index_lagging_by_any_number_of_changes_catches_up_exactly(after: int) -> None:
    """An index read, then read again ``after`` changes later (the first to node 0, the rest to nodes 1 and 2),
    equals the nodes' pods whatever change number it was read at, on either side of the point where the list of
    recent changes restarts (the 66th change for three nodes): the row changed first is never missed."""
    for before in range(55, 75):
        snapshot = _snapshot()
        extra = [PodInfo.of(make_pod(f"extra-{i}").req(cpu="7m").obj().with_node_name(f"n{i}")) for i in range(3)]
        for k in range(before):
            _toggle(snapshot, extra, k % 3)
        snapshot.columns.pod_totals("lag", _cpu_below_one, 2)
        for k in range(after):
            _toggle(snapshot, extra, 0 if k == 0 else 1 + k % 2)
        expected = [[sum(1 for p in info.pods if p.pod.priority < 1),
                     sum(p.requests.milli_cpu for p in info.pods if p.pod.priority < 1)]
                    for info in snapshot.node_info_list]
        assert snapshot.columns.pod_totals("lag", _cpu_below_one, 2).tolist() == expected, before


def test_a_row_written_after_its_node_changed_is_kept_at_the_next_read() -> None:
    """Once a read has caught the rows up, a result written for the changed node stays known until it changes
    again (a read forgets only the changes since the previous read)."""
    snapshot = _snapshot()
    columns = snapshot.columns
    columns.node_rows("answers", 1)
    node = snapshot.node_info_list[1]
    node.add_pod(PodInfo.of(make_pod("new").req(cpu="1").obj().with_node_name(node.name)))
    columns.update(node)
    rows = columns.node_rows("answers", 1)
    rows.known[1] = True
    assert columns.node_rows("answers", 1).known.tolist() == [False, True, False]


def test_a_row_written_right_after_any_change_is_kept_when_another_node_changes() -> None:
    """Rows read (caught up) just after a change to node 0, then node 0's result written: a later change to node 1
    forgets only node 1's row, at whatever change number this happens (on either side of the point where the list
    of recent changes restarts)."""
    for before in range(55, 75):
        snapshot = _snapshot()
        extra = [PodInfo.of(make_pod(f"extra-{i}").req(cpu="7m").obj().with_node_name(f"n{i}")) for i in range(3)]
        for k in range(before):
            _toggle(snapshot, extra, k % 3)
        _toggle(snapshot, extra, 0)
        rows = snapshot.columns.node_rows("answers", 1)
        rows.known[:] = True
        _toggle(snapshot, extra, 1)
        assert snapshot.columns.node_rows("answers", 1).known.tolist() == [True, False, True], before
