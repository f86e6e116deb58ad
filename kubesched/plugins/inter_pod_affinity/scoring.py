"""InterPodAffinity PreScore/Score/NormalizeScore: sum term weights per topology pair over the snapshot once,
score a node by the sums of its pairs, then map the scores min-max onto 0..100."""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.api import Pod
from kubesched.framework import MAX_NODE_SCORE, NodeInfo, NodeScore, StateKey
from kubesched.plugins.inter_pod_affinity.common import (
    NAME,
    NO_TERMS,
    AffinityTerm,
    NamespaceLabels,
    PodTerms,
    TermCache,
)

#: topology key -> topology value -> summed score of that domain.
TopologyScores = dict[str, dict[str, int]]

PRE_SCORE_STATE_KEY = StateKey[TopologyScores]("PreScore" + NAME)


def _add(scores: TopologyScores, labels: Mapping[str, str], key: str, amount: int) -> None:
    value = labels.get(key)
    if value is not None:
        by_value = scores.setdefault(key, {})
        by_value[value] = by_value.get(value, 0) + amount


def _add_matching(scores: TopologyScores, terms: tuple[AffinityTerm, ...], pod: Pod, labels: Mapping[str, str],
                  namespace_labels: NamespaceLabels, sign: int) -> None:
    """Add ``sign * weight`` of every term that ``pod`` matches to the node's domain for the term's key."""
    for term in terms:
        if term.matches(pod, namespace_labels):
            _add(scores, labels, term.topology_key, sign * term.weight)


def build_topology_scores(pod: Pod, terms: PodTerms, nodes: list[NodeInfo], cache: TermCache,
                          namespace_labels: NamespaceLabels, hard_weight: int,
                          ignore_existing_preferred: bool) -> TopologyScores | None:
    """Sum, per topology pair of each existing pod's node: the incoming pod's preferred terms the existing pod
    matches (+/- weight), and the existing pod's required affinity (+``hard_weight``) and preferred terms
    (+/- weight) the incoming pod matches. ``nodes`` are every node when the pod has preferred terms, else
    those holding pods with affinity (only those pods are then visited). None when nothing is to score."""
    has_preferred = terms.has_preferred
    if ignore_existing_preferred and not has_preferred:
        return None
    scores: TopologyScores = {}
    for node_info in nodes:
        node = node_info.node
        if node is None or not node.metadata.labels:
            continue
        labels = node.metadata.labels
        for existing_info in node_info.pods if has_preferred else node_info.pods_with_affinity:
            existing = existing_info.pod
            if has_preferred:
                _add_matching(scores, terms.preferred_affinity, existing, labels, namespace_labels, 1)
                _add_matching(scores, terms.preferred_anti_affinity, existing, labels, namespace_labels, -1)
            theirs = cache.get(existing)
            if theirs is NO_TERMS:
                continue
            if hard_weight > 0:
                for term in theirs.required_affinity:
                    if term.matches(pod, namespace_labels):
                        _add(scores, labels, term.topology_key, hard_weight)
            _add_matching(scores, theirs.preferred_affinity, pod, labels, namespace_labels, 1)
            _add_matching(scores, theirs.preferred_anti_affinity, pod, labels, namespace_labels, -1)
    return scores or None


def score_node(scores: TopologyScores, node_info: NodeInfo) -> int:
    """The summed scores of the node's topology pairs (negative when anti-affinity dominates)."""
    node = node_info.node
    if node is None:
        return 0
    labels = node.metadata.labels
    total = 0
    for key, by_value in scores.items():
        value = labels.get(key)
        if value is not None:
            total += by_value.get(value, 0)
    return total


def normalize(scores: list[NodeScore]) -> None:
    """Min-max onto 0..100 in floating point, truncated; all 0 when every node scored the same."""
    if not scores:
        return
    low = min(ns.score for ns in scores)
    spread = max(ns.score for ns in scores) - low
    for ns in scores:
        ns.score = int(MAX_NODE_SCORE * ((ns.score - low) / spread)) if spread > 0 else 0
