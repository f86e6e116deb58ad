"""The node-resources plugins, as kube-scheduler's noderesources package: NodeResourcesFit (Filter and the
allocation scoring strategies) and NodeResourcesBalancedAllocation, which share the resource scoring helpers."""

from kubesched.plugins.noderesources.balanced_allocation import NodeResourcesBalancedAllocation
from kubesched.plugins.noderesources.fit import NodeResourcesFit

__all__ = ["NodeResourcesBalancedAllocation", "NodeResourcesFit"]
