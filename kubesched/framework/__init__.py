"""The public plugin contract: every name a Filter, Score or any other plugin may use, and nothing else.

Import from here (``from kubesched.framework import Plugin, hookimpl, Status``) and from :mod:`kubesched.api` (the
object model); the modules of this package are private and may change. Hook specifications and their rules are
documented in docs/hooks.md; the machinery that runs plugins lives in :mod:`kubesched.runtime`, and importing
this package loads neither it nor the manifest loader.
"""

from kubesched.backend import BindingError, Clock, ClusterClient, ClusterListener, DeletionError
from kubesched.framework._args import ArgsError, in_range, kebab, show_value
from kubesched.framework._columns import IntArray, NodeBatch, NodeColumns, NodeRows
from kubesched.framework._cycle_state import CycleState, StateKey, StateNotFoundError
from kubesched.framework._events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework._handle import (
    MAX_PERMIT_TIMEOUT,
    Handle,
    NamespaceLister,
    PodLister,
    PodNominator,
    StorageLister,
    WaitingPod,
    go_duration,
)
from kubesched.framework._helpers import (
    BoolArray,
    default_normalize_score,
    default_normalize_scores,
    default_selector,
    field_mask,
    node_selector_mask,
    preferred_scores,
    required_affinity_mask,
    requirement_mask,
    term_mask,
)
from kubesched.framework._hookspecs import EXTENSION_POINTS, ExtensionPoint
from kubesched.framework._node_info import HostPort, HostPortInfo, ImageStateSummary, NodeInfo, PodInfo, pod_host_ports
from kubesched.framework._plugin import FilterReads, Plugin, hookimpl
from kubesched.framework._resource import Resource
from kubesched.framework._snapshot import Snapshot
from kubesched.framework._status import Code, Status
from kubesched.framework._types import (
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
from kubesched.framework.preemption import (
    Candidate,
    CandidateChoice,
    DisruptionBudgets,
    Evaluator,
    PreemptionAccelerator,
    ResourceShortcut,
    ScoreFunc,
    default_score_funcs,
    pick_one_node_for_preemption,
)

__all__ = [
    "EXTENSION_POINTS",
    "MAX_NODE_SCORE",
    "MAX_PERMIT_TIMEOUT",
    "MIN_NODE_SCORE",
    "ActionType",
    "ArgsError",
    "BindingError",
    "BoolArray",
    "Candidate",
    "CandidateChoice",
    "Clock",
    "ClusterClient",
    "ClusterEvent",
    "ClusterEventWithHint",
    "ClusterListener",
    "Code",
    "CycleState",
    "DeletionError",
    "DisruptionBudgets",
    "Evaluator",
    "EventResource",
    "ExtensionPoint",
    "FilterReads",
    "Handle",
    "HostPort",
    "HostPortInfo",
    "ImageStateSummary",
    "IntArray",
    "NamespaceLister",
    "NodeBatch",
    "NodeColumns",
    "NodeInfo",
    "NodeRows",
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
    "PreemptionAccelerator",
    "QueuedPodInfo",
    "QueueingHint",
    "QueueingHintFn",
    "Resource",
    "ResourceShortcut",
    "ScoreFunc",
    "Snapshot",
    "StateKey",
    "StateNotFoundError",
    "Status",
    "StorageLister",
    "WaitingPod",
    "default_normalize_score",
    "default_normalize_scores",
    "default_score_funcs",
    "default_selector",
    "field_mask",
    "go_duration",
    "hookimpl",
    "in_range",
    "kebab",
    "node_selector_mask",
    "pick_one_node_for_preemption",
    "pod_host_ports",
    "preferred_scores",
    "required_affinity_mask",
    "requirement_mask",
    "show_value",
    "term_mask",
]
