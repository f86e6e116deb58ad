"""Scheduling steps through the real Framework runtime for one plugin, as the scheduler sequences them; the
checks read the plugin's answers from what the Framework returns and its raw results from the recorded calls."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.runtime import Framework
from kubesched.testing.conformance.recorder import Escape, Observer, Recorder
from kubesched.testing.conformance.subject import SEED

if TYPE_CHECKING:
    from kubesched.testing.conformance.subject import PluginUnderTest

T = TypeVar("T")
Verdict = tuple[Code, tuple[str, ...]]
_PASSED: Verdict = (Code.SUCCESS, ())


def verdict(status: Status | None) -> Verdict:
    """A status as (code, reasons); None is Success."""
    return _PASSED if status is None else (status.code, status.reasons)


def show(answer: Verdict | None) -> str:
    """An answer as the scheduler words it: ``Code (reason, reason)``; ``no answer`` when there was none."""
    if answer is None:
        return "no answer"
    code, reasons = answer
    return code.label + (f" ({', '.join(reasons)})" if reasons else "")


@attrs.frozen
class PreFiltered:
    """A pod after PreFilter: the state, whether the plugin said Skip, and the nodes Filter runs on."""

    state: CycleState
    skip: bool
    nodes: list[NodeInfo]


@attrs.frozen
class CycleOutcome:
    """What the plugin answered in one cycle: PreFilter, Filter per node, the feasible nodes in order and the
    final score per node (after NormalizeScore; empty when nothing was scored)."""

    pre_filter: Verdict
    filter: dict[str, Verdict]
    feasible: tuple[str, ...]
    scores: dict[str, int]


class Driver:
    """One Framework running only the plugin under test, and the scheduling steps the checks take through it.
    An exception of the plugin (:class:`HookRaised`) or an observer's verdict leaves every step as raised."""

    def __init__(self, subject: PluginUnderTest, framework: Framework, recorder: Recorder) -> None:
        self.subject = subject
        self.framework = framework
        self.recorder = recorder

    @property
    def plugin(self) -> Any:
        """The plugin instance the Framework built."""
        return self.framework.plugins[self.subject.plugin_class.name]

    @contextmanager
    def observing(self, observer: Observer) -> Iterator[None]:
        """Show every call of the plugin's hooks to ``observer`` (after it returns) inside the block."""
        self.recorder.observers.append(observer)
        try:
            yield
        finally:
            self.recorder.observers.remove(observer)

    def _run(self, step: Callable[..., T], *args: Any) -> T:
        try:
            return step(*args)
        except Escape as escape:
            raise escape.error from None

    # -- the scheduling cycle ------------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """PreEnqueue, as the queue runs it."""
        return self._run(self.framework.run_pre_enqueue_plugins, pod)

    def pre_filter(self, pod: Pod) -> tuple[PreFiltered | None, Status | None]:
        """PreFilter: (the result, None) when the pod goes on to Filter, (None, the status) when PreFilter
        rejected it or failed."""
        state = CycleState()
        nodes = self.framework.handle.snapshot.list()
        result, status, _narrowed = self._run(self.framework.run_pre_filter_plugins, state, pod, nodes)
        if status is not None and not status.is_success():
            return None, status
        allowed = list(nodes) if result is None or result.node_names is None \
            else [n for n in nodes if n.name in result.node_names]
        return PreFiltered(state, self.subject.plugin_class.name in state.skip_filter_plugins, allowed), None

    def filter_verdicts(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, Verdict]:
        """Filter on ``nodes`` with an already pre-filtered state ({} when the plugin has no Filter)."""
        if not self.subject.has("filter"):
            return {}
        return {n.name: verdict(self._run(self.framework.run_filter_plugins, state, pod, n)) for n in nodes}

    def scores(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, int]:
        """PreScore, Score and NormalizeScore over ``nodes``: the final score per node ({} when the plugin
        has no Score, skipped at PreScore, or the Framework refused what it returned)."""
        if not self.subject.has("score") or not nodes:
            return {}
        if self.pre_score(state, pod, nodes) is not None:
            return {}
        table, status = self._run(self.framework.run_score_plugins, state, pod, list(nodes))
        if status is not None or not table.plugins:
            return {}
        return dict(zip(table.nodes, table.columns[0], strict=True))

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """PreScore over ``nodes`` (None when every plugin succeeded)."""
        return self._run(self.framework.run_pre_score_plugins, state, pod, list(nodes))

    def cycle(self, pod: Pod) -> tuple[CycleState, CycleOutcome]:
        """A whole scheduling cycle for ``pod``: PreFilter, Filter on every node it leaves, then PreScore,
        Score and NormalizeScore over the feasible nodes; the handle's rng restarts from the seed first."""
        self.framework.handle.rng.seed(SEED)
        pre_filtered, status = self.pre_filter(pod)
        if pre_filtered is None:
            return CycleState(), CycleOutcome(verdict(status), {}, (), {})
        state = pre_filtered.state
        filters = {} if pre_filtered.skip else self.filter_verdicts(state, pod, pre_filtered.nodes)
        feasible = [n for n in pre_filtered.nodes if filters.get(n.name, _PASSED)[0] is Code.SUCCESS]
        scores = self.scores(state, pod, feasible)
        return state, CycleOutcome((Code.SKIP, ()) if pre_filtered.skip else _PASSED, filters,
                                   tuple(n.name for n in feasible), scores)

    def binding_target(self, pod: Pod) -> tuple[CycleState, str, Pod] | None:
        """Run the cycle and pick where the pod would go, as the scheduler would before Reserve: (the cycle's
        state, the best-scoring feasible node, the assumed pod bound to it); None when no node is feasible."""
        state, outcome = self.cycle(pod)
        if not outcome.feasible:
            return None
        node = max(outcome.feasible, key=lambda name: outcome.scores.get(name, 0))
        return state, node, pod.with_node_name(node)

    # -- PreFilter extensions --------------------------------------------------------------------------

    def add_pod(self, state: CycleState, pod: Pod, added: PodInfo, node_info: NodeInfo) -> Status | None:
        """The plugin's AddPod extension, as preemption and nominated pods run it."""
        return self._run(self.framework.run_pre_filter_extension_add_pod, state, pod, added, node_info)

    def remove_pod(self, state: CycleState, pod: Pod, removed: PodInfo, node_info: NodeInfo) -> Status | None:
        """The plugin's RemovePod extension, as preemption runs it."""
        return self._run(self.framework.run_pre_filter_extension_remove_pod, state, pod, removed, node_info)

    # -- the binding cycle -----------------------------------------------------------------------------

    def reserve(self, state: CycleState, assumed: Pod, node: str) -> Status | None:
        """Reserve the node for the assumed pod."""
        return self._run(self.framework.run_reserve_plugins_reserve, state, assumed, node)

    def unreserve(self, state: CycleState, assumed: Pod, node: str) -> None:
        """Unreserve, as after a failed Reserve, Permit or binding."""
        self._run(self.framework.run_reserve_plugins_unreserve, state, assumed, node)

    def permit(self, state: CycleState, assumed: Pod, node: str) -> Status | None:
        """Permit (a Wait parks the pod in the Framework's waiting pods)."""
        return self._run(self.framework.run_permit_plugins, state, assumed, node)

    def reserved(self, state: CycleState, assumed: Pod, node: str) -> bool:
        """Run Reserve; whether it succeeded, so the pod goes on to Permit."""
        status = self.reserve(state, assumed, node)
        return status is None or status.is_success()
