"""NodeToStatus read as codes: PostFilter plugins get each node's code and rejecting plugin without the messages of
deferred entries being built, and the FitError histogram counts statuses shared between nodes once per node."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest

from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis, fit_error_message
from kubesched.runtime import DeferredNodeToStatus
from kubesched.testing import make_node

SHORT = Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")
TAINTED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint {a: b}",), "TaintToleration")


def never_built() -> Iterable[tuple[str, Status]]:
    """A deferred fill that must not run."""
    raise AssertionError("the deferred statuses were built")


def deferred(**codes: Code) -> DeferredNodeToStatus:
    """A NodeToStatus whose only entries are deferred, with codes known (plugin "P") and messages never built."""
    statuses = DeferredNodeToStatus()
    statuses.defer(never_built, lambda: [(name, (code, "P")) for name, code in codes.items()])
    return statuses


def test_codes_do_not_build_deferred_statuses() -> None:
    """codes() answers from the fill's codes: (code, plugin) per node."""
    assert deferred(n1=Code.UNSCHEDULABLE, n2=Code.UNSCHEDULABLE_AND_UNRESOLVABLE).codes() == {
        "n1": (Code.UNSCHEDULABLE, "P"), "n2": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "P")}


def test_code_of_one_node_builds_nothing() -> None:
    """code() gives a deferred entry's code, and the absent-nodes status's code for a node without one."""
    statuses = deferred(n1=Code.UNSCHEDULABLE)
    assert (statuses.code("n1"), statuses.code("n9")) == (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


def test_get_of_a_node_without_an_entry_builds_nothing() -> None:
    """get() of a node that no entry names returns the absent-nodes status without building the others."""
    statuses = deferred(n1=Code.UNSCHEDULABLE)
    assert statuses.get("") is statuses.absent_nodes_status


def test_nodes_for_status_code_reads_codes() -> None:
    """The nodes with a code, in the given order, absent nodes included when the absent status has it."""
    statuses = deferred(n1=Code.UNSCHEDULABLE, n2=Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    nodes = [NodeInfo.of(make_node(name).obj()) for name in ("n3", "n2", "n1")]
    assert [ni.name for ni in statuses.nodes_for_status_code(nodes, Code.UNSCHEDULABLE)] == ["n1"]
    assert [ni.name for ni in statuses.nodes_for_status_code(nodes, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)] == [
        "n3", "n2"]


def test_a_fill_without_codes_is_built_for_codes() -> None:
    """A deferred fill that knows no codes is built when codes are read."""
    statuses = DeferredNodeToStatus()
    statuses.defer(lambda: [("n1", SHORT)])
    assert statuses.codes() == {"n1": (Code.UNSCHEDULABLE, "NodeResourcesFit")}


def test_later_entries_override_earlier_ones_in_codes() -> None:
    """An explicit entry set before a deferred one for the same node is overridden, as when the fill is built."""
    statuses = DeferredNodeToStatus({"n1": TAINTED})
    statuses.defer(lambda: [("n1", SHORT)], lambda: [("n1", (SHORT.code, SHORT.plugin))])
    assert statuses.codes() == {"n1": (Code.UNSCHEDULABLE, "NodeResourcesFit")}
    assert statuses.statuses == {"n1": SHORT}


def test_set_after_codes_is_seen() -> None:
    """Codes read before an entry is set are not kept past it."""
    statuses = DeferredNodeToStatus({"n1": SHORT})
    assert statuses.codes() == {"n1": (Code.UNSCHEDULABLE, "NodeResourcesFit")}
    statuses.set("n2", TAINTED)
    assert statuses.codes()["n2"] == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "TaintToleration")


@pytest.mark.parametrize("one_object", [True, False], ids=["one object per reason", "one object per node"])
def test_reason_counts_count_each_node(one_object: bool) -> None:
    """A status object shared by several nodes counts once per node, as distinct equal objects do."""
    entries = {f"n{i}": SHORT if one_object else Status(Code.UNSCHEDULABLE, ("Insufficient cpu",)) for i in range(3)}
    entries["t"] = TAINTED
    statuses = DeferredNodeToStatus(entries)
    assert statuses.reason_counts() == {"Insufficient cpu": 3, "node(s) had untolerated taint {a: b}": 1}
    assert fit_error_message(5, Diagnosis(statuses)) == (
        "0/5 nodes are available: 1 node(s) had untolerated taint {a: b}, 3 Insufficient cpu.")


def positional_fill(positions: list[int], codes: list[Code], plugin: str) -> DeferredNodeToStatus:
    """A NodeToStatus whose only entries are deferred, given by column position, messages never built."""
    statuses = DeferredNodeToStatus()
    statuses.defer(never_built, None, None, lambda: (np.array(positions, dtype=np.int64),
                                                     np.array([int(c) for c in codes], dtype=np.int8),
                                                     np.zeros(len(positions), dtype=np.int16), [plugin]))
    return statuses


def test_code_columns_give_entries_by_position_and_absent_nodes_their_status() -> None:
    """Deferred entries by position, explicit ones by name, the rest the absent-nodes status; nothing built."""
    statuses = positional_fill([2, 0], [Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE], "Fit")
    statuses._statuses["n1"] = TAINTED  # recorded before the fill, as the runtime's nominated-node check does
    table = statuses.code_columns({"n0": 0, "n1": 1, "n2": 2, "n3": 3}, 4)
    assert table is not None
    codes, plugins, names = table
    assert codes.tolist() == [int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                              int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]
    assert [names[k] for k in plugins.tolist()] == ["Fit", "TaintToleration", "Fit", ""]


def test_code_columns_need_every_fill_by_position() -> None:
    """A fill that gives its entries only by name leaves code_columns to codes()."""
    assert deferred(n0=Code.UNSCHEDULABLE).code_columns({"n0": 0}, 1) is None


def test_get_of_no_node_name_reads_no_codes() -> None:
    """A pod without a nominated node asks for "": the absent-nodes status, without reading deferred codes."""
    statuses = DeferredNodeToStatus()
    statuses.defer(never_built, lambda: never_built())  # type: ignore[arg-type,return-value]
    assert statuses.get("") is statuses.absent_nodes_status
