"""What a controller and the manager that runs it know of each other: two protocols and the settings.

The controllers depend on this module (and :mod:`~kubesched.sim.controllers.base`) only; manager.py implements
:class:`ControllerHost` and imports every controller, so the imports go one way: host, base, the controllers, then
the manager at the top.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import attrs

from kubesched.api.apps import Workload
from kubesched.api.meta import ObjectMeta, OwnerReference
from kubesched.api.pod import Pod, PodCondition
from kubesched.sim.agenda import VirtualClock
from kubesched.sim.cluster import InMemoryCluster


@attrs.frozen
class ControllerSettings:
    """How the simulated controllers behave: the delay between a change and the controller's reaction, and how
    long a Job's pod runs when its template has no ``kubesched.io/duration`` annotation (seconds)."""

    controller_delay: float = 1.0
    job_duration: float = 60.0


class Reconciler(Protocol):
    """What the host asks of a controller: its identity, its reconcile loop and its reactions."""

    kind: str
    metadata: ObjectMeta
    deleted: bool

    @property
    def regarding(self) -> tuple[str, str, str]:
        """The controller's object in events: kind, namespace, name."""

    def record_event(self, event_type: str, reason: str, message: str) -> None:
        """Record an event about the controller's object now."""

    def owner_reference(self) -> OwnerReference:
        """The ownerReference its pods (or owned workloads) carry."""

    def created_message(self, pod: Pod) -> str:
        """The SuccessfulCreate event's message for ``pod``."""

    def failed_create_message(self, pod: Pod, error: str) -> str:
        """The FailedCreate event's message when ``pod`` could not be created."""

    def sync(self) -> None:
        """Reconcile."""

    def delete(self) -> None:
        """The workload is deleted, with what it owns."""

    def on_owned_pod_change(self, old: Pod | None, new: Pod | None) -> None:
        """One of its pods appeared, changed or went."""


class ControllerHost(Protocol):
    """What a controller asks of the manager running it: the cluster and clock, identities, its pods, the other
    controllers, and syncs after the controller delay."""

    @property
    def cluster(self) -> InMemoryCluster:
        """The in-memory cluster the controllers act on."""

    @property
    def clock(self) -> VirtualClock:
        """The simulation's clock."""

    @property
    def settings(self) -> ControllerSettings:
        """How the controllers behave."""

    @property
    def controllers(self) -> Mapping[str, Reconciler]:
        """The running controllers by workload uid."""

    def children(self, owner_uid: str) -> list[Reconciler]:
        """The running controllers whose controlling owner is ``owner_uid``, in the order they were added."""

    def new_uid(self) -> str:
        """A fresh uid."""

    def generate_name(self, namespace: str, prefix: str) -> str:
        """``prefix`` plus a random suffix no live pod of ``namespace`` has."""

    def owned_pods(self, owner_uid: str) -> list[Pod]:
        """The live pods whose controller is ``owner_uid``, by creation then name."""

    def create_pod(self, pod: Pod, controller: Reconciler) -> Pod | None:
        """Admit and create ``pod`` for ``controller`` (None when admission refuses it)."""

    def delete_pod(self, pod: Pod, message: str, controller: Reconciler,
                   condition: PodCondition | None = None) -> None:
        """Delete ``pod`` gracefully for ``controller``."""

    def queue(self, controller: Reconciler, delay: float | None = None, *, background: bool = False,
              earlier: bool = False) -> None:
        """Sync ``controller`` after ``delay`` (the controller delay by default); a ``background`` sync does not
        keep a run going; ``earlier`` moves a pending sync due later."""

    def add(self, workload: Workload, *, owner: Reconciler | None = None) -> Reconciler:
        """Start the controller of ``workload``, owned by ``owner``."""

    def remove(self, controller: Reconciler) -> None:
        """Delete a workload and stop its controller."""
