"""The bound on a run stuck at one instant: controllers, pods and steps that keep making work for each other while
the clock stays put (a Job of a billion completions whose pods run for 0 s under a controller delay of 0) never
reach the next time, so neither run-until nor the attempt bound ends them. Past the bound the run fails naming the
objects that were busiest at that instant, as "did not settle" names the pods it kept retrying."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from kubesched.validation import terminal

if TYPE_CHECKING:
    from kubesched.sim.cluster import Event

#: Rounds (every pod scheduled that can be, then every entry due dispatched) at one instant allowed beyond two per
#: live pod: a chain of zero-delay reactions (an OrderedReady StatefulSet under controllerDelay 0) takes one round
#: per pod, a loop takes them for ever.
FREE_ROUNDS = 10_000
#: How many of the instant's latest events are read to name the busiest objects, and how many are named.
EVENTS_READ = 5_000
NAMED = 3


class InstantGuard:
    """Counts the rounds a settle makes at the current instant; :meth:`over` says when they pass the bound."""

    def __init__(self) -> None:
        self.instant = -1.0
        self.rounds = 0

    def over(self, now: float, pods: Collection[object]) -> bool:
        """One more round at ``now``; whether the rounds at this instant passed the bound (``pods``: the live
        pods)."""
        if now != self.instant:
            self.instant, self.rounds = now, 0
        self.rounds += 1
        return self.rounds > FREE_ROUNDS + 2 * len(pods)

    def message(self, events: Sequence[Event]) -> str:
        """The error: the instant, the rounds made there, and the objects with the most events at it."""
        counts: Counter[tuple[str, str]] = Counter()
        reasons: dict[tuple[str, str], Counter[str]] = {}
        for event in reversed(events[-EVENTS_READ:]):
            if event.time != self.instant:
                break
            key = (event.kind, event.object)
            counts[key] += 1
            reasons.setdefault(key, Counter())[event.reason] += 1
        named = [item for item in counts.most_common() if item[1] > 1] or counts.most_common()
        busiest = ", ".join(
            f"{kind} {terminal(name)} ({count} events: {', '.join(r for r, _ in reasons[(kind, name)].most_common(3))})"
            for (kind, name), count in named[:NAMED])
        return (f"the simulation did not move past {self.instant:g}s: {self.rounds} rounds of work at that instant "
                f"without the clock moving; busiest: {busiest or 'no events'}")
