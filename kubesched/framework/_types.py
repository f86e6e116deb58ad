"""Values passed between extension points: PreFilter results, node statuses, diagnoses, scores."""

from __future__ import annotations

import enum
import itertools
import operator
from collections import Counter
from collections.abc import Iterable

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status

MIN_NODE_SCORE = 0
MAX_NODE_SCORE = 100
# framework.MaxTotalScore: total weighted scores must stay within int64.
MAX_TOTAL_SCORE = 2**63 - 1

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


@attrs.frozen(slots=True)
class PreFilterResult:
    """Which nodes a PreFilter plugin allows; ``node_names=None`` means every node."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        """Whether no narrowing applies."""
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection of two results (None or all-nodes leave the other unchanged)."""
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


_name_of = operator.attrgetter("name")
#: The status of nodes with no entry unless a cycle says otherwise (Status is frozen: one instance serves all).
_ABSENT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


class NodeToStatus:
    """Filter statuses by node name, with a status for nodes that have no explicit entry.

    Nodes are absent when Filter never ran on them (PreFilter rejected, or PreFilter narrowed them away);
    kube-scheduler counts them under ``absent_nodes_status``, UnschedulableAndUnresolvable by default. Read-only for
    plugins (PostFilter reads it); the runtime may build some entries only when they are first read.
    """

    __slots__ = ("_statuses", "absent_nodes_status")

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None) -> None:
        self._statuses: dict[str, Status] = statuses if statuses is not None else {}
        self.absent_nodes_status: Status = absent or _ABSENT

    @property
    def statuses(self) -> dict[str, Status]:
        """Every explicit entry; read-only: record entries with :meth:`set`."""
        return self._statuses

    def materialise(self) -> None:
        """Build entries recorded to be built later (none here)."""

    def codes(self) -> dict[str, tuple[Code, str]]:
        """Every explicit entry's (code, rejecting plugin), without building messages where the runtime can avoid it
        (PostFilter plugins that only need the codes, as preemption, read this)."""
        return {name: (status.code, status.plugin) for name, status in self.statuses.items()}

    def code(self, name: str) -> Code:
        """The node's status code (its entry's, or the absent-nodes status's)."""
        return self.get(name).code

    def reason_counts(self) -> dict[str, int]:
        """How many explicit entries give each reason (a reason repeated within one status counts each time), as
        the FitError message counts them; statuses shared between nodes are read once."""
        statuses = self.statuses.values()
        tally = Counter(map(id, statuses))
        unique = dict(zip(map(id, statuses), statuses, strict=True))
        counts: dict[str, int] = {}
        for key, times in tally.items():
            for reason in unique[key].reasons:
                counts[reason] = counts.get(reason, 0) + times
        return counts

    def recorded_names(self) -> list[str]:
        """The nodes with an entry so far (entries still to be built not included)."""
        return list(self._statuses)

    def get(self, name: str) -> Status:
        """The node's status (its explicit entry or the absent-nodes status)."""
        return self.statuses.get(name) or self.absent_nodes_status

    def set(self, name: str, status: Status) -> None:
        """Record a node's status."""
        self._statuses[name] = status

    def __len__(self) -> int:
        return len(self.statuses)

    def __contains__(self, name: object) -> bool:
        return name in self.statuses

    def nodes_for_status_code(self, nodes: Iterable[NodeInfo], code: Code) -> list[NodeInfo]:
        """The nodes (in the given order) whose status has ``code``, absent ones included when it matches."""
        codes = self.codes()
        nodes = list(nodes)
        entries = map(codes.get, map(_name_of, nodes))
        if self.absent_nodes_status.code is code:
            return [ni for ni, entry in zip(nodes, entries, strict=True) if entry is None or entry[0] is code]
        return [ni for ni, entry in zip(nodes, entries, strict=True) if entry is not None and entry[0] is code]


@attrs.define(slots=True)
class Diagnosis:
    """Why a pod did not fit: per-node statuses and the plugins that rejected it."""

    node_to_status: NodeToStatus = attrs.field(factory=NodeToStatus)
    unschedulable_plugins: set[str] = attrs.field(factory=set)
    pending_plugins: set[str] = attrs.field(factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        """Remember the plugin of a rejection as unschedulable or pending."""
        if not status.plugin:
            return
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)
        elif status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)


class FitError(Exception):
    """No node fits the pod; the message is kube-scheduler's histogram of reasons."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        super().__init__()

    def __str__(self) -> str:
        return fit_error_message(self.num_all_nodes, self.diagnosis)


def fit_error_message(num_all_nodes: int, diagnosis: Diagnosis) -> str:
    """``0/N nodes are available: <count> <reason>, ....`` with reasons sorted as strings."""
    message = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    if diagnosis.pre_filter_msg:
        message += f" {diagnosis.pre_filter_msg}."
    else:
        node_to_status = diagnosis.node_to_status
        counts = dict(node_to_status.reason_counts())
        absent = num_all_nodes - len(node_to_status)
        if absent > 0:
            for reason in node_to_status.absent_nodes_status.reasons:
                counts[reason] = counts.get(reason, 0) + absent
        histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
        if histogram:
            message += f" {', '.join(histogram)}."
    if diagnosis.post_filter_msg:
        message += f" {diagnosis.post_filter_msg}"
    return message


class NominatingMode(enum.Enum):
    """Whether a PostFilter result leaves the nomination alone or overrides it."""

    NOOP = "Noop"
    OVERRIDE = "Override"


@attrs.frozen(slots=True)
class NominatingInfo:
    """A nomination decision: the node (``""`` clears it) and the mode."""

    nominated_node_name: str = ""
    mode: NominatingMode = NominatingMode.NOOP


@attrs.frozen(slots=True)
class PostFilterResult:
    """What a PostFilter plugin (preemption) decided about the pod's nominated node."""

    nominating_info: NominatingInfo | None = None

    @classmethod
    def nominate(cls, node_name: str) -> PostFilterResult:
        """Nominate the pod to ``node_name`` (``""`` clears the nomination)."""
        return cls(NominatingInfo(node_name, NominatingMode.OVERRIDE))

    @property
    def mode(self) -> NominatingMode:
        """The nominating mode (Noop when there is no nominating info)."""
        return self.nominating_info.mode if self.nominating_info else NominatingMode.NOOP


@attrs.define(slots=True)
class NodeScore:
    """A node's score from one Score plugin; NormalizeScore rewrites ``score`` in place."""

    name: str
    score: int


_sequence = itertools.count()


@attrs.define(slots=True, eq=False)
class QueuedPodInfo:
    """A pod in the queue with its scheduling history."""

    pod_info: PodInfo
    #: When the pod was last added or re-added to the queue (the PrioritySort tie-breaker).
    timestamp: float
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = attrs.field(factory=set)
    pending_plugins: set[str] = attrs.field(factory=set)
    #: The PreEnqueue plugin keeping the pod out of activeQ, if any.
    gating_plugin: str = ""
    gating_status: Status | None = None
    #: Insertion order, the final tie-breaker so equal pods keep a stable order.
    seq: int = attrs.field(factory=lambda: next(_sequence))

    @property
    def pod(self) -> Pod:
        """The queued pod."""
        return self.pod_info.pod
