"""Lease leader election over a fake API server: acquire, wait, take over an expired Lease, step down, release."""

from __future__ import annotations

import threading
import time
from typing import cast

from kubesched.kube.leader import LeaderElectionSettings, LeaderElector
from kubesched.kube.rest import ApiError, KubeApi
from tests.kube.fakes import FakeApi

FAST = LeaderElectionSettings(lease_duration=0.2, renew_deadline=0.1, retry_period=0.01)


def _elector(api: FakeApi, identity: str, settings: LeaderElectionSettings = FAST) -> LeaderElector:
    return LeaderElector(cast("KubeApi", api), identity, settings, threading.Event())


def _holder(api: FakeApi, elector: LeaderElector) -> object:
    return api.objects[elector.path]["spec"].get("holderIdentity")


def test_first_candidate_creates_and_holds_the_lease() -> None:
    """With no Lease, a candidate creates it holding it, with the lease duration in whole seconds."""
    api = FakeApi()
    first = _elector(api, "one", LeaderElectionSettings())
    assert first.try_acquire_or_renew()
    spec = api.objects[first.path]["spec"]
    assert (spec["holderIdentity"], spec["leaseDurationSeconds"], spec["leaseTransitions"]) == ("one", 15, 0)


def test_other_candidate_waits_while_the_lease_is_held() -> None:
    """A second candidate does not take a Lease another holder keeps renewing."""
    api = FakeApi()
    first, second = _elector(api, "one", LeaderElectionSettings()), _elector(api, "two", LeaderElectionSettings())
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()
    assert _holder(api, first) == "one"


def test_candidate_takes_a_lease_unrenewed_for_its_duration() -> None:
    """Once the record has not changed for the lease duration (on the candidate's clock), it takes the Lease."""
    api = FakeApi()
    first, second = _elector(api, "one"), _elector(api, "two")
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()
    time.sleep(FAST.lease_duration * 1.5)
    assert second.try_acquire_or_renew()
    assert (_holder(api, first), api.objects[first.path]["spec"]["leaseTransitions"]) == ("two", 1)


def test_leader_steps_down_when_renewal_fails_past_the_deadline() -> None:
    """A leader whose renewals fail for longer than the renew deadline stops leading and says it lost."""
    api = FakeApi()
    leader = _elector(api, "one")
    leader.start()
    try:
        assert leader.leading.wait(5)
        api.fail = lambda method, path: ApiError(500, "InternalError", "etcd is down") if method == "PUT" else None
        assert leader.lost.wait(5)
        assert not leader.leading.is_set()
    finally:
        leader.stopping.set()
        leader.join(5)


def test_release_clears_the_holder() -> None:
    """On shutdown the leader clears the holder and shortens the duration, so a standby need not wait."""
    api = FakeApi()
    leader = _elector(api, "one")
    leader.start()
    assert leader.leading.wait(5)
    leader.stopping.set()
    leader.join(5)
    leader.release()
    spec = api.objects[leader.path]["spec"]
    assert (spec["holderIdentity"], spec["leaseDurationSeconds"]) == (None, 1)
    assert _elector(api, "two", LeaderElectionSettings()).try_acquire_or_renew()
