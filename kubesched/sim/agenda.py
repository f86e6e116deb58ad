"""The simulation's agenda: the one ordered list of wake-ups that owns simulated time.

Everything a simulation waits for is an entry here: a pod's removal at the end of its grace period, a controller's
delayed sync, a Job pod's run, a CronJob's schedule, a drain's retry, a scenario's next step, and the scheduler's own
next need (a Permit deadline, a backoff ending, the retry of unschedulable pods). Entries are kept in one heap, as a
discrete-event simulator keeps its event queue, ordered by (time, phase, sequence): earlier first; at one time, by
phase (:class:`Phase`); within a phase, in the order they were scheduled. So ties are ordered, and the same input
and seed give the same run. Only :meth:`Agenda.step` moves the clock (:class:`VirtualClock`, defined here), and
only to the earliest entry's time.
"""

from __future__ import annotations

import enum
import heapq
import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: The latest instant a datetime can hold: the timestamps a run writes saturate here.
MAX_TIMESTAMP = datetime.max.replace(tzinfo=UTC)


def as_utc(when: datetime) -> datetime:
    """``when`` in UTC (naive counts as UTC); an instant past the last UTC datetime becomes MAX_TIMESTAMP."""
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    try:
        return when.astimezone(UTC)
    except OverflowError:
        return MAX_TIMESTAMP


class VirtualClock:
    """Simulated seconds since the start of the run; only the simulator moves it.

    ``base`` is the wall-clock instant of simulated time 0 (held in UTC), used for timestamps the run writes
    (pod start times, deletion times) so they compare sensibly with the input's own timestamps. Simulated
    seconds are never capped; the timestamps saturate at :data:`MAX_TIMESTAMP`, so they never overflow and
    never go backwards (past the cap they are all equal).
    """

    def __init__(self, base: datetime = EPOCH) -> None:
        self._now = 0.0
        self.base = as_utc(base)
        # The last instant computed by :meth:`at`: every binding at one simulated time asks for the same one.
        self._last: tuple[float, datetime, datetime] | None = None

    def now(self) -> float:
        """The current simulated time."""
        return self._now

    def timestamp(self) -> datetime:
        """The current simulated time as a wall-clock instant, at most :data:`MAX_TIMESTAMP`."""
        return self.at(self._now)

    def at(self, when: float) -> datetime:
        """Simulated time ``when`` as a wall-clock instant, at most :data:`MAX_TIMESTAMP`."""
        last = self._last
        if last is not None and last[0] == when and last[1] is self.base:
            return last[2]
        try:
            instant = self.base + timedelta(seconds=when)
        except OverflowError:  # past year 9999, or more seconds than a timedelta holds
            instant = MAX_TIMESTAMP
        self._last = (when, self.base, instant)
        return instant

    def advance_to(self, when: float) -> None:
        """Move time forward (never backward)."""
        self._now = max(self._now, when)


class Phase(enum.IntEnum):
    """Where an entry goes among those due at the same time."""

    #: What the API server finishes within a request and informers deliver at once (a pod deleted with grace
    #: period 0 goes): dispatched before the next scheduling cycle, even while pods wait in the active queue.
    #: The only phase that is 0 (falsy), which dispatch_requests' quick check reads.
    REQUEST = 0
    #: Timers (grace periods, controller delays, Job runs, CronJob schedules, drain retries): dispatched once the
    #: scheduler has nothing left to try at the current time.
    TIMER = 1
    #: The scheduler's wake-up: it only stops the clock there; the housekeeping after every step does the work.
    WAKE = 2
    #: A scenario step or the end of a run: dispatched alone, once everything due up to its time has happened
    #: (the scheduler's attempts at that time included).
    STEP = 3


class Entry:
    """One wake-up on the agenda; :meth:`Agenda.cancel` takes it off."""

    __slots__ = ("action", "background", "live", "phase", "time")

    def __init__(self, time: float, phase: Phase, action: Callable[[], None], background: bool) -> None:
        self.time = time
        self.phase = phase
        self.action = action
        self.background = background
        self.live = True


def _nothing() -> None:
    """A wake-up's action: being due is all it does."""


class Alarm:
    """A wake-up set again and again at the time its owner next needs (the scheduler's), at most one at a time."""

    def __init__(self, agenda: Agenda) -> None:
        self._agenda = agenda
        self._entry: Entry | None = None

    def set(self, when: float | None) -> None:
        """Ring at ``when`` (None: not at all), instead of the time set before."""
        entry = self._entry
        if entry is not None and entry.live:
            if entry.time == when:
                return
            self._agenda.cancel(entry)
        self._entry = None if when is None else self._agenda.at(when, _nothing, phase=Phase.WAKE)


class Agenda:
    """The wake-ups of one simulation, in order; it moves ``clock``.

    A background entry (a recurring schedule) is dispatched in order like any other but does not by itself keep a
    run going: :meth:`next_time` without background entries tells whether anything does.
    """

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        # Heap items are (time, phase, sequence, entry); the sequence is unique, so entries are never compared.
        self._heap: list[tuple[float, int, int, Entry]] = []
        # The same items for the entries that keep a run going.
        self._foreground: list[tuple[float, int, int, Entry]] = []
        self._seq = itertools.count()
        self._at_quiescence: list[Callable[[], None]] = []

    # -- scheduling -------------------------------------------------------------------------------------------
    def at(self, when: float, action: Callable[[], None], *, phase: Phase = Phase.TIMER,
           background: bool = False) -> Entry:
        """Run ``action`` at simulated time ``when`` (in ``phase`` among the entries due then)."""
        entry = Entry(when, phase, action, background)
        item = (when, int(phase), next(self._seq), entry)
        heapq.heappush(self._heap, item)
        if not background:
            heapq.heappush(self._foreground, item)
        return entry

    def after(self, delay: float, action: Callable[[], None], *, phase: Phase = Phase.TIMER,
              background: bool = False) -> Entry:
        """Run ``action`` ``delay`` seconds from now."""
        return self.at(self.clock.now() + delay, action, phase=phase, background=background)

    def at_request_end(self, action: Callable[[], None]) -> Entry:
        """Run ``action`` now, before the next scheduling cycle: what a request does past its first write."""
        return self.at(self.clock.now(), action, phase=Phase.REQUEST)

    def alarm(self) -> Alarm:
        """A wake-up its owner sets to the time it next needs."""
        return Alarm(self)

    def cancel(self, entry: Entry) -> None:
        """Take ``entry`` off the agenda (it stays in the heaps, dead, until it reaches their top)."""
        entry.live = False

    def at_quiescence(self, action: Callable[[], None]) -> None:
        """Run ``action`` once nothing keeps the run going any more (a scenario's step after ``run-until``
        quiescence); it may schedule more."""
        self._at_quiescence.append(action)

    # -- reading ----------------------------------------------------------------------------------------------
    def _top(self, heap: list[tuple[float, int, int, Entry]]) -> tuple[float, int, int, Entry] | None:
        while heap and not heap[0][3].live:
            heapq.heappop(heap)
        return heap[0] if heap else None

    def next_time(self, *, background: bool = True) -> float | None:
        """When the next entry is due; with ``background=False``, the next one that keeps a run going."""
        top = self._top(self._heap if background else self._foreground)
        return top[0] if top is not None else None

    # -- dispatching ------------------------------------------------------------------------------------------
    def _pop(self) -> Entry:
        entry = heapq.heappop(self._heap)[3]
        entry.live = False
        return entry

    def dispatch_requests(self) -> int:
        """Run the REQUEST entries due now, in order (with the ones they add); returns how many ran."""
        heap = self._heap
        if not heap or (heap[0][1] and heap[0][3].live):
            return 0  # called twice per scheduling cycle: a live top of a later phase answers at once
        ran = 0
        now = self.clock.now()
        while (top := self._top(self._heap)) is not None and top[1] == Phase.REQUEST and top[0] <= now:
            self._pop().action()
            ran += 1
        return ran

    def dispatch_due(self) -> int:
        """Run every entry due now but the STEP ones, in order (with those they add that are due); returns how
        many ran."""
        ran = 0
        now = self.clock.now()
        while (top := self._top(self._heap)) is not None and top[0] <= now and top[1] < Phase.STEP:
            self._pop().action()
            ran += 1
        return ran

    def step(self) -> bool:
        """Move the clock to the earliest entry and dispatch: a STEP entry alone (returns False), or else every
        entry then due but the STEP ones (returns True: the scheduler's housekeeping follows). Raises IndexError on
        an empty agenda."""
        top = self._top(self._heap)
        if top is None:
            raise IndexError("nothing on the agenda")
        self.clock.advance_to(top[0])
        if top[1] == Phase.STEP:
            self._pop().action()
            return False
        self.dispatch_due()
        return True

    def quiescence_reached(self) -> bool:
        """Run the actions waiting for quiescence (returns False when there were none)."""
        if not self._at_quiescence:
            return False
        waiting, self._at_quiescence = self._at_quiescence, []
        for action in waiting:
            action()
        return True
