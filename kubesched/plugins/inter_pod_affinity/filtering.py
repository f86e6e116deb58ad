"""InterPodAffinity PreFilter/Filter: count matching pods per topology pair (key, value) once, then check
each node with a few look-ups; AddPod/RemovePod keep the counts as a fresh PreFilter would compute them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kubesched.api import Pod
from kubesched.framework import NodeColumns, NodeInfo, StateKey, Status
from kubesched.plugins.inter_pod_affinity.common import (
    NAME,
    AffinityTerm,
    NamespaceLabels,
    PodTerms,
    TermCache,
    matches_all,
)
from kubesched.plugins.inter_pod_affinity.domains import Domains, TopologyCounts, ValueCodes

ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"

_REJECT_AFFINITY = Status.unresolvable(ERR_REASON_AFFINITY).with_plugin(NAME)
_REJECT_ANTI_AFFINITY = Status.unschedulable(ERR_REASON_ANTI_AFFINITY).with_plugin(NAME)
_REJECT_EXISTING_ANTI_AFFINITY = Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY).with_plugin(NAME)

#: Which of the three counts: existing pods' anti-affinity, the pod's affinity, the pod's anti-affinity.
EXISTING_ANTI_AFFINITY, AFFINITY, ANTI_AFFINITY = 0, 1, 2


class PreFilterState:
    """What Filter needs: the incoming pod's terms and three topology-pair counts.

    ``existing_anti_affinity`` counts existing pods' required anti-affinity terms matching the incoming pod;
    ``affinity`` / ``anti_affinity`` count existing pods matching the incoming pod's required terms. The counts
    are dictionaries, or arrays over the columns' label codes (:class:`Domains`, what the columnar PreFilter
    builds and the batch Filter reads); the dictionaries are made from the arrays when first needed.
    """

    __slots__ = ("_counts", "_domains", "matches_own_affinity", "namespace_labels", "pod", "terms")

    def __init__(self, pod: Pod, terms: PodTerms, namespace_labels: NamespaceLabels, matches_own_affinity: bool,
                 existing_anti_affinity: TopologyCounts | None = None, affinity: TopologyCounts | None = None,
                 anti_affinity: TopologyCounts | None = None) -> None:
        self.pod = pod
        self.terms = terms
        self.namespace_labels = namespace_labels
        #: The incoming pod matches all its own required affinity terms (it may start its group).
        self.matches_own_affinity = matches_own_affinity
        self._counts: list[TopologyCounts | None] = [
            {} if existing_anti_affinity is None else existing_anti_affinity,
            {} if affinity is None else affinity,
            {} if anti_affinity is None else anti_affinity,
        ]
        self._domains: list[Domains | None] = [None, None, None]

    @classmethod
    def of_domains(cls, pod: Pod, terms: PodTerms, namespace_labels: NamespaceLabels, matches_own_affinity: bool,
                   domains: tuple[Domains, Domains, Domains]) -> PreFilterState:
        """A state whose counts are given as arrays (existing anti-affinity, affinity, anti-affinity)."""
        state = cls(pod, terms, namespace_labels, matches_own_affinity)
        state._counts = [None, None, None]
        state._domains = list(domains)
        return state

    def counts(self, kind: int) -> TopologyCounts:
        """The dictionary form of one of the counts, for reading only."""
        counts = self._counts[kind]
        if counts is None:
            domains = self._domains[kind]
            assert domains is not None
            counts = self._counts[kind] = domains.to_counts()
        return counts

    def mutable_counts(self, kind: int) -> TopologyCounts:
        """The dictionary form of one of the counts, to change (its array form is dropped)."""
        counts = self.counts(kind)
        self._domains[kind] = None
        return counts

    def domains(self, kind: int, columns: NodeColumns, value_codes: ValueCodes) -> Domains:
        """The array form of one of the counts over ``columns``."""
        domains = self._domains[kind]
        if domains is None or domains.columns is not columns:
            domains = self._domains[kind] = Domains.of_counts(self.counts(kind), columns, value_codes)
        return domains

    @property
    def existing_anti_affinity(self) -> TopologyCounts:
        """Existing pods' required anti-affinity terms matching the incoming pod, per topology pair."""
        return self.mutable_counts(EXISTING_ANTI_AFFINITY)

    @property
    def affinity(self) -> TopologyCounts:
        """Existing pods matching all the incoming pod's required affinity terms, per topology pair."""
        return self.mutable_counts(AFFINITY)

    @property
    def anti_affinity(self) -> TopologyCounts:
        """Existing pods matching each of the incoming pod's required anti-affinity terms, per topology pair."""
        return self.mutable_counts(ANTI_AFFINITY)

    def clone(self) -> PreFilterState:
        """A copy whose counts change independently (AddPod/RemovePod on a branch); array forms are shared."""
        state = PreFilterState(self.pod, self.terms, self.namespace_labels, self.matches_own_affinity)
        state._counts = [None if counts is None else dict(counts) for counts in self._counts]
        state._domains = list(self._domains)
        return state


PRE_FILTER_STATE_KEY = StateKey[PreFilterState]("PreFilter" + NAME)


def _bump(counts: TopologyCounts, node_labels: Mapping[str, str], key: str, delta: int) -> None:
    """Add ``delta`` to the node's domain for ``key`` (if the node has it); zero entries are dropped."""
    value = node_labels.get(key)
    if value is None:
        return
    pair = (key, value)
    total = counts.get(pair, 0) + delta
    if total:
        counts[pair] = total
    else:
        counts.pop(pair, None)


def _count_each(counts: TopologyCounts, terms: Iterable[AffinityTerm], pod: Pod, node_labels: Mapping[str, str],
                namespace_labels: NamespaceLabels, delta: int) -> None:
    """Anti-affinity counting: every term that ``pod`` matches counts in its domain."""
    for term in terms:
        if term.matches(pod, namespace_labels):
            _bump(counts, node_labels, term.topology_key, delta)


def _count_all(counts: TopologyCounts, terms: tuple[AffinityTerm, ...], pod: Pod, node_labels: Mapping[str, str],
               namespace_labels: NamespaceLabels, delta: int) -> None:
    """Affinity counting: only a pod matching all the terms counts, then in every term's domain."""
    if matches_all(terms, pod, namespace_labels):
        for term in terms:
            _bump(counts, node_labels, term.topology_key, delta)


def build_pre_filter_state(pod: Pod, nodes: list[NodeInfo], cache: TermCache,
                           namespace_labels: NamespaceLabels) -> PreFilterState | None:
    """The counts over ``nodes`` (nodes without a node object are ignored); None when no node can be
    rejected: the pod has no required terms and no existing pod's anti-affinity counts against it."""
    terms = cache.get(pod)
    state = PreFilterState(pod, terms, namespace_labels, matches_all(terms.required_affinity, pod, namespace_labels))
    for node_info in nodes:
        node = node_info.node
        if node is None or not node_info.pods_with_required_anti_affinity:
            continue
        for existing in node_info.pods_with_required_anti_affinity:
            _count_each(state.existing_anti_affinity, cache.get(existing.pod).required_anti_affinity, pod,
                        node.metadata.labels, namespace_labels, 1)
    if not terms.required_affinity and not terms.required_anti_affinity:
        return state if state.existing_anti_affinity else None
    for node_info in nodes:
        node = node_info.node
        if node is None:
            continue
        labels = node.metadata.labels
        for existing in node_info.pods:
            _count_all(state.affinity, terms.required_affinity, existing.pod, labels, namespace_labels, 1)
            _count_each(state.anti_affinity, terms.required_anti_affinity, existing.pod, labels, namespace_labels, 1)
    return state


def update_with_pod(state: PreFilterState, other: Pod, other_terms: PodTerms, node_info: NodeInfo,
                    delta: int) -> None:
    """Count (``delta`` 1) or uncount (-1) ``other`` running on ``node_info`` in all three counts."""
    node = node_info.node
    if node is None:
        return
    labels = node.metadata.labels
    _count_each(state.mutable_counts(EXISTING_ANTI_AFFINITY), other_terms.required_anti_affinity, state.pod, labels,
                state.namespace_labels, delta)
    _count_all(state.mutable_counts(AFFINITY), state.terms.required_affinity, other, labels, state.namespace_labels,
               delta)
    _count_each(state.mutable_counts(ANTI_AFFINITY), state.terms.required_anti_affinity, other, labels,
                state.namespace_labels, delta)


def filter_node(state: PreFilterState, node_info: NodeInfo) -> Status | None:
    """Reject on the pod's affinity, then its anti-affinity, then existing pods' anti-affinity."""
    node = node_info.node
    if node is None:
        return Status.as_error("node not found")
    labels = node.metadata.labels
    if state.terms.required_affinity and not _satisfies_affinity(state, labels):
        return _REJECT_AFFINITY
    counts = state.counts(ANTI_AFFINITY)
    if counts:
        for term in state.terms.required_anti_affinity:
            value = labels.get(term.topology_key)
            if value is not None and counts.get((term.topology_key, value), 0) > 0:
                return _REJECT_ANTI_AFFINITY
    counts = state.counts(EXISTING_ANTI_AFFINITY)
    if counts:
        for pair in labels.items():
            if counts.get(pair, 0) > 0:
                return _REJECT_EXISTING_ANTI_AFFINITY
    return None


def _satisfies_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    """The node has every term's topology key, and each of its domains holds a matching pod; or no pod in
    the cluster matches and the pod matches its own terms (the first pod of a group)."""
    counts = state.counts(AFFINITY)
    pods_exist = True
    for term in state.terms.required_affinity:
        value = labels.get(term.topology_key)
        if value is None:
            return False
        if counts.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    return pods_exist or (not counts and state.matches_own_affinity)
