"""The run loop's own rules over a fake API server: assumed pods that never show up bound, 409 on bind."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import cast

import pytest

from kubesched.kube.informer import Replace
from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.kube.run import ASSUMED_POD_TTL, Runner, RunOptions
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from tests.kube.fakes import FakeApi
from tests.kube.helpers import node, pod


@pytest.fixture
def api() -> FakeApi:
    """The fake API server."""
    return FakeApi()


@pytest.fixture
def runner(api: FakeApi) -> Iterator[Runner]:
    """A Runner (default profile) whose informers delivered one node and one pending pod; nothing started."""
    registry = PluginRegistry.discover()
    made = Runner(cast("KubeApi", api), load_config("default", registry), registry,
                  RunOptions(metrics_bind_address="127.0.0.1:0"))
    made.cluster.apply(Replace("Node", [{**node("n1"), "metadata": {"name": "n1", "uid": "n1",
                                                                    "resourceVersion": "1"}}]))
    made.cluster.apply(Replace("Pod", [{**pod("a"), "metadata": {"name": "a", "namespace": "default", "uid": "ua",
                                                                 "resourceVersion": "1"}}]))
    yield made
    made.server.httpd.server_close()


def _bindings(api: FakeApi) -> list[str]:
    return [path for method, path in api.requests if method == "POST" and path.endswith("/binding")]


def test_assumed_pod_never_seen_bound_is_forgotten_and_requeued(runner: Runner) -> None:
    """A pod bound by this process that the informer never shows bound is dropped from the cache after the TTL and
    queued again while it is still pending."""
    scheduler = runner.scheduler
    assert scheduler.schedule_one()
    pending = runner.cluster.stores["Pod"]["ua"][1]
    assert scheduler.cache.is_assumed_pod(pending)
    runner._expire_assumed(time.monotonic() + ASSUMED_POD_TTL / 2)
    assert scheduler.cache.is_assumed_pod(pending)
    runner._expire_assumed(time.monotonic() + ASSUMED_POD_TTL + 1)
    assert not scheduler.cache.is_assumed_pod(pending)
    assert "ua" in scheduler.queue


def test_bind_conflict_forgets_the_pod_without_a_second_bind(api: FakeApi, runner: Runner) -> None:
    """A 409 on bind (already bound elsewhere) forgets the assumed pod and does not requeue it: one bind only."""
    elsewhere = {**pod("a"), "metadata": {"name": "a", "namespace": "default", "uid": "ua", "resourceVersion": "2"}}
    elsewhere["spec"]["nodeName"] = "n2"
    api.objects[pod_path("default", "a")] = elsewhere
    api.fail = lambda method, path: ApiError(409, "Conflict", 'pod a is already assigned to node "n2"') \
        if path.endswith("/binding") else None
    scheduler = runner.scheduler
    assert scheduler.schedule_one()
    assert not scheduler.cache.is_assumed_pod(runner.cluster.stores["Pod"]["ua"][1])
    assert "ua" not in scheduler.queue
    scheduler.queue.flush_backoff_completed()
    assert not scheduler.schedule_one()
    assert _bindings(api) == [pod_path("default", "a", "binding")]


def _preemption_runner(api: FakeApi) -> Runner:
    """A Runner whose one node n1 (4 cpu) is filled by a low-priority pod and a high-priority pod waits."""
    registry = PluginRegistry.discover()
    made = Runner(cast("KubeApi", api), load_config("default", registry), registry,
                  RunOptions(metrics_bind_address="127.0.0.1:0"))
    made.cluster.apply(Replace("Node", [{**node("n1"), "metadata": {"name": "n1", "uid": "n1",
                                                                    "resourceVersion": "1"}}]))
    victim, preemptor = pod("victim", cpu="4"), pod("preemptor", cpu="1")
    victim["spec"].update(nodeName="n1", priority=0)
    preemptor["spec"]["priority"] = 1000
    made.cluster.apply(Replace("Pod", [
        {**obj, "metadata": {"name": obj["metadata"]["name"], "namespace": "default", "uid": uid,
                             "resourceVersion": "1"}} for obj, uid in ((victim, "uv"), (preemptor, "up"))]))
    return made


@pytest.mark.parametrize(("refused", "writes"), [
    pytest.param("PATCH", ["PATCH victim/status"], id="DisruptionTarget patch"),
    pytest.param("DELETE", ["PATCH victim/status", "DELETE victim"], id="DELETE"),
])
def test_refused_victim_write_fails_preemption_and_nominates_nothing(api: FakeApi, refused: str,
                                                                     writes: list[str]) -> None:
    """As kube-scheduler v1.32: a 500 on the victim's DisruptionTarget patch (then no DELETE) or on its DELETE
    fails the preemption with an Error; the preemptor is not nominated, and its PodScheduled condition and
    FailedScheduling event carry the server's message."""
    victim = pod_path("default", "victim")
    api.fail = lambda method, path: ApiError(500, "InternalError", "etcd is down") \
        if method == refused and path.startswith(victim) else None
    runner = _preemption_runner(api)
    try:
        assert runner.scheduler.schedule_one()
        assert [f"{method} {path.rsplit('/pods/', 1)[1]}" for method, path in api.requests
                if path.startswith(victim)] == writes
        patches = [body["status"] for method, path, _, body in api.bodies
                   if path == pod_path("default", "preemptor", "status")]
        assert len(patches) == 1
        assert "nominatedNodeName" not in patches[0]
        message = patches[0]["conditions"][0]["message"]
        assert message.startswith("0/1 nodes are available: 1 Insufficient cpu. ")
        assert message.endswith("preemption: etcd is down")
        events = [(e["reason"], e["regarding"]["name"], e["note"]) for e in runner.recorder.pending.queue]
        assert ("FailedScheduling", "preemptor", message) in events
        assert "Preempted" not in [reason for reason, *_ in events]
        assert runner.scheduler.nominator.nominated_pods_for_node("n1") == []
    finally:
        runner.server.httpd.server_close()
