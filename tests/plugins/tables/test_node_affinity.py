"""kube-scheduler v1.32's NodeAffinity tables (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go:
TestNodeAffinity, TestNodeAffinityPriority, Test_isSchedulableAfterNodeChange), case by case with kube's names and
expected values, written with the public testing kit only.

kube's Filter table runs PreFilter (unless the case says not to) and then Filter on one node; the first test below
does exactly that through the plugin's hooks. The second runs the same rows through the scheduler's node search
on both paths, where a node a PreFilterResult leaves out gets the framework's absent-node status instead of
Filter's and a PreFilter rejection stands for every node (kube-scheduler's findNodesThatFitPod).

Not expressible with the kit (not translated):
- Test_isSchedulableAfterNodeChange "backoff-wrong-new-object" and "backoff-wrong-old-object": they pass a string
  where Go's interface{} wants a *v1.Node and expect the type assertion's error; the runtime hands kubesched's
  hints typed Node objects, so there is no such input to give.
- TestNodeAffinity_DeferredResizeSkipped exists only after v1.32 (InPlacePodVerticalScalingSchedulerPreemption).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import NodeAffinity
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    CycleState,
    EventResource,
    NodeScore,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kubesched.testing import PATHS, hint, like, make_node, make_node_term, make_pod, plugin_framework

NAME = "NodeAffinity"
REASON_POD = like(Status.unresolvable("node(s) didn't match Pod's node affinity/selector"))
REASON_ENFORCED = like(Status.unresolvable("node(s) didn't match scheduler-enforced node affinity"))
REASON_CONFLICT = like(Status.unresolvable("pod affinity terms conflict"))
SKIP = like(Status.skip())
FITS = like(None)
#: The framework's status for a node a PreFilterResult left out (findNodesThatFitPod's absent-node status).
LEFT_OUT = like(Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"))
#: kube's runPreFilter: false.
NOT_CALLED = "PreFilter not called"
NAME_IN = "metadata.name"


def hook(framework: Any, name: str) -> Any:
    """NodeAffinity's implementation of hook ``name`` in the framework."""
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


def names(*nodes: str) -> PreFilterResult:
    """A PreFilterResult narrowing to these nodes."""
    return PreFilterResult(frozenset(nodes))


def added_required(term: dict[str, Any]) -> dict[str, Any]:
    """NodeAffinityArgs whose addedAffinity requires one node selector term (kebab-case, as in a profile)."""
    return {"added-affinity": {"required-during-scheduling-ignored-during-execution": {"node-selector-terms": [term]}}}


def added_preferred(weight: int, key: str, value: str) -> dict[str, Any]:
    """NodeAffinityArgs whose addedAffinity prefers nodes with ``key In (value)`` with this weight."""
    term = {"match-expressions": [{"key": key, "operator": "In", "values": [value]}]}
    return {"added-affinity": {"preferred-during-scheduling-ignored-during-execution": [
        {"weight": weight, "preference": term}]}}


ADDED_NODE2 = added_required({"match-fields": [{"key": NAME_IN, "operator": "In", "values": ["node2"]}]})
ADDED_ZONE_BAR = added_required({"match-expressions": [{"key": "zone", "operator": "In", "values": ["bar"]}]})
FOO_BAR = make_node_term().expression("foo", "In", "bar")

# (pod, node, args, PreFilter's answer or NOT_CALLED, Filter's status)
FILTER_CASES = [
    pytest.param(make_pod("p").node_selector(foo="bar"), make_node("node"), None, None, REASON_POD,
                 id="missing labels"),
    pytest.param(make_pod("p").node_selector(foo="bar"), make_node("node").label(foo="bar"), None, None, FITS,
                 id="same labels"),
    pytest.param(make_pod("p").node_selector(foo="bar"), make_node("node").label(foo="bar", baz="blah"), None, None,
                 FITS, id="node labels are superset"),
    pytest.param(make_pod("p").node_selector(foo="bar", baz="blah"), make_node("node").label(foo="bar"), None, None,
                 REASON_POD, id="node labels are subset"),
    pytest.param(make_pod("p").node_affinity_in("foo", "bar", "value2"), make_node("node").label(foo="bar"), None,
                 None, FITS, id="Pod with matchExpressions using In operator that matches the existing node"),
    pytest.param(make_pod("p").node_affinity_in("kernel-version", "0204", operator="Gt"),
                 make_node("node").label(**{"kernel-version": "0206"}), None, None, FITS,
                 id="Pod with matchExpressions using Gt operator that matches the existing node"),
    pytest.param(make_pod("p").node_affinity_in("mem-type", "DDR", "DDR2", operator="NotIn"),
                 make_node("node").label(**{"mem-type": "DDR3"}), None, None, FITS,
                 id="Pod with matchExpressions using NotIn operator that matches the existing node"),
    pytest.param(make_pod("p").node_affinity_in("GPU", operator="Exists"),
                 make_node("node").label(GPU="NVIDIA-GRID-K1"), None, None, FITS,
                 id="Pod with matchExpressions using Exists operator that matches the existing node"),
    pytest.param(make_pod("p").node_affinity_in("foo", "value1", "value2"), make_node("node").label(foo="bar"), None,
                 None, REASON_POD, id="Pod with affinity that don't match node's labels won't schedule onto the node"),
    pytest.param(make_pod("p").node_affinity_term(make_node_term()), make_node("node").label(foo="bar"), None, None,
                 REASON_POD, id="Pod with empty MatchExpressions is not a valid value will match no objects and won't "
                                "schedule onto the node"),
    pytest.param(make_pod("p"), make_node("node").label(foo="bar"), None, SKIP, FITS,
                 id="Pod with no Affinity will schedule onto a node"),
    pytest.param(make_pod("p").node_affinity(NodeAffinity()), make_node("node").label(foo="bar"), None, SKIP, FITS,
                 id="Pod with Affinity but nil NodeSelector will schedule onto a node"),
    pytest.param(make_pod("p").node_affinity_term(
                     make_node_term().expression("GPU", "Exists").expression("GPU", "NotIn", "AMD", "INTER")),
                 make_node("node").label(GPU="NVIDIA-GRID-K1"), None, None, FITS,
                 id="Pod with multiple matchExpressions ANDed that matches the existing node"),
    pytest.param(make_pod("p").node_affinity_term(
                     make_node_term().expression("GPU", "Exists").expression("GPU", "In", "AMD", "INTER")),
                 make_node("node").label(GPU="NVIDIA-GRID-K1"), None, None, REASON_POD,
                 id="Pod with multiple matchExpressions ANDed that doesn't match the existing node"),
    pytest.param(make_pod("p").node_affinity_in("foo", "bar", "value2").node_affinity_in("diffkey", "wrong", "value2"),
                 make_node("node").label(foo="bar"), None, None, FITS,
                 id="Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule "
                    "onto the node"),
    pytest.param(make_pod("p").node_selector(foo="bar").node_affinity_in("foo", operator="Exists"),
                 make_node("node").label(foo="bar"), None, None, FITS,
                 id="Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are "
                    "satisfied, will schedule onto the node"),
    pytest.param(make_pod("p").node_selector(foo="bar").node_affinity_in("foo", operator="Exists"),
                 make_node("node").label(foo="barrrrrr"), None, None, REASON_POD,
                 id="Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are "
                    "deprecating) is not satisfied, won't schedule onto the node"),
    pytest.param(make_pod("p").node_affinity_in("foo", "invalid value: ___@#$%^", operator="NotIn"),
                 make_node("node").label(foo="bar"), None, None, REASON_POD,
                 id="Pod with an invalid value in Affinity term won't be scheduled onto the node"),
    pytest.param(make_pod("p").node_affinity_names("node1"), make_node("node1"), None, names("node1"), FITS,
                 id="Pod with matchFields using In operator that matches the existing node"),
    pytest.param(make_pod("p").node_affinity_names("node1"), make_node("node2"), None, names("node1"), REASON_POD,
                 id="Pod with matchFields using In operator that does not match the existing node"),
    pytest.param(make_pod("p").node_affinity_term(
                     make_node_term().field(NAME_IN, "In", "node1").field(NAME_IN, "In", "node2"), FOO_BAR),
                 make_node("node2").label(foo="bar"), None, None, FITS,
                 id="Pod with two terms: matchFields does not match, but matchExpressions matches"),
    pytest.param(make_pod("p").node_affinity_term(make_node_term().field(NAME_IN, "In", "node1")
                                                  .expression("foo", "In", "bar")),
                 make_node("node2").label(foo="bar"), None, names("node1"), REASON_POD,
                 id="Pod with one term: matchFields does not match, but matchExpressions matches"),
    pytest.param(make_pod("p").node_affinity_term(make_node_term().field(NAME_IN, "In", "node1")
                                                  .expression("foo", "In", "bar")),
                 make_node("node1").label(foo="bar"), None, names("node1"), FITS,
                 id="Pod with one term: both matchFields and matchExpressions match"),
    pytest.param(make_pod("p").node_affinity_term(make_node_term().field(NAME_IN, "In", "node1"),
                                                  make_node_term().expression("foo", "In", "not-match-to-bar")),
                 make_node("node2").label(foo="bar"), None, None, REASON_POD,
                 id="Pod with two terms: both matchFields and matchExpressions do not match"),
    pytest.param(make_pod("p").node_affinity_names("node1", "node2"), make_node("node2"), None,
                 names("node1", "node2"), FITS, id="Pod with two terms of node.Name affinity"),
    pytest.param(make_pod("p").node_affinity_term(
                     make_node_term().field(NAME_IN, "In", "node1").field(NAME_IN, "In", "node2")),
                 make_node("node2").label(foo="bar"), None, REASON_CONFLICT, REASON_POD,
                 id="Pod with two conflicting mach field requirements"),
    pytest.param(make_pod("p").node_affinity_in("zone", "foo"), make_node("node2").label(zone="foo"), ADDED_NODE2,
                 None, FITS, id="Matches added affinity and Pod's node affinity"),
    pytest.param(make_pod("p").node_affinity_in("zone", "bar"), make_node("node2").label(zone="foo"), ADDED_NODE2,
                 None, REASON_POD, id="Matches added affinity but not Pod's node affinity"),
    pytest.param(make_pod("p"), make_node("node2").label(zone="foo"), ADDED_ZONE_BAR, None, REASON_ENFORCED,
                 id="Doesn't match added affinity"),
    pytest.param(make_pod("p").node_selector(foo="bar"), make_node("node").label(foo="bar", baz="blah"), None,
                 NOT_CALLED, FITS, id="Matches node selector correctly even if PreFilter is not called"),
    pytest.param(make_pod("p").node_affinity_term(
                     make_node_term().expression("GPU", "Exists").expression("GPU", "NotIn", "AMD", "INTER")),
                 make_node("node").label(GPU="NVIDIA-GRID-K1"), None, NOT_CALLED, FITS,
                 id="Matches node affinity correctly even if PreFilter is not called"),
]


@pytest.mark.parametrize(("pod", "node", "args", "pre_filter", "want"), FILTER_CASES)
def test_pre_filter_then_filter(pod: Any, node: Any, args: Any, pre_filter: Any, want: Any) -> None:
    """PreFilter answers kube's status or PreFilterResult, and Filter on the node answers kube's status after it."""
    framework = plugin_framework((NAME, args), nodes=[node])
    state = CycleState()
    (node_info,) = framework.handle.snapshot.list()
    if pre_filter is not NOT_CALLED:
        assert hook(framework, "pre_filter")(state, pod.obj(), [node_info]) == pre_filter
    assert hook(framework, "filter")(state, pod.obj(), node_info) == want


def searched(pre_filter: Any, want: Any, node: str) -> Any:
    """What the scheduler's node search gives the node for a row: PreFilter's rejection, the absent-node status when
    PreFilter's result leaves the node out, else Filter's status."""
    if pre_filter == REASON_CONFLICT:
        return pre_filter
    if isinstance(pre_filter, PreFilterResult) and pre_filter.node_names is not None and \
            node not in pre_filter.node_names:
        return LEFT_OUT
    return want


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "node", "args", "pre_filter", "want"), FILTER_CASES)
def test_node_search(path: Any, pod: Any, node: Any, args: Any, pre_filter: Any, want: Any) -> None:
    """The scheduler's search (PreFilter, then Filter on the nodes left) gives the node the status kube's table
    implies, the same on both paths."""
    node_name = node.obj().name
    framework = plugin_framework((NAME, args), path=path, nodes=[node])
    assert framework.run_filter(pod) == {node_name: searched(pre_filter, want, node_name)}


PREFER_FOO = make_pod("p").preferred_node_affinity(2, "foo", "bar")
PREFER_THREE = (make_pod("p").preferred_node_affinity(2, "foo", "bar").preferred_node_affinity(4, "key", "value")
                .preferred_node_affinity_term(5, make_node_term().expression("foo", "In", "bar")
                                              .expression("key", "In", "value").expression("az", "In", "az1")))
LABEL1, LABEL2, LABEL3 = {"foo": "bar"}, {"key": "value"}, {"az": "az1"}
LABEL4, LABEL5 = {"abc": "az11", "def": "az22"}, {"foo": "bar", "key": "value", "az": "az1"}


def nodes(**labels: dict[str, str]) -> list[Any]:
    """Nodes named by the keywords, in order, each with its labels."""
    return [make_node(name).labels(node_labels) for name, node_labels in labels.items()]


# (pod, nodes, args, each node's score after NormalizeScore, whether kube's case runs PreScore)
SCORE_CASES = [
    pytest.param(make_pod("p"), nodes(node1=LABEL1, node2=LABEL2, node3=LABEL3), None,
                 {"node1": 0, "node2": 0, "node3": 0}, False, id="all nodes are same priority as NodeAffinity is nil"),
    pytest.param(PREFER_FOO, nodes(node1=LABEL4, node2=LABEL2, node3=LABEL3), None,
                 {"node1": 0, "node2": 0, "node3": 0}, True,
                 id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority "
                    "is zero"),
    pytest.param(PREFER_FOO, nodes(node1=LABEL1, node2=LABEL2, node3=LABEL3), None,
                 {"node1": 100, "node2": 0, "node3": 0}, True,
                 id="only node1 matches the preferred scheduling requirements of pod"),
    pytest.param(PREFER_THREE, nodes(node1=LABEL1, node5=LABEL5, node2=LABEL2), None,
                 {"node1": 18, "node5": 100, "node2": 36}, True,
                 id="all nodes matches the preferred scheduling requirements of pod but with different priorities "),
    pytest.param(make_pod("p"), nodes(node1=LABEL1, node2=LABEL2), added_preferred(2, "foo", "bar"),
                 {"node1": 100, "node2": 0}, True, id="added affinity"),
    pytest.param(PREFER_FOO, nodes(node1=LABEL1, node2=LABEL2, node3=LABEL5), added_preferred(3, "key", "value"),
                 {"node1": 40, "node2": 60, "node3": 100}, True, id="added affinity and pod has default affinity"),
    pytest.param(PREFER_THREE, nodes(node1=LABEL1, node5=LABEL5, node2=LABEL2), None,
                 {"node1": 18, "node5": 100, "node2": 36}, False,
                 id="calculate the priorities correctly even if PreScore is not called"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "node_list", "args", "want", "pre_score"), SCORE_CASES)
def test_score(path: Any, pod: Any, node_list: list[Any], args: Any, want: dict[str, int], pre_score: bool) -> None:
    """PreScore, Score and NormalizeScore give every node kube's score, the same on both paths."""
    framework = plugin_framework((NAME, args), path=path, nodes=node_list)
    assert framework.run_score(pod) == want


@pytest.mark.parametrize(("pod", "node_list", "args", "want", "pre_score"),
                         [case for case in SCORE_CASES if not case.values[-1]])
def test_score_without_pre_score(pod: Any, node_list: list[Any], args: Any, want: dict[str, int],
                                 pre_score: bool) -> None:
    """Score falls back to the pod's own terms when PreScore did not run, and NormalizeScore scales as before."""
    framework = plugin_framework((NAME, args), nodes=node_list)
    state = CycleState()
    scores = [NodeScore(info.name, hook(framework, "score")(state, pod.obj(), info))
              for info in framework.handle.snapshot.list()]
    assert hook(framework, "normalize_score")(state, pod.obj(), scores) is None
    assert {score.name: score.score for score in scores} == want


BROKEN_KEY = make_pod("p").preferred_node_affinity_term(2, make_node_term().expression("invalid key", "In", "bar"))
INVALID_KEY = ('[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of alphanumeric '
               "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
               "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


@pytest.mark.parametrize(("pod", "want"), [
    pytest.param(make_pod("p"), SKIP, id="Skip is returned in PreScore when NodeAffinity is nil"),
    pytest.param(BROKEN_KEY, like(Status.as_error(INVALID_KEY)),
                 id="PreScore returns error when an incoming Pod has a broken affinity"),
])
def test_pre_score_status(pod: Any, want: Any) -> None:
    """PreScore skips a pod with no preferred terms and is kube's Error for a term it cannot parse."""
    framework = plugin_framework(NAME, nodes=nodes(node1=LABEL1))
    assert hook(framework, "pre_score")(CycleState(), pod.obj(), framework.handle.snapshot.list()) == want


NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
LABEL_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
POD_FOO_BAR = make_pod("p").node_affinity_in("foo", "bar")
ENFORCED_FOO_BAR = added_required({"match-expressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]})
QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize(("args", "event", "old", "new", "want"), [
    pytest.param(None, NODE_ADD, None, make_node("node"), QUEUE_SKIP, id="skip-queue-on-add"),
    pytest.param(None, NODE_ADD, None, make_node("node").label(foo="bar"), QUEUE, id="queue-on-add"),
    pytest.param(None, LABEL_UPDATE, make_node("node"), make_node("node"), QUEUE_SKIP, id="skip-unrelated-changes"),
    pytest.param(None, LABEL_UPDATE, make_node("node"), make_node("node").label(k="v"), QUEUE_SKIP,
                 id="skip-unrelated-changes-on-labels"),
    pytest.param(None, LABEL_UPDATE, make_node("node").label(foo="bar"), make_node("node").label(k="v"), QUEUE_SKIP,
                 id="skip-labels-changes-on-node-from-suitable-to-unsuitable"),
    pytest.param(None, LABEL_UPDATE, make_node("node"), make_node("node").label(foo="bar"), QUEUE,
                 id="queue-on-labels-change-makes-pod-schedulable"),
    pytest.param(None, LABEL_UPDATE, make_node("node").label(foo="bar"), make_node("node").label(foo="bar"),
                 QUEUE_SKIP, id="skip-unrelated-change-that-keeps-pod-schedulable"),
    pytest.param(ENFORCED_FOO_BAR, NODE_ADD, None, make_node("node"), QUEUE_SKIP,
                 id="skip-queue-on-add-scheduler-enforced-node-affinity"),
    pytest.param(ENFORCED_FOO_BAR, NODE_ADD, None, make_node("node").label(foo="bar"), QUEUE,
                 id="queue-on-add-scheduler-enforced-node-affinity"),
])
def test_is_schedulable_after_node_change(args: Any, event: ClusterEvent, old: Any, new: Any,
                                          want: QueueingHint) -> None:
    """A node added or relabelled requeues the pod only when it now matches the pod's and the enforced affinity
    and did not before."""
    assert hint(NAME, POD_FOO_BAR, event, old and old.obj(), new.obj(), args=args) is want
