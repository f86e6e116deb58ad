"""Checks of Reserve and Unreserve: Unreserve is safe without Reserve and twice, and undoes Reserve."""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.api.pod import Pod
from kubesched.testing.conformance.base import CheckFailed, describe, driver, require
from kubesched.testing.conformance.checks.inputs import difference
from kubesched.testing.conformance.driver import CycleOutcome, Driver
from kubesched.testing.conformance.inspect import freeze
from kubesched.testing.conformance.recorder import HookRaised
from kubesched.testing.conformance.subject import PluginUnderTest


def unreserve_idempotent(subject: PluginUnderTest) -> list[str]:
    """Unreserve without a Reserve does not raise, and a second Unreserve neither raises nor changes the
    plugin's attributes (what the first one left). Both run where the scheduler would: after the cycle, on the
    chosen node, with the assumed pod."""
    require(subject, "unreserve")
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        run = driver(subject)
        target = run.binding_target(pod)
        if target is None:
            continue  # no node: the pod never reaches Reserve
        state, node, assumed = target
        try:
            run.unreserve(state, assumed, node)
        except HookRaised as exc:
            raise CheckFailed(f"without a prior reserve, {exc}") from None
        run = driver(subject)  # a fresh plugin: the first Unreserve may have changed what it decides
        target = run.binding_target(pod)
        assert target is not None, "the same pod on a fresh plugin found no node this time"
        state, node, assumed = target
        run.reserve(state, assumed, node)
        run.unreserve(state, assumed, node)
        once = freeze(run.plugin)
        try:
            run.unreserve(state, assumed, node)
        except HookRaised as exc:
            raise CheckFailed(f"a second unreserve failed: {exc}") from None
        if freeze(run.plugin) != once:
            raise CheckFailed(f"a second unreserve changed the plugin's attributes ({describe(pod, node)})")
    return []


def _answers(run: Driver, pods: Sequence[Pod]) -> list[CycleOutcome]:
    return [run.cycle(pod)[1] for pod in pods]


def unreserve_undoes_reserve(subject: PluginUnderTest) -> list[str]:
    """After Reserve then Unreserve of a pod on its chosen node, every example pod's Filter and Score answers
    are those of a plugin on which neither happened (both plugins ran the same cycle first). PreFilter may
    remember an Unreserve (a gang backs off): a pod it then answers differently is not compared."""
    require(subject, "reserve")
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        untouched, reserved = driver(subject), driver(subject)
        target = reserved.binding_target(pod)
        if target is None:
            continue  # no node: the pod never reaches Reserve
        untouched.binding_target(pod)
        state, node, assumed = target
        reserved.reserve(state, assumed, node)
        reserved.unreserve(state, assumed, node)
        for later, expected, answer in zip(pods, _answers(untouched, pods), _answers(reserved, pods), strict=True):
            if answer.pre_filter == expected.pre_filter and \
                    (answer.filter, answer.scores) != (expected.filter, expected.scores):
                raise CheckFailed(f"after reserve then unreserve of {describe(pod, node)}, {describe(later)} is "
                                  f"answered differently: {difference(expected, answer)}")
    return []
