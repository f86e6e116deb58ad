"""`kubesched run`'s bounds, over a fake API server: the Lease gating every write, renew requests bounded by the
renew deadline, kube-scheduler's retries of status writes and events, the start-up probe's messages, the
metrics address warning and the stalled-loop health check."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any, cast

import pytest

from kubesched.errors import KubeschedError
from kubesched.io.decode_pod import pod as decode_pod
from kubesched.kube.events import EventRecorder
from kubesched.kube.informer import Replace
from kubesched.kube.leader import LeaderElectionSettings, LeaderElector
from kubesched.kube.reach import UnreachableError, describe, wait_until_reachable
from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.kube.run import Runner, RunOptions
from kubesched.kube.server import exposure_warning
from kubesched.kube.writes import retry_on_error
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from tests.kube.fakes import FakeApi
from tests.kube.helpers import node, pod

REFUSED = ApiError(0, "ConnectionFailed", "HTTPSConnection(host='127.0.0.1', port=1): Failed to establish a new "
                                          "connection: [Errno 111] Connection refused")


class TimedApi(FakeApi):
    """A FakeApi that also records each request's timeout."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[tuple[str, str, float]] = []

    def request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """Record the timeout, then answer as FakeApi does."""
        self.timeouts.append((method, path, float(kwargs.get("timeout", 30.0))))
        return super().request(method, path, **kwargs)


@pytest.fixture
def runner() -> Iterator[tuple[TimedApi, Runner]]:
    """A leader-electing Runner (nothing started) whose informers delivered one node and one pending pod."""
    api = TimedApi()
    registry = PluginRegistry.discover()
    made = Runner(cast("KubeApi", api), load_config("default", registry), registry,
                  RunOptions(metrics_bind_address="127.0.0.1:0", leader_elect=True))
    made.cluster.apply(Replace("Node", [{**node("n1"), "metadata": {"name": "n1", "uid": "n1",
                                                                    "resourceVersion": "1"}}]))
    made.cluster.apply(Replace("Pod", [{**pod("a"), "metadata": {"name": "a", "namespace": "default", "uid": "ua",
                                                                 "resourceVersion": "1"}}]))
    yield api, made
    made.server.httpd.server_close()


def _lead(elector: LeaderElector, renewed_ago: float) -> None:
    """Make ``elector`` a leader whose last successful renew started ``renewed_ago`` seconds ago."""
    elector.leading.set()
    elector._last_renew = time.monotonic() - renewed_ago


@pytest.mark.parametrize(("renewed_ago", "current"), [
    pytest.param(0.0, True, id="just renewed"),
    pytest.param(9.5, True, id="within the renew deadline"),
    pytest.param(10.5, False, id="past the renew deadline"),
])
def test_lease_is_current_for_the_renew_deadline_after_the_last_renew(runner: tuple[TimedApi, Runner],
                                                                      renewed_ago: float, current: bool) -> None:
    """A leader's Lease is proven current for the renew deadline (10 s) after its last successful renew started."""
    elector = runner[1].elector
    assert elector is not None
    _lead(elector, renewed_ago)
    assert elector.lease_current() is current


def test_no_bind_is_issued_once_the_lease_lapsed(runner: tuple[TimedApi, Runner]) -> None:
    """Past the renew deadline the cycle's bind is refused before any request: the pod is not bound, no POST."""
    api, made = runner
    assert made.elector is not None
    _lead(made.elector, 10.5)
    assert made.scheduler.schedule_one()
    assert not [p for m, p in api.requests if p.endswith("/binding")]
    assert not made.scheduler.cache.is_assumed_pod(made.cluster.stores["Pod"]["ua"][1])


def test_bind_timeout_is_the_time_the_lease_stays_current(runner: tuple[TimedApi, Runner]) -> None:
    """A bind's request timeout is what is left of the renew deadline, not the client's 30 s."""
    api, made = runner
    assert made.elector is not None
    _lead(made.elector, 7.0)
    assert made.scheduler.schedule_one()
    (timeout,) = [t for m, p, t in api.timeouts if p.endswith("/binding")]
    assert 2.0 < timeout <= 3.0


def test_renew_requests_are_bounded_by_the_renew_deadline() -> None:
    """Each request of a renew attempt gets the time left before the deadline as its timeout; past the deadline no
    request goes out."""
    api = TimedApi()
    elector = LeaderElector(cast("KubeApi", api), "me", LeaderElectionSettings(), threading.Event())
    assert elector.try_acquire_or_renew(time.monotonic() + 4.0)  # creates the Lease
    assert elector.try_acquire_or_renew(time.monotonic() + 4.0)  # renews it: GET, PUT
    assert [m for m, _, _ in api.timeouts] == ["GET", "POST", "GET", "PUT"]
    assert all(3.0 < t <= 4.0 for _, _, t in api.timeouts)
    api.timeouts.clear()
    assert not elector.try_acquire_or_renew(time.monotonic() - 0.1)
    assert api.timeouts == []


@pytest.mark.parametrize(("failures", "landed", "tries"), [
    pytest.param([ApiError(503, "ServiceUnavailable", "")] * 2, True, 3, id="503 twice, then lands"),
    pytest.param([ApiError(500, "InternalError", "etcd"), REFUSED], True, 3, id="500, refused, then lands"),
    pytest.param([REFUSED] * 4, False, 4, id="refused 4 times: gives up"),
    pytest.param([ApiError(403, "Forbidden", "no")], False, 1, id="403 not retried"),
    pytest.param([ApiError(409, "Conflict", "")], False, 1, id="409 not retried"),
    pytest.param([ApiError(0, "ConnectionFailed", "read timed out")], False, 1, id="timeout not retried"),
])
def test_status_patch_is_retried_as_kube_scheduler_patch_pod_status(failures: list[ApiError], landed: bool,
                                                                    tries: int) -> None:
    """client-go's retry.DefaultBackoff over util.Retriable: up to 4 tries on a 500, a 503 or a refused
    connection, sleeping 10, 50, 250 ms (+ up to 10 %); anything else fails at once."""
    calls: list[int] = []
    sleeps: list[float] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return "ok"

    if landed:
        assert retry_on_error(call, sleep=sleeps.append) == "ok"
    else:
        with pytest.raises(ApiError):
            retry_on_error(call, sleep=sleeps.append)
    assert len(calls) == tries
    assert [round(s / b, 1) <= 1.1 and s >= b for s, b in zip(sleeps, (0.01, 0.05, 0.25), strict=False)] == \
        [True] * (tries - 1)


def test_failed_scheduling_condition_lands_after_a_refused_connection(runner: tuple[TimedApi, Runner]) -> None:
    """The PodScheduled=False patch of an unschedulable pod is retried after a refused connection and lands."""
    api, made = runner
    refused = iter([REFUSED])
    api.fail = lambda method, path: next(refused, None) if path.endswith("/status") else None
    made.cluster.guard.time_left = None  # no leader election
    made.cluster.set_scheduling_failure(made.cluster.stores["Pod"]["ua"][1], "Unschedulable", "no")
    assert [p for m, p in api.requests if m == "PATCH"] == [pod_path("default", "a", "status")] * 2


@pytest.mark.parametrize(("failure", "posts"), [
    pytest.param(REFUSED, 2, id="transport failure: tried again"),
    pytest.param(ApiError(403, "Forbidden", "no"), 1, id="server's refusal: dropped"),
])
def test_event_is_tried_again_only_after_a_transport_failure(failure: ApiError, posts: int) -> None:
    """As client-go's events broadcaster: an event whose POST got no answer is tried again after the sleep; one
    the server refused is dropped."""
    api = FakeApi()
    failures = iter([failure])
    api.fail = lambda method, path: next(failures, None)
    recorder = EventRecorder(cast("KubeApi", api), "me", retry_sleep=0.05)
    recorder.start()
    regarding = decode_pod({**pod("a"), "metadata": {"name": "a", "namespace": "default", "uid": "ua"}})
    recorder.record(regarding, "Warning", "FailedScheduling", "no")
    recorder.flush()
    deadline = time.monotonic() + 5
    while len(api.requests) < posts and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert len(api.requests) == posts


@pytest.mark.parametrize(("error", "said"), [
    pytest.param(REFUSED, "could not reach it: connection refused", id="connection refused"),
    pytest.param(ApiError(0, "ConnectionFailed", "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
                                                 "self-signed certificate in certificate chain (_ssl.c:1000)"),
                 "certificate verify failed (self-signed certificate in certificate chain): the server's certificate "
                 "is not signed by the kubeconfig's certificate authority", id="wrong CA"),
    pytest.param(ApiError(401, "Unauthorized", "Unauthorized"),
                 "Unauthorized: the token was rejected (check the kubeconfig's credentials)", id="401"),
    pytest.param(ApiError(403, "Forbidden", 'nodes is forbidden: User "x" cannot list'),
                 'Forbidden: nodes is forbidden: User "x" cannot list', id="403"),
])
def test_startup_failure_is_said_in_one_phrase(error: ApiError, said: str) -> None:
    """What failed at start-up, as the error line says it."""
    assert describe(error) == said


def test_unreachable_server_ends_with_the_error_after_the_api_timeout() -> None:
    """A server that never answers ends the probe with one line naming it and what failed, after --api-timeout."""
    api = FakeApi()
    api.host = "https://127.0.0.1:1"  # type: ignore[attr-defined]
    api.fail = lambda method, path: REFUSED
    started = time.monotonic()
    with pytest.raises(UnreachableError) as raised:
        wait_until_reachable(cast("KubeApi", api), 0.3, False, threading.Event())
    assert time.monotonic() - started < 2
    assert str(raised.value) == ("API server https://127.0.0.1:1: could not reach it: connection refused (gave up "
                                 "after 0.3 s: --api-timeout sets how long to try, --keep-trying tries for ever)")
    assert isinstance(raised.value, KubeschedError)


@pytest.mark.parametrize(("address", "warned"), [
    pytest.param(":10259", "on every interface", id=":PORT"),
    pytest.param("0.0.0.0:10259", "on every interface", id="0.0.0.0"),
    pytest.param("[::]:10259", "on every interface", id="[::]"),
    pytest.param("10.1.2.3:10259", "on 10.1.2.3", id="a node address"),
    pytest.param("127.0.0.1:10259", None, id="127.0.0.1"),
    pytest.param("[::1]:10259", None, id="[::1]"),
    pytest.param("localhost:10259", None, id="localhost"),
])
def test_non_loopback_metrics_address_is_warned_about(address: str, warned: str | None) -> None:
    """Any address other processes can reach gets the warning that the endpoints are unauthenticated plain HTTP."""
    warning = exposure_warning(address)
    if warned is None:
        assert warning is None
    else:
        assert warning is not None
        assert f"served over plain HTTP without authentication {warned};" in warning


def test_stalled_loop_fails_health_and_readiness(runner: tuple[TimedApi, Runner]) -> None:
    """When the loop has not come round for the stall timeout (a cycle stuck in a plugin), /healthz and /readyz
    say so; a fresh heartbeat is healthy."""
    made = runner[1]
    made.synced = True
    made.heartbeat = time.monotonic()
    assert (made._health(), made._ready()) == ("", "")
    made.heartbeat = time.monotonic() - made.options.stall_timeout - 1
    assert made._health().startswith("scheduling loop stalled: no cycle finished for 61 s")
    assert made._ready() == made._health()


def test_keep_trying_probes_past_the_api_timeout_until_stopped() -> None:
    """--keep-trying: the probe goes on past --api-timeout without an error, until the process is told to stop."""
    api = FakeApi()
    api.host = "https://127.0.0.1:1"  # type: ignore[attr-defined]
    api.fail = lambda method, path: REFUSED
    stopping = threading.Event()
    timer = threading.Timer(1.0, stopping.set)
    timer.start()
    try:
        assert wait_until_reachable(cast("KubeApi", api), 0.1, True, stopping) is False
    finally:
        timer.cancel()
    assert len(api.requests) >= 2
