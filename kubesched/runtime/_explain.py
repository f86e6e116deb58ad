"""Explain: a record of every scheduling attempt of chosen pods, per node and per plugin (``--explain``).

The scheduler asks the :class:`Explainer` whether it explains a popped pod; only then does it open an
:class:`AttemptRecorder` and run that attempt on the per-node plugin path with recording hooks (the Filter hooks
wrapped for the cycle, the Score run reporting each plugin's columns, the preemption Evaluator reporting its
candidates). Decisions and random draws are those of the fast path (the equivalence guarantee), so explaining a
pod never changes where any pod lands; a pod not explained pays nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import PostFilterResult, PreFilterResult
from kubesched.framework.preemption import CandidateChoice
from kubesched.runtime._failures import Hook, describe_exception
from kubesched.runtime._nominator import Nominator

#: A Filter plugin's entry for a node it accepted.
PASSED = "passed"
#: Entries for nodes Filter never ran on, by why (each starts with "not tried").
NOT_TRIED_ENOUGH = "not tried: enough feasible nodes were found"
NOT_TRIED_NOMINATED = "not tried: the pod's nominated node fits"
NOT_TRIED_PRE_FILTER = "not tried: PreFilter rejected the pod"
NOT_TRIED_NARROWED = "not tried: PreFilter narrowed the nodes to others"
NOT_TRIED_ERROR = "not tried: the attempt stopped at an error"

JsonObject = dict[str, Any]


def filter_entry(status: Status | None) -> str:
    """A Filter plugin's verdict on a node as explain shows it: ``passed``, the reason, or ``error: ...``."""
    if status is None or status.code is Code.SUCCESS:
        return PASSED
    if status.code is Code.ERROR:
        return f"error: {status.message()}"
    return status.message()


@attrs.define
class PluginScore:
    """One Score plugin's scores for one node: as returned, after NormalizeScore, and times the weight."""

    raw: int
    normalized: int
    weighted: int


@attrs.define
class Attempt:
    """One explained scheduling attempt. ``filter`` maps each node Filter ran on to its Filter plugins' entries in
    the order they ran (a node's later plugins are absent after the first rejection, as they never ran);
    ``not_tried`` maps every other node of the snapshot to why Filter never ran there (a "not tried" string), so
    ``filter`` keeps the issue's node -> plugin -> verdict shape."""

    pod: str
    time: float
    attempt: int
    profile: str
    filter: dict[str, dict[str, str]] = attrs.field(factory=dict)
    score: dict[str, dict[str, PluginScore]] = attrs.field(factory=dict)
    total: dict[str, int] = attrs.field(factory=dict)
    selected_node: str | None = None
    pre_filter: JsonObject | None = None
    nominated_pods: dict[str, list[str]] = attrs.field(factory=dict)
    score_skipped: list[str] = attrs.field(factory=list)
    post_filter: JsonObject | None = None
    fit_error: str | None = None
    error: str | None = None
    not_tried: dict[str, str] = attrs.field(factory=dict)

    def to_json(self) -> JsonObject:
        """The documented JSON shape (docs/explain.md): the issue's keys first, then the additions."""
        return {
            "time": self.time, "attempt": self.attempt, "profile": self.profile, "filter": self.filter,
            "score": {node: {name: {"raw": s.raw, "normalized": s.normalized, "weighted": s.weighted}
                             for name, s in plugins.items()} for node, plugins in self.score.items()},
            "total": self.total, "selectedNode": self.selected_node, "postFilter": self.post_filter,
            "fitError": self.fit_error, "error": self.error, "preFilter": self.pre_filter,
            "nominatedPods": self.nominated_pods, "scoreSkipped": self.score_skipped, "notTried": self.not_tried,
        }


class AttemptRecorder:
    """Collects one attempt as the scheduler and the framework report it (a
    :class:`~kubesched.runtime._cycle_observer.CycleObserver` asking for the per-node path)."""

    #: The attempt runs on the per-node path, so every plugin's verdict on every node tried is seen.
    per_node = True

    def __init__(self, pod: Pod, attempt: Attempt, nominator: Nominator) -> None:
        self.pod = pod
        self.attempt = attempt
        self._nominator = nominator
        self._filtering = False
        self._not_tried = NOT_TRIED_ENOUGH
        self._narrowed_to: frozenset[str] | None = None
        self._pre_filter_rejected = False

    # -- PreFilter and Filter ----------------------------------------------------------------------
    def pre_filter(self, result: PreFilterResult | None, status: Status | None, narrowing: Collection[str],
                   skipped: Collection[str]) -> None:
        """PreFilter's outcome: a rejection, a narrowing of the nodes, and the Filter plugins it skipped."""
        rejected = status is not None and status.code is not Code.SUCCESS
        narrowed = result is not None and not result.all_nodes()
        if rejected or narrowed or skipped:
            self.attempt.pre_filter = {
                "rejectedBy": (status.plugin or None) if rejected and status is not None else None,
                "reason": status.message() if rejected and status is not None else None,
                "narrowedBy": sorted(narrowing),
                "nodes": sorted(result.node_names or ()) if narrowed and result is not None else None,
                "skippedFilters": sorted(skipped),
            }
        self._pre_filter_rejected = rejected and status is not None and status.is_rejected()
        if narrowed and result is not None:
            self._narrowed_to = frozenset(result.node_names or ())

    def filters(self, filters: Sequence[tuple[str, Hook]]) -> list[tuple[str, Hook]]:
        """``filters`` wrapped to report each call (they report only while Filter runs for the attempt)."""
        self._filtering = True
        return [(name, self._wrap(name, hook)) for name, hook in filters]

    def _wrap(self, name: str, hook: Hook) -> Hook:
        def recorded(state: Any, pod: Pod, node_info: NodeInfo) -> Any:
            try:
                status = hook(state, pod, node_info)
            except BaseException as exc:  # the Framework turns it into an Error: record it, then let it do so
                if self._filtering:
                    self.filter_result(name, node_info.name, Status.as_error(describe_exception(exc)))
                raise
            if self._filtering:
                self.filter_result(name, node_info.name, status if isinstance(status, Status) else None)
            return status

        return recorded

    def filter_result(self, plugin: str, node: str, status: Status | None) -> None:
        """``plugin`` judged ``node``. A plugin already seen on the node starts a new pass (the second pass of the
        two-pass filter with nominated pods, or the full search after the nominated node was checked): only the
        pass that decided is kept."""
        entry = self.attempt.filter.get(node)
        if entry is None or plugin in entry:
            entry = self.attempt.filter[node] = {}
        entry[plugin] = filter_entry(status)

    def nominated_node_fits(self) -> None:
        """The pod's nominated node passed Filter, so no other node was tried."""
        self._not_tried = NOT_TRIED_NOMINATED

    def filtering_done(self, nodes: Sequence[NodeInfo]) -> None:
        """Filter is over: mark the nodes never tried and note the pods nominated to the tried ones that Filter
        counted (those of equal or higher priority)."""
        self._filtering = False
        self._mark_not_tried(nodes, self._not_tried)
        if self._nominator.has_nominations():
            priority, uid = self.pod.priority, self.pod.uid
            for node in self.attempt.filter:
                counted = [p.pod.key for p in self._nominator.nominated_pods_for_node(node)
                           if p.pod.uid != uid and p.pod.priority >= priority]
                if counted:
                    self.attempt.nominated_pods[node] = counted

    def _mark_not_tried(self, nodes: Sequence[NodeInfo], default: str) -> None:
        """Order the tried nodes as the snapshot lists them and give every other node its "not tried" reason."""
        filters = self.attempt.filter
        tried = {}
        not_tried = {}
        for node_info in nodes:
            name = node_info.name
            entry = filters.get(name)
            if entry is not None:
                tried[name] = entry
            elif self._pre_filter_rejected:
                not_tried[name] = NOT_TRIED_PRE_FILTER
            elif self._narrowed_to is not None and name not in self._narrowed_to:
                not_tried[name] = NOT_TRIED_NARROWED
            else:
                not_tried[name] = default
        self.attempt.filter = tried
        self.attempt.not_tried = not_tried

    # -- Score -------------------------------------------------------------------------------------
    def score_skipped(self, plugins: Collection[str]) -> None:
        """The Score plugins whose PreScore said Skip (they score nothing this cycle)."""
        self.attempt.score_skipped = sorted(plugins)

    def scored(self, plugin: str, nodes: Sequence[str], raw: Sequence[int], normalized: Sequence[int],
               weighted: Sequence[int]) -> None:
        """``plugin``'s scores over ``nodes``: as returned, normalised, weighted."""
        score = self.attempt.score
        for i, node in enumerate(nodes):
            score.setdefault(node, {})[plugin] = PluginScore(int(raw[i]), int(normalized[i]), int(weighted[i]))

    # -- PostFilter --------------------------------------------------------------------------------
    def preemption(self, choice: CandidateChoice) -> None:
        """The preemption Evaluator's candidates and choice."""
        post = self._post_filter()
        post["candidates"] = [
            {"node": c.name, "victims": [v.key for v in c.victims], "pdbViolations": c.num_pdb_violations,
             "lostTieBreak": choice.lost.get(c.name)}
            for c in choice.candidates]
        post["chosenCandidate"] = choice.chosen.name if choice.chosen is not None else None

    def post_filter(self, result: PostFilterResult | None, status: Status) -> None:
        """PostFilter's outcome: the plugin, its status and message, and the nomination."""
        post = self._post_filter()
        post["plugin"] = status.plugin or None
        post["result"] = status.code.label
        post["message"] = status.message()
        post["nominatedNode"] = result.nominating_info.nominated_node_name if result is not None \
            and result.nominating_info is not None and result.nominating_info.nominated_node_name else None

    def _post_filter(self) -> JsonObject:
        if self.attempt.post_filter is None:
            self.attempt.post_filter = {"plugin": None, "result": None, "message": "", "nominatedNode": None,
                                        "candidates": [], "chosenCandidate": None}
        return self.attempt.post_filter

    # -- the end -----------------------------------------------------------------------------------
    def finish(self, nodes: Sequence[NodeInfo], selected: str, totals: Mapping[str, int],
               status: Status | None) -> Attempt:
        """The attempt, with the scheduling cycle's choice (``selected``, kept when Reserve or Permit then failed
        on it) and its failure (``status``)."""
        if self._filtering:  # Filter stopped at an error
            self._filtering = False
            self._mark_not_tried(nodes, NOT_TRIED_ERROR)
        attempt = self.attempt
        attempt.total = dict(totals)
        attempt.selected_node = selected or None
        if status is not None and status.is_rejected():
            attempt.fit_error = status.message()
        elif status is not None:
            attempt.error = status.message()
        return attempt


class Explainer:
    """Which pods to explain (``namespace/name`` keys, or every pod) and their attempts so far, by pod key."""

    def __init__(self, pods: Collection[str] | None = None) -> None:
        #: The pods explained; None explains every pod.
        self.pods = frozenset(pods) if pods is not None else None
        #: Attempts by pod key: the pods asked for first, in the order given, then others as first attempted.
        self.attempts: dict[str, list[Attempt]] = {key: [] for key in pods or ()}
        # Attempts so far per pod uid: a pod re-created under the same name (by a controller) counts from 1 again.
        self._counts: dict[str, int] = {}

    def wants(self, pod: Pod) -> bool:
        """Whether ``pod``'s attempts are recorded."""
        return self.pods is None or pod.key in self.pods

    def start(self, pod: Pod, profile: str, time: float, nominator: Nominator) -> AttemptRecorder:
        """A recorder for the attempt of ``pod`` starting now (virtual ``time``)."""
        number = self._counts[pod.uid] = self._counts.get(pod.uid, 0) + 1
        return AttemptRecorder(pod, Attempt(pod.key, time, number, profile), nominator)

    def add(self, attempt: Attempt) -> None:
        """Keep a finished attempt."""
        self.attempts.setdefault(attempt.pod, []).append(attempt)
