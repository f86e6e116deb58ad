"""Deliberately broken plugins, one per conformance check, each breaking only the rule its check verifies."""

from __future__ import annotations

import enum
import itertools
import time
from typing import Any, ClassVar

import attrs

from kubesched.api.pod import Pod, Toleration
from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.framework._events import NODE_ADD, ClusterEventWithHint
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore


class EventsDeclared(Plugin):
    """Declares the NodeAdd event, so each fixture fails only the check of its own defect (declares-events aside)."""

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_ADD)]


class WrongHookArguments(EventsDeclared):
    """Filter names its node argument ``node`` instead of the hookspec's ``node_info``."""

    name = "WrongHookArguments"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        return None


class RequiredArg(EventsDeclared):
    """Args with a required field: a profile that leaves it out cannot build the plugin."""

    name = "RequiredArg"

    @attrs.frozen
    class Args:
        zone: str

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class UntypedArg(EventsDeclared):
    """An Args field typed Any: any value is accepted, so ill-typed config goes unnoticed."""

    name = "UntypedArg"

    @attrs.frozen
    class Args:
        threshold: Any = 3

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class LabelsThePod(EventsDeclared):
    """Filter writes a label into the pod it is given (going around the API objects' immutability)."""

    name = "LabelsThePod"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        object.__setattr__(pod.metadata, "labels", {**pod.metadata.labels, "seen-by": "LabelsThePod"})
        return None


class CountsCalls(EventsDeclared):
    """Score returns how many times it has been called: the same input scores differently each time."""

    name = "CountsCalls"

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self._calls = itertools.count()

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return next(self._calls) % 100


class SilentRejection(EventsDeclared):
    """Filter rejects every node without saying why."""

    name = "SilentRejection"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable()


class ScoresOutOfRange(EventsDeclared):
    """Score returns 150 and has no NormalizeScore to bring it into [0, 100]."""

    name = "ScoresOutOfRange"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 150


class DropsANode(EventsDeclared):
    """NormalizeScore removes the last entry instead of rewriting the scores in place."""

    name = "DropsANode"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 50

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        scores.pop()
        return None


@attrs.define
class SharedCounts:
    """PreFilter state whose clone shares its dict with the original."""

    per_node: dict[str, int]

    def clone(self) -> SharedCounts:
        return SharedCounts(self.per_node)


SHARED_KEY = StateKey[SharedCounts]("SharedClone")


class SharedClone(EventsDeclared):
    """PreFilter state with a shallow clone(): a preemption branch would change the original."""

    name = "SharedClone"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(SHARED_KEY, SharedCounts({n.name: len(n.pods) for n in nodes}))
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


@attrs.define
class Counts:
    """Pods per node, cloned properly."""

    per_node: dict[str, int]

    def clone(self) -> Counts:
        return Counts(dict(self.per_node))


COUNTS_KEY = StateKey[Counts]("ForgetfulRemovePod")


class ForgetfulRemovePod(EventsDeclared):
    """At most one pod per node, tracked in PreFilter state; RemovePod forgets to decrement the count."""

    name = "ForgetfulRemovePod"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(COUNTS_KEY, Counts({n.name: len(n.pods) for n in nodes}))
        return None

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        counts = state.read(COUNTS_KEY).per_node
        counts[node_info.name] = counts.get(node_info.name, 0) + 1
        return None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        counts = state.read(COUNTS_KEY).per_node
        return Status.unschedulable("node already has a pod") if counts.get(node_info.name, 0) >= 2 else None


class UnreserveWithoutReserve(EventsDeclared):
    """Unreserve assumes Reserve ran and removes the pod's reservation unconditionally."""

    name = "UnreserveWithoutReserve"

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self.reserved: dict[str, str] = {}

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.reserved[pod.uid] = node_name
        return None

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del self.reserved[pod.uid]


class WaitsForAnHour(EventsDeclared):
    """Permit holds every pod for an hour, beyond the 15-minute bound."""

    name = "WaitsForAnHour"

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait(), 3600.0


class NeedsZoneLabel(EventsDeclared):
    """Filter assumes every node has a zone label."""

    name = "NeedsZoneLabel"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        zone = node_info.node.labels["topology.kubernetes.io/zone"]
        return None if zone else Status.unschedulable("no zone")


class Slow(EventsDeclared):
    """Filter sleeps a millisecond per node: correct, but over the time budget."""

    name = "Slow"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        time.sleep(0.001)
        return None


class CannotBeBuilt(EventsDeclared):
    """The constructor needs a service the test cluster does not offer."""

    name = "CannotBeBuilt"

    def __init__(self, handle: Any, args: Any = None) -> None:
        raise RuntimeError("no GPU driver")

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None  # pragma: no cover - never built


class ReasonsAsString(EventsDeclared):
    """Filter passes its reason as a string, not a tuple: users would see one letter per reason."""

    name = "ReasonsAsString"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status(Code.UNSCHEDULABLE, "Full")  # type: ignore[arg-type]


def _lookup_limit(_instance: Any, _attribute: Any, value: int) -> None:
    """A validator with a bug: it reads a table that does not exist."""
    {"limit": value}["limits"]


class BrokenValidator(EventsDeclared):
    """An Args validator that raises KeyError (a bug in the plugin, not a bad value)."""

    name = "BrokenValidator"

    @attrs.frozen
    class Args:
        limit: int = attrs.field(default=1, validator=_lookup_limit)

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class PreScoreTrimsNodes(EventsDeclared):
    """PreScore deletes all but the first node from the list it is given."""

    name = "PreScoreTrimsNodes"

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        del nodes[1:]
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 50


class Level(enum.IntEnum):
    """Score levels as an IntEnum: an int subclass, which the framework refuses as a score."""

    HIGH = 90


class ScoresIntEnum(EventsDeclared):
    """Score returns an IntEnum member instead of a plain int."""

    name = "ScoresIntEnum"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return Level.HIGH


class InitReadsSnapshot(EventsDeclared):
    """The constructor reads the first node: the scheduler builds plugins before any node is known."""

    name = "InitReadsSnapshot"

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self.first = handle.snapshot.list()[0].name

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class UnreserveKeepsTheNode(EventsDeclared):
    """Reserve keeps a node for its pod and Filter keeps other pods off it; Unreserve forgets to release it."""

    name = "UnreserveKeepsTheNode"

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self.holder: dict[str, str] = {}

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        holder = self.holder.get(node_info.name, pod.uid)
        return None if holder == pod.uid else Status.unschedulable("node is reserved for another pod")

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.holder[node_name] = pod.uid
        return None

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.holder.pop(pod.uid, None)  # the bug: keyed by node, released by pod


class FarOverBudget(EventsDeclared):
    """Filter sleeps 50 ms per node: far over the time budget."""

    name = "FarOverBudget"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        time.sleep(0.05)
        return None


GPU = "example.com/gpu"


class GpuOnlySilentRejection(EventsDeclared):
    """Acts only on pods that ask for a GPU label (PreFilter skips the others), and there rejects silently."""

    name = "GpuOnlySilentRejection"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        return None if GPU in pod.labels else Status.skip()

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable()


def _zone_of(node_info: NodeInfo) -> str:
    """The node's zone, assuming there is one (the bug)."""
    assert node_info.node is not None
    return node_info.node.labels["topology.kubernetes.io/zone"]


class ZoneLookupFails(EventsDeclared):
    """Score looks up the zone label in a helper; on a node without one the helper raises KeyError."""

    name = "ZoneLookupFails"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 100 if _zone_of(node_info) == "zone-1" else 0


@attrs.define
class Unclonable:
    """PreFilter state whose clone() has a bug."""

    per_node: dict[str, int]

    def clone(self) -> Unclonable:
        scale = 100 // sum(self.per_node.values())  # the bug: every count may be 0
        return Unclonable({node: count * scale for node, count in self.per_node.items()})


UNCLONABLE_KEY = StateKey[Unclonable]("CloneRaises")


class CloneRaises(EventsDeclared):
    """PreFilter writes state whose clone() raises TypeError (called by the framework, not by a hook)."""

    name = "CloneRaises"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(UNCLONABLE_KEY, Unclonable({n.name: 0 for n in nodes}))
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


def _has_gpu(node_info: NodeInfo) -> bool:
    """Whether the node carries the GPU label."""
    return node_info.node is not None and GPU in node_info.node.labels


class GpuGatedFilter(EventsDeclared):
    """Decides only for pods labelled for a GPU, inside Filter (no PreFilter Skip); there it returns a string
    instead of a Status (the planted defect)."""

    name = "GpuGatedFilter"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if GPU not in pod.labels:
            return None
        if _has_gpu(node_info):
            return None
        return "no GPU on this node"  # type: ignore[return-value]


class GpuGatedScore(EventsDeclared):
    """Scores only pods labelled for a GPU, inside Score (no PreScore Skip); there a GPU node scores 1000, out
    of range (the planted defect)."""

    name = "GpuGatedScore"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        if GPU not in pod.labels:
            return 0
        if _has_gpu(node_info):
            return 1000
        return 0


class FilterErrors(EventsDeclared):
    """Filter returns Error on every node: Score, which it also has, never runs."""

    name = "FilterErrors"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.as_error("quota service unreachable")

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 50  # pragma: no cover - Filter stops every pod first


class GpuOnlyScore(EventsDeclared):
    """Scores only pods labelled for a GPU: PreScore skips the others."""

    name = "GpuOnlyScore"

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        return None if GPU in pod.labels else Status.skip()

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 100 if _has_gpu(node_info) else 0


class RejectsWithoutEvents(Plugin):
    """Filter rejects pods labelled full=yes, but the plugin declares no events that could help them."""

    name = "RejectsWithoutEvents"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("node is full") if pod.labels.get("full") == "yes" else None


class RegistersNothing(EventsDeclared):
    """Filter rejects pods labelled full=yes, and registers an empty list of events."""

    name = "RegistersNothing"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("node is full") if pod.labels.get("full") == "yes" else None


TOLERATIONS_KEY = StateKey[list[Toleration]]("PopsTolerations")


class PopsTolerations(EventsDeclared):
    """Filter takes the tolerations PreFilter stored out of the state's list (``pop()``) while it matches a node's
    taints: every node checked after a tainted one sees fewer tolerations."""

    name = "PopsTolerations"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(TOLERATIONS_KEY, list(pod.spec.tolerations))
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        tolerations = state.read(TOLERATIONS_KEY)
        for taint in node_info.node.spec.taints:
            if taint.effect == "PreferNoSchedule":
                continue
            while tolerations:  # the bug: the tolerations tried are gone for the next node
                if tolerations.pop().tolerates(taint.key, taint.value, taint.effect):
                    break
            else:
                return Status.unresolvable(f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}")
        return None


class AnswerMemo:
    """A memo that says it holds facts that do not change during a cycle (so clones share it, and the suite
    compares it by identity only)."""

    shared_across_clones: ClassVar[bool] = True

    def __init__(self) -> None:
        self.answers: dict[str, Status | None] = {}


MEMO_KEY = StateKey[AnswerMemo]("RemembersFirstAnswer")


class RemembersFirstAnswer(EventsDeclared):
    """Filter memoises its answer per pod instead of per node: every node gets the answer of the first one
    checked, so the answers depend on the order of the nodes. The memo hides the change from a fingerprint."""

    name = "RemembersFirstAnswer"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(MEMO_KEY, AnswerMemo())
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        answers = state.read(MEMO_KEY).answers
        if pod.uid not in answers:  # the bug: the key should name the node
            answers[pod.uid] = Status.unschedulable("node is cordoned") if node_info.node.spec.unschedulable else None
        return answers[pod.uid]
