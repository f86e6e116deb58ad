"""InterPodAffinity on terms kube-scheduler cannot parse (a label value that is no label value, a bad key or
operator). The API server rejects such pods, and so does the loader; a pod built in code can carry them. As
kube's plugin: PreFilter fails the pod (UnschedulableAndUnresolvable, ``parsing pod: ...``, whichever group of
terms holds the bad one), PreScore is an Error, and an existing pod's group holding a bad term counts for nothing.
The messages are kube's (framework.NewPodInfo's errors, labels.NewRequirement's field errors)."""

from __future__ import annotations

import pytest

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.testing import run_plugin
from kubesched.testing.builders import make_node
from tests.plugins.helpers import verdict
from tests.plugins.test_inter_pod_affinity import (
    EXISTING,
    OK,
    ZONE,
    cluster,
    filter_all,
    plugin,
    pod,
    prefers,
    requires,
    selector,
    term,
    web,
)

LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
BAD_VALUE = f'values[0][app]: Invalid value: "bad value": {LABEL_VALUE}'
BAD_TERM = term(ZONE, selector(app="bad value"))


def expressions(*requirements: LabelSelectorRequirement) -> LabelSelector:
    """A matchExpressions selector."""
    return LabelSelector(match_expressions=requirements)


PARSE_CASES = [
    pytest.param(requires(web(), BAD_TERM), f"requiredAffinityTerms: {BAD_VALUE}", id="required-affinity"),
    pytest.param(requires(web(), term(ZONE, expressions(LabelSelectorRequirement("app", "In", ("ok", "bad value")))),
                          anti=True),
                 f'requiredAntiAffinityTerms: values[1][app]: Invalid value: "bad value": {LABEL_VALUE}',
                 id="required-anti-affinity-expression"),
    pytest.param(prefers(web(), (5, BAD_TERM)), f"preferredAffinityTerms: {BAD_VALUE}", id="preferred-affinity"),
    pytest.param(prefers(web(), (5, term(ZONE, selector(), namespace_selector=selector(app="bad value"))), anti=True),
                 f"preferredAntiAffinityTerms: {BAD_VALUE}", id="preferred-anti-affinity-namespace-selector"),
    pytest.param(requires(web(), term(ZONE, expressions(LabelSelectorRequirement("a b", "Exists")))),
                 f'requiredAffinityTerms: key: Invalid value: "a b": {NAME_PART}', id="key-not-a-label-key"),
    pytest.param(requires(web(), term(ZONE, expressions(LabelSelectorRequirement("app", "Near", ("x",))))),
                 'requiredAffinityTerms: "Near" is not a valid label selector operator', id="unknown-operator"),
    pytest.param(web().affinity_term(BAD_TERM).affinity_term(BAD_TERM, weight=5).obj(),
                 f"[requiredAffinityTerms: {BAD_VALUE}, preferredAffinityTerms: {BAD_VALUE}]",
                 id="every-group-in-brackets"),
]


@pytest.mark.parametrize(("incoming", "error"), PARSE_CASES)
def test_pre_filter_rejects_a_pod_whose_terms_cannot_be_parsed(incoming: Pod, error: str) -> None:
    """PreFilter is UnschedulableAndUnresolvable with kube's ``parsing pod:`` message, for any group's bad term."""
    nodes = cluster({})
    status = plugin(nodes).pre_filter(CycleState(), incoming, nodes)
    assert verdict(status) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"parsing pod: {error}",))


@pytest.mark.parametrize(("incoming", "error"), PARSE_CASES)
def test_pre_score_is_an_error_for_a_pod_whose_terms_cannot_be_parsed(incoming: Pod, error: str) -> None:
    """PreScore is an Error with kube's ``failed to parse pod:`` message."""
    nodes = cluster({})
    status = plugin(nodes).pre_score(CycleState(), incoming, nodes)
    assert verdict(status) == (Code.ERROR, (f"failed to parse pod: {error}",))


def test_pre_score_skips_before_parsing_when_ignoring_existing_preferred_terms() -> None:
    """With ignorePreferredTermsOfExistingPods, a pod without preferred terms skips PreScore before kube parses
    its terms, so a bad required term is no PreScore error."""
    nodes = cluster({})
    p = plugin(nodes, {"ignore-preferred-terms-of-existing-pods": True})
    assert verdict(p.pre_score(CycleState(), requires(web(), BAD_TERM), nodes)) == (Code.SKIP, ())


def test_existing_pods_group_with_a_bad_term_counts_for_nothing() -> None:
    """An existing pod's required anti-affinity with a term kube cannot parse is left out, as kube's PodInfo leaves
    the group out: it repels nobody, while the same group without the bad term does."""
    good = term(ZONE, selector(app="web"))
    bad = requires(pod("db", app="db").node("n1"), good, BAD_TERM, anti=True)
    kept = requires(pod("db", app="db").node("n1"), good, anti=True)
    nodes = cluster({"n1": [bad]})
    assert filter_all(plugin(nodes), web().obj(), nodes) == [OK, OK, OK, OK]
    nodes = cluster({"n1": [kept]})
    assert filter_all(plugin(nodes), web().obj(), nodes) == [EXISTING, EXISTING, OK, OK]


def test_pod_with_a_bad_term_stays_pending_with_kubes_message() -> None:
    """Through the simulator (a profile of the plugin alone): the pod stays pending with the parse error as the
    PreFilter part of kube's FitError message."""
    nodes = [make_node(f"n{i}").zone("a").capacity(cpu="4", memory="8Gi", pods=110) for i in range(2)]
    decision = run_plugin(InterPodAffinity, nodes, [requires(web(), BAD_TERM)])["default/web"]
    assert (decision.node, decision.message) == (
        None, f"0/2 nodes are available: parsing pod: requiredAffinityTerms: {BAD_VALUE}.")
