"""kubesched: a Kubernetes-style pod scheduler as a Python plugin framework.

The names plugin authors and embedders use most are re-exported here. The modules under
``kubesched.api``, ``kubesched.framework`` and ``kubesched.testing`` are public too; ``io``, ``profiles``,
``sim`` and ``cli`` are the application built on them.
"""

from kubesched.api.meta import LabelSelector, ObjectMeta
from kubesched.api.node import Node, Taint
from kubesched.api.pod import Pod, Toleration
from kubesched.api.policy import PodDisruptionBudget, PriorityClass
from kubesched.api.quantity import Quantity
from kubesched.errors import InputError, KubeschedError, PluginError, ProfileError
from kubesched.framework.args import ArgsError, in_range
from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.handle import Handle, WaitingPod
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.queue import QueuedPodInfo
from kubesched.framework.resource import Resource
from kubesched.framework.snapshot import Snapshot
from kubesched.framework.status import Code, Status
from kubesched.framework.types import NodeScore, NodeToStatus, PostFilterResult, PreFilterResult
from kubesched.io.load import ClusterInput, load
from kubesched.sim.simulate import SimulationResult, simulate

__version__ = "0.1.0"

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
