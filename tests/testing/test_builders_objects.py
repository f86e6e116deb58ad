"""make_node, make_pdb, make_priority_class and make_namespace build the objects their manifests decode to."""

from __future__ import annotations

import pytest

from kubesched.api.policy import IntOrPercent
from kubesched.testing import make_namespace, make_node, make_pdb, make_priority_class, make_selector
from kubesched.testing.builders_policy import int_or_percent
from tests.testing import decoded


def test_a_node_starts_with_its_hostname_label_and_no_resources() -> None:
    """``make_node("n").obj()`` keeps its old meaning: the hostname label, no capacity, no allocatable."""
    assert make_node("n").obj() == decoded.node("""metadata: {name: n, uid: n-uid, labels: {kubernetes.io/hostname: n}}
""")


def test_unlabel_builds_a_node_without_the_hostname_label() -> None:
    """``unlabel("kubernetes.io/hostname")`` removes the label the builder adds."""
    assert make_node("n").unlabel("kubernetes.io/hostname").obj().labels == {}


def test_without_resource_builds_a_node_without_a_pods_allocatable() -> None:
    """``without_resource("pods")`` drops the default pod count from capacity and allocatable."""
    node = make_node("n").capacity(cpu="4").without_resource("pods").obj()
    assert node == decoded.node("""metadata: {name: n, uid: n-uid, labels: {kubernetes.io/hostname: n}}
status: {capacity: {cpu: "4"}, allocatable: {cpu: "4"}}
""")


def test_node_annotations_and_uid() -> None:
    """Nodes take annotations and a uid like pods."""
    node = make_node("n").uid("u-1").annotations({"node.alpha.kubernetes.io/ttl": "0"}).obj()
    assert node == decoded.node("""metadata:
  name: n
  uid: u-1
  labels: {kubernetes.io/hostname: n}
  annotations: {node.alpha.kubernetes.io/ttl: "0"}
""")


def test_a_pdb_with_labels_min_available_and_disruptions_allowed() -> None:
    """The PDB of kube's MakePDB tables: matchLabels, minAvailable and status.disruptionsAllowed."""
    pdb = make_pdb("budget").match(app="web").min_available(2).disruptions_allowed(1).obj()
    assert pdb == decoded.pdb("""metadata: {name: budget, namespace: default, uid: default/budget-uid}
spec: {selector: {matchLabels: {app: web}}, minAvailable: 2}
status: {disruptionsAllowed: 1}
""")


def test_a_pdb_with_a_percent_max_unavailable_an_expression_and_disrupted_pods() -> None:
    """maxUnavailable as a percentage, a selector with an expression, and status.disruptedPods."""
    pdb = make_pdb("budget", "team").selector(make_selector().expression("app", "NotIn", "db")) \
        .max_unavailable("25%").disrupted("web-1", at="2024-05-01T12:00:00Z").obj()
    assert pdb == decoded.pdb("""metadata: {name: budget, namespace: team, uid: team/budget-uid}
spec: {selector: {matchExpressions: [{key: app, operator: NotIn, values: [db]}]}, maxUnavailable: 25%}
status: {disruptedPods: {web-1: "2024-05-01T12:00:00Z"}}
""")


def test_a_pdb_starts_without_a_selector() -> None:
    """No selector until one is given: in policy/v1 such a PDB selects no pod."""
    assert make_pdb("budget").obj().selector is None


@pytest.mark.parametrize(("value", "expected"), [
    pytest.param(0, IntOrPercent(0), id="zero"),
    pytest.param(3, IntOrPercent(3), id="count"),
    pytest.param("100%", IntOrPercent(100, is_percent=True), id="percent"),
])
def test_int_or_percent_reads_counts_and_percentages(value: int | str, expected: IntOrPercent) -> None:
    """A count or a ``N%`` string is an intstr value."""
    assert int_or_percent(value) == expected


@pytest.mark.parametrize("value", [-1, "3", "half", True])
def test_int_or_percent_refuses_anything_else(value: int | str) -> None:
    """Negative counts, bare strings and booleans are a ValueError naming the value."""
    with pytest.raises(ValueError, match="neither a non-negative count nor a percentage"):
        int_or_percent(value)


def test_a_priority_class_with_every_field() -> None:
    """Value, globalDefault, preemptionPolicy and description."""
    pc = make_priority_class("batch", 1000).global_default().preemption_policy("Never").description("jobs").obj()
    assert pc == decoded.priority_class("""metadata: {name: batch, uid: batch-uid}
value: 1000
globalDefault: true
preemptionPolicy: Never
description: jobs
""")


def test_a_priority_class_defaults_to_preempt_lower_priority() -> None:
    """Without options: not the global default, PreemptLowerPriority, as the API server defaults it."""
    assert make_priority_class("high", 10).obj() == decoded.priority_class("""metadata: {name: high, uid: high-uid}
value: 10
""")


def test_a_namespace_carries_the_name_label_the_api_server_adds() -> None:
    """``make_namespace`` adds ``kubernetes.io/metadata.name`` beside the labels given."""
    namespace = make_namespace("team-a").label(team="a").obj()
    assert namespace == decoded.namespace("""metadata:
  name: team-a
  uid: team-a-uid
  labels: {kubernetes.io/metadata.name: team-a, team: a}
""")
