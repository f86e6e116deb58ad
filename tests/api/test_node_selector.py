"""Node selector and node affinity matching, as component-helpers' nodeaffinity does."""

from __future__ import annotations

import pytest

from kubesched.api.node import Node
from kubesched.api.node_selector import (
    RequiredNodeAffinity,
    node_selector_matches,
    preferred_score,
    requirement_matches,
    term_matches,
)
from kubesched.api.pod import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm
from kubesched.testing.builders import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def expr(key: str, operator: str, *values: str) -> NodeSelectorRequirement:
    """A node selector requirement."""
    return NodeSelectorRequirement(key, operator, values)


def labels_term(*requirements: NodeSelectorRequirement) -> NodeSelectorTerm:
    """A term with matchExpressions only."""
    return NodeSelectorTerm(match_expressions=requirements)


def fields_term(*requirements: NodeSelectorRequirement) -> NodeSelectorTerm:
    """A term with matchFields only."""
    return NodeSelectorTerm(match_fields=requirements)


def node(name: str = "n1", **labels: str) -> Node:
    """A node with these labels (besides kubernetes.io/hostname)."""
    return make_node(name).label(**labels).obj()


@pytest.mark.parametrize(
    ("requirement", "labels", "expected"),
    [
        (expr("disk", "In", "ssd", "nvme"), {"disk": "ssd"}, True),
        (expr("disk", "In", "ssd", "nvme"), {"disk": "hdd"}, False),
        (expr("disk", "In", "ssd"), {}, False),
        (expr("disk", "In", ""), {"disk": ""}, True),
        (expr("disk", "NotIn", "hdd"), {"disk": "ssd"}, True),
        (expr("disk", "NotIn", "hdd"), {"disk": "hdd"}, False),
        (expr("disk", "NotIn", "hdd"), {}, True),
        (expr("disk", "Exists"), {"disk": ""}, True),
        (expr("disk", "Exists"), {"other": "x"}, False),
        (expr("disk", "DoesNotExist"), {}, True),
        (expr("disk", "DoesNotExist"), {"disk": "ssd"}, False),
        (expr("cores", "Gt", "4"), {"cores": "8"}, True),
        (expr("cores", "Gt", "4"), {"cores": "4"}, False),
        (expr("cores", "Gt", "0"), {"cores": "1"}, True),
        (expr("cores", "Gt", "4"), {}, False),
        (expr("cores", "Lt", "4"), {"cores": "3"}, True),
        (expr("cores", "Lt", "4"), {"cores": "4"}, False),
        (expr("cores", "Lt", "4"), {"cores": "-10"}, True),
        (expr("cores", "Lt", "4"), {}, False),
    ],
)
def test_requirement_operators(requirement: NodeSelectorRequirement, labels: dict[str, str], expected: bool) -> None:
    """In, NotIn, Exists, DoesNotExist, Gt and Lt follow labels.Requirement semantics."""
    assert requirement_matches(requirement, labels) is expected


@pytest.mark.parametrize(
    ("requirement", "labels"),
    [
        pytest.param(expr("cores", "Gt", "4"), {"cores": "eight"}, id="label-not-a-number"),
        pytest.param(expr("cores", "Gt", "4"), {"cores": "8.5"}, id="label-not-an-integer"),
        pytest.param(expr("cores", "Lt", "4"), {"cores": ""}, id="label-empty"),
        pytest.param(expr("cores", "Gt", "four"), {"cores": "8"}, id="value-not-a-number"),
        pytest.param(expr("cores", "Lt", "4.5"), {"cores": "1"}, id="value-not-an-integer"),
        pytest.param(expr("cores", "Gt", "1", "2"), {"cores": "8"}, id="two-values"),
        pytest.param(expr("cores", "Gt"), {"cores": "8"}, id="no-value"),
        pytest.param(expr("cores", "Gt", "4"), {"cores": "1_000"}, id="underscore-digits-are-not-an-int64"),
        pytest.param(expr("cores", "Gt", "4"), {"cores": "99999999999999999999"}, id="label-overflows-int64"),
        # "-1" is an integer but no label value, and labels.NewRequirement checks both (kube-scheduler v1.32 puts
        # no pod requiring "cores Gt -1" on a node labelled cores=0).
        pytest.param(expr("cores", "Gt", "-1"), {"cores": "0"}, id="negative-value-is-no-label-value"),
    ],
)
def test_gt_lt_with_non_integer_values_never_match(requirement: NodeSelectorRequirement,
                                                    labels: dict[str, str]) -> None:
    """Gt/Lt compare base-10 int64 values (strconv.ParseInt); anything else never matches."""
    assert requirement_matches(requirement, labels) is False


@pytest.mark.parametrize("operator", ["Foo", "", "in"])
def test_unknown_operator_never_matches(operator: str) -> None:
    """An operator outside the six known ones matches nothing."""
    assert requirement_matches(expr("disk", operator, "ssd"), {"disk": "ssd"}) is False


def test_empty_term_matches_nothing() -> None:
    """A term with neither matchExpressions nor matchFields matches no node."""
    assert term_matches(NodeSelectorTerm(), {"disk": "ssd"}, "n1") is False


def test_expressions_of_a_term_are_anded() -> None:
    """Every expression of a term must hold."""
    term = labels_term(expr("disk", "In", "ssd"), expr("gpu", "Exists"))
    assert term_matches(term, {"disk": "ssd", "gpu": "1"}, "n1") is True
    assert term_matches(term, {"disk": "ssd"}, "n1") is False


@pytest.mark.parametrize(
    ("requirement", "node_name", "expected"),
    [
        (expr("metadata.name", "In", "n1"), "n1", True),
        (expr("metadata.name", "In", "n1"), "n2", False),
        (expr("metadata.name", "NotIn", "n1"), "n2", True),
        (expr("metadata.name", "NotIn", "n1"), "n1", False),
    ],
)
def test_match_fields_on_metadata_name(requirement: NodeSelectorRequirement, node_name: str, expected: bool) -> None:
    """matchFields selects nodes by metadata.name with In and NotIn."""
    assert term_matches(fields_term(requirement), {}, node_name) is expected


@pytest.mark.parametrize(
    "requirement",
    [
        pytest.param(expr("metadata.uid", "In", "n1"), id="other-key-In"),
        pytest.param(expr("metadata.uid", "NotIn", "n1"), id="other-key-NotIn"),
        pytest.param(expr("kubernetes.io/hostname", "In", "n1"), id="label-key-In"),
        pytest.param(expr("metadata.name", "Exists"), id="Exists"),
        pytest.param(expr("metadata.name", "DoesNotExist"), id="DoesNotExist"),
        pytest.param(expr("metadata.name", "Gt", "1"), id="Gt"),
        pytest.param(expr("metadata.name", "In", "n1", "n2"), id="In-with-two-values"),
        pytest.param(expr("metadata.name", "NotIn", "n2", "n3"), id="NotIn-with-two-values"),
    ],
)
def test_invalid_match_fields_make_the_term_match_nothing(requirement: NodeSelectorRequirement) -> None:
    """Only metadata.name with In/NotIn and exactly one value is a valid field requirement; others match nothing."""
    assert term_matches(fields_term(requirement), {"kubernetes.io/hostname": "n1"}, "n1") is False


def test_match_fields_and_expressions_are_anded() -> None:
    """A term with both matchExpressions and matchFields needs both."""
    term = NodeSelectorTerm(match_expressions=(expr("disk", "In", "ssd"),),
                            match_fields=(expr("metadata.name", "In", "n1"),))
    assert term_matches(term, {"disk": "ssd"}, "n1") is True
    assert term_matches(term, {"disk": "ssd"}, "n2") is False
    assert term_matches(term, {"disk": "hdd"}, "n1") is False


def test_terms_are_ored() -> None:
    """A node selector matches when any one of its terms matches."""
    selector = NodeSelector((labels_term(expr("disk", "In", "ssd")), labels_term(expr("gpu", "Exists"))))
    assert node_selector_matches(selector, node(gpu="1")) is True
    assert node_selector_matches(selector, node(disk="ssd")) is True
    assert node_selector_matches(selector, node(disk="hdd")) is False


def test_node_selector_without_terms_matches_nothing() -> None:
    """A required node selector with no terms matches no node."""
    assert node_selector_matches(NodeSelector(()), node()) is False


def test_empty_or_invalid_term_does_not_stop_other_terms_matching() -> None:
    """An empty or invalid term is skipped; the remaining terms still decide."""
    selector = NodeSelector((NodeSelectorTerm(), fields_term(expr("metadata.uid", "In", "x")),
                             fields_term(expr("metadata.name", "In", "n1"))))
    assert node_selector_matches(selector, node("n1")) is True
    assert node_selector_matches(selector, node("n2")) is False


def test_node_selector_uses_the_node_labels_and_name() -> None:
    """node_selector_matches reads labels and metadata.name from the Node."""
    selector = NodeSelector((NodeSelectorTerm(match_expressions=(expr(ZONE, "In", "a"),),
                                              match_fields=(expr("metadata.name", "In", "n1"),)),))
    assert node_selector_matches(selector, make_node("n1").zone("a").obj()) is True
    assert node_selector_matches(selector, make_node("n2").zone("a").obj()) is False


def test_required_affinity_of_a_pod_without_constraints_matches_every_node() -> None:
    """No nodeSelector and no required node affinity means any node fits."""
    affinity = RequiredNodeAffinity.of(make_pod("p").obj())
    assert (affinity.node_selector, affinity.required) == ({}, None)
    assert affinity.matches(node()) is True


def test_required_affinity_node_selector_needs_every_label() -> None:
    """spec.nodeSelector requires each label with exactly that value."""
    affinity = RequiredNodeAffinity.of(make_pod("p").node_selector(disk="ssd", tier="gold").obj())
    assert affinity.matches(node(disk="ssd", tier="gold", extra="x")) is True
    assert affinity.matches(node(disk="ssd", tier="silver")) is False
    assert affinity.matches(node(disk="ssd")) is False


def test_required_affinity_node_selector_empty_value_needs_the_label() -> None:
    """A nodeSelector entry with an empty value matches only nodes carrying that label with an empty value."""
    affinity = RequiredNodeAffinity.of(make_pod("p").node_selector(edge="").obj())
    assert affinity.matches(node(edge="")) is True
    assert affinity.matches(node()) is False


def test_required_affinity_uses_required_terms() -> None:
    """Required node affinity terms alone decide when there is no nodeSelector."""
    affinity = RequiredNodeAffinity.of(make_pod("p").node_affinity_in("disk", "ssd").obj())
    assert affinity.matches(node(disk="ssd")) is True
    assert affinity.matches(node(disk="hdd")) is False


def test_required_affinity_needs_both_node_selector_and_required_terms() -> None:
    """nodeSelector and required node affinity are ANDed."""
    pod = make_pod("p").node_selector(tier="gold").node_affinity_in("disk", "ssd").obj()
    affinity = RequiredNodeAffinity.of(pod)
    assert affinity.matches(node(tier="gold", disk="ssd")) is True
    assert affinity.matches(node(tier="gold", disk="hdd")) is False
    assert affinity.matches(node(tier="silver", disk="ssd")) is False


def test_required_affinity_terms_from_a_pod_are_ored() -> None:
    """Several required terms on a pod are alternatives."""
    pod = make_pod("p").node_affinity_in("disk", "ssd").node_affinity_in("gpu", operator="Exists").obj()
    affinity = RequiredNodeAffinity.of(pod)
    assert affinity.matches(node(gpu="1")) is True
    assert affinity.matches(node(disk="ssd")) is True
    assert affinity.matches(node(disk="hdd")) is False


def test_required_affinity_by_node_name() -> None:
    """A required term with matchFields metadata.name pins the pod to that node."""
    affinity = RequiredNodeAffinity.of(make_pod("p").node_affinity_names("n2").obj())
    assert affinity.matches(node("n2")) is True
    assert affinity.matches(node("n1")) is False


def test_preferred_score_sums_weights_of_matching_terms() -> None:
    """The score is the sum of the weights of every preferred term the node matches."""
    terms = (
        PreferredSchedulingTerm(10, labels_term(expr("disk", "In", "ssd"))),
        PreferredSchedulingTerm(5, labels_term(expr("gpu", "Exists"))),
        PreferredSchedulingTerm(3, fields_term(expr("metadata.name", "In", "n1"))),
        PreferredSchedulingTerm(7, labels_term(expr("zone", "In", "b"))),
    )
    assert preferred_score(terms, node("n1", disk="ssd", gpu="1", zone="a")) == 18
    assert preferred_score(terms, node("n2", zone="b")) == 7
    assert preferred_score(terms, node("n2")) == 0


def test_preferred_score_ignores_empty_terms() -> None:
    """A preferred term with an empty preference adds nothing."""
    terms = (PreferredSchedulingTerm(50, NodeSelectorTerm()),
             PreferredSchedulingTerm(1, labels_term(expr("a", "Exists"))))
    assert preferred_score(terms, node(a="x")) == 1


def test_preferred_score_without_terms_is_zero() -> None:
    """No preferred terms give a score of 0."""
    assert preferred_score((), node()) == 0
