"""An events.k8s.io/v1 recorder: kube-scheduler's events (reasons, notes, actions), written off the loop.

Events are best effort, as client-go's events broadcaster makes them: a background thread posts them, never
holding up the scheduling loop. An event whose request failed in transport (no answer: the API server down or
unreachable) is tried again 10 s later (plus up to 25 %), up to 12 tries in all, as the broadcaster's
``attemptRecording`` does; one the server answered with an error is logged and dropped, as there.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import random
import secrets
import threading
import time
from datetime import UTC, datetime
from urllib.parse import quote

from kubesched.api.pod import Pod
from kubesched.kube.rest import ApiError, KubeApi, Obj

log = logging.getLogger(__name__)

REPORTING_CONTROLLER = "kubesched"
#: kube-scheduler's action per reason (its recorder's ``action`` argument).
ACTIONS = {"Scheduled": "Binding", "FailedScheduling": "Scheduling", "Preempted": "Preempting"}
MAX_QUEUED = 10_000
#: client-go's events broadcaster: maxTriesPerEvent and the sleep between tries (jittered by up to 25 %).
MAX_TRIES_PER_EVENT = 12
RETRY_SLEEP = 10.0
RETRY_JITTER = 0.25
#: An object name's limit (a DNS subdomain).
MAX_NAME = 253


def micro_time(when: datetime) -> str:
    """A MicroTime as the API server writes it."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_object(regarding: Pod, event_type: str, reason: str, note: str, instance: str) -> Obj:
    """The Event kube-scheduler's recorder would create about ``regarding``."""
    return {
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": f"{regarding.name[:MAX_NAME - 17]}.{secrets.token_hex(8)}",
                     "namespace": regarding.namespace},
        "eventTime": micro_time(datetime.now(UTC)),
        "reportingController": REPORTING_CONTROLLER, "reportingInstance": instance,
        "action": ACTIONS.get(reason, "Scheduling"), "reason": reason, "type": event_type, "note": note,
        "regarding": {"apiVersion": "v1", "kind": "Pod", "namespace": regarding.namespace,
                      "name": regarding.name, "uid": regarding.uid},
    }


class EventRecorder(threading.Thread):
    """Posts events from a queue; :meth:`flush` waits until the queued ones are written (shutdown)."""

    def __init__(self, api: KubeApi, instance: str, retry_sleep: float = RETRY_SLEEP) -> None:
        super().__init__(name="event-recorder", daemon=True)
        self.api = api
        self.instance = instance
        self.retry_sleep = retry_sleep
        self.pending: queue.Queue[Obj] = queue.Queue(MAX_QUEUED)
        #: Events waiting to be tried again: (due, sequence, tries so far, event).
        self._retries: list[tuple[float, int, int, Obj]] = []
        self._sequence = itertools.count()
        self._rng = random.Random()

    def record(self, regarding: Pod, event_type: str, reason: str, note: str) -> None:
        """Queue an event (dropped, with a log line, when the queue is full)."""
        try:
            self.pending.put_nowait(event_object(regarding, event_type, reason, note, self.instance))
        except queue.Full:
            log.warning("event queue full: dropped %s event about %s", reason, regarding.key)

    def run(self) -> None:
        """Write queued events for ever, and tried-again ones when they fall due."""
        while True:
            now = time.monotonic()
            if self._retries and self._retries[0][0] <= now:
                _, _, tries, event = heapq.heappop(self._retries)
                self._post(event, tries)
                continue
            wait = self._retries[0][0] - now if self._retries else None
            try:
                event = self.pending.get(timeout=wait)
            except queue.Empty:
                continue
            try:
                self._post(event, 0)
            finally:
                self.pending.task_done()

    def _post(self, event: Obj, tries: int) -> None:
        namespace = event["metadata"]["namespace"]
        try:
            self.api.request("POST", f"/apis/events.k8s.io/v1/namespaces/{quote(namespace)}/events", body=event)
        except ApiError as error:
            tries += 1
            if error.status != 0:
                log.warning("could not write %s event: %s", event["reason"], error)
            elif tries >= MAX_TRIES_PER_EVENT:
                log.error("could not write %s event (retry limit exceeded): %s", event["reason"], error)
            else:
                due = time.monotonic() + self.retry_sleep * (1 + RETRY_JITTER * self._rng.random())
                heapq.heappush(self._retries, (due, next(self._sequence), tries, event))
                log.warning("could not write %s event, trying again in %.0f s: %s", event["reason"],
                            due - time.monotonic(), error)

    def flush(self) -> None:
        """Wait until every queued event was written (or failed)."""
        self.pending.join()
