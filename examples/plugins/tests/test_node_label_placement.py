"""NodeLabelPlacement's hooks, run by a Framework: required labels filter, a label's value order scores."""

from __future__ import annotations

import attrs
import pytest
from kubesched import CycleState, NodeInfo, Pod, Status
from kubesched.testing import make_pod

from kubesched_examples.node_label_placement import (
    ERR_REASON_LABELS,
    NAME,
    PREFERRED_VALUES_ANNOTATION,
    NodeLabelPlacement,
    NodeLabelPlacementArgs,
    pod_preferred_values,
)

from support import POOL_LABEL, ZONE_LABEL, node, placement_framework, with_annotation

BATCH = NodeLabelPlacementArgs(required_labels={POOL_LABEL: "batch", "example.com/tier": "gold"})
ZONES = NodeLabelPlacementArgs(preferred_label=ZONE_LABEL, preferred_values=("zone-a", "zone-b", "zone-c"))


def info(name: str, labels: dict[str, str]) -> NodeInfo:
    """A NodeInfo for a node with exactly these labels (plus the hostname)."""
    return NodeInfo.of(attrs.evolve(node(name), metadata=attrs.evolve(node(name).metadata, labels=labels)))


def annotated(value: str) -> Pod:
    """A pod carrying the preferred-values annotation."""
    return with_annotation(make_pod("p").obj(), PREFERRED_VALUES_ANNOTATION, value)


def filter_status(args: NodeLabelPlacementArgs, labels: dict[str, str]) -> Status | None:
    """Run PreFilter and Filter for a plain pod on a node with ``labels``."""
    framework, state, pod = placement_framework(args), CycleState(), make_pod("p").obj()
    framework.run_pre_filter_plugins(state, pod, [])
    return framework.run_filter_plugins(state, pod, info("n1", labels))


def scores(args: NodeLabelPlacementArgs, zones: list[str | None], pod: Pod | None = None) -> list[int] | None:
    """Normalised scores of nodes in ``zones`` (None: no zone label); None when Score was skipped."""
    framework, state, pod = placement_framework(args), CycleState(), pod or make_pod("p").obj()
    nodes = [info(f"n{i}", {ZONE_LABEL: zone} if zone else {}) for i, zone in enumerate(zones)]
    assert framework.run_pre_score_plugins(state, pod, nodes) is None
    table, status = framework.run_score_plugins(state, pod, nodes)
    assert status is None
    return list(table.columns[0]) if table.plugins else None


def test_node_with_every_required_label_passes() -> None:
    """A node with all required labels and values (and others besides) passes Filter."""
    assert filter_status(BATCH, {POOL_LABEL: "batch", "example.com/tier": "gold", "extra": "x"}) is None


@pytest.mark.parametrize("labels", [
    pytest.param({POOL_LABEL: "batch"}, id="label-missing"),
    pytest.param({POOL_LABEL: "system", "example.com/tier": "gold"}, id="other-value"),
    pytest.param({}, id="no-labels"),
])
def test_node_without_a_required_label_value_is_rejected(labels: dict[str, str]) -> None:
    """A missing label or another value is UnschedulableAndUnresolvable with the constant reason."""
    assert filter_status(BATCH, labels) == Status.unresolvable(ERR_REASON_LABELS).with_plugin(NAME)
    assert ERR_REASON_LABELS == "node(s) didn't have the required placement labels"


def test_filter_is_skipped_when_no_label_is_required() -> None:
    """Without required-labels PreFilter returns Skip, so Filter costs nothing per node."""
    framework, state = placement_framework(NodeLabelPlacementArgs()), CycleState()
    framework.run_pre_filter_plugins(state, make_pod("p").obj(), [])
    assert state.skip_filter_plugins == {NAME}


def test_filter_and_score_leave_pod_and_node_untouched() -> None:
    """Filter and Score do not modify the pod or the NodeInfo."""
    args = attrs.evolve(ZONES, required_labels={POOL_LABEL: "batch"})
    plugin = NodeLabelPlacement(placement_framework(args).handle, args)
    pod, node_info, state = make_pod("p").obj(), NodeInfo.of(node("n1")), CycleState()
    before = (pod, node_info.generation, dict(node_info.node.labels) if node_info.node else None)
    plugin.filter(state, pod, node_info)
    plugin.pre_score(state, pod, [node_info])
    plugin.score(state, pod, node_info)
    assert (pod, node_info.generation, dict(node_info.node.labels) if node_info.node else None) == before


def test_nodes_score_by_the_position_of_their_value() -> None:
    """The first preferred value scores 100, later ones less, an unlisted or missing value 0."""
    assert scores(ZONES, ["zone-c", "zone-a", "zone-b", "zone-x", None]) == [33, 100, 66, 0, 0]


def test_best_value_among_the_scored_nodes_scores_100() -> None:
    """Normalisation is relative: when no zone-a node is feasible, zone-b nodes get 100."""
    assert scores(ZONES, ["zone-b", "zone-c"]) == [100, 50]


def test_pod_annotation_overrides_the_preferred_order() -> None:
    """The pod's preferred-values annotation replaces the args' order for that pod."""
    assert scores(ZONES, ["zone-a", "zone-b", "zone-c"], annotated("zone-c, zone-b")) == [0, 50, 100]


def test_empty_annotation_opts_the_pod_out_of_scoring() -> None:
    """An empty preferred-values annotation makes PreScore skip this plugin's Score."""
    assert scores(ZONES, ["zone-a", "zone-b"], annotated(" , ")) is None


def test_score_is_skipped_without_a_preferred_label() -> None:
    """Without preferred-label and preferred-values the plugin does not score."""
    assert scores(NodeLabelPlacementArgs(), ["zone-a", "zone-b"]) is None


def test_score_without_pre_score_reads_the_pod_itself() -> None:
    """Score works in a profile that does not enable PreScore: the ranking is resolved per call."""
    plugin = NodeLabelPlacement(placement_framework(ZONES).handle, ZONES)
    assert plugin.score(CycleState(), make_pod("p").obj(), info("n1", {ZONE_LABEL: "zone-a"})) == 3


def test_pre_score_state_is_shared_by_a_cloned_cycle_state() -> None:
    """The PreScore state is immutable, so a CycleState clone (preemption dry runs) scores the same."""
    framework, state, pod = placement_framework(ZONES), CycleState(), make_pod("p").obj()
    nodes = [info("n1", {ZONE_LABEL: "zone-b"}), info("n2", {ZONE_LABEL: "zone-a"})]
    framework.run_pre_score_plugins(state, pod, nodes)
    original, _ = framework.run_score_plugins(state, pod, nodes)
    cloned, _ = framework.run_score_plugins(state.clone(), pod, nodes)
    assert cloned.columns == original.columns == [[66, 100]]


def test_annotation_values_are_trimmed_and_deduplicated() -> None:
    """The annotation is comma-separated: blanks are trimmed, empty items and repeats dropped."""
    assert pod_preferred_values(annotated(" zone-b, ,zone-a,zone-b "), ()) == ("zone-b", "zone-a")
