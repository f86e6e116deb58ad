"""How the runtime feeds :class:`~kubesched.metrics.SchedulerMetrics`: plugin calls timed on sampled cycles, and
preemption victims counted where the preemption records them, through the client the plugins are given."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from kubesched.framework._status import Status
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._failures import Hook

if TYPE_CHECKING:
    from kubesched.api.pod import Pod
    from kubesched.backend import ClusterClient

#: kube-scheduler's extension_point label per hook; batch forms count as their extension point (one call per batch).
#: PreEnqueue and QueueSort run in the queue and are not timed, as in kube-scheduler's scheduling cycle metrics.
EXTENSION_POINT_LABELS: dict[str, str] = {
    "pre_filter": "PreFilter", "pre_filter_nodes": "PreFilter", "pre_filter_add_pod": "PreFilterExtensionAddPod",
    "pre_filter_remove_pod": "PreFilterExtensionRemovePod", "filter": "Filter", "filter_nodes": "Filter",
    "post_filter": "PostFilter", "pre_score": "PreScore", "pre_score_nodes": "PreScore", "score": "Score",
    "score_nodes": "Score",
    "normalize_score": "ScoreExtensionNormalize", "normalize_scores": "ScoreExtensionNormalize",
    "reserve": "Reserve", "unreserve": "Unreserve", "permit": "Permit", "pre_bind": "PreBind", "bind": "Bind",
    "post_bind": "PostBind",
}
_SUCCESS = "Success"


def _status_label(result: Any) -> str:
    """The ``status`` label of a plugin call's result: its Status code (PostFilter returns it second), else
    Success."""
    if result is None:  # most calls: nothing to inspect
        return _SUCCESS
    if isinstance(result, tuple) and len(result) == 2:
        result = result[1]
    return result.code.label if isinstance(result, Status) else _SUCCESS


def metered(metrics: SchedulerMetrics, plugin: str, hook: str, function: Hook) -> Hook:
    """``function`` with each call's wall-clock duration observed in scheduler_plugin_execution_duration_seconds;
    a call that raises counts as Error."""
    clock = time.perf_counter
    point = EXTENSION_POINT_LABELS[hook]
    observe = metrics.plugin_execution

    def metered_call(*args: Any) -> Any:
        start = clock()
        try:
            result = function(*args)
        except BaseException:
            observe(plugin, point, "Error", clock() - start)
            raise
        observe(plugin, point, _status_label(result), clock() - start)
        return result

    return metered_call


class MeteredClient:
    """The client the plugins see: the scheduler's own, with each preemption's victims counted in
    scheduler_preemption_victims before the backend records it. Every other attribute is the backend's."""

    def __init__(self, client: ClusterClient, metrics: SchedulerMetrics) -> None:
        self._client = client
        self._metrics = metrics

    def record_preemption(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """Count the victims, then let the backend record the preemption."""
        self._metrics.preemption_victims(len(victims))
        self._client.record_preemption(preemptor, node_name, victims)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._client, name)
        if callable(value):
            setattr(self, name, value)  # a method: later lookups find it directly
        return value

    def as_client(self) -> ClusterClient:
        """This object typed as the ClusterClient it stands for."""
        return cast("ClusterClient", self)
