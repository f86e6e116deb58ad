"""How a plugin's failure reads, at each extension point: a hook that raises, returns an Error status, returns the
wrong type or breaks a rule becomes that plugin's Error status, worded as kube-scheduler words the point (its
``running ... plugin`` texts; a raise, which Go has not, is worded like an Error), recorded once as a plugin failure
and as a Warning PluginError event on the pod."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pytest

from kubesched.framework import Code, CycleState, NodeInfo, NodeScore, Plugin, PodInfo, Status, hookimpl
from kubesched.framework._types import NodeToStatus
from kubesched.runtime import Framework
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import StatusError, make_node, make_pod, plugin_framework
from tests.framework.fakes import framework_of

POD = make_pod("p").obj()
RUN = "RuntimeError: boom"


class Broken(Plugin):
    """A plugin at every extension point whose hook named in ``fails`` raises ("raise"), returns an Error status
    ("error") or returns something of the wrong type ("wrong"); every other hook succeeds."""

    name = "Broken"
    fails: ClassVar[dict[str, str]] = {}

    def _outcome(self, hook: str, success: Any, error: Any, wrong: Any) -> Any:
        mode = self.fails.get(hook)
        if mode == "raise":
            raise RuntimeError("boom")
        return {"error": error, "wrong": wrong}.get(mode or "", success)

    @hookimpl
    def pre_enqueue(self, pod: Any) -> Any:
        return self._outcome("pre_enqueue", None, Status.as_error("bad"), 42)

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Any, nodes: Any) -> Any:
        return self._outcome("pre_filter", None, Status.as_error("bad"), 42)

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Any, pod_info_to_add: Any, node_info: Any) -> Any:
        return self._outcome("pre_filter_add_pod", None, Status.as_error("bad"), 42)

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Any, pod_info_to_remove: Any, node_info: Any) -> Any:
        return self._outcome("pre_filter_remove_pod", None, Status.as_error("bad"), 42)

    @hookimpl
    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Any:
        return self._outcome("filter", None, Status.as_error("bad"), 42)

    @hookimpl
    def post_filter(self, state: CycleState, pod: Any, filtered_node_status: Any) -> Any:
        return self._outcome("post_filter", (None, None), (None, Status.as_error("bad")), (None, 42))

    @hookimpl
    def pre_score(self, state: CycleState, pod: Any, nodes: Any) -> Any:
        return self._outcome("pre_score", None, Status.as_error("bad"), 42)

    @hookimpl
    def score(self, state: CycleState, pod: Any, node_info: Any) -> Any:
        return self._outcome("score", 1, Status.as_error("bad"), "high")

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Any, scores: list[NodeScore]) -> Any:
        return self._outcome("normalize_score", None, Status.as_error("bad"), 42)

    @hookimpl
    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Any:
        return self._outcome("reserve", None, Status.as_error("bad"), 42)

    @hookimpl
    def permit(self, state: CycleState, pod: Any, node_name: str) -> Any:
        return self._outcome("permit", (None, 0), (Status.as_error("bad"), 0), (42, 0))

    @hookimpl
    def pre_bind(self, state: CycleState, pod: Any, node_name: str) -> Any:
        return self._outcome("pre_bind", None, Status.as_error("bad"), 42)

    @hookimpl
    def bind(self, state: CycleState, pod: Any, node_name: str) -> Any:
        return self._outcome("bind", None, Status.as_error("bad"), 42)


POINTS = ("pre-enqueue", "pre-filter", "filter", "post-filter", "pre-score", "score", "reserve", "permit",
          "pre-bind", "bind")
NODES = [NodeInfo.of(make_node("n1").obj())]
OTHER = PodInfo.of(make_pod("other").node("n1").obj())

#: How each hook is reached: the Framework runner for its extension point, returning the status.
RUNNERS: dict[str, Callable[[Framework, CycleState], Status | None]] = {
    "pre_enqueue": lambda fw, state: fw.run_pre_enqueue_plugins(POD),
    "pre_filter": lambda fw, state: fw.run_pre_filter_plugins(state, POD, NODES)[1],
    "pre_filter_add_pod": lambda fw, state: fw.run_pre_filter_extension_add_pod(state, POD, OTHER, NODES[0]),
    "pre_filter_remove_pod": lambda fw, state: fw.run_pre_filter_extension_remove_pod(state, POD, OTHER, NODES[0]),
    "filter": lambda fw, state: fw.run_filter_plugins(state, POD, NODES[0]),
    "post_filter": lambda fw, state: fw.run_post_filter_plugins(state, POD, NodeToStatus())[1],
    "pre_score": lambda fw, state: fw.run_pre_score_plugins(state, POD, NODES),
    "score": lambda fw, state: fw.run_score_plugins(state, POD, NODES)[1],
    "normalize_score": lambda fw, state: fw.run_score_plugins(state, POD, NODES)[1],
    "reserve": lambda fw, state: fw.run_reserve_plugins_reserve(state, POD, "n1"),
    "permit": lambda fw, state: fw.run_permit_plugins(state, POD, "n1"),
    "pre_bind": lambda fw, state: fw.run_pre_bind_plugins(state, POD, "n1"),
    "bind": lambda fw, state: fw.run_bind_plugins(state, POD, "n1"),
}

#: (hook, how it fails, the Error status's message, the failure report's point and detail).
TABLE: list[tuple[str, str, str, tuple[str, str]]] = [
    ("pre_enqueue", "raise", f'running PreEnqueue plugin "Broken": {RUN}', ("PreEnqueue", RUN)),
    ("pre_enqueue", "wrong", 'running PreEnqueue plugin "Broken": returned int, expected a Status or None',
     ("PreEnqueue", "returned int, expected a Status or None")),
    ("pre_filter", "raise", f'running PreFilter plugin "Broken": {RUN}', ("PreFilter", RUN)),
    ("pre_filter", "error", 'running PreFilter plugin "Broken": bad', ("PreFilter", "bad")),
    ("pre_filter", "wrong",
     'running PreFilter plugin "Broken": returned int, expected a PreFilterResult, a Status or None',
     ("PreFilter", "returned int, expected a PreFilterResult, a Status or None")),
    ("pre_filter_add_pod", "raise", f'running AddPod on PreFilter plugin "Broken": {RUN}', ("PreFilter AddPod", RUN)),
    ("pre_filter_add_pod", "error", 'running AddPod on PreFilter plugin "Broken": bad', ("PreFilter AddPod", "bad")),
    ("pre_filter_add_pod", "wrong",
     'running AddPod on PreFilter plugin "Broken": returned int, expected a Status or None',
     ("PreFilter AddPod", "returned int, expected a Status or None")),
    ("pre_filter_remove_pod", "raise", f'running RemovePod on PreFilter plugin "Broken": {RUN}',
     ("PreFilter RemovePod", RUN)),
    ("pre_filter_remove_pod", "error", 'running RemovePod on PreFilter plugin "Broken": bad',
     ("PreFilter RemovePod", "bad")),
    ("filter", "raise", f'running "Broken" filter plugin: {RUN}', ("Filter", RUN)),
    ("filter", "error", 'running "Broken" filter plugin: bad', ("Filter", "bad")),
    ("filter", "wrong", 'running "Broken" filter plugin: returned int, expected a Status or None',
     ("Filter", "returned int, expected a Status or None")),
    ("post_filter", "raise", f'running PostFilter plugin "Broken": {RUN}', ("PostFilter", RUN)),
    ("post_filter", "error", "bad", ("PostFilter", "bad")),  # kube returns a PostFilter plugin's Error as it is
    ("post_filter", "wrong",
     'running PostFilter plugin "Broken": returned tuple, expected (PostFilterResult or None, Status or None)',
     ("PostFilter", "returned tuple, expected (PostFilterResult or None, Status or None)")),
    ("pre_score", "raise", f'running PreScore plugin "Broken": {RUN}', ("PreScore", RUN)),
    ("pre_score", "error", 'running PreScore plugin "Broken": bad', ("PreScore", "bad")),
    ("pre_score", "wrong", 'running PreScore plugin "Broken": returned int, expected a Status or None',
     ("PreScore", "returned int, expected a Status or None")),
    ("score", "raise", f'running Score plugins: plugin "Broken" failed with: {RUN}', ("Score", RUN)),
    ("score", "wrong", 'applying score defaultWeights on Score plugins: plugin "Broken" returns an invalid score '
     "'high', it should in the range of [0, 100] after normalizing",
     ("Score", "returns an invalid score 'high', it should in the range of [0, 100] after normalizing")),
    ("normalize_score", "raise", f'running Normalize on Score plugins: plugin "Broken" failed with: {RUN}',
     ("NormalizeScore", RUN)),
    ("normalize_score", "error", 'running Normalize on Score plugins: plugin "Broken" failed with: bad',
     ("NormalizeScore", "bad")),
    ("normalize_score", "wrong",
     'running Normalize on Score plugins: plugin "Broken" returned int, expected a Status or None',
     ("NormalizeScore", "returned int, expected a Status or None")),
    ("reserve", "raise", f'running Reserve plugin "Broken": {RUN}', ("Reserve", RUN)),
    ("reserve", "error", 'running Reserve plugin "Broken": bad', ("Reserve", "bad")),
    ("permit", "raise", f'running Permit plugin "Broken": {RUN}', ("Permit", RUN)),
    ("permit", "error", 'running Permit plugin "Broken": bad', ("Permit", "bad")),
    ("permit", "wrong", 'running Permit plugin "Broken": returned int, expected (Status or None, timeout)',
     ("Permit", "returned int, expected (Status or None, timeout)")),
    ("pre_bind", "raise", f'running PreBind plugin "Broken": {RUN}', ("PreBind", RUN)),
    ("pre_bind", "error", 'running PreBind plugin "Broken": bad', ("PreBind", "bad")),
    ("bind", "raise", f'running Bind plugin "Broken": {RUN}', ("Bind", RUN)),
    ("bind", "error", 'running Bind plugin "Broken": bad', ("Bind", "bad")),
    ("bind", "wrong", 'running Bind plugin "Broken": returned int, expected a Status or None',
     ("Bind", "returned int, expected a Status or None")),
]


@pytest.mark.parametrize(("hook", "mode", "message", "failure"), TABLE, ids=[f"{r[0]}-{r[1]}" for r in TABLE])
def test_a_failing_hook_is_that_plugins_error_worded_for_its_extension_point(
        hook: str, mode: str, message: str, failure: tuple[str, str]) -> None:
    """The runner's status is an Error naming the plugin, worded for the point; the failure is recorded once, with
    a Warning PluginError event on the pod."""
    cluster = InMemoryCluster(VirtualClock())
    fw = framework_of({point: ["Broken"] for point in POINTS}, Broken, cluster=cluster)
    state = CycleState()
    if hook not in ("pre_enqueue", "pre_filter"):  # the extensions run only for plugins that ran PreFilter
        fw.run_pre_filter_plugins(state, POD, NODES)
    Broken.fails = {hook: mode}
    try:
        status = RUNNERS[hook](fw, state)
    finally:
        Broken.fails = {}
    assert status is not None
    assert (status.code, status.plugin, status.message()) == (Code.ERROR, "Broken", message)
    assert [(f.point, f.plugin, f.message) for f in fw.failures] == [(*failure[:1], "Broken", failure[1])]
    assert [(e.type, e.reason) for e in cluster.events] == [("Warning", "PluginError")]


def test_an_error_status_from_pre_enqueue_gates_the_pod_as_it_is() -> None:
    """A PreEnqueue plugin's Error status gates the pod with that status, unwrapped and unrecorded: kube-scheduler's
    queue only logs it ("Unexpected error running PreEnqueue plugin")."""
    cluster = InMemoryCluster(VirtualClock())
    fw = framework_of({"pre-enqueue": ["Broken"]}, Broken, cluster=cluster)
    Broken.fails = {"pre_enqueue": "error"}
    try:
        status = fw.run_pre_enqueue_plugins(POD)
    finally:
        Broken.fails = {}
    assert status == Status(Code.ERROR, ("bad",), "Broken")
    assert (fw.failures, cluster.events) == ([], [])


@pytest.mark.parametrize("score", [50.0, True], ids=["a float", "a bool"])
def test_a_score_that_is_not_an_int_is_an_error(score: object) -> None:
    """A score must be an int in [0, 100]: a float or a bool in that range is still an invalid score."""
    class FloatScore(Plugin):
        name = "FloatScore"

        @hookimpl
        def score(self, state: CycleState, pod: Any, node_info: Any) -> Any:
            return score

    fw = framework_of({"score": ["FloatScore"]}, FloatScore)
    _table, status = fw.run_score_plugins(CycleState(), POD, NODES)
    assert status is not None
    assert (status.code, status.message()) == (
        Code.ERROR, f'applying score defaultWeights on Score plugins: plugin "FloatScore" returns an invalid score '
                    f"{score!r}, it should in the range of [0, 100] after normalizing")


class BrokenBatchForms(Plugin):
    """Batch score forms returning something other than an integer array of one score per node."""

    name = "BrokenBatchForms"
    broken: ClassVar[str] = "score_nodes"

    @hookimpl
    def score(self, state: CycleState, pod: Any, node_info: Any) -> int:
        return 1

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Any, node_batch: Any) -> Any:
        return [1, 1] if self.broken == "score_nodes" else np.ones(len(node_batch), dtype=np.int64)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Any, scores: list[NodeScore]) -> Status | None:
        return None

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Any, node_batch: Any, batch_scores: Any) -> Any:
        return None


@pytest.mark.parametrize(("broken", "message"), [
    ("score_nodes", 'running Score plugins: plugin "BrokenBatchForms" returned list, expected an integer array of '
                    "2 scores"),
    ("normalize_scores", 'running Normalize on Score plugins: plugin "BrokenBatchForms" returned NoneType, expected '
                         "an integer array of 2 scores"),
])
def test_a_batch_score_form_returning_the_wrong_type_is_worded_as_a_wrong_result(broken: str, message: str) -> None:
    """On the batch path a wrong result from score_nodes or normalize_scores reads "plugin X returned ...", as the
    per-node NormalizeScore's does (not "failed with")."""
    BrokenBatchForms.broken = broken
    fw = plugin_framework(BrokenBatchForms, nodes=[make_node("a"), make_node("b")], path="batch")
    with pytest.raises(StatusError) as failed:
        fw.run_score(POD)
    assert (failed.value.status.code, failed.value.status.message()) == (Code.ERROR, message)
