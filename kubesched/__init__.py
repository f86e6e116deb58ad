"""kubesched: a Kubernetes-style pod scheduler as a Python plugin framework.

The names plugin authors and embedders use most are re-exported here. The modules under
``kubesched.api``, ``kubesched.framework`` and ``kubesched.testing`` are public too; ``io``, ``profiles``,
``sim`` and ``cli`` are the application built on them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Each public name and the module that defines it. They are imported on first use, so that
# ``import kubesched.framework`` (what a plugin needs) loads neither the YAML loader nor the simulator.
_LAZY: dict[str, str] = {
    "ArgsError": "kubesched.framework._args",
    "ClusterInput": "kubesched.io.load",
    "Code": "kubesched.framework._status",
    "CycleState": "kubesched.framework._cycle_state",
    "Handle": "kubesched.framework._handle",
    "InputError": "kubesched.errors",
    "KubeschedError": "kubesched.errors",
    "LabelSelector": "kubesched.api.meta",
    "Node": "kubesched.api.node",
    "NodeInfo": "kubesched.framework._node_info",
    "NodeScore": "kubesched.framework._types",
    "NodeToStatus": "kubesched.framework._types",
    "ObjectMeta": "kubesched.api.meta",
    "Plugin": "kubesched.framework._plugin",
    "PluginError": "kubesched.errors",
    "Pod": "kubesched.api.pod",
    "PodDisruptionBudget": "kubesched.api.policy",
    "PodInfo": "kubesched.framework._node_info",
    "PostFilterResult": "kubesched.framework._types",
    "PreFilterResult": "kubesched.framework._types",
    "PriorityClass": "kubesched.api.policy",
    "ProfileError": "kubesched.errors",
    "Quantity": "kubesched.api.quantity",
    "QueuedPodInfo": "kubesched.framework._types",
    "Resource": "kubesched.framework._resource",
    "SimulationResult": "kubesched.sim.simulate",
    "Snapshot": "kubesched.framework._snapshot",
    "StateKey": "kubesched.framework._cycle_state",
    "Status": "kubesched.framework._status",
    "Taint": "kubesched.api.node",
    "Toleration": "kubesched.api.pod",
    "WaitingPod": "kubesched.framework._handle",
    "hookimpl": "kubesched.framework._plugin",
    "in_range": "kubesched.framework._args",
    "load": "kubesched.io.load",
    "simulate": "kubesched.sim.simulate",
}

if TYPE_CHECKING:
    from kubesched.api.meta import LabelSelector, ObjectMeta
    from kubesched.api.node import Node, Taint
    from kubesched.api.pod import Pod, Toleration
    from kubesched.api.policy import PodDisruptionBudget, PriorityClass
    from kubesched.api.quantity import Quantity
    from kubesched.errors import InputError, KubeschedError, PluginError, ProfileError
    from kubesched.framework._args import ArgsError, in_range
    from kubesched.framework._cycle_state import CycleState, StateKey
    from kubesched.framework._handle import Handle, WaitingPod
    from kubesched.framework._node_info import NodeInfo, PodInfo
    from kubesched.framework._plugin import Plugin, hookimpl
    from kubesched.framework._resource import Resource
    from kubesched.framework._snapshot import Snapshot
    from kubesched.framework._status import Code, Status
    from kubesched.framework._types import NodeScore, NodeToStatus, PostFilterResult, PreFilterResult, QueuedPodInfo
    from kubesched.io.load import ClusterInput, load
    from kubesched.sim.simulate import SimulationResult, simulate


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first access (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kubesched' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ArgsError",
    "ClusterInput",
    "Code",
    "CycleState",
    "Handle",
    "InputError",
    "KubeschedError",
    "LabelSelector",
    "Node",
    "NodeInfo",
    "NodeScore",
    "NodeToStatus",
    "ObjectMeta",
    "Plugin",
    "PluginError",
    "Pod",
    "PodDisruptionBudget",
    "PodInfo",
    "PostFilterResult",
    "PreFilterResult",
    "PriorityClass",
    "ProfileError",
    "Quantity",
    "QueuedPodInfo",
    "Resource",
    "SimulationResult",
    "Snapshot",
    "StateKey",
    "Status",
    "Taint",
    "Toleration",
    "WaitingPod",
    "__version__",
    "hookimpl",
    "in_range",
    "load",
    "simulate",
]
