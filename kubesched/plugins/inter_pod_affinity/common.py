"""InterPodAffinity's name, args and compiled affinity terms, shared by filtering and scoring.

Terms follow the API server and the scheduler: a nil labelSelector matches no pod and an empty one every
pod; without namespaces and namespaceSelector a term covers its pod's own namespace; a namespaceSelector
``{}`` covers every namespace; matchLabelKeys / mismatchLabelKeys join the selector with the owning
pod's label values (``In`` / ``NotIn``), as the API server does when the pod is created.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Mapping
from typing import ClassVar

import attrs

from kubesched.api import (
    LabelSelector,
    LabelSelectorRequirement,
    Pod,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
    label_selector_error,
)
from kubesched.framework import ClusterClient, in_range

NAME = "InterPodAffinity"

#: The labels of a namespace, by name.
NamespaceLabels = Callable[[str], Mapping[str, str]]


@attrs.frozen
class InterPodAffinityArgs:
    """Args of InterPodAffinity."""

    #: Score added per existing pod whose required affinity term matches the incoming pod (0 disables).
    hard_pod_affinity_weight: int = attrs.field(default=1, validator=in_range(0, 100))
    #: Skip scoring pods that have no preferred terms of their own (existing pods' terms are then ignored).
    ignore_preferred_terms_of_existing_pods: bool = False


def selector_key(selector: LabelSelector | None) -> Hashable:
    """A hashable stand-in for a label selector (its label map is not hashable): equal selectors, equal keys."""
    if selector is None:
        return None
    return tuple(sorted(selector.match_labels.items())), selector.match_expressions


@attrs.frozen(slots=True, eq=False)
class AffinityTerm:
    """A pod (anti-)affinity term compiled against its owning pod: namespaces resolved, label keys merged.

    Equal and hashed by :attr:`key`, so equal terms of different pods group together (the batch forms count
    each distinct term once)."""

    topology_key: str
    #: None matches no pod.
    selector: LabelSelector | None
    namespaces: frozenset[str]
    #: A non-empty namespaceSelector, matched against the labels of the candidate pod's namespace.
    namespace_selector: LabelSelector | None = None
    #: The term had ``namespaceSelector: {}``: every namespace.
    all_namespaces: bool = False
    weight: int = 0
    #: Every field above, hashable.
    key: tuple[Hashable, ...] = attrs.field(init=False, repr=False)

    @key.default
    def _key(self) -> tuple[Hashable, ...]:
        return (self.topology_key, selector_key(self.selector), self.namespaces,
                selector_key(self.namespace_selector), self.all_namespaces, self.weight)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AffinityTerm) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @classmethod
    def of(cls, term: PodAffinityTerm, owner: Pod, weight: int = 0) -> AffinityTerm:
        """Compile ``term`` of pod ``owner`` (kube's AffinityTerm plus the API server's label-key merge)."""
        selector = term.label_selector
        if selector is not None and (term.match_label_keys or term.mismatch_label_keys):
            selector = _merge_label_keys(selector, term, owner.labels)
        ns_selector = term.namespace_selector
        if not term.namespaces and ns_selector is None:
            namespaces = frozenset((owner.namespace,))
        else:
            namespaces = frozenset(term.namespaces)
        everywhere = ns_selector is not None and ns_selector.is_empty()
        return cls(term.topology_key, selector, namespaces, None if everywhere else ns_selector, everywhere, weight)

    def matches(self, pod: Pod, namespace_labels: NamespaceLabels) -> bool:
        """Whether ``pod`` is one of the pods this term selects (topology aside)."""
        selector = self.selector
        if selector is None:
            return False
        namespace = pod.metadata.namespace
        if not self.all_namespaces and namespace not in self.namespaces:
            ns_selector = self.namespace_selector
            if ns_selector is None or not ns_selector.matches(namespace_labels(namespace)):
                return False
        return selector.matches(pod.metadata.labels)


def _merge_label_keys(selector: LabelSelector, term: PodAffinityTerm, labels: Mapping[str, str]) -> LabelSelector:
    """The selector ANDed with ``key In (value)`` per matchLabelKey and ``key NotIn (value)`` per
    mismatchLabelKey, for the keys the owning pod carries (others are ignored)."""
    added = [LabelSelectorRequirement(k, "In", (labels[k],)) for k in term.match_label_keys if k in labels]
    added += [LabelSelectorRequirement(k, "NotIn", (labels[k],)) for k in term.mismatch_label_keys if k in labels]
    if not added:
        return selector
    return attrs.evolve(selector, match_expressions=(*selector.match_expressions, *added))


def matches_all(terms: tuple[AffinityTerm, ...], pod: Pod, namespace_labels: NamespaceLabels) -> bool:
    """Whether ``pod`` matches every one of a non-empty set of terms."""
    return bool(terms) and all(t.matches(pod, namespace_labels) for t in terms)


@attrs.frozen(slots=True)
class PodTerms:
    """All the compiled pod (anti-)affinity terms of one pod.

    A group of terms (required affinity, required anti-affinity, preferred affinity, preferred anti-affinity)
    with a label selector kube-scheduler cannot parse is left out whole, as kube's PodInfo leaves it, and
    ``parse_error`` says why, in kube's words (PreFilter and PreScore then fail the pod)."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[AffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[AffinityTerm, ...] = ()
    parse_error: str | None = None

    @classmethod
    def of(cls, pod: Pod) -> PodTerms:
        """Compile every pod (anti-)affinity term of ``pod``."""
        affinity = pod.spec.affinity
        if affinity is None:
            return NO_TERMS
        pod_affinity, anti_affinity = affinity.pod_affinity, affinity.pod_anti_affinity
        groups: tuple[tuple[str, tuple[PodAffinityTerm, ...] | tuple[WeightedPodAffinityTerm, ...]], ...] = (
            ("requiredAffinityTerms", pod_affinity.required if pod_affinity else ()),
            ("requiredAntiAffinityTerms", anti_affinity.required if anti_affinity else ()),
            ("preferredAffinityTerms", pod_affinity.preferred if pod_affinity else ()),
            ("preferredAntiAffinityTerms", anti_affinity.preferred if anti_affinity else ()),
        )
        compiled: list[tuple[AffinityTerm, ...]] = []
        errors: list[str] = []
        for name, group in groups:
            if not group:  # most pods have one kind of term: the other groups cost nothing
                compiled.append(())
                continue
            weighted = [(t.pod_affinity_term, t.weight) if isinstance(t, WeightedPodAffinityTerm) else (t, 0)
                        for t in group]
            error = next((e for t, _ in weighted if (e := _term_error(t)) is not None), None)
            if error is not None:
                errors.append(f"{name}: {error}")
                compiled.append(())
            else:
                compiled.append(tuple(AffinityTerm.of(t, pod, w) for t, w in weighted))
        parse_error = None
        if errors:
            distinct = list(dict.fromkeys(errors))
            parse_error = distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"
        return cls(compiled[0], compiled[1], compiled[2], compiled[3], parse_error)

    @property
    def has_preferred(self) -> bool:
        """Whether the pod has preferred affinity or anti-affinity terms."""
        return bool(self.preferred_affinity or self.preferred_anti_affinity)


NO_TERMS = PodTerms()


def _term_error(term: PodAffinityTerm) -> str | None:
    """Why kube-scheduler cannot parse a term's selectors (its labelSelector, then its namespaceSelector)."""
    return label_selector_error(term.label_selector) or label_selector_error(term.namespace_selector)


class TermCache:
    """Compiled terms per pod, reused as long as the pod object is the same (pods are immutable), or a newer object
    of the same pod keeps the very affinity and labels objects the terms were compiled from (binding a pod does).

    Entries hold the pod weakly; dead ones are pruned whenever the cache doubles in size.
    """

    def __init__(self, initial_limit: int = 1024) -> None:
        self._entries: dict[str, tuple[weakref.ref[Pod], PodTerms, object, object]] = {}
        self._limit = initial_limit

    def get(self, pod: Pod) -> PodTerms:
        """The compiled terms of ``pod``."""
        affinity = pod.spec.affinity
        if affinity is None or (affinity.pod_affinity is None and affinity.pod_anti_affinity is None):
            return NO_TERMS
        uid = pod.metadata.uid
        labels = pod.metadata.labels
        entry = self._entries.get(uid)
        if entry is not None:
            if entry[0]() is pod:
                return entry[1]
            if entry[2] is affinity and entry[3] is labels:  # terms read the affinity, labels and namespace only
                self._entries[uid] = (weakref.ref(pod), entry[1], affinity, labels)
                return entry[1]
        terms = PodTerms.of(pod)
        if len(self._entries) >= self._limit:
            self._entries = {k: v for k, v in self._entries.items() if v[0]() is not None}
            self._limit = max(self._limit, 2 * len(self._entries))
        self._entries[uid] = (weakref.ref(pod), terms, affinity, labels)
        return terms


class NamespaceLabelCache:
    """Namespace labels looked up through the cluster client at most once per scheduling cycle."""

    #: A memo of facts that do not change during a cycle: CycleState clones may share it (conformance checks
    #: honour this marker).
    shared_across_clones: ClassVar[bool] = True

    def __init__(self, client: ClusterClient) -> None:
        self._client = client
        self._labels: dict[str, Mapping[str, str]] = {}

    def __call__(self, namespace: str) -> Mapping[str, str]:
        labels = self._labels.get(namespace)
        if labels is None:
            labels = self._labels[namespace] = self._client.get_namespace_labels(namespace)
        return labels
