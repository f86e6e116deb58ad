"""An events.k8s.io/v1 recorder: kube-scheduler's events (reasons, notes, actions), written off the loop.

Events are best effort, as client-go's recorder makes them: a background thread posts them, and a failure is
logged, never retried into the scheduling loop.
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
from datetime import UTC, datetime
from urllib.parse import quote

from kubesched.api.pod import Pod
from kubesched.kube.rest import ApiError, KubeApi, Obj

log = logging.getLogger(__name__)

REPORTING_CONTROLLER = "kubesched"
#: kube-scheduler's action per reason (its recorder's ``action`` argument).
ACTIONS = {"Scheduled": "Binding", "FailedScheduling": "Scheduling", "Preempted": "Preempting"}
MAX_QUEUED = 10_000
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

    def __init__(self, api: KubeApi, instance: str) -> None:
        super().__init__(name="event-recorder", daemon=True)
        self.api = api
        self.instance = instance
        self.pending: queue.Queue[Obj] = queue.Queue(MAX_QUEUED)

    def record(self, regarding: Pod, event_type: str, reason: str, note: str) -> None:
        """Queue an event (dropped, with a log line, when the queue is full)."""
        try:
            self.pending.put_nowait(event_object(regarding, event_type, reason, note, self.instance))
        except queue.Full:
            log.warning("event queue full: dropped %s event about %s", reason, regarding.key)

    def run(self) -> None:
        """Write queued events for ever."""
        while True:
            event = self.pending.get()
            namespace = event["metadata"]["namespace"]
            try:
                self.api.request("POST", f"/apis/events.k8s.io/v1/namespaces/{quote(namespace)}/events", body=event)
            except ApiError as error:
                log.warning("could not write %s event: %s", event["reason"], error)
            finally:
                self.pending.task_done()

    def flush(self) -> None:
        """Wait until every queued event was written (or failed)."""
        self.pending.join()
