"""The public plugin contract: everything a Filter, Score or any other plugin sees, and nothing else.

Hook specifications (:mod:`~kubesched.framework.hookspecs`), the plugin base and marker, Status,
CycleState, NodeInfo/PodInfo/Snapshot as plugins see them, cluster events and queueing hints, the Handle,
the values hooks take and return, and the reusable preemption :class:`Evaluator`. The machinery that runs
plugins lives in :mod:`kubesched.runtime`; importing this package loads neither it nor the manifest loader.
"""

from kubesched.framework.args import ArgsError, in_range
from kubesched.framework.cycle_state import CycleState, StateKey, StateNotFoundError
from kubesched.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework.handle import Handle, NamespaceLister, PodLister, PodNominator, WaitingPod
from kubesched.framework.hookspecs import EXTENSION_POINTS, ExtensionPoint
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.preemption import Candidate, Evaluator
from kubesched.framework.resource import Resource
from kubesched.framework.snapshot import Snapshot
from kubesched.framework.status import Code, Status
from kubesched.framework.types import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    NodeScore,
    NodeToStatus,
    NominatingInfo,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
)

__all__ = [
    "EXTENSION_POINTS",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "ActionType",
    "ArgsError",
    "Candidate",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "CycleState",
    "Evaluator",
    "EventResource",
    "ExtensionPoint",
    "Handle",
    "NamespaceLister",
    "NodeInfo",
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "NominatingMode",
    "Plugin",
    "PodInfo",
    "PodLister",
    "PodNominator",
    "PostFilterResult",
    "PreFilterResult",
    "QueuedPodInfo",
    "QueueingHint",
    "QueueingHintFn",
    "Resource",
    "Snapshot",
    "StateKey",
    "StateNotFoundError",
    "Status",
    "WaitingPod",
    "hookimpl",
    "in_range",
]
