"""Specification of the agenda, the one owner of a simulation's time: entries run in (time, phase, scheduling order),
the clock moves only to an entry's time, STEP entries run alone, background entries keep nothing going."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from kubesched.sim.agenda import Agenda, Phase, VirtualClock


def agenda() -> tuple[Agenda, list[str]]:
    """A fresh agenda and the list its test actions append to."""
    return Agenda(VirtualClock()), []


def test_entries_due_at_one_time_run_by_phase_then_in_the_order_scheduled() -> None:
    """At one time: REQUEST entries first, then TIMER, then WAKE; each phase in scheduling order."""
    plan, ran = agenda()
    plan.at(5.0, lambda: ran.append("timer-1"))
    plan.at(5.0, lambda: ran.append("wake"), phase=Phase.WAKE)
    plan.at(5.0, lambda: ran.append("request"), phase=Phase.REQUEST)
    plan.at(5.0, lambda: ran.append("timer-2"))
    plan.at(1.0, lambda: ran.append("earlier"))
    assert plan.step()
    assert ran == ["earlier"]
    assert plan.step()
    assert ran == ["earlier", "request", "timer-1", "timer-2", "wake"]
    assert plan.clock.now() == 5.0


def test_an_entry_added_for_now_during_a_step_runs_in_that_step_by_its_phase() -> None:
    """A request finished by a timer's action lands before the timers still due at that time."""
    plan, ran = agenda()

    def first() -> None:
        ran.append("first")
        plan.at_request_end(lambda: ran.append("its request"))

    plan.at(2.0, first)
    plan.at(2.0, lambda: ran.append("second"))
    plan.step()
    assert ran == ["first", "its request", "second"]


def test_dispatch_requests_runs_only_the_requests_due() -> None:
    """Before a scheduling cycle only REQUEST entries run; timers due now wait for the step."""
    plan, ran = agenda()
    plan.after(0.0, lambda: ran.append("timer"))
    plan.at_request_end(lambda: ran.append("request"))
    assert plan.dispatch_requests() == 1
    assert ran == ["request"]
    assert plan.dispatch_due() == 1
    assert ran == ["request", "timer"]


def test_a_step_entry_runs_alone_after_everything_due_by_its_time() -> None:
    """A STEP entry waits for the entries of its own time, and its step does nothing else."""
    plan, ran = agenda()
    plan.at(10.0, lambda: ran.append("step"), phase=Phase.STEP)
    plan.at(10.0, lambda: ran.append("timer"))
    plan.at(10.0, lambda: ran.append("later step"), phase=Phase.STEP)
    assert plan.step() is True
    assert ran == ["timer"]
    assert plan.step() is False
    assert ran == ["timer", "step"]
    assert plan.step() is False
    assert ran == ["timer", "step", "later step"]


def test_background_entries_keep_nothing_going() -> None:
    """Without background entries the next time is the first foreground one's; alone, there is none."""
    plan, _ = agenda()
    plan.at(3.0, lambda: None, background=True)
    assert plan.next_time(background=False) is None
    plan.at(7.0, lambda: None)
    assert (plan.next_time(), plan.next_time(background=False)) == (3.0, 7.0)


def test_an_alarm_rings_only_at_the_time_last_set() -> None:
    """Setting an alarm again moves it; setting None takes it off."""
    plan, _ = agenda()
    alarm = plan.alarm()
    alarm.set(30.0)
    alarm.set(12.0)
    assert plan.next_time() == 12.0
    alarm.set(None)
    assert plan.next_time() is None


def test_a_cancelled_entry_never_runs() -> None:
    """Cancel takes an entry off the agenda."""
    plan, ran = agenda()
    entry = plan.at(1.0, lambda: ran.append("cancelled"))
    plan.at(2.0, lambda: ran.append("kept"))
    plan.cancel(entry)
    plan.step()
    assert (ran, plan.clock.now()) == (["kept"], 2.0)


def test_actions_waiting_for_quiescence_run_once() -> None:
    """at_quiescence actions run when asked, once."""
    plan, ran = agenda()
    plan.at_quiescence(lambda: ran.append("quiet"))
    assert plan.quiescence_reached() is True
    assert plan.quiescence_reached() is False
    assert ran == ["quiet"]


ENTRIES = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(list(Phase)[:-1])), max_size=30)


@given(ENTRIES)
def test_entries_run_in_time_phase_and_scheduling_order(entries: list[tuple[int, Phase]]) -> None:
    """Whatever the order they were scheduled in, entries run sorted by (time, phase, scheduling order), and the
    clock never goes back."""
    plan, _ = agenda()
    ran: list[tuple[float, Phase, int]] = []
    def record(key: tuple[float, Phase, int]) -> Callable[[], None]:
        return lambda: ran.append(key)

    for index, (time, phase) in enumerate(entries):
        plan.at(float(time), record((float(time), phase, index)), phase=phase)
    clock: list[float] = []
    while plan.next_time() is not None:
        plan.step()
        clock.append(plan.clock.now())
    assert ran == sorted(ran)
    assert clock == sorted(clock)
