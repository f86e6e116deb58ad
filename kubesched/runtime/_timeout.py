"""The plugin timeout (``plugin-timeout-ms``): while plugin calls are made a real-time interval timer ticks, and
its SIGALRM raises :class:`PluginTimeout` inside a call past the limit, between two bytecodes, so even a busy loop
is interrupted; the guard reports it as that plugin's error for that pod and the run goes on. Only the main thread
gets SIGALRM, and only where the platform has it: elsewhere calls run without a limit (:func:`can_time_out`)."""

from __future__ import annotations

import atexit
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

Hook = Callable[..., Any]


class PluginTimeout(BaseException):  # not an Exception: a plugin's `except Exception` cannot eat it
    """Raised inside a plugin call that ran past the plugin timeout (and again each timeout after, should the
    plugin catch it and go on)."""


class _Watch:
    """The process's watch over plugin calls: when the call being timed began (0: none), its limit, whether it
    was interrupted, and whether the interval timer is ticking."""

    started = 0.0
    limit = 0.0
    expired = False
    ticking = False


#: The timer ticks four times a timeout: a call is interrupted between its limit and 1.25 times it.
_TICKS_PER_TIMEOUT = 4
# A day: setitimer refuses intervals past what the system's timer holds (a timeout of 1e300 ms is valid).
_LONGEST_TICK = 86400.0


def can_time_out() -> bool:
    """Whether plugin calls can be interrupted here: SIGALRM exists and this is the main thread."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _describe(limit: float) -> str:
    return f"exceeded the plugin timeout of {limit * 1000:g} ms"


def _on_alarm(signum: int, frame: object) -> None:
    """SIGALRM, each tick: interrupt the call being timed once past its limit (and at each tick after, should it
    catch that and go on); with no call being timed, stop the timer (the next call starts it again)."""
    started = _Watch.started
    if not started:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _Watch.ticking = False
    elif time.perf_counter() - started >= _Watch.limit:
        _Watch.expired = True
        raise PluginTimeout(_describe(_Watch.limit))


def stop_timer() -> None:
    """Stop the interval timer (the end of a run): a tick arriving once Python has put SIGALRM's default action
    back, as it does while exiting, would kill the process."""
    if _Watch.ticking:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _Watch.ticking = False


def limited(function: Hook, seconds: float) -> Hook:
    """``function`` run under the plugin timeout of ``seconds``: past it, PluginTimeout is raised inside the call.
    Rather than a timer per call (two system calls, measured at +2.4 us a call), one interval timer ticks while
    calls are being made and each call notes when it began. A call made while another is timed (a PostFilter
    running Filter plugins) runs under the outer call's limit; when an inner call's catch swallowed the timeout,
    the outer call raises it on return."""
    if signal.getsignal(signal.SIGALRM) is not _on_alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
        atexit.register(stop_timer)
    clock, tick = time.perf_counter, min(seconds / _TICKS_PER_TIMEOUT, _LONGEST_TICK)
    thread, main = threading.get_ident, threading.main_thread().ident

    def limited_call(*args: Any) -> Any:
        if _Watch.started or thread() != main:  # SIGALRM would interrupt the main thread, not this one
            return function(*args)
        if not _Watch.ticking:
            _Watch.ticking = True
            signal.setitimer(signal.ITIMER_REAL, tick, tick)
        _Watch.limit, _Watch.expired, _Watch.started = seconds, False, clock()
        try:
            result = function(*args)
        finally:
            _Watch.started = 0.0
        if _Watch.expired:
            raise PluginTimeout(_describe(seconds))
        return result

    return limited_call
