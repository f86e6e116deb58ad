"""PodTopologySpread: the built-in plugin spreading pods across topology domains (zones, hosts, ...)."""

from kubesched.plugins.pod_topology_spread.common import NAME, PodTopologySpreadArgs, SpreadConstraintArg
from kubesched.plugins.pod_topology_spread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
)
from kubesched.plugins.pod_topology_spread.plugin import PodTopologySpread

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "SpreadConstraintArg",
]
