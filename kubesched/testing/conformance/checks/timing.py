"""The time-budget check: Filter and Score per call, measured on a large cluster, stopping early when a hook
is far over budget (a few calls of a 50 ms Filter tell as much as thousands)."""

from __future__ import annotations

import collections
import contextlib
import time

import attrs

from kubesched.testing.builders import make_pod
from kubesched.testing.conformance.base import CheckFailed, CheckSkipped, driver, require
from kubesched.testing.conformance.examples import large_cluster, spread_over
from kubesched.testing.conformance.recorder import Call
from kubesched.testing.conformance.subject import PluginUnderTest

#: The hooks that run once per node and pod, and so are timed.
TIMED = ("filter", "score")
#: Calls of a hook measured before one far over budget stops the measurement.
MIN_SAMPLES = 5
#: A hook whose mean call takes more than this many budgets fails the check; over one budget it warns.
FAIL_FACTOR = 10
#: Seconds the check spends calling the plugin before it judges on the calls measured so far.
MEASURE_SECONDS = 2.0


class Enough(Exception):  # noqa: N818 - a signal, not an error
    """Enough calls were measured: stop the cycle that is running."""


@attrs.define
class Stopwatch:
    """An observer adding up the time of Filter and Score calls; it stops the run (raises :class:`Enough`) once
    a hook is far over ``budget`` after a few calls, or after ``seconds`` when given."""

    budget: float
    seconds: float | None = None
    spent: dict[str, float] = attrs.field(factory=lambda: dict.fromkeys(TIMED, 0.0))
    calls: collections.Counter[str] = attrs.field(factory=collections.Counter)
    started: float = attrs.field(factory=time.perf_counter)

    def __call__(self, call: Call) -> None:
        if call.hook not in TIMED:
            return
        self.spent[call.hook] += call.seconds
        self.calls[call.hook] += 1
        if self.far_over(call.hook) or (self.seconds is not None
                                        and time.perf_counter() - self.started > self.seconds):
            raise Enough

    def mean(self, hook: str) -> float:
        """Mean seconds per call of ``hook`` (0 before any call)."""
        return self.spent[hook] / self.calls[hook] if self.calls[hook] else 0.0

    def far_over(self, hook: str) -> bool:
        """Whether ``hook`` took more than FAIL_FACTOR budgets per call over at least MIN_SAMPLES calls."""
        return self.calls[hook] >= MIN_SAMPLES and self.mean(hook) > FAIL_FACTOR * self.budget

    def describe(self, hook: str) -> str:
        """``filter took 1234 µs per call over 5 calls``."""
        return f"{hook} took {self.mean(hook) * 1e6:.0f} µs per call over {self.calls[hook]} calls"


def time_budget(subject: PluginUnderTest) -> list[str]:
    """Filter and Score calls take at most the per-call budget on average over a large cluster, for every
    example pod: over it the check warns (machines differ), over ten budgets it fails after a few calls."""
    if not subject.has("filter") and not subject.has("score"):
        raise CheckSkipped("the plugin has no Filter or Score hook")
    require(subject)
    example_nodes, running, pods = subject.examples()
    nodes = large_cluster(subject.large_cluster, example_nodes)
    run = driver(subject, nodes, spread_over(nodes, running, example_nodes))
    watch = Stopwatch(subject.time_budget, MEASURE_SECONDS)
    budget = f"{subject.time_budget * 1e6:.0f} µs"
    with contextlib.suppress(Enough), run.observing(watch):  # Enough: far over budget, stop measuring
        for pod in pods or [make_pod("timed").obj()]:
            run.cycle(pod)
    warnings = []
    for hook in TIMED:
        if watch.far_over(hook):
            raise CheckFailed(f"{watch.describe(hook)}, more than {FAIL_FACTOR} times the budget of {budget}; "
                              "the check stopped there")
        if watch.mean(hook) > subject.time_budget:
            warnings.append(f"{watch.describe(hook)}; the budget is {budget}")
    return warnings
