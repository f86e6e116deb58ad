"""plugin_framework with several plugins and a path: kube-scheduler's plugin tests in one line of data each."""

from __future__ import annotations

import pytest

from kubesched.framework import Code, CycleState, FilterReads, NodeInfo, Plugin, Status, hookimpl
from kubesched.testing import (
    PATHS,
    SearchPath,
    StatusError,
    like,
    make_node,
    make_pod,
    plugin_framework,
    plugin_instance,
)

NODES = [make_node("a").label(zone="z1").capacity(cpu="2"), make_node("b").label(zone="z2").taint("k", "v"),
         make_node("c").label(zone="z1").capacity(cpu="1")]
POD = make_pod("p").node_affinity_in("zone", "z1").req(cpu="1500m")


@pytest.mark.parametrize("path", PATHS)
def test_several_plugins_filter_in_profile_order(path: SearchPath) -> None:
    """The first rejecting plugin in the order given names each node's status, on either path."""
    fw = plugin_framework("NodeAffinity", "TaintToleration", "NodeResourcesFit", nodes=NODES, path=path)
    assert fw.run_filter(POD) == {
        "a": None,
        "b": like(Status.unresolvable("node(s) didn't match Pod's node affinity/selector"), plugin="NodeAffinity"),
        "c": like(Status.unschedulable("Insufficient cpu"), plugin="NodeResourcesFit")}


@pytest.mark.parametrize("path", PATHS)
def test_scores_are_weighted_totals(path: SearchPath) -> None:
    """run_score gives each node's total after NormalizeScore and the weights given by name."""
    nodes = [make_node("a").capacity(cpu="2", memory="4Gi"), make_node("c").capacity(cpu="1", memory="4Gi")]
    fw = plugin_framework("NodeResourcesFit", "NodeAffinity", nodes=nodes, path=path,
                          weights={"NodeResourcesFit": 2, "NodeAffinity": 1})
    scores = fw.run_score(make_pod("p").req(cpu="500m", memory="1Gi"))
    # LeastAllocated: a (cpu 75 + memory 75) / 2, c (cpu 50 + memory 75) / 2 truncated; NodeAffinity 0 for all.
    assert scores == {"a": 2 * 75, "c": 2 * 62}


def test_the_paths_call_the_forms_the_path_names() -> None:
    """path="batch" runs batch forms where a plugin has them; "per-node" never does."""
    calls: list[str] = []

    class Counting(Plugin):
        name = "Counting"
        filter_reads = FilterReads.NODE

        @hookimpl
        def filter(self, state: CycleState, pod: object, node_info: NodeInfo) -> Status | None:
            calls.append("filter")
            return None

        @hookimpl
        def filter_nodes(self, state: CycleState, pod: object, node_batch: object) -> None:
            calls.append("filter_nodes")

    runs: list[tuple[SearchPath, list[str]]] = [("per-node", ["filter"] * 3), ("batch", ["filter_nodes"])]
    for path, expected in runs:
        calls.clear()
        plugin_framework(Counting, nodes=NODES, path=path).run_filter(POD)
        assert calls == expected


def test_a_pre_filter_rejection_is_every_nodes_status() -> None:
    """When PreFilter rejects the pod, every node reports PreFilter's status; run_pre_filter gives it alone."""

    class Refuses(Plugin):
        name = "Refuses"

        @hookimpl
        def pre_filter(self, state: CycleState, pod: object, nodes: object) -> Status | None:
            return Status.unresolvable("no thanks")

        @hookimpl
        def filter(self, state: CycleState, pod: object, node_info: NodeInfo) -> Status | None:
            return None

    fw = plugin_framework(Refuses, nodes=NODES)
    refused = like(Status.unresolvable("no thanks"), plugin="Refuses")
    result, status = fw.run_pre_filter(POD)
    assert (result, status == refused) == (None, True)
    assert fw.run_filter(POD) == dict.fromkeys(("a", "b", "c"), refused)


def test_a_filter_rejection_after_pre_filter_passed_is_the_nodes_status() -> None:
    """NodePorts' PreFilter passes (run_pre_filter gives no status); its Filter rejects the node whose pod holds the
    port."""
    fw = plugin_framework("NodePorts", nodes=[make_node("a").obj()],
                          pods=[make_pod("other").node("a").host_port(80).obj()])
    pod = make_pod("p").host_port(80).obj()
    assert fw.run_pre_filter(pod) == (None, None)
    assert fw.run_filter(pod) == {"a": like(Status.unschedulable("node(s) didn't have free ports for the requested "
                                                                 "pod ports"))}


@pytest.mark.parametrize("path", PATHS)
def test_a_plugin_error_while_scoring_is_a_status_error(path: SearchPath) -> None:
    """run_score raises StatusError carrying the plugin's Error status, on either path."""

    class Broken(Plugin):
        name = "Broken"

        @hookimpl
        def score(self, state: CycleState, pod: object, node_info: NodeInfo) -> int:
            raise RuntimeError("no score")

    with pytest.raises(StatusError) as failed:
        plugin_framework(Broken, nodes=NODES, path=path).run_score(POD)
    assert failed.value.status.code is Code.ERROR
    assert failed.value.status.message() == 'running Score plugins: plugin "Broken" failed with: RuntimeError: no score'


@pytest.mark.parametrize("path", PATHS)
def test_a_plugin_error_while_filtering_is_every_nodes_status(path: SearchPath) -> None:
    """A Filter plugin that raises stops the search: run_filter gives its Error status for every node."""

    class Broken(Plugin):
        name = "Broken"

        @hookimpl
        def filter(self, state: CycleState, pod: object, node_info: NodeInfo) -> Status | None:
            raise RuntimeError("no filter")

    error = like(Status.as_error('running "Broken" filter plugin: RuntimeError: no filter'), plugin="Broken")
    assert plugin_framework(Broken, nodes=NODES, path=path).run_filter(POD) == dict.fromkeys("abc", error)


def test_a_framework_needs_a_plugin() -> None:
    """plugin_framework() without a plugin is a TypeError saying so."""
    with pytest.raises(TypeError) as refused:
        plugin_framework(nodes=NODES)
    assert str(refused.value) == "give at least one plugin class"


def test_plugins_are_given_by_name_class_or_pair() -> None:
    """A built-in by name, a class, or a (class or name, args) pair; plugin_instance takes names too."""
    fw = plugin_framework(("NodeResourcesFit", {"scoring-strategy": {"type": "MostAllocated"}}), "NodeAffinity")
    assert fw.plugins_at("filter") == ["NodeResourcesFit", "NodeAffinity"]
    assert type(plugin_instance("NodeAffinity")).__name__ == "NodeAffinity"


def test_an_unknown_path_is_refused() -> None:
    """A path other than per-node or batch is a ValueError naming both."""
    with pytest.raises(ValueError, match="path must be one of per-node, batch"):
        plugin_framework("NodeName", path="fast")  # type: ignore[arg-type]


@pytest.mark.parametrize("path", PATHS)
def test_amounts_too_large_for_exact_columns_are_judged_as_the_scheduler_judges_them(path: SearchPath) -> None:
    """A node with 2^60 bytes of memory makes the columns inexact: the batch path then takes the per-node hooks,
    as the scheduler does, so the big node fits and scores as on the per-node path."""
    nodes = [make_node("big").capacity(cpu="4", memory=str(2**60), pods="10"),
             make_node("small").capacity(cpu="4", memory="1Gi", pods="10")]
    fw = plugin_framework("NodeResourcesFit", nodes=nodes, path=path)
    pod = make_pod("p").req(cpu="1", memory="2Gi")
    assert not fw.handle.snapshot.columns.exact
    assert fw.run_filter(pod) == {"big": None, "small": like(Status.unschedulable("Insufficient memory"))}
    assert fw.run_score(pod, nodes=["big"]) == {"big": 87}
