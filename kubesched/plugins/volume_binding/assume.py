"""The binder's assume cache (kube-scheduler's PV and PVC assume caches): PersistentVolumes and claims as the
cluster holds them, overlaid with the versions Reserve assumed (a PV pre-bound to a claim, a claim with its
selected node) until the cluster's own object changes or Unreserve restores it.

Objects are immutable, so an assumed version remembers the cluster's object it was made from: when the lister
shows another object (the write came back, or anything else changed it), the assumed version is dropped, as
kube-scheduler's cache drops it when a newer resourceVersion arrives."""

from __future__ import annotations

from collections.abc import Iterator

from kubesched.api import PersistentVolume, PersistentVolumeClaim
from kubesched.framework import Handle
from kubesched.plugins.volume_binding.claims import volume_class


class AssumeCache:
    """PVs and claims read through the handle's storage lister, with assumed versions on top."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        #: PV name -> (the cluster's object when assumed, the assumed version).
        self._volumes: dict[str, tuple[PersistentVolume | None, PersistentVolume]] = {}
        #: claim ``namespace/name`` -> (the cluster's object when assumed, the assumed version).
        self._claims: dict[str, tuple[PersistentVolumeClaim | None, PersistentVolumeClaim]] = {}

    # -- reading -------------------------------------------------------------------------------------
    def volume(self, name: str) -> PersistentVolume | None:
        """PV ``name``: the assumed version while the cluster's object is the one it was assumed on."""
        current = self._handle.storage_lister.volume(name)
        entry = self._volumes.get(name)
        if entry is None:
            return current
        if entry[0] is not current:
            del self._volumes[name]
            return current
        return entry[1]

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        """Claim ``namespace/name``: the assumed version while the cluster's object is the one it was assumed on."""
        current = self._handle.storage_lister.claim(namespace, name)
        key = f"{namespace}/{name}"
        entry = self._claims.get(key)
        if entry is None:
            return current
        if entry[0] is not current:
            del self._claims[key]
            return current
        return entry[1]

    def volumes_of_class(self, class_name: str) -> tuple[PersistentVolume, ...]:
        """Every PV of class ``class_name`` (as :func:`~claims.volume_class` reads it), assumed versions included."""
        return tuple(self._resolved(class_name))

    def _resolved(self, class_name: str) -> Iterator[PersistentVolume]:
        for volume in self._handle.storage_lister.volumes():
            entry = self._volumes.get(volume.name)
            shown = entry[1] if entry is not None and entry[0] is volume else volume
            if volume_class(shown) == class_name:
                yield shown

    # -- assuming ------------------------------------------------------------------------------------
    def assume_volume(self, volume: PersistentVolume) -> None:
        """Show ``volume`` instead of the cluster's PV of its name until that changes or :meth:`restore_volume`."""
        self._volumes[volume.name] = (self._handle.storage_lister.volume(volume.name), volume)

    def assume_claim(self, claim: PersistentVolumeClaim) -> None:
        """Show ``claim`` instead of the cluster's claim until that changes or :meth:`restore_claim`."""
        self._claims[claim.key] = (self._handle.storage_lister.claim(claim.namespace, claim.name), claim)

    def restore_volume(self, name: str) -> None:
        """Show the cluster's PV ``name`` again."""
        self._volumes.pop(name, None)

    def restore_claim(self, key: str) -> None:
        """Show the cluster's claim ``namespace/name`` again."""
        self._claims.pop(key, None)

    def is_empty(self) -> bool:
        """Whether nothing is assumed (Unreserve left nothing behind)."""
        return not self._volumes and not self._claims
