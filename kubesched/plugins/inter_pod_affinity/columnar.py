"""InterPodAffinity over the columnar snapshot: PreFilter's and PreScore's sums from per-node indexes that
:class:`NodeColumns` keeps incrementally, and the batch forms of Filter, Score and NormalizeScore.

Two kinds of index: per node, the number of pods matching an incoming pod's term (``pod_counts``, keyed by
what the term matches, namespaceSelector resolved); and per node, the multiset of the (anti-)affinity terms
of the node's existing pods (``categories``), so that each distinct term is matched against the incoming pod
once per cycle. The sums per topology domain are then a ``bincount`` over the codes of the topology label.
Every answer equals the per-node code's (filtering.py, scoring.py), which stays the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import MAX_NODE_SCORE, ClusterClient, Code, IntArray, NodeBatch, NodeColumns, NodeInfo, PodInfo
from kubesched.plugins.inter_pod_affinity.common import (
    NAME,
    AffinityTerm,
    NamespaceLabels,
    TermCache,
    matches_all,
    selector_key,
)
from kubesched.plugins.inter_pod_affinity.domains import Domains, DomainSums, ValueCodes
from kubesched.plugins.inter_pod_affinity.filtering import (
    AFFINITY,
    ANTI_AFFINITY,
    EXISTING_ANTI_AFFINITY,
    PreFilterState,
)
from kubesched.plugins.inter_pod_affinity.scoring import TopologyScores

#: Kinds of an existing pod's term in the scoring index.
REQUIRED_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY = 0, 1, 2

_ANTI_TERMS_INDEX = (NAME, "required-anti-affinity-terms")
_AFFINITY_TERMS_INDEX = (NAME, "affinity-terms")
_HAS_NODE_INDEX = (NAME, "has-node")

PodPredicate = Callable[[Pod], bool]


def _has_node(info: NodeInfo) -> bool | None:
    return True if info.node is not None else None


class ExistingTerms:
    """The ``categories`` value functions: per node, its pods' terms with their multiplicities (None for none).

    Any TermCache compiles a pod to the same terms, so the index keys mean one function whatever the instance.
    """

    def __init__(self, cache: TermCache) -> None:
        self._cache = cache

    def required_anti_affinity(self, info: NodeInfo) -> frozenset[tuple[AffinityTerm, int]] | None:
        """The required anti-affinity terms of the node's pods (nodes without a node object: None)."""
        if info.node is None or not info.pods_with_required_anti_affinity:
            return None
        found: dict[AffinityTerm, int] = {}
        for pod_info in info.pods_with_required_anti_affinity:
            for term in self._cache.get(pod_info.pod).required_anti_affinity:
                found[term] = found.get(term, 0) + 1
        return frozenset(found.items()) or None

    def scored(self, info: NodeInfo) -> frozenset[tuple[tuple[int, AffinityTerm], int]] | None:
        """The required affinity and preferred terms of the node's pods, by kind (nodes without a node object
        or without labels: None, as PreScore skips them)."""
        node = info.node
        if node is None or not node.metadata.labels or not info.pods_with_affinity:
            return None
        found: dict[tuple[int, AffinityTerm], int] = {}
        for pod_info in info.pods_with_affinity:
            terms = self._cache.get(pod_info.pod)
            for kind, group in ((REQUIRED_AFFINITY, terms.required_affinity),
                                (PREFERRED_AFFINITY, terms.preferred_affinity),
                                (PREFERRED_ANTI_AFFINITY, terms.preferred_anti_affinity)):
                for term in group:
                    found[kind, term] = found.get((kind, term), 0) + 1
        return frozenset(found.items()) or None


class Matchers:
    """One cycle's per-node counts of existing pods matching the incoming pod's terms.

    A namespaceSelector is resolved against the listed namespaces (their labels read through the cycle's
    look-up, as the per-node code does) and the resolution is part of the index key, so a namespace relabelled
    later gets a new index; a pod in a namespace the client does not list is matched on its labels directly.
    """

    def __init__(self, columns: NodeColumns, client: ClusterClient, namespace_labels: NamespaceLabels) -> None:
        self._columns = columns
        self._client = client
        self._namespace_labels = namespace_labels
        self._listed: frozenset[str] | None = None

    def _listed_namespaces(self) -> frozenset[str]:
        if self._listed is None:
            self._listed = frozenset(ns.metadata.name for ns in self._client.list_namespaces())
        return self._listed

    def predicate(self, term: AffinityTerm) -> tuple[Hashable, PodPredicate] | None:
        """(key, predicate) of the pods ``term`` selects (topology aside), as :meth:`AffinityTerm.matches`;
        None when it selects none."""
        selector = term.selector
        if selector is None:
            return None
        labels_key = selector_key(selector)
        if term.all_namespaces:
            return (labels_key, None), lambda pod: selector.matches(pod.metadata.labels)
        ns_selector = term.namespace_selector
        if ns_selector is None:
            names = term.namespaces
            return (labels_key, names), lambda pod: (pod.metadata.namespace in names
                                                    and selector.matches(pod.metadata.labels))
        listed = self._listed_namespaces()
        namespace_labels = self._namespace_labels
        names = term.namespaces | frozenset(n for n in listed if ns_selector.matches(namespace_labels(n)))
        labels_of = self._client.get_namespace_labels

        def selects(pod: Pod) -> bool:
            namespace = pod.metadata.namespace
            if namespace not in names and (namespace in listed or not ns_selector.matches(labels_of(namespace))):
                return False
            return selector.matches(pod.metadata.labels)

        return (labels_key, names, selector_key(ns_selector), listed), selects

    def counts(self, terms: tuple[AffinityTerm, ...]) -> IntArray | None:
        """Per node, how many of its pods match every one of ``terms`` (non-empty); None when no pod can."""
        found = [self.predicate(term) for term in terms]
        predicates = [p for p in found if p is not None]
        if len(predicates) < len(found):
            return None
        if len(predicates) == 1:
            key, selects = predicates[0]
        else:
            key = tuple(k for k, _ in predicates)
            checks = [p for _, p in predicates]

            def selects(pod: Pod) -> bool:
                return all(check(pod) for check in checks)

        def count(pod_info: PodInfo) -> int:
            return 1 if selects(pod_info.pod) else 0

        return self._columns.pod_counts((NAME, "matching", key), count)


def _used_codes(codes: npt.NDArray[np.int32], size: int) -> list[int]:
    """The codes some node has (-1 aside)."""
    if not size:  # no value was ever listed (no pod has such terms): nothing to scan
        return []
    present = codes[codes >= 0]
    if not len(present):
        return []
    return np.flatnonzero(np.bincount(present, minlength=size)).tolist()


def no_existing_required_anti_affinity(columns: NodeColumns, existing: ExistingTerms) -> bool:
    """Whether no pod on a node of ``columns`` has a required anti-affinity term (then PreFilter's state for a pod
    without required terms is empty, and it can Skip without building it)."""
    return not columns.categories(_ANTI_TERMS_INDEX, existing.required_anti_affinity)[1]


def no_existing_scored_terms(columns: NodeColumns, existing: ExistingTerms) -> bool:
    """Whether no pod on a labelled node of ``columns`` has a required affinity or preferred term (then PreScore
    for a pod without preferred terms scores nothing, and it can Skip)."""
    return not columns.categories(_AFFINITY_TERMS_INDEX, existing.scored)[1]


def _existing_anti_affinity(pod: Pod, columns: NodeColumns, existing: ExistingTerms,
                            namespace_labels: NamespaceLabels) -> Domains:
    """Existing pods' required anti-affinity terms that ``pod`` matches, summed per topology domain."""
    codes, values = columns.categories(_ANTI_TERMS_INDEX, existing.required_anti_affinity)
    per_key: dict[str, IntArray] = {}
    matched: dict[AffinityTerm, bool] = {}
    for code in _used_codes(codes, len(values)):
        for term, count in values[code]:
            hit = matched.get(term)
            if hit is None:
                hit = matched[term] = term.matches(pod, namespace_labels)
            if hit:
                by_code = per_key.get(term.topology_key)
                if by_code is None:
                    by_code = per_key[term.topology_key] = np.zeros(len(values) + 1, dtype=np.int64)
                by_code[code] += count
    sums = DomainSums(columns)
    for key, by_code in per_key.items():
        sums.add(key, by_code[codes])
    return sums.domains()


def build_pre_filter_state(pod: Pod, columns: NodeColumns, cache: TermCache, existing: ExistingTerms,
                           client: ClusterClient, namespace_labels: NamespaceLabels) -> PreFilterState | None:
    """The PreFilter state over every node of ``columns``: the same counts as
    :func:`filtering.build_pre_filter_state` over the same nodes, as arrays."""
    terms = cache.get(pod)
    matches_own = matches_all(terms.required_affinity, pod, namespace_labels)
    existing_anti = _existing_anti_affinity(pod, columns, existing, namespace_labels)
    if not terms.required_affinity and not terms.required_anti_affinity:
        if not existing_anti.nonempty:
            return None
        empty = Domains(columns, {}, False)
        return PreFilterState.of_domains(pod, terms, namespace_labels, matches_own, (existing_anti, empty, empty))
    matchers = Matchers(columns, client, namespace_labels)
    affinity = DomainSums(columns)
    if terms.required_affinity:
        counts = matchers.counts(terms.required_affinity)
        if counts is not None:
            for term in terms.required_affinity:
                affinity.add(term.topology_key, counts)
    anti_affinity = DomainSums(columns)
    for term in terms.required_anti_affinity:
        counts = matchers.counts((term,))
        if counts is not None:
            anti_affinity.add(term.topology_key, counts)
    return PreFilterState.of_domains(pod, terms, namespace_labels, matches_own,
                                     (existing_anti, affinity.domains(), anti_affinity.domains()))


def filter_codes(state: PreFilterState, node_batch: NodeBatch, value_codes: ValueCodes) -> IntArray | None:
    """The status code :func:`filtering.filter_node` gives each node of the batch (None: all pass); raises when a
    node has no node object (Filter's error)."""
    columns = node_batch.columns
    has_node, _ = columns.categories(_HAS_NODE_INDEX, _has_node)
    if (node_batch.column(has_node) < 0).any():
        raise LookupError("node not found")
    size = len(node_batch)
    codes: IntArray = np.zeros(size, dtype=np.int64)
    terms = state.terms
    if terms.required_affinity:
        affinity = state.domains(AFFINITY, columns, value_codes)
        has_keys = np.ones(size, dtype=np.bool_)
        pods_exist = np.ones(size, dtype=np.bool_)
        for term in terms.required_affinity:
            has_keys &= node_batch.column(columns.label_values(term.topology_key)[0]) >= 0
            pods_exist &= node_batch.column(affinity.per_node(term.topology_key, value_codes)) > 0
        fits = has_keys if not affinity.nonempty and state.matches_own_affinity else has_keys & pods_exist
        codes[~fits] = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    repelled = np.zeros(size, dtype=np.bool_)
    anti_affinity = state.domains(ANTI_AFFINITY, columns, value_codes)
    if anti_affinity.nonempty:
        for term in terms.required_anti_affinity:
            repelled |= node_batch.column(anti_affinity.per_node(term.topology_key, value_codes)) > 0
    existing_anti = state.domains(EXISTING_ANTI_AFFINITY, columns, value_codes)
    if existing_anti.nonempty:
        for key in existing_anti.topology_keys():
            repelled |= node_batch.column(existing_anti.per_node(key, value_codes)) > 0
    codes[repelled & (codes == 0)] = int(Code.UNSCHEDULABLE)
    return codes if codes.any() else None


def build_topology_scores(pod: Pod, columns: NodeColumns, cache: TermCache, existing: ExistingTerms,
                          client: ClusterClient, namespace_labels: NamespaceLabels, hard_weight: int,
                          ignore_existing_preferred: bool) -> TopologyScores | None:
    """PreScore's sums over every node of ``columns``: the same as :func:`scoring.build_topology_scores` over the
    snapshot."""
    terms = cache.get(pod)
    has_preferred = terms.has_preferred
    if ignore_existing_preferred and not has_preferred:
        return None
    amounts = DomainSums(columns)
    hits = DomainSums(columns)  # matching (pod, term) pairs: a domain is listed when it has any
    if has_preferred:
        matchers = Matchers(columns, client, namespace_labels)
        for sign, group in ((1, terms.preferred_affinity), (-1, terms.preferred_anti_affinity)):
            for term in group:
                counts = matchers.counts((term,))
                if counts is not None:
                    amounts.add(term.topology_key, counts * (sign * term.weight))
                    hits.add(term.topology_key, counts)
    _add_existing_terms(pod, columns, existing, namespace_labels, hard_weight, amounts, hits)
    scores: TopologyScores = {}
    for key in hits.per_key:
        hit_sums, values, _mask = hits.sums(key)
        listed = np.flatnonzero(hit_sums)
        if not len(listed):
            continue
        sums, _values, _mask = amounts.sums(key)
        scores[key] = dict(zip([values[code] for code in listed.tolist()], sums[listed].tolist(), strict=True))
    return scores or None


def _add_existing_terms(pod: Pod, columns: NodeColumns, existing: ExistingTerms, namespace_labels: NamespaceLabels,
                        hard_weight: int, amounts: DomainSums, hits: DomainSums) -> None:
    """Existing pods' required affinity (``hard_weight``) and preferred terms (+/- weight) that ``pod`` matches."""
    codes, values = columns.categories(_AFFINITY_TERMS_INDEX, existing.scored)
    per_key: dict[str, tuple[IntArray, IntArray]] = {}
    matched: dict[AffinityTerm, bool] = {}
    for code in _used_codes(codes, len(values)):
        for (kind, term), count in values[code]:
            if kind == REQUIRED_AFFINITY:
                if hard_weight <= 0:
                    continue
                amount = hard_weight
            else:
                amount = term.weight if kind == PREFERRED_AFFINITY else -term.weight
            hit = matched.get(term)
            if hit is None:
                hit = matched[term] = term.matches(pod, namespace_labels)
            if hit:
                entry = per_key.get(term.topology_key)
                if entry is None:
                    entry = per_key[term.topology_key] = (np.zeros(len(values) + 1, dtype=np.int64),
                                                          np.zeros(len(values) + 1, dtype=np.int64))
                entry[0][code] += count * amount
                entry[1][code] += count
    for key, (by_code, hits_by_code) in per_key.items():
        amounts.add(key, by_code[codes])
        hits.add(key, hits_by_code[codes])


def score_array(scores: TopologyScores, node_batch: NodeBatch, value_codes: ValueCodes) -> IntArray:
    """:func:`scoring.score_node` of every node of the batch."""
    columns = node_batch.columns
    total: IntArray = np.zeros(len(node_batch), dtype=np.int64)
    for key, by_value in scores.items():
        codes, values, mapping = value_codes.get(columns, key)
        by_code = np.zeros(len(values) + 1, dtype=np.int64)  # the last entry serves code -1
        for value, amount in by_value.items():
            code = mapping.get(value)
            if code is not None:
                by_code[code] = amount
        total += by_code[node_batch.column(codes)]
    return total


def normalize_array(scores: npt.NDArray[Any]) -> IntArray:
    """:func:`scoring.normalize` of an array: the same float operations in the same order, truncated."""
    if not len(scores):
        return np.asarray(scores, dtype=np.int64)
    low = int(scores.min())
    spread = int(scores.max()) - low
    if spread <= 0:
        return np.zeros(len(scores), dtype=np.int64)
    # int64 -> float64 is exact here (|scores| < 2**53), so the quotient rounds as Python's int / int does.
    return (MAX_NODE_SCORE * ((scores.astype(np.int64) - low) / spread)).astype(np.int64)
