"""What bounds the scheduler's writes to the API server: the leader's Lease, and kube-scheduler's retries.

With leader election every write (bind, status patch, preemption delete, volume patch) is refused once the
leader's Lease can no longer be proven current, and a write's request timeout is the time the Lease stays proven
current: a request in flight when it lapses is abandoned, as kube-scheduler's cancelled context abandons it.
Status patches are retried as kube-scheduler's ``util.PatchPodStatus`` retries them (client-go's
``retry.DefaultBackoff`` on a 500, a 503 or a refused connection).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from kubesched.kube.rest import ApiError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: A client's timeout for one request when nothing shorter bounds it.
REQUEST_TIMEOUT = 30.0
#: The reason of the ApiError a write refused for a lapsed Lease raises.
LEASE_LAPSED = "LeaseLapsed"
#: client-go's retry.DefaultBackoff: 4 tries, 10 ms then x5 each time, 10 % jitter (at most ~0.35 s in all).
DEFAULT_BACKOFF_STEPS = 4
DEFAULT_BACKOFF_DURATION = 0.01
DEFAULT_BACKOFF_FACTOR = 5.0
DEFAULT_BACKOFF_JITTER = 0.1


class WriteGuard:
    """Gives each write its timeout; ``time_left`` is the leader's proven-current time (None: no leader
    election, so writes always go out)."""

    def __init__(self, time_left: Callable[[], float] | None = None) -> None:
        self.time_left = time_left

    def timeout(self) -> float:
        """The request timeout for a write now; raises ApiError (reason LeaseLapsed) once the Lease lapsed."""
        if self.time_left is None:
            return REQUEST_TIMEOUT
        left = self.time_left()
        if left <= 0:
            raise ApiError(0, LEASE_LAPSED, "not writing: this scheduler's leader lease could not be renewed in time")
        return min(left, REQUEST_TIMEOUT)


def retriable(error: ApiError) -> bool:
    """kube-scheduler's ``util.Retriable``: an internal error (500), service unavailable (503) or a refused
    connection."""
    if error.status in (500, 503):
        return True
    return error.status == 0 and error.reason != LEASE_LAPSED and "refused" in error.message.lower()


def retry_on_error(call: Callable[[], T], *, retry: Callable[[ApiError], bool] = retriable,
                   sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None) -> T:
    """``call()`` retried as client-go's ``retry.OnError(retry.DefaultBackoff, ...)`` retries it: up to 4 tries,
    sleeping 10 ms, 50 ms, 250 ms (plus up to 10 %) between them while ``retry`` says the error is retriable."""
    rng = rng or random.Random()
    delay = DEFAULT_BACKOFF_DURATION
    for attempt in range(1, DEFAULT_BACKOFF_STEPS + 1):
        try:
            return call()
        except ApiError as error:
            if attempt == DEFAULT_BACKOFF_STEPS or not retry(error):
                raise
            log.info("retrying after %s (try %d of %d)", error, attempt, DEFAULT_BACKOFF_STEPS)
        sleep(delay * (1 + DEFAULT_BACKOFF_JITTER * rng.random()))
        delay *= DEFAULT_BACKOFF_FACTOR
    raise AssertionError("unreachable")  # pragma: no cover
