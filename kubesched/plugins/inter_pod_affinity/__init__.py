"""InterPodAffinity: the built-in plugin for pod affinity and anti-affinity.

Filter checks three things per node, in this order: the pod's own required affinity (some pod matching
all its terms in the node's domain of every term, else UnschedulableAndUnresolvable; the first pod of a
group that matches its own terms may start it), the pod's own required anti-affinity (no matching pod in
the domain) and the required anti-affinity of existing pods (no pod in the domain whose term matches
this pod). Score sums, per topology pair, the weights of the preferred terms of both the incoming and the
existing pods and ``hard-pod-affinity-weight`` per existing pod whose required affinity the incoming pod
matches; NormalizeScore maps the node sums min-max onto 0..100.
"""

from kubesched.plugins.inter_pod_affinity.common import (
    NAME,
    AffinityTerm,
    InterPodAffinityArgs,
    PodTerms,
)
from kubesched.plugins.inter_pod_affinity.filtering import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    PRE_FILTER_STATE_KEY,
    PreFilterState,
)
from kubesched.plugins.inter_pod_affinity.plugin import InterPodAffinity
from kubesched.plugins.inter_pod_affinity.scoring import PRE_SCORE_STATE_KEY, TopologyScores

__all__ = [
    "ERR_REASON_AFFINITY",
    "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY",
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "AffinityTerm",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "PodTerms",
    "PreFilterState",
    "TopologyScores",
]
