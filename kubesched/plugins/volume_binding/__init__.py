"""VolumeBinding: the built-in plugin that binds a pod's PersistentVolumeClaims (kube-scheduler's volumebinding).

PreFilter skips pods without claims and rejects pods whose claims are missing, lost, being deleted, not their own
(generic ephemeral volumes) or unbound with Immediate binding. Filter checks, per node, the node affinity of bound
claims' PVs, and for WaitForFirstConsumer claims a free PV whose node affinity, class, access modes, size and
selector fit, or else dynamic provisioning allowed by the class's allowedTopologies and, for CSI drivers that ask
for it, a CSIStorageCapacity with room. Reserve assumes the chosen bindings; PreBind writes them (PV claimRef,
claim selected-node annotation) and waits, polled every second, until the PV controller has bound the claims.
"""

from kubesched.plugins.volume_binding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BinderError,
    Binding,
    PodVolumes,
    VolumeBinder,
)
from kubesched.plugins.volume_binding.plugin import (
    ERR_REASON_UNBOUND_IMMEDIATE,
    NAME,
    PRE_FILTER_KEY,
    RESERVE_KEY,
    TIMED_OUT,
    VolumeBinding,
    VolumeBindingArgs,
)

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_REASON_UNBOUND_IMMEDIATE",
    "NAME",
    "PRE_FILTER_KEY",
    "RESERVE_KEY",
    "TIMED_OUT",
    "BinderError",
    "Binding",
    "PodVolumes",
    "VolumeBinder",
    "VolumeBinding",
    "VolumeBindingArgs",
]
