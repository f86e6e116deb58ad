"""The storage objects a backend holds (PersistentVolumes, claims, StorageClasses, CSI objects), by kind and name:
what the volume plugins read through ``handle.storage_lister``, kept by the in-memory cluster and by
``kubesched run``'s informers alike."""

from __future__ import annotations

from collections.abc import Callable, Collection

from kubesched.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObject,
)

#: ``listener(old, new)``: a storage object was added (old None), changed, or deleted (new None).
StorageListener = Callable[[StorageObject | None, StorageObject | None], None]


def storage_key(obj: StorageObject) -> tuple[str, str]:
    """The object's kind and ``namespace/name`` (``name`` for a cluster-scoped one)."""
    meta = obj.metadata
    name = f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name
    return type(obj).__name__, name


class StorageStore:
    """Storage objects by kind and name, telling listeners of every change in order."""

    def __init__(self) -> None:
        self._objects: dict[str, dict[str, StorageObject]] = {
            kind.__name__: {} for kind in (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode,
                                           CSIDriver, CSIStorageCapacity)}
        self._listeners: list[StorageListener] = []

    def subscribe(self, listener: StorageListener) -> None:
        """Tell ``listener`` of every later change."""
        self._listeners.append(listener)

    def put(self, obj: StorageObject) -> StorageObject | None:
        """Add or replace ``obj``; returns the object it replaced."""
        kind, name = storage_key(obj)
        objects = self._objects[kind]
        old = objects.get(name)
        objects[name] = obj
        for listener in self._listeners:
            listener(old, obj)
        return old

    def delete(self, obj: StorageObject) -> StorageObject | None:
        """Remove the object of ``obj``'s kind and name; returns it, or None when there was none."""
        kind, name = storage_key(obj)
        old = self._objects[kind].pop(name, None)
        if old is not None:
            for listener in self._listeners:
                listener(old, None)
        return old

    def _get(self, kind: type, name: str) -> object:
        return self._objects[kind.__name__].get(name)

    # -- the StorageLister protocol ------------------------------------------------------------------------------
    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        """PersistentVolumeClaim ``namespace/name``, or None."""
        found = self._get(PersistentVolumeClaim, f"{namespace}/{name}")
        return found if isinstance(found, PersistentVolumeClaim) else None

    def claims(self) -> Collection[PersistentVolumeClaim]:
        """Every claim."""
        return self._objects[PersistentVolumeClaim.__name__].values()  # type: ignore[return-value]

    def volume(self, name: str) -> PersistentVolume | None:
        """PersistentVolume ``name``, or None."""
        found = self._get(PersistentVolume, name)
        return found if isinstance(found, PersistentVolume) else None

    def volumes(self) -> Collection[PersistentVolume]:
        """Every PersistentVolume."""
        return self._objects[PersistentVolume.__name__].values()  # type: ignore[return-value]

    def storage_class(self, name: str) -> StorageClass | None:
        """StorageClass ``name``, or None."""
        found = self._get(StorageClass, name)
        return found if isinstance(found, StorageClass) else None

    def storage_classes(self) -> Collection[StorageClass]:
        """Every StorageClass."""
        return self._objects[StorageClass.__name__].values()  # type: ignore[return-value]

    def csi_node(self, name: str) -> CSINode | None:
        """The CSINode of node ``name``, or None."""
        found = self._get(CSINode, name)
        return found if isinstance(found, CSINode) else None

    def csi_nodes(self) -> Collection[CSINode]:
        """Every CSINode."""
        return self._objects[CSINode.__name__].values()  # type: ignore[return-value]

    def csi_driver(self, name: str) -> CSIDriver | None:
        """CSIDriver ``name``, or None."""
        found = self._get(CSIDriver, name)
        return found if isinstance(found, CSIDriver) else None

    def capacities(self) -> Collection[CSIStorageCapacity]:
        """Every CSIStorageCapacity."""
        return self._objects[CSIStorageCapacity.__name__].values()  # type: ignore[return-value]

    def is_empty(self) -> bool:
        """Whether the store holds no object at all (the volume plugins then have nothing to read)."""
        return not any(self._objects.values())
