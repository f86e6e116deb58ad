"""InterPodAffinity compiles a pod's terms once per pod, not once per object: binding keeps them, a change of what
they are compiled from (labels, affinity) compiles them again."""

from __future__ import annotations

import attrs

from kubesched.api import LabelSelector, Pod, PodAffinityTerm
from kubesched.plugins.inter_pod_affinity.common import TermCache
from kubesched.testing import make_pod

TERM = PodAffinityTerm(topology_key="zone", label_selector=LabelSelector(match_labels={"app": "web"}),
                       match_label_keys=("team",))


def pod_with_term() -> Pod:
    """A pod with one required affinity term whose selector joins its ``team`` label."""
    return make_pod("p").uid("p").label(app="web", team="a").affinity_term(TERM).obj()


def test_a_bound_copy_of_the_pod_reuses_its_compiled_terms() -> None:
    """Binding replaces the pod object but keeps its affinity and labels: the compiled terms are the same object."""
    cache = TermCache()
    pod = pod_with_term()
    terms = cache.get(pod)
    assert cache.get(pod.with_node_name("n1")) is terms


def test_new_labels_compile_the_terms_again() -> None:
    """matchLabelKeys reads the pod's labels: a pod relabelled gets terms built from its new labels."""
    cache = TermCache()
    pod = pod_with_term()
    before = cache.get(pod)
    relabelled = attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, labels={"app": "web", "team": "b"}))
    after = cache.get(relabelled)
    assert after is not before
    assert after.required_affinity[0].selector != before.required_affinity[0].selector


def test_a_new_affinity_compiles_the_terms_again() -> None:
    """A pod whose affinity object changed is compiled from it, even under the same uid."""
    cache = TermCache()
    pod = pod_with_term()
    before = cache.get(pod)
    changed = make_pod("p").uid("p").label(app="web", team="a").affinity_term(TERM, anti=True).obj()
    after = cache.get(changed)
    assert (len(before.required_affinity), len(after.required_affinity)) == (1, 0)
    assert len(after.required_anti_affinity) == 1
