"""TaintToleration: Filter on NoSchedule/NoExecute taints, Score against PreferNoSchedule taints (reversed)."""

from __future__ import annotations

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.testing import plugin_instance
from kubesched.testing.builders import NodeBuilder, make_node, make_pod
from tests.plugins.helpers import SUCCESS, node_info, normalize, normalized_scores, raw_scores, verdict

UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def plugin() -> TaintToleration:
    """A TaintToleration plugin."""
    return plugin_instance(TaintToleration)


def tainted(*taints: tuple[str, str, str], name: str = "n1") -> Node:
    """A node with (key, value, effect) taints, in order."""
    builder: NodeBuilder = make_node(name)
    for key, value, effect in taints:
        builder = builder.taint(key, value, effect)
    return builder.obj()


def filter_verdict(pod: Pod, node: Node) -> tuple[Code, tuple[str, ...]]:
    """The Filter verdict for the pod on the node."""
    return verdict(plugin().filter(CycleState(), pod, node_info(node)))


# -- Filter -----------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param(tainted(), SUCCESS, id="no-taints"),
    pytest.param(tainted(("dedicated", "gpu", "NoSchedule")),
                 (UNRESOLVABLE, ("node(s) had untolerated taint {dedicated: gpu}",)), id="no-schedule"),
    pytest.param(tainted(("dedicated", "gpu", "NoExecute")),
                 (UNRESOLVABLE, ("node(s) had untolerated taint {dedicated: gpu}",)), id="no-execute"),
    pytest.param(tainted(("dedicated", "gpu", "PreferNoSchedule")), SUCCESS, id="prefer-no-schedule-ignored"),
    pytest.param(tainted(("maintenance", "", "NoSchedule")),
                 (UNRESOLVABLE, ("node(s) had untolerated taint {maintenance: }",)), id="empty-value"),
    pytest.param(tainted(("a", "1", "PreferNoSchedule"), ("b", "2", "NoExecute"), ("c", "3", "NoSchedule")),
                 (UNRESOLVABLE, ("node(s) had untolerated taint {b: 2}",)), id="first-hard-taint-in-node-order"),
    pytest.param(tainted(("tolerated", "yes", "NoSchedule"), ("c", "3", "NoSchedule"), ("b", "2", "NoExecute")),
                 (UNRESOLVABLE, ("node(s) had untolerated taint {c: 3}",)), id="tolerated-taints-passed-over"),
]


@pytest.mark.parametrize(("node", "expected"), FILTER_CASES)
def test_filter_names_first_untolerated_hard_taint(node: Node, expected: tuple[Code, tuple[str, ...]]) -> None:
    """UnschedulableAndUnresolvable naming the first untolerated NoSchedule/NoExecute taint in node order."""
    pod = make_pod("p").toleration("tolerated", "yes", "NoSchedule").obj()
    assert filter_verdict(pod, node) == expected


TOLERATION_CASES = [
    pytest.param(("k", "v", "NoSchedule", "Equal"), True, id="equal-key-value-effect"),
    pytest.param(("k", "other", "NoSchedule", "Equal"), False, id="equal-different-value"),
    pytest.param(("other", "v", "NoSchedule", "Equal"), False, id="equal-different-key"),
    pytest.param(("k", "v", "", "Equal"), True, id="empty-effect-matches-every-effect"),
    pytest.param(("k", "v", "NoExecute", "Equal"), False, id="different-effect"),
    pytest.param(("k", "v", "PreferNoSchedule", "Equal"), False, id="prefer-no-schedule-toleration"),
    pytest.param(("k", "v", "NoSchedule", ""), True, id="empty-operator-means-equal"),
    pytest.param(("k", "", "NoSchedule", "Exists"), True, id="exists-any-value"),
    pytest.param(("other", "", "NoSchedule", "Exists"), False, id="exists-different-key"),
    pytest.param(("", "", "", "Exists"), True, id="empty-key-exists-tolerates-everything"),
    pytest.param(("", "", "NoExecute", "Exists"), False, id="empty-key-exists-still-checks-effect"),
    pytest.param(("k", "v", "NoSchedule", "Gt"), False, id="unknown-operator"),
]


@pytest.mark.parametrize(("toleration", "tolerated"), TOLERATION_CASES)
def test_toleration_matching(toleration: tuple[str, str, str, str], tolerated: bool) -> None:
    """Whether a toleration (key, value, effect, operator) lets the pod onto a node tainted k=v:NoSchedule."""
    key, value, effect, operator = toleration
    pod = make_pod("p").toleration(key, value, effect, operator).obj()
    expected = SUCCESS if tolerated else (UNRESOLVABLE, ("node(s) had untolerated taint {k: v}",))
    assert filter_verdict(pod, tainted(("k", "v", "NoSchedule"))) == expected


def test_filter_needs_every_hard_taint_tolerated() -> None:
    """A pod tolerating only some hard taints is rejected on the first one it does not tolerate."""
    pod = make_pod("p").toleration("a", "1", "NoSchedule").obj()
    node = tainted(("a", "1", "NoSchedule"), ("b", "2", "NoSchedule"))
    assert filter_verdict(pod, node) == (UNRESOLVABLE, ("node(s) had untolerated taint {b: 2}",))


# -- Score ------------------------------------------------------------------------------------------

def test_score_counts_intolerable_prefer_no_schedule_taints() -> None:
    """The raw score is the number of PreferNoSchedule taints the pod does not tolerate."""
    pod = make_pod("p").toleration("ok", "yes", "PreferNoSchedule").obj()
    nodes = [
        node_info(tainted(name="none")),
        node_info(tainted(("ok", "yes", "PreferNoSchedule"), name="tolerated")),
        node_info(tainted(("a", "1", "PreferNoSchedule"), name="one")),
        node_info(tainted(("a", "1", "PreferNoSchedule"), ("b", "2", "PreferNoSchedule"),
                          ("ok", "yes", "PreferNoSchedule"), name="two")),
        node_info(tainted(("a", "1", "NoSchedule"), ("b", "2", "NoExecute"), name="hard-only")),
    ]
    assert raw_scores(plugin(), pod, nodes) == [0, 0, 1, 2, 0]


def test_score_ignores_tolerations_for_other_effects() -> None:
    """A toleration with effect NoSchedule does not tolerate a PreferNoSchedule taint; an empty effect does."""
    node = [node_info(tainted(("k", "v", "PreferNoSchedule")))]
    no_schedule = make_pod("p").toleration("k", "v", "NoSchedule").obj()
    any_effect = make_pod("p").toleration("k", "v", "").obj()
    assert raw_scores(plugin(), no_schedule, node) == [1]
    assert raw_scores(plugin(), any_effect, node) == [0]


def test_fewer_intolerable_taints_score_higher_after_normalization() -> None:
    """Normalized: no intolerable taints scores 100, the node with the most scores 0."""
    pod = make_pod("p").obj()
    nodes = [
        node_info(tainted(name="a")),
        node_info(tainted(("x", "1", "PreferNoSchedule"), name="b")),
        node_info(tainted(("x", "1", "PreferNoSchedule"), ("y", "2", "PreferNoSchedule"), name="c")),
    ]
    assert normalized_scores(plugin(), pod, nodes) == [100, 50, 0]


NORMALIZE_CASES = [
    pytest.param([0, 0, 0], [100, 100, 100], id="all-zero-become-100"),
    pytest.param([0, 1, 3], [100, 67, 0], id="reversed-proportionally"),
    pytest.param([2, 2], [0, 0], id="all-equal-nonzero-become-0"),
    pytest.param([], [], id="no-nodes"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZE_CASES)
def test_normalize_score_reverses(raw: list[int], expected: list[int]) -> None:
    """NormalizeScore is DefaultNormalizeScore(100, reverse=true): 100 - 100 * s // max."""
    assert normalize(plugin(), make_pod("p").obj(), raw) == expected
