"""Reflectors: list then watch one resource from its resourceVersion, as client-go's informers do.

Each reflector runs in its own thread and only produces: a :class:`Replace` after every (re)list and a
:class:`Delta` per watch event, into one queue the scheduling loop drains, so every store and the scheduler are
touched by that loop alone. A dropped watch resumes from the last resourceVersion after a backoff; a 410 Gone
(the version was compacted away) relists, and the Replace lets the loop see what changed meanwhile.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Mapping

import attrs

from kubesched.kube.rest import ApiError, KubeApi, Obj

log = logging.getLogger(__name__)

WATCH_TIMEOUT_SECONDS = 300
LIST_PAGE = 500
INITIAL_BACKOFF = 0.8
MAX_BACKOFF = 30.0


@attrs.frozen
class Resource:
    """A resource to mirror: its kind (the object's ``kind``, missing from list items), list path, selectors."""

    kind: str
    path: str
    params: Mapping[str, str] = attrs.field(factory=dict)


#: What the scheduler and the shipped plugins read. Terminated pods are never listed (kube-scheduler's pod
#: informer has the same field selector), so a pod that finishes arrives as a deletion.
RESOURCES: tuple[Resource, ...] = (
    Resource("Node", "/api/v1/nodes"),
    Resource("Namespace", "/api/v1/namespaces"),
    Resource("PriorityClass", "/apis/scheduling.k8s.io/v1/priorityclasses"),
    Resource("PodDisruptionBudget", "/apis/policy/v1/poddisruptionbudgets"),
    Resource("Service", "/api/v1/services"),
    Resource("ReplicaSet", "/apis/apps/v1/replicasets"),
    Resource("StatefulSet", "/apis/apps/v1/statefulsets"),
    Resource("ReplicationController", "/api/v1/replicationcontrollers"),
    Resource("Pod", "/api/v1/pods", {"fieldSelector": "status.phase!=Succeeded,status.phase!=Failed"}),
    Resource("PersistentVolume", "/api/v1/persistentvolumes"),
    Resource("PersistentVolumeClaim", "/api/v1/persistentvolumeclaims"),
    Resource("StorageClass", "/apis/storage.k8s.io/v1/storageclasses"),
    Resource("CSINode", "/apis/storage.k8s.io/v1/csinodes"),
    Resource("CSIDriver", "/apis/storage.k8s.io/v1/csidrivers"),
    Resource("CSIStorageCapacity", "/apis/storage.k8s.io/v1/csistoragecapacities"),
)


@attrs.frozen
class Replace:
    """The full list of a kind after a (re)list: the loop diffs it against its store."""

    kind: str
    items: list[Obj]


@attrs.frozen
class Delta:
    """One watch event: ADDED, MODIFIED or DELETED."""

    kind: str
    type: str
    obj: Obj


class Reflector(threading.Thread):
    """Keeps one resource mirrored into ``sink``; stops when ``stopping`` is set."""

    def __init__(self, api: KubeApi, resource: Resource, sink: queue.Queue[Replace | Delta],
                 stopping: threading.Event) -> None:
        super().__init__(name=f"reflector-{resource.kind}", daemon=True)
        self.api = api
        self.resource = resource
        self.sink = sink
        self.stopping = stopping
        #: Times this reflector listed (1 after the initial list; more after 410 Gone or a failed list).
        self.lists = 0
        self.synced = threading.Event()

    def _list(self) -> str:
        items: list[Obj] = []
        params: dict[str, object] = {**self.resource.params, "limit": LIST_PAGE}
        while True:
            page = self.api.get(self.resource.path, **params)
            items.extend({**item, "kind": self.resource.kind} for item in page.get("items") or ())
            meta = page.get("metadata") or {}
            if not meta.get("continue"):
                break
            params["continue"] = meta["continue"]
        self.sink.put(Replace(self.resource.kind, items))
        self.lists += 1
        self.synced.set()
        return str(meta.get("resourceVersion", ""))

    def _watch(self, version: str) -> str:
        """Watch from ``version`` until the server ends the watch; return the last version seen."""
        params = {**self.resource.params, "resourceVersion": version, "allowWatchBookmarks": "true",
                  "timeoutSeconds": WATCH_TIMEOUT_SECONDS}
        for event in self.api.watch(self.resource.path, params, read_timeout=WATCH_TIMEOUT_SECONDS + 30):
            kind, obj = event.get("type"), event.get("object") or {}
            if kind == "ERROR":
                raise ApiError(int(obj.get("code", 0)), str(obj.get("reason", "")), str(obj.get("message", "")))
            version = str((obj.get("metadata") or {}).get("resourceVersion", version))
            if kind in ("ADDED", "MODIFIED", "DELETED"):
                self.sink.put(Delta(self.resource.kind, str(kind), {**obj, "kind": self.resource.kind}))
            if self.stopping.is_set():
                break
        return version

    def run(self) -> None:
        """List, then watch for ever: resume after drops, relist after 410 Gone, back off on failures."""
        backoff = INITIAL_BACKOFF
        version = ""
        while not self.stopping.is_set():
            try:
                if not version:
                    version = self._list()
                version = self._watch(version)
                backoff = INITIAL_BACKOFF
                continue
            except ApiError as error:
                if error.status == 410:
                    log.info("%s: watch expired (410 Gone): relisting", self.resource.kind)
                    version = ""
                    continue
                log.warning("%s: list/watch failed, retrying in %.1f s: %s", self.resource.kind, backoff, error)
            except ValueError as error:  # a garbled stream: start over from a fresh list
                log.warning("%s: unreadable watch stream, relisting: %s", self.resource.kind, error)
                version = ""
            self.stopping.wait(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)
