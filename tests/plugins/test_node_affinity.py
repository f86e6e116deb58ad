"""NodeAffinity: nodeSelector and required node affinity (PreFilter + Filter), preferred terms (Score),
and the scheduler-enforced added-affinity args."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api.node import Node
from kubesched.api.pod import (
    Affinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from kubesched.api.pod import NodeAffinity as PodNodeAffinity
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import PreFilterResult
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import (
    SUCCESS,
    node_info,
    normalize,
    normalized_scores,
    raw_scores,
    run_filter,
    verdict,
)

UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
POD_REASON = (UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",))
ENFORCED_REASON = (UNRESOLVABLE, ("node(s) didn't match scheduler-enforced node affinity",))


#: A value the API server accepts in a pod's node affinity but that is no label value (from kube's tests).
INVALID_VALUE = "invalid value: ___@#$%^"
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


# -- builders ---------------------------------------------------------------------------------------

def expr(key: str, operator: str, *values: str) -> NodeSelectorRequirement:
    """A node selector requirement."""
    return NodeSelectorRequirement(key, operator, values)


def names_in(*names: str) -> NodeSelectorRequirement:
    """A metadata.name In requirement (for match_fields)."""
    return NodeSelectorRequirement("metadata.name", "In", names)


def term(*expressions: NodeSelectorRequirement, fields: tuple[NodeSelectorRequirement, ...] = ()) -> NodeSelectorTerm:
    """A term: its expressions and fields are ANDed."""
    return NodeSelectorTerm(tuple(expressions), fields)


def with_node_affinity(pod: Pod, affinity: PodNodeAffinity) -> Pod:
    """The pod with spec.affinity.nodeAffinity replaced."""
    return attrs.evolve(pod, spec=attrs.evolve(pod.spec, affinity=Affinity(node_affinity=affinity)))


def requiring(*terms: NodeSelectorTerm, pod: Pod | None = None) -> Pod:
    """A pod whose required node affinity has these (ORed) terms."""
    return with_node_affinity(pod or make_pod("p").obj(), PodNodeAffinity(required=NodeSelector(terms)))


def preferring(*terms: tuple[int, NodeSelectorTerm]) -> Pod:
    """A pod with these (weight, term) preferred node affinity terms."""
    preferred = tuple(PreferredSchedulingTerm(w, t) for w, t in terms)
    return with_node_affinity(make_pod("p").obj(), PodNodeAffinity(preferred=preferred))


def labelled(name: str = "n1", **labels: str) -> Node:
    """A node with these labels (plus kubernetes.io/hostname)."""
    return make_node(name).labels(labels).obj()


def plugin(args: dict[str, Any] | None = None) -> NodeAffinity:
    """The plugin built from kebab-case args."""
    return plugin_instance(NodeAffinity, args or {})


def added_required(*expressions: dict[str, Any]) -> dict[str, Any]:
    """Args enforcing one required term with these kebab-case expressions."""
    return {"added-affinity": {"required-during-scheduling-ignored-during-execution": {
        "node-selector-terms": [{"match-expressions": list(expressions)}]}}}


def added_preferred(*terms: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    """Args adding these (weight, kebab-case expression) preferred terms."""
    return {"added-affinity": {"preferred-during-scheduling-ignored-during-execution": [
        {"weight": w, "preference": {"match-expressions": [e]}} for w, e in terms]}}


def pre_filter_nodes(outcome: PreFilterResult | Status | None) -> frozenset[str] | None:
    """The node names a successful PreFilter narrowed to (None: all nodes)."""
    assert not isinstance(outcome, Status) or outcome.code is Code.SUCCESS, f"PreFilter returned {outcome}"
    return outcome.node_names if isinstance(outcome, PreFilterResult) else None


# -- Filter -----------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param(make_pod("p").node_selector(zone="a").obj(), labelled(zone="a"), SUCCESS, id="selector-match"),
    pytest.param(make_pod("p").node_selector(zone="a").obj(), labelled(zone="b"), POD_REASON, id="selector-mismatch"),
    pytest.param(make_pod("p").node_selector(zone="a").obj(), labelled(), POD_REASON, id="selector-label-missing"),
    pytest.param(make_pod("p").node_selector(zone="a", disk="ssd").obj(), labelled(zone="a"), POD_REASON,
                 id="selector-needs-every-label"),
    pytest.param(requiring(term(expr("zone", "In", "a", "b"))), labelled(zone="b"), SUCCESS, id="in-match"),
    pytest.param(requiring(term(expr("zone", "In", "a", "b"))), labelled(zone="c"), POD_REASON, id="in-mismatch"),
    pytest.param(requiring(term(expr("zone", "NotIn", "a"))), labelled(zone="b"), SUCCESS, id="not-in-other-value"),
    pytest.param(requiring(term(expr("zone", "NotIn", "a"))), labelled(), SUCCESS, id="not-in-label-absent"),
    pytest.param(requiring(term(expr("zone", "NotIn", "a"))), labelled(zone="a"), POD_REASON, id="not-in-listed"),
    pytest.param(requiring(term(expr("gpu", "Exists"))), labelled(gpu="t4"), SUCCESS, id="exists-present"),
    pytest.param(requiring(term(expr("gpu", "Exists"))), labelled(), POD_REASON, id="exists-absent"),
    pytest.param(requiring(term(expr("gpu", "DoesNotExist"))), labelled(), SUCCESS, id="does-not-exist-absent"),
    pytest.param(requiring(term(expr("gpu", "DoesNotExist"))), labelled(gpu="t4"), POD_REASON,
                 id="does-not-exist-present"),
    pytest.param(requiring(term(expr("cores", "Gt", "4"))), labelled(cores="8"), SUCCESS, id="gt-greater"),
    pytest.param(requiring(term(expr("cores", "Gt", "8"))), labelled(cores="8"), POD_REASON, id="gt-equal"),
    pytest.param(requiring(term(expr("cores", "Lt", "16"))), labelled(cores="8"), SUCCESS, id="lt-less"),
    pytest.param(requiring(term(expr("cores", "Gt", "4"))), labelled(cores="eight"), POD_REASON,
                 id="gt-non-integer-label"),
    pytest.param(requiring(term(expr("zone", "In", "a")), term(expr("zone", "In", "b"))), labelled(zone="b"),
                 SUCCESS, id="terms-ored"),
    pytest.param(requiring(term(expr("zone", "In", "a"), expr("disk", "In", "ssd"))), labelled(zone="a", disk="hdd"),
                 POD_REASON, id="expressions-anded"),
    pytest.param(requiring(term(expr("zone", "In", "a"), expr("disk", "In", "ssd"))), labelled(zone="a", disk="ssd"),
                 SUCCESS, id="expressions-all-match"),
    pytest.param(requiring(term()), labelled(zone="a"), POD_REASON, id="empty-term-matches-nothing"),
    pytest.param(requiring(), labelled(zone="a"), POD_REASON, id="no-terms-match-nothing"),
    pytest.param(requiring(term(fields=(names_in("n1"),))), labelled("n1"), SUCCESS, id="match-fields-name"),
    pytest.param(requiring(term(fields=(names_in("n1"),))), labelled("n2"), POD_REASON,
                 id="match-fields-other-name"),
    pytest.param(requiring(term(expr("disk", "In", "ssd")), pod=make_pod("p").node_selector(zone="a").obj()),
                 labelled(zone="a", disk="hdd"), POD_REASON, id="selector-and-affinity-both-required"),
    # kube-scheduler cannot parse these requirements (the API server accepts the first two): the term matches no node.
    pytest.param(requiring(term(expr("foo", "NotIn", INVALID_VALUE))), labelled(foo="bar"), POD_REASON,
                 id="value-not-a-label-value"),
    pytest.param(requiring(term(expr("cores", "Gt", "abc"))), labelled(cores="8"), POD_REASON,
                 id="gt-value-not-an-integer"),
    pytest.param(requiring(term(expr("a b", "DoesNotExist"))), labelled(), POD_REASON, id="key-not-a-label-key"),
    pytest.param(requiring(term(expr("zone", "In"))), labelled(zone="a"), POD_REASON, id="in-without-values"),
    pytest.param(requiring(term(expr("zone", "Exists", "a"))), labelled(zone="a"), POD_REASON,
                 id="exists-with-values"),
    pytest.param(requiring(term(expr("zone", "Near", "a"))), labelled(zone="a"), POD_REASON, id="unknown-operator"),
    pytest.param(requiring(term(expr("foo", "NotIn", INVALID_VALUE)), term(expr("foo", "In", "bar"))),
                 labelled(foo="bar"), SUCCESS, id="unparsable-term-leaves-other-terms"),
]


@pytest.mark.parametrize(("pod", "node", "expected"), FILTER_CASES)
def test_filter_matches_node_selector_and_required_affinity(
        pod: Pod, node: Node, expected: tuple[Code, tuple[str, ...]]) -> None:
    """nodeSelector labels all match and some required term (its requirements ANDed) matches, or Unresolvable."""
    assert verdict(run_filter(plugin(), pod, node_info(node))) == expected


def test_filter_without_pre_filter_state_still_applies_constraints() -> None:
    """Filter computes the pod's required affinity itself when PreFilter did not run."""
    pod = make_pod("p").node_selector(zone="a").obj()
    assert verdict(plugin().filter(CycleState(), pod, node_info(labelled(zone="b")))) == POD_REASON


# -- PreFilter --------------------------------------------------------------------------------------

SKIP_CASES = [
    pytest.param(make_pod("p").obj(), id="no-affinity"),
    pytest.param(preferring((5, term(expr("zone", "In", "a")))), id="only-preferred-terms"),
]


@pytest.mark.parametrize("pod", SKIP_CASES)
def test_pre_filter_skips_pod_without_required_constraints(pod: Pod) -> None:
    """No nodeSelector, no required affinity and no added affinity: PreFilter returns Skip."""
    outcome = plugin().pre_filter(CycleState(), pod, [])
    assert isinstance(outcome, Status)
    assert outcome.code is Code.SKIP


def test_pre_filter_runs_for_node_selector() -> None:
    """A nodeSelector alone is a constraint: PreFilter succeeds without narrowing."""
    assert pre_filter_nodes(plugin().pre_filter(CycleState(), make_pod("p").node_selector(zone="a").obj(), [])) is None


def test_pre_filter_runs_for_added_affinity() -> None:
    """With added affinity configured even an unconstrained pod is filtered."""
    args = added_required({"key": "zone", "operator": "In", "values": ["a"]})
    assert pre_filter_nodes(plugin(args).pre_filter(CycleState(), make_pod("p").obj(), [])) is None


NARROWING_CASES = [
    pytest.param(requiring(term(fields=(names_in("n1", "n2"),))), {"n1", "n2"}, id="one-term"),
    pytest.param(requiring(term(fields=(names_in("n1", "n2"),)), term(fields=(names_in("n3"),))), {"n1", "n2", "n3"},
                 id="terms-unioned"),
    pytest.param(requiring(term(fields=(names_in("n1", "n2"), names_in("n2", "n3")))), {"n2"},
                 id="requirements-in-a-term-intersected"),
    pytest.param(requiring(term(expr("zone", "In", "a"), fields=(names_in("n1"),))), {"n1"},
                 id="label-expressions-do-not-widen-a-term"),
    pytest.param(requiring(term(fields=(names_in("n1"),)), term(expr("zone", "In", "a"))), None,
                 id="a-term-without-names-allows-all-nodes"),
    pytest.param(requiring(term(fields=(NodeSelectorRequirement("metadata.name", "NotIn", ("n1",)),))), None,
                 id="not-in-does-not-narrow"),
    pytest.param(requiring(term(expr("zone", "In", "a"))), None, id="labels-only"),
    pytest.param(requiring(), None, id="no-terms"),
]


@pytest.mark.parametrize(("pod", "expected"), NARROWING_CASES)
def test_pre_filter_narrows_to_nodes_named_by_metadata_name(pod: Pod, expected: set[str] | None) -> None:
    """PreFilterResult holds the nodes named through metadata.name In when every term names some (None: all)."""
    narrowed = pre_filter_nodes(plugin().pre_filter(CycleState(), pod, []))
    assert narrowed == (None if expected is None else frozenset(expected))


def test_pre_filter_conflicting_names_are_unresolvable() -> None:
    """metadata.name In requirements with no node in common: "pod affinity terms conflict", Unresolvable."""
    pod = requiring(term(fields=(names_in("n1"), names_in("n2"))))
    outcome = plugin().pre_filter(CycleState(), pod, [])
    assert isinstance(outcome, Status)
    assert verdict(outcome) == (UNRESOLVABLE, ("pod affinity terms conflict",))


# -- added affinity ---------------------------------------------------------------------------------

ZONE_A = {"key": "zone", "operator": "In", "values": ["a"]}

ADDED_FILTER_CASES = [
    pytest.param(make_pod("p").obj(), labelled(zone="a"), SUCCESS, id="enforced-term-matches"),
    pytest.param(make_pod("p").obj(), labelled(zone="b"), ENFORCED_REASON, id="enforced-term-fails"),
    pytest.param(make_pod("p").node_selector(disk="ssd").obj(), labelled(zone="a", disk="hdd"), POD_REASON,
                 id="pod-constraint-still-applies"),
    pytest.param(make_pod("p").node_selector(disk="ssd").obj(), labelled(zone="b", disk="hdd"), ENFORCED_REASON,
                 id="enforced-checked-first"),
    pytest.param(requiring(term(expr("zone", "In", "b"))), labelled(zone="b"), ENFORCED_REASON,
                 id="anded-with-pod-affinity-not-ored"),
]


@pytest.mark.parametrize(("pod", "node", "expected"), ADDED_FILTER_CASES)
def test_added_affinity_is_anded_with_pod_constraints(
        pod: Pod, node: Node, expected: tuple[Code, tuple[str, ...]]) -> None:
    """Added required affinity must hold on top of the pod's own; its failure reads "scheduler-enforced"."""
    assert verdict(run_filter(plugin(added_required(ZONE_A)), pod, node_info(node))) == expected


# -- Score ------------------------------------------------------------------------------------------

ZONE_A_TERM = term(expr("zone", "In", "a"))
SSD_TERM = term(expr("disk", "In", "ssd"))


def scoring_nodes() -> list[NodeInfo]:
    """Nodes matching both, one, or none of the zone=a and disk=ssd terms."""
    return [node_info(labelled("both", zone="a", disk="ssd")), node_info(labelled("zone", zone="a")),
            node_info(labelled("none", zone="b")), node_info(labelled("disk", disk="ssd"))]


def test_score_sums_weights_of_matching_preferred_terms() -> None:
    """The raw score is the sum of the weights of the preferred terms the node matches."""
    pod = preferring((2, ZONE_A_TERM), (5, SSD_TERM))
    assert raw_scores(plugin(), pod, scoring_nodes()) == [7, 2, 0, 5]


def test_empty_preferred_term_matches_nothing() -> None:
    """A preferred term without requirements adds nothing to any node."""
    pod = preferring((5, term()), (2, ZONE_A_TERM))
    assert raw_scores(plugin(), pod, scoring_nodes()) == [2, 2, 0, 0]


def test_added_preferred_terms_add_to_the_pods_own() -> None:
    """Preferred terms from added-affinity count for every pod, alongside the pod's own."""
    args = added_preferred((10, {"key": "disk", "operator": "In", "values": ["ssd"]}))
    assert raw_scores(plugin(args), preferring((2, ZONE_A_TERM)), scoring_nodes()) == [12, 2, 0, 10]
    assert raw_scores(plugin(args), make_pod("p").obj(), scoring_nodes()) == [10, 0, 0, 10]


def test_normalized_score_scales_best_node_to_100() -> None:
    """After NormalizeScore the best node has 100 and the rest 100 * s // max."""
    pod = preferring((2, ZONE_A_TERM), (5, SSD_TERM))
    assert normalized_scores(plugin(), pod, scoring_nodes()) == [100, 28, 0, 71]


NORMALIZE_CASES = [
    pytest.param([0, 0], [0, 0], id="all-zero-stay-zero"),
    pytest.param([1, 2, 4], [25, 50, 100], id="scaled-to-max"),
    pytest.param([3], [100], id="single-node"),
    pytest.param([], [], id="no-nodes"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZE_CASES)
def test_normalize_score(raw: list[int], expected: list[int]) -> None:
    """NormalizeScore is DefaultNormalizeScore(100, reverse=false)."""
    assert normalize(plugin(), make_pod("p").obj(), raw) == expected


PRE_SCORE_CASES = [
    pytest.param({}, make_pod("p").obj(), Code.SKIP, id="no-preferred-terms"),
    pytest.param({}, requiring(ZONE_A_TERM), Code.SKIP, id="required-only"),
    pytest.param({}, preferring((1, ZONE_A_TERM)), Code.SUCCESS, id="pod-preferred-terms"),
    pytest.param(added_preferred((1, ZONE_A)), make_pod("p").obj(), Code.SUCCESS, id="added-preferred-terms"),
]


@pytest.mark.parametrize(("args", "pod", "code"), PRE_SCORE_CASES)
def test_pre_score_skips_without_preferred_terms(args: dict[str, Any], pod: Pod, code: Code) -> None:
    """PreScore returns Skip when neither the pod nor added-affinity has preferred terms."""
    status = plugin(args).pre_score(CycleState(), pod, scoring_nodes())
    assert (Code.SUCCESS if status is None else status.code) is code


# Messages read from kube-scheduler v1.32's FailedScheduling events ("running PreScore plugin "NodeAffinity": ...").
PRE_SCORE_ERROR_CASES = [
    pytest.param(preferring((3, term(expr("foo", "NotIn", INVALID_VALUE)))),
                 f'[0].matchExpressions[0].values[0][foo]: Invalid value: "{INVALID_VALUE}": {LABEL_VALUE}',
                 id="value-not-a-label-value"),
    pytest.param(preferring((3, term(expr("foo", "Gt", "abc")))),
                 "[0].matchExpressions[0].values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' operators, the value "
                 "must be an integer", id="gt-value-not-an-integer"),
    pytest.param(preferring((3, term(expr("foo", "In", "a b", "c"), expr("foo", "Lt", "1x"))),
                            (3, term(expr("foo", "In", "ok"))),
                            (3, term(expr("foo", "NotIn", "$"), fields=(names_in("n1"),)))),
                 f'[[0].matchExpressions[0].values[0][foo]: Invalid value: "a b": {LABEL_VALUE}, '
                 "[0].matchExpressions[1].values[0]: Invalid value: \"1x\": for 'Gt', 'Lt' operators, the value "
                 f'must be an integer, [2].matchExpressions[0].values[0][foo]: Invalid value: "$": {LABEL_VALUE}]',
                 id="every-problem-of-every-term"),
    pytest.param(preferring((3, term(expr("a b", "Exists")))),
                 '[0].matchExpressions[0].key: Invalid value: "a b": name part must consist of alphanumeric '
                 "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', "
                 " or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
                 "[A-Za-z0-9]')", id="key-not-a-label-key"),
    pytest.param(preferring((3, term(expr("zone", "Near", "a")))),
                 '[0].matchExpressions[0].operator: Unsupported value: "Near"', id="unknown-operator"),
    pytest.param(preferring((3, term(fields=(NodeSelectorRequirement("metadata.name", "In", ("n1", "n2")),)))),
                 '[0].matchFields[0].values: Invalid value: []string{"n1", "n2"}: must have one element',
                 id="field-with-two-values"),
]


@pytest.mark.parametrize(("pod", "message"), PRE_SCORE_ERROR_CASES)
def test_pre_score_is_an_error_when_preferred_terms_cannot_be_parsed(pod: Pod, message: str) -> None:
    """PreScore returns kube-scheduler's parse error for the pod's preferred terms, all problems in term order."""
    assert verdict(plugin().pre_score(CycleState(), pod, scoring_nodes())) == (Code.ERROR, (message,))


def test_unparsed_preferred_terms_of_weight_zero_are_no_error() -> None:
    """kube-scheduler does not parse a preferred term of weight 0, so it cannot fail PreScore."""
    pod = preferring((0, term(expr("foo", "NotIn", INVALID_VALUE))), (1, ZONE_A_TERM))
    assert raw_scores(plugin(), pod, scoring_nodes()) == [1, 1, 0, 0]


def test_score_without_pre_score_state_raises_on_unparsable_terms() -> None:
    """Without PreScore's state (PreScore disabled) Score parses the pod's terms itself, and fails as kube's does."""
    pod = preferring((3, term(expr("foo", "Gt", "abc"))))
    with pytest.raises(ValueError, match="the value must be an integer"):
        plugin().score(CycleState(), pod, scoring_nodes()[0])
