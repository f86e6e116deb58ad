"""Values passed between extension points: PreFilter results, node statuses, diagnoses, scores."""

from __future__ import annotations

import enum
import itertools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray
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
#: Per node of a deferred fill, its name with its status code and rejecting plugin (known without messages).
CodeEntries = Iterable[tuple[str, tuple[Code, str]]]
#: A deferred fill's entry count and reason counts (as :meth:`NodeToStatus.reason_counts` counts its statuses).
ReasonTally = tuple[int, dict[str, int]]
#: A deferred fill's entries by node position in the snapshot's columns: (positions, codes, indexes into the
#: plugin names, the plugin names).
PositionalCodes = tuple[IntArray, "npt.NDArray[np.int8]", "npt.NDArray[np.int16]", Sequence[str]]
#: Every node's code and rejecting plugin by column position (see :meth:`NodeToStatus.code_columns`).
CodeColumns = tuple["npt.NDArray[np.int8]", "npt.NDArray[np.int16]", list[str]]


class NodeToStatus:
    """Filter statuses by node name, with a status for nodes that have no explicit entry.

    Nodes are absent when Filter never ran on them (PreFilter rejected, or PreFilter narrowed them away);
    kube-scheduler counts them under ``absent_nodes_status``, UnschedulableAndUnresolvable by default. The batch
    Filter path records rejections as a deferred fill (:meth:`defer`): the statuses are built the first time
    anything reads them, so a cycle that finds a node never pays for them. A fill that also knows its entries'
    codes lets :meth:`codes`, :meth:`code` and :meth:`nodes_for_status_code` answer without building messages; one
    that also knows its reason counts lets the FitError message (:meth:`reason_counts`, ``len``) skip the statuses.
    """

    __slots__ = ("_code_columns", "_codes", "_count", "_deferred", "_reason_counts", "_statuses",
                 "absent_nodes_status")

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None) -> None:
        self._statuses: dict[str, Status] = statuses if statuses is not None else {}
        self._deferred: list[tuple[Callable[[], Iterable[tuple[str, Status]]],
                                   Callable[[], CodeEntries] | None, Callable[[], ReasonTally] | None,
                                   Callable[[], PositionalCodes] | None]] = []
        self._code_columns: tuple[int, Status, CodeColumns | None] | None = None
        self.absent_nodes_status: Status = absent or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        self._codes: dict[str, tuple[Code, str]] | None = None
        self._reason_counts: dict[str, int] | None = None
        self._count: int | None = None

    @property
    def statuses(self) -> dict[str, Status]:
        """Every explicit entry (deferred ones built first); read-only: record entries with :meth:`set`."""
        if self._deferred:
            self.materialise()
        return self._statuses

    def defer(self, fill: Callable[[], Iterable[tuple[str, Status]]],
              codes: Callable[[], CodeEntries] | None = None,
              reasons: Callable[[], ReasonTally] | None = None,
              positional: Callable[[], PositionalCodes] | None = None) -> None:
        """Record entries later: ``fill`` yields (node, status) pairs when something first reads the statuses. It
        must be called before the data it reads change (the runtime materialises within the cycle). ``codes``,
        if given, yields the same entries' (node, (code, plugin)) in the same order, cheaply; ``reasons``, if
        given, returns their number (distinct nodes) and how many times each reason occurs in their statuses;
        ``positional``, if given, returns their codes and plugins by node position in the snapshot's columns."""
        self._deferred.append((fill, codes, reasons, positional))
        self._codes = self._reason_counts = self._count = self._code_columns = None

    def materialise(self) -> None:
        """Build the deferred entries now, in the order they were recorded."""
        deferred, self._deferred = self._deferred, []
        self._codes = self._reason_counts = self._count = None
        for fill, _codes, _reasons, _positional in deferred:
            self._statuses.update(fill())

    def codes(self) -> dict[str, tuple[Code, str]]:
        """Every explicit entry's (code, rejecting plugin), without building the messages of deferred entries whose
        fill knows its codes (PostFilter plugins that only need the codes, as preemption, read this)."""
        if self._codes is not None:
            return self._codes
        if any(entry[1] is None for entry in self._deferred):
            self.materialise()
        out = {name: (status.code, status.plugin) for name, status in self._statuses.items()}
        for _fill, codes, _reasons, _positional in self._deferred:
            assert codes is not None
            out.update(codes())
        self._codes = out
        return out

    def code(self, name: str) -> Code:
        """The node's status code (its entry's, or the absent-nodes status's), as :meth:`codes` reads it."""
        entry = self.codes().get(name) if self._deferred else None
        if entry is not None:
            return entry[0]
        status = self._statuses.get(name)
        return (status or self.absent_nodes_status).code

    def code_columns(self, position: Mapping[str, int], size: int) -> CodeColumns | None:
        """Every node's code and rejecting plugin (an index into the returned names) by position, for nodes placed
        by ``position`` (the snapshot's columns, ``size`` nodes): the absent-nodes status's, then each entry's in
        the order recorded. None when a deferred fill does not give its entries by position or an entry names a
        node ``position`` lacks (read :meth:`codes` then). Read-only."""
        absent = self.absent_nodes_status
        cached = self._code_columns
        if cached is not None and cached[0] == size and cached[1] is absent:
            return cached[2]
        table: CodeColumns | None = None
        if all(entry[3] is not None for entry in self._deferred):
            codes = np.full(size, int(absent.code), dtype=np.int8)
            plugins = np.zeros(size, dtype=np.int16)
            names = [absent.plugin]
            index = {absent.plugin: 0}
            table = codes, plugins, names
            for name, status in self._statuses.items():
                at = position.get(name)
                if at is None:
                    table = None
                    break
                codes[at] = status.code
                plugins[at] = index.setdefault(status.plugin, len(index))
                if len(index) > len(names):
                    names.append(status.plugin)
            if table is not None:
                for entry in self._deferred:
                    assert entry[3] is not None
                    at_positions, entry_codes, entry_plugins, entry_names = entry[3]()
                    codes[at_positions] = entry_codes
                    plugins[at_positions] = entry_plugins + len(names)
                    names.extend(entry_names)
        self._code_columns = (size, absent, table)
        return table

    def _tally(self) -> bool:
        """Take the entry and reason counts from the one deferred fill's ``reasons`` when nothing else is recorded
        (no overlap to resolve); False when the statuses must be built instead."""
        if self._reason_counts is not None and self._count is not None:
            return True
        if len(self._deferred) != 1 or self._statuses:
            return False
        reasons = self._deferred[0][2]
        if reasons is None:
            return False
        self._count, self._reason_counts = reasons()
        return True

    def reason_counts(self) -> dict[str, int]:
        """How many explicit entries give each reason (a reason repeated within one status counts each time), as
        the FitError message counts them; statuses shared between nodes are read once. Read-only."""
        if self._deferred and self._tally():
            assert self._reason_counts is not None
            return self._reason_counts
        statuses = self.statuses.values()
        if self._reason_counts is None:
            tally = Counter(map(id, statuses))
            if len(tally) < len(statuses):
                unique = dict(zip(map(id, statuses), statuses, strict=True))
                pairs: Iterable[tuple[Status, int]] = ((unique[key], times) for key, times in tally.items())
            else:
                pairs = ((status, 1) for status in statuses)
            counts: dict[str, int] = {}
            for status, times in pairs:
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + times
            self._reason_counts = counts
        return self._reason_counts

    def recorded_names(self) -> list[str]:
        """The nodes with an entry so far, deferred entries not included (they are not built for this)."""
        return list(self._statuses)

    def get(self, name: str) -> Status:
        """The node's status (its explicit entry or the absent-nodes status)."""
        if not name and name not in self._statuses:
            return self.absent_nodes_status  # no node is named "" (a pod without a nominated node asks this)
        if self._deferred and all(entry[1] is not None for entry in self._deferred) \
                and name not in self._statuses and name not in self.codes():
            return self.absent_nodes_status
        return self.statuses.get(name) or self.absent_nodes_status

    def set(self, name: str, status: Status) -> None:
        """Record a node's status."""
        if self._deferred:
            self.materialise()
        self._statuses[name] = status
        self._codes = self._reason_counts = self._count = self._code_columns = None

    def __len__(self) -> int:
        if self._deferred and self._tally():
            assert self._count is not None
            return self._count
        return len(self.statuses)

    def __contains__(self, name: object) -> bool:
        return name in self.statuses

    def nodes_for_status_code(self, nodes: Iterable[NodeInfo], code: Code) -> list[NodeInfo]:
        """The nodes (in the given order) whose status has ``code``, absent ones included when it matches; deferred
        entries are read by :meth:`codes` where their fill allows."""
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


@attrs.frozen(slots=True)
class PluginScore:
    """One plugin's contribution to a node's total: the normalised score times the weight."""

    name: str
    score: int


@attrs.frozen(slots=True)
class NodePluginScores:
    """A node's per-plugin weighted scores and their total."""

    name: str
    scores: tuple[PluginScore, ...]
    total_score: int


@attrs.define(slots=True)
class ScoreTable:
    """The result of scoring: one column of weighted scores per plugin over the scored nodes, and totals.

    Kept column-wise so scoring allocates nothing per node; :meth:`node_scores` gives the per-node view.
    """

    #: The scored nodes' names in node order (a list, or a read-only view on the batch path).
    nodes: Sequence[str]
    plugins: list[str] = attrs.field(factory=list)
    #: Per plugin, the weighted scores in node order (lists, or int64 arrays on the batch path).
    columns: list[Sequence[int] | IntArray] = attrs.field(factory=list)
    totals: Sequence[int] | IntArray = attrs.field(factory=list)

    def node_scores(self) -> list[NodePluginScores]:
        """Each node's per-plugin weighted scores and total, in node order."""
        return [NodePluginScores(name, tuple(PluginScore(p, int(col[i])) for p, col in
                                             zip(self.plugins, self.columns, strict=True)),
                                 int(self.totals[i]))
                for i, name in enumerate(self.nodes)]

    def as_lists(self) -> None:
        """Turn array columns into plain lists of ints (for readers that keep the table past the cycle)."""
        self.nodes = list(self.nodes)
        self.columns = [list(map(int, column)) for column in self.columns]
        self.totals = list(map(int, self.totals))


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
